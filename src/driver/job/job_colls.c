/*
 * A job's collectives: each communicator's shape (its ranks per server,
 * whether it lies in one NVLink domain), the tuner's choice for a task
 * (or coll.algo when it can run it), its schedule lowered once per shape
 * and size and shared by every communicator of that shape, and the tuner's
 * time for the collectives the model times instead of the fabric.
 */
#include <stdlib.h>
#include <string.h>

#include "core/where.h"
#include "driver/coll/coll.h"
#include "driver/job/job.h"

/* A job's communicators run on 2 channels unless coll.channels sets them:
 * NCCL sizes each communicator's channels to its own GPUs and NICs, which
 * jobs do not model yet (docs/jobs.md). */
#define JOB_CHANNELS 2

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Members per server of a communicator (hosts host[0..n)): the length of
 * its runs of consecutive members on one server, if all runs are equal
 * and no server holds two runs; else 1. */
static uint32_t group_gps(const struct bn_sim *s, const uint32_t *host, uint32_t n)
{
    uint32_t gps = s->sc->topology.gpus_per_server, run = 1, len = 0;
    for (uint32_t i = 1; i <= n; i++) {
        if (i < n && host[i] / gps == host[i - 1] / gps) {
            run++;
            continue;
        }
        if (len && run != len)
            return 1;
        len = run;
        run = 1;
    }
    if (len <= 1 || n % len)
        return 1;
    uint32_t runs = n / len, *server = malloc((size_t)runs * sizeof *server);
    if (!server)
        return 1; /* spread: the model is then only less precise */
    for (uint32_t r = 0; r < runs; r++)
        server[r] = host[r * len] / gps;
    qsort(server, runs, sizeof *server, cmp_u32);
    uint32_t ok = len;
    for (uint32_t r = 1; r < runs && ok > 1; r++)
        if (server[r] == server[r - 1])
            ok = 1; /* a server's members must be one run */
    free(server);
    return ok;
}

static bool one_domain(const struct bn_sim *s, const uint32_t *host, uint32_t n)
{
    if (!s->topo.nscaleup)
        return false;
    for (uint32_t i = 1; i < n; i++)
        if (bn_topo_domain(&s->topo, host[i]) != bn_topo_domain(&s->topo, host[0]))
            return false;
    return true;
}

int bn_jobs_prepare_comms(struct bn_jobs_exec *x, struct bn_job_rt *jr, struct bn_error *err)
{
    const struct bn_job_graph *g = &jr->g;
    jr->comm_host = malloc(((size_t)g->nmembers + 1) * sizeof *jr->comm_host);
    jr->comm_gps = malloc(((size_t)g->ncomms + 1) * sizeof *jr->comm_gps);
    jr->comm_modelled = malloc(((size_t)g->ncomms + 1) * sizeof *jr->comm_modelled);
    if (!jr->comm_host || !jr->comm_gps || !jr->comm_modelled)
        return bn_fail(err, BN_ENOMEM, "out of memory for a job's communicators");
    for (uint32_t i = 0; i < g->nmembers; i++)
        jr->comm_host[i] = jr->host[g->comm_rank[i]];
    for (uint32_t c = 0; c < g->ncomms; c++) {
        const uint32_t *h = &jr->comm_host[g->comm_off[c]];
        uint32_t n = g->comm_off[c + 1] - g->comm_off[c];
        jr->comm_gps[c] = group_gps(x->s, h, n);
        jr->comm_modelled[c] = jr->j->scaleup == BN_SC_SCALEUP_MODEL && one_domain(x->s, h, n);
    }
    return BN_OK;
}

static bool cut_in_blocks(uint8_t op)
{
    return op == BN_COLL_REDUCESCATTER || op == BN_COLL_ALLGATHER || op == BN_COLL_ALLTOALL;
}

/* The collective's parameters: its bytes rounded up to whole elements
 * (whole blocks where the buffer is cut per rank). */
static struct bn_coll_params params_of(const struct bn_jobs_exec *x, const struct bn_job_rt *jr,
                                       const struct bn_task *t)
{
    const struct bn_scenario *sc = x->s->sc;
    uint32_t n = jr->g.comm_off[t->comm + 1] - jr->g.comm_off[t->comm];
    uint32_t tb = bn_job_dtype_bytes(t->dim == BN_DIM_DP ? jr->j->grad_dtype : jr->j->dtype);
    uint64_t unit = (uint64_t)tb * (cut_in_blocks(t->op) ? n : 1);
    uint64_t bytes = (t->bytes + unit - 1) / unit * unit;
    return (struct bn_coll_params){
        .kind = (enum bn_coll_kind)t->op, .nranks = n, .bytes = bytes ? bytes : unit,
        .type_bytes = tb, .channels = sc->coll.channels ? sc->coll.channels : JOB_CHANNELS,
        .slice_bytes = sc->coll.slice_bytes,
        .gpus_per_server = jr->comm_gps[t->comm], .algo_keys = sc->algo,
    };
}

/* coll.algo when it can run p, else the tuner's pick. In aggregate
 * (`bulk`: coll.aggregate, on the fabric) among the algorithms with an aggregate form, when one
 * runs p; a collective none does (AllToAll: one transfer per pair
 * already) runs its stepwise schedule. */
