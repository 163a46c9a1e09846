/*
 * bn_job_run: the scenario's jobs built (graphs, placement, background
 * flows), run together on one fabric, and their results; a job with
 * `alone` runs again by itself on the same fabric and hosts for its
 * slowdown.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/rng.h"
#include "core/where.h"
#include "driver/coll/coll.h"
#include "driver/flows/flows.h"
#include "driver/job/job.h"
#include "flow/hybrid.h"

const char *bn_job_span_dim(uint8_t dim) { return bn_job_dim_name((enum bn_job_dim)dim); }
const char *bn_job_span_phase(uint8_t phase) { return bn_job_phase_name((enum bn_job_phase)phase); }
const char *bn_job_span_op(uint8_t op) { return bn_coll_kind_name((enum bn_coll_kind)op); }

/* Background flows over the job's hosts. */
static int make_flows(const struct bn_scenario *sc, struct bn_job_rt *jr, struct bn_error *err)
{
    uint32_t n = jr->g.nranks;
    uint64_t nf = jr->j->pattern == BN_SC_PAT_ALL_TO_ALL ? (uint64_t)n * (n - 1) : n - 1;
    if (jr->j->pattern == BN_SC_PAT_PERMUTATION)
        nf = n;
    if (nf > 1000000)
        return bn_fail(err, BN_EINPUT, "%s: key 'jobs[%u].pattern': %llu flows over %u hosts "
                       "(at most 1000000)", BN_WHERE_ITEM(sc, "jobs[].pattern", jr->index),
                       jr->index, (unsigned long long)nf, n);
    jr->flow = malloc((nf + 1) * sizeof *jr->flow);
    if (!jr->flow)
        return bn_fail(err, BN_ENOMEM, "out of memory for background flows");
    const uint32_t *h = jr->host;
    if (jr->j->pattern == BN_SC_PAT_PERMUTATION) {
        /* Sattolo's algorithm: a random cycle through every host, so no
         * host sends to itself (drawn from the seed) */
        uint32_t *to = malloc(((size_t)n + 1) * sizeof *to);
        if (!to)
            return bn_fail(err, BN_ENOMEM, "out of memory for background flows");
        struct bn_rng rng;
        bn_rng_init(&rng, sc->seed, 0x62670000ULL + jr->index);
        for (uint32_t i = 0; i < n; i++)
            to[i] = i;
        for (uint32_t i = n - 1; i > 0; i--) {
            uint32_t k = (uint32_t)bn_rng_below(&rng, i), tmp = to[i];
            to[i] = to[k];
            to[k] = tmp;
        }
        for (uint32_t i = 0; i < n; i++) {
            jr->flow[i][0] = h[i];
            jr->flow[i][1] = h[to[i]];
        }
        free(to);
    } else if (jr->j->pattern == BN_SC_PAT_INCAST) {
        for (uint32_t i = 1; i < n; i++) {
            jr->flow[i - 1][0] = h[i];
            jr->flow[i - 1][1] = h[0];
        }
    } else {
        uint64_t f = 0;
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t k = 0; k < n; k++)
                if (i != k) {
                    jr->flow[f][0] = h[i];
                    jr->flow[f++][1] = h[k];
                }
    }
    jr->nflows = (uint32_t)nf;
    return BN_OK;
}

/* A job's graph: from its model keys; background: its hosts only. */
static int build_job(const struct bn_scenario *sc, uint32_t k, uint32_t hosts,
                     struct bn_job_rt *jr, struct bn_error *err)
{
    const struct bn_scenario_job *j = &sc->jobs[k];
    jr->j = j;
    jr->index = k;
    if (j->name[0])
        snprintf(jr->name, sizeof jr->name, "%s", j->name);
    else
        snprintf(jr->name, sizeof jr->name, "job%u", k);
    if (j->kind == BN_SC_JOB_BACKGROUND) {
        if (j->gpus < 2)
            return bn_fail(err, BN_EINPUT, "%s: key 'jobs[%u].gpus': background traffic needs "
                           "2 hosts or more", BN_WHERE_ITEM(sc, "jobs[].gpus", k), k);
        jr->g.nranks = j->gpus;
        return BN_OK;
    }
    int rc;
    if (j->workload_file[0] && j->kind == BN_SC_JOB_INFERENCE)
        return bn_fail(err, BN_EINPUT, "%s: key 'jobs[%u].workload_file': a workload file holds "
                       "a training iteration (kind: training)",
                       BN_WHERE_ITEM(sc, "jobs[].workload_file", k), k);
    if (j->workload_file[0]) {
        rc = bn_job_is_chakra(j->workload_file)
                 ? bn_job_build_chakra(sc, k, hosts, &jr->g, &jr->m, err)
                 : bn_job_build_aicb(sc, k, hosts, &jr->g, &jr->m, err);
    } else {
        rc = bn_job_model(sc, k, &jr->m, err);
        if (rc == BN_OK)
            rc = bn_job_build_transformer(j, &jr->m, &jr->g, err);
    }
    rc = bn_scenario_locate(sc, rc, err); /* the job layer names the key; here, where */
    if (rc == BN_OK)
        rc = bn_jg_finish(&jr->g, err);
    return rc;
}

static int alloc_run(struct bn_job_rt *jr, struct bn_error *err)
{
    size_t n = (size_t)jr->g.ntasks + 1;
    jr->waiting = malloc(n * sizeof *jr->waiting);
    jr->t_start = malloc(n * sizeof *jr->t_start);
    jr->dur = calloc(n, sizeof *jr->dur);
    jr->left = calloc(n, sizeof *jr->left);
    jr->unit_compute = calloc((size_t)jr->g.nunits + 1, sizeof *jr->unit_compute);
    if (!jr->waiting || !jr->t_start || !jr->dur || !jr->left || !jr->unit_compute)
        return bn_fail(err, BN_ENOMEM, "out of memory for a job of %u tasks", jr->g.ntasks);
    return BN_OK;
}

static void free_rt(struct bn_job_rt *jr)
{
    bn_jg_free(&jr->g);
    free(jr->host);
    free(jr->comm_host);
    free(jr->comm_gps);
    free(jr->comm_modelled);
    free(jr->waiting);
    free(jr->t_start);
    free(jr->dur);
    free(jr->left);
    free(jr->unit_compute);
    free(jr->flow);
}

/* Static figures of a job's result: its shape and where it runs. */
static int describe(const struct bn_job_rt *jr, struct bn_job_result *r, struct bn_error *err)
{
    snprintf(r->name, sizeof r->name, "%s", jr->name);
    const char *kind = bn_scenario_choice("jobs[].kind", jr->j->kind);
    snprintf(r->kind, sizeof r->kind, "%s", kind ? kind : "?");
    r->decodes = jr->j->kind == BN_SC_JOB_INFERENCE;
    r->traffic = jr->j->kind == BN_SC_JOB_BACKGROUND;
    r->gpus = jr->g.nranks;
    r->tp = jr->m.tp;
    r->cp = jr->m.cp;
    r->pp = jr->m.pp;
    r->dp = jr->m.dp;
    r->ep = jr->m.ep;
    r->micro_batches = jr->m.micro;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t i = 0; i < jr->g.nranks; i++) {
        lo = jr->host[i] < lo ? jr->host[i] : lo;
        hi = jr->host[i] > hi ? jr->host[i] : hi;
    }
    r->first_host = jr->g.nranks ? jr->host[0] : 0;
    r->hosts_span = jr->g.nranks ? hi - lo + 1 : 0;
    for (uint32_t d = 1; d < BN_DIM_NDIMS; d++)
        snprintf(r->dims[d - 1].dim, sizeof r->dims[0].dim, "%s",
                 bn_job_dim_name((enum bn_job_dim)d));
    r->ndims = BN_DIM_NDIMS - 1;
    r->nunits = jr->g.nunits;
    r->unit_first = malloc(((size_t)r->nunits + 1) * sizeof *r->unit_first);
    r->unit_ranks = malloc(((size_t)r->nunits + 1) * sizeof *r->unit_ranks);
    if (!r->unit_first || !r->unit_ranks)
        return bn_fail(err, BN_ENOMEM, "out of memory for a job's results");
    for (uint32_t u = 0; u < r->nunits; u++) {
        r->unit_first[u] = jr->g.unit_rank[jr->g.unit_off[u]];
        r->unit_ranks[u] = jr->g.unit_off[u + 1] - jr->g.unit_off[u];
    }
    return BN_OK;
}