static const struct bn_coll_algo_ops *choose(const struct bn_jobs_exec *x,
                                             const struct bn_coll_params *p,
                                             const struct bn_coll_cost *c, double *pred,
                                             bool bulk)
{
    const struct bn_scenario *sc = x->s->sc;
    if (sc->coll.algo) {
        const struct bn_coll_algo_ops *a = bn_coll_algo_at(sc->coll.algo - 1u);
        if (a && (!bulk || a->bulk) && a->supports(p) && bn_coll_predict(a, p, c, pred))
            return a;
    }
    const struct bn_coll_algo_ops *a = bulk ? bn_coll_tune_bulk(p, c, pred) : NULL;
    return a ? a : bn_coll_tune(p, c, pred);
}

/* The tuner's figures for a group: NVLink only when it lies in one domain. */
static struct bn_coll_cost cost_for(const struct bn_jobs_exec *x, const struct bn_coll_params *p,
                                    bool one)
{
    struct bn_coll_cost c = x->cost;
    c.domain_gpus = one ? p->nranks : (c.domain_gpus ? p->gpus_per_server : 0);
    return c;
}

const char *bn_jobs_algo(struct bn_jobs_exec *x, const struct bn_job_rt *jr,
                         const struct bn_task *t)
{
    if (t->kind != BN_TASK_COLL || !jr->j->network)
        return "";
    struct bn_coll_params p = params_of(x, jr, t);
    if (jr->comm_modelled[t->comm]) {
        struct bn_coll_cost c = cost_for(x, &p, true);
        double us = 0;
        const struct bn_coll_algo_ops *a = p.nranks > 1 ? choose(x, &p, &c, &us, false) : NULL;
        return a ? a->name : "";
    }
    const struct bn_job_sched *js = p.nranks > 1 ? bn_jobs_sched(x, jr, t, x->err) : NULL;
    return js ? js->algo : "";
}

double bn_jobs_model_us(const struct bn_jobs_exec *x, const struct bn_job_rt *jr,
                        const struct bn_task *t)
{
    if (!jr->j->network)
        return 0;
    if (t->kind != BN_TASK_COLL || !jr->comm_modelled[t->comm])
        return -1;
    struct bn_coll_params p = params_of(x, jr, t);
    if (p.nranks < 2)
        return 0;
    struct bn_coll_cost c = cost_for(x, &p, true);
    double us = 0;
    return choose(x, &p, &c, &us, false) ? us : -1;
}

const struct bn_job_sched *bn_jobs_sched(struct bn_jobs_exec *x, const struct bn_job_rt *jr,
                                         const struct bn_task *t, struct bn_error *err)
{
    struct bn_coll_params p = params_of(x, jr, t);
    for (uint32_t i = 0; i < x->nscheds; i++) {
        const struct bn_job_sched *js = x->scheds[i];
        if (js->op == p.kind && js->nranks == p.nranks && js->bytes == p.bytes &&
            js->type_bytes == p.type_bytes && js->gps == p.gpus_per_server)
            return js;
    }
    if (x->nscheds == x->scheds_cap) {
        uint32_t cap = x->scheds_cap ? 2 * x->scheds_cap : 16;
        struct bn_job_sched **ns = realloc(x->scheds, cap * sizeof *ns);
        if (!ns) {
            bn_fail(err, BN_ENOMEM, "out of memory for a job's collective schedules");
            return NULL;
        }
        x->scheds = ns;
        x->scheds_cap = cap;
    }
    struct bn_job_sched *js = calloc(1, sizeof *js);
    if (!js) {
        bn_fail(err, BN_ENOMEM, "out of memory for a job's collective schedules");
        return NULL;
    }
    struct bn_coll_cost c = cost_for(x, &p, false);
    double pred = 0;
    const struct bn_coll_algo_ops *algo = choose(x, &p, &c, &pred, x->s->sc->coll.aggregate);
    if (!algo) {
        free(js);
        bn_fail(err, BN_EINPUT, "%s: key 'jobs[%u]': no algorithm runs %s on %u ranks",
                BN_WHERE_ITEM(x->s->sc, "jobs[].kind", jr->index), jr->index,
                bn_coll_kind_name(p.kind), p.nranks);
        return NULL;
    }
    int rc = bn_sched_init(&js->sched, &p, err);
    if (rc == BN_OK)
        rc = x->s->sc->coll.aggregate && algo->bulk ? algo->bulk(&js->sched, err)
                                                    : algo->build(&js->sched, err);
    if (rc == BN_OK)
        rc = bn_sched_finish(&js->sched, err);
    if (rc != BN_OK) {
        bn_sched_free(&js->sched);
        free(js);
        return NULL;
    }
    js->op = (uint8_t)p.kind;
    js->nranks = p.nranks;
    js->bytes = p.bytes;
    js->type_bytes = p.type_bytes;
    js->gps = p.gpus_per_server;
    snprintf(js->algo, sizeof js->algo, "%s", algo->name);
    x->scheds[x->nscheds++] = js;
    return js;
}

void bn_jobs_scheds_free(struct bn_jobs_exec *x)
{
    for (uint32_t i = 0; i < x->nscheds; i++) {
        bn_sched_free(&x->scheds[i]->sched);
        free(x->scheds[i]);
    }
    free(x->scheds);
    x->scheds = NULL;
    x->nscheds = x->scheds_cap = 0;
}