/* Sums to means, and the figures derived from them. */
static void finish_result(const struct bn_job_rt *jr, struct bn_job_result *r)
{
    double it = r->iterations ? r->iterations : 1;
    if (jr->j->kind == BN_SC_JOB_BACKGROUND) {
        double us = r->end_us - r->start_us;
        r->goodput_gbps = us > 0 ? (double)r->bytes_done * 8 / (us * 1e3) : 0;
        return;
    }
    r->iteration_us /= it;
    r->compute_us /= it;
    r->no_comm_us /= it;
    r->exposed_comm_us = r->iteration_us - r->no_comm_us;
    r->bubble_us = r->no_comm_us - r->compute_us;
    r->prefill_us /= it;
    r->decode_us /= it;
    r->decode_network_us /= it;
    if (r->decode_us > 0)
        r->tokens_per_s = (double)jr->j->micro_batch * jr->m.dp / (r->decode_us * 1e-6);
    for (uint32_t d = 0; d < r->ndims; d++) {
        r->dims[d].count = (uint64_t)(r->dims[d].count / it);
        r->dims[d].bytes = (uint64_t)(r->dims[d].bytes / it);
        r->dims[d].busy_us /= it;
        r->dims[d].exposed_us /= it;
    }
    for (uint32_t c = 0; c < r->ncolls; c++) {
        struct bn_job_coll_row *row = &r->colls[c];
        row->mean_us /= (double)row->count;
        row->count = (uint64_t)(row->count / it);
        enum bn_coll_kind k;
        double factor = bn_coll_kind_find(row->op, &k) == BN_OK
                            ? bn_coll_busbw_factor(k, row->ranks) : 1;
        row->busbw_gbs = row->mean_us > 0 ? row->bytes / (row->mean_us * 1e3) * factor : 0;
    }
}

/* Bytes sent on backend ports and on NVLink ports. */
static void port_bytes(const struct bn_sim *s, struct bn_job_results *out)
{
    const struct bn_topo *t = &s->topo;
    for (uint32_t p = 0; p < s->fab.nports; p++) {
        uint32_t node = t->ports[p].node;
        bool nv = (t->nscaleup && node >= t->scaleup_first &&
                   node < t->scaleup_first + t->nscaleup) ||
                  (node < t->nhosts && s->host_nvlink && p == s->host_nvlink[node]);
        if (nv)
            out->nvlink_tx_bytes += s->fab.ports[p].tx_bytes;
        else
            out->backend_tx_bytes += s->fab.ports[p].tx_bytes;
    }
}

/* One run: every job (only = UINT32_MAX) or job `only` alone on the same
 * hosts. Fills out->jobs (allocated by the caller). */
static int run_once(const struct bn_scenario *sc, uint32_t only, bool trace,
                    const struct bn_ranks *ranks, struct bn_job_results *out,
                    struct bn_error *err)
{
    struct bn_sim *s = calloc(1, sizeof *s);
    struct bn_job_rt *jobs = calloc(sc->njobs, sizeof *jobs);
    if (!s || !jobs) {
        free(s);
        free(jobs);
        return bn_fail(err, BN_ENOMEM, "out of memory");
    }
    struct bn_jobs_exec x = {.s = s, .jobs = jobs, .out = out, .trace = trace, .ranks = ranks};
    int rc = bn_sim_build_ranks(s, sc, ranks, err);
    for (uint32_t k = 0; k < sc->njobs && rc == BN_OK; k++)
        rc = build_job(sc, k, s->topo.nhosts, &jobs[k], err);
    if (rc == BN_OK)
        rc = bn_jobs_place(s, jobs, sc->njobs, err);
    uint32_t region_job = bn_hybrid_job(s->flow); /* hybrid: a job's hosts as the region */
    if (rc == BN_OK && region_job < sc->njobs)
        rc = bn_sim_hybrid_place_job(s, jobs[region_job].host, jobs[region_job].g.nranks, err);
    if (rc == BN_OK)
        bn_coll_cost_of(s, &x.cost);
    uint32_t base = 0;
    for (uint32_t k = 0; k < sc->njobs && rc == BN_OK; k++) {
        struct bn_job_rt *jr = &jobs[k];
        jr->res = &out->jobs[k];
        jr->base = base;
        base += jr->g.ntasks;
        rc = describe(jr, jr->res, err);
        if (rc == BN_OK)
            rc = bn_jobs_prepare_comms(&x, jr, err);
        if (rc == BN_OK)
            rc = alloc_run(jr, err);
        if (rc == BN_OK && jr->j->kind == BN_SC_JOB_BACKGROUND)
            rc = make_flows(sc, jr, err);
    }
    /* run alone: the other jobs hold their hosts but do nothing */
    struct bn_scenario_job idle = {.iterations = 1};
    for (uint32_t k = 0; k < sc->njobs && rc == BN_OK && only != UINT32_MAX; k++)
        if (k != only) {
            jobs[k].j = &idle;
            jobs[k].g.ntasks = 0;
            jobs[k].nflows = 0;
        }
    x.njobs = sc->njobs;
    bool ran = rc == BN_OK; /* a stop in set-up (routes) leaves the jobs half built */
    if (rc == BN_OK)
        rc = bn_jobs_execute(&x, err);
    out->interrupted = ran && rc == BN_EINTR;
    if (ran && (rc == BN_OK || rc == BN_EINTR)) {
        for (uint32_t k = 0; k < sc->njobs; k++) {
            if (jobs[k].failed) {
                out->jobs[k].failed = true;
                out->jobs[k].failed_us = jobs[k].failed_us;
            }
            if (jobs[k].j->kind == BN_SC_JOB_BACKGROUND)
                out->jobs[k].end_us = bn_time_to_us(s->fab.now);
            finish_result(&jobs[k], &out->jobs[k]);
        }
        bn_sim_topo_info(s, &out->topo);
        out->events = s->events;
        out->packet_hops = s->fab.packet_hops;
        out->pkts_dropped = s->fab.pkts_dropped;
        out->simulated_us = bn_time_to_us(s->fab.now);
        for (uint32_t q = 0; q < s->nics.nqps; q++)
            out->retransmits += s->nics.qp[q].retransmits;
        port_bytes(s, out);
    }
    bn_jobs_scheds_free(&x);
    for (uint32_t k = 0; k < sc->njobs; k++)
        free_rt(&jobs[k]);
    free(jobs);
    bn_sim_free(s);
    free(s);
    return rc;
}

static void free_result(struct bn_job_result *r)
{
    free(r->colls);
    free(r->unit_first);
    free(r->unit_ranks);
}

void bn_job_results_free(struct bn_job_results *r)
{
    for (uint32_t k = 0; r->jobs && k < r->njobs; k++)
        free_result(&r->jobs[k]);
    free(r->jobs);
    free(r->spans);
    free(r->steps);
    bn_provenance_free(&r->prov);
    memset(r, 0, sizeof *r);
}

/* What runs at all: a list of jobs, one of them more than background. */
static int check_jobs(const struct bn_scenario *sc, struct bn_error *err)
{
    if (sc->njobs == 0)
        return bn_fail(err, BN_EINPUT, "%s: key 'jobs': no jobs to run (give a jobs: list; "
                       "docs/jobs.md)", sc->source);
    for (uint32_t k = 0; k < sc->njobs; k++)
        if (sc->jobs[k].kind != BN_SC_JOB_BACKGROUND)
            return BN_OK;
    return bn_fail(err, BN_EINPUT, "%s: key 'jobs[0].kind': only background traffic; it runs "
                   "beside a training or inference job", BN_WHERE_ITEM(sc, "jobs[].kind", 0));
}

/* Job k alone on the same fabric and hosts: its mean iteration. */
static int alone_us(const struct bn_scenario *sc, uint32_t k, const struct bn_ranks *ranks,
                    double *us, struct bn_error *err)
{
    struct bn_job_results tmp = {.njobs = sc->njobs};
    tmp.jobs = calloc(sc->njobs, sizeof *tmp.jobs);
    int rc = tmp.jobs ? run_once(sc, k, false, ranks, &tmp, err)
                      : bn_fail(err, BN_ENOMEM, "out of memory");
    if (rc == BN_OK)
        *us = tmp.jobs[k].iteration_us;
    bn_job_results_free(&tmp);
    return rc;
}

int bn_job_run(const struct bn_scenario *sc, const struct bn_job_opts *opts,
               struct bn_job_results *out, struct bn_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->scenario, sizeof out->scenario, "%s", sc->source);
    double t0 = bn_wall_now();
    int rc = check_jobs(sc, err);
    if (rc == BN_OK)
        rc = bn_check_memory_ranks(sc, BN_EST_JOBS, opts ? opts->ranks : NULL, err);
    if (rc == BN_OK)
        rc = bn_provenance_keep(&out->prov, sc, err);
    if (rc != BN_OK) {
        bn_provenance_free(&out->prov);
        return rc;
    }
    out->jobs = calloc(sc->njobs, sizeof *out->jobs);
    if (!out->jobs)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    out->njobs = sc->njobs;
    rc = run_once(sc, UINT32_MAX, opts && opts->trace, opts ? opts->ranks : NULL, out, err);
    if (rc == BN_EINTR && out->interrupted) /* what finished stands; in set-up: nothing */
        rc = BN_OK;
    for (uint32_t k = 0; k < sc->njobs && rc == BN_OK && !out->interrupted; k++) {
        struct bn_job_result *r = &out->jobs[k];
        if (!sc->jobs[k].alone || sc->jobs[k].kind == BN_SC_JOB_BACKGROUND || r->failed)
            continue;
        rc = alone_us(sc, k, opts ? opts->ranks : NULL, &r->alone_us, err);
        if (rc == BN_EINTR) {
            out->interrupted = true;
            rc = BN_OK;
            break;
        }
        r->slowdown = r->alone_us > 0 ? r->iteration_us / r->alone_us : 0;
    }
    out->wall_s = bn_wall_now() - t0;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        out->peak_rss_bytes = (uint64_t)ru.ru_maxrss * 1024;
    if (rc != BN_OK)
        bn_job_results_free(out);
    return rc;
}
