/*
 * The flows driver (flows.h) and bn_run: build the model, generate the
 * workload's flows, run them through the engine, check that every flow
 * completed and the ledger balances, collect the results.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "driver/flows/flows.h"
#include "flow/hybrid.h"

static void flows_complete(void *self, uint32_t cookie, enum bn_completion_side side,
                           bn_time_t when)
{
    struct bn_flows *fl = self;
    struct bn_flow_state *fs = &fl->fstate[cookie];
    if (side == BN_COMPLETE_RX) {
        fs->rx_done = when; /* its last message's, in the end */
        if (--fs->msgs_rx_left == 0)
            bn_flow_gates_signal(fl, cookie, false, when);
    } else if (--fs->msgs_left == 0) {
        fs->tx_done = when;
        fl->flows_done++;
        bn_flow_gates_signal(fl, cookie, true, when);
    }
}

/* Its queue pair gave up (retries exhausted): the flow has failed. */
static void flows_qp_error(void *self, uint32_t qpid, bn_time_t when)
{
    struct bn_flows *fl = self;
    struct bn_flow_state *fs = &fl->fstate[fl->qp_flow[qpid]];
    if (fs->failed == BN_TIME_NEVER && fs->tx_done == BN_TIME_NEVER) {
        fs->failed = when;
        fs->failed_why = fl->s->nics.qp[qpid].failed;
        fl->flows_failed++;
        bn_flow_gates_dead(fl, fl->qp_flow[qpid], when);
    }
}

static inline uint32_t path_slot(uint16_t id)
{
    return (uint32_t)((id * 0x9e37u) >> 9) & (BN_PATHS_SLOTS - 1u);
}

/* Count the path of each data packet that reaches its receiver. */
static void flows_arrival(void *self, uint32_t qpid, const struct bn_packet *pk)
{
    struct bn_flows *fl = self;
    struct bn_path_hist *h = &fl->fstate[fl->qp_flow[qpid]].paths;
    if (h->n && h->path[h->last].id == pk->path) {
        h->path[h->last].count++;
        return;
    }
    uint32_t i = path_slot(pk->path);
    for (; h->slot[i]; i = (i + 1) & (BN_PATHS_SLOTS - 1u)) {
        uint32_t e = h->slot[i] - 1u;
        if (h->path[e].id == pk->path) {
            h->path[e].count++;
            h->last = e;
            return;
        }
    }
    if (h->n < BN_PATHS_MAX) { /* a new path; past BN_PATHS_MAX, not counted */
        h->slot[i] = (uint8_t)(h->n + 1);
        h->path[h->n].id = pk->path;
        h->path[h->n].count = 1;
        h->last = h->n++;
    }
}

/* The path counts a data packet's arrival will touch. */
static void flows_prefetch(const void *self, const struct bn_packet *pk)
{
    const struct bn_flows *fl = self;
    const struct bn_path_hist *h = &fl->fstate[fl->qp_flow[pk->qp]].paths;
    __builtin_prefetch(h, 1);
    /* a memoized flow keeps one path: its count is found first try, on
     * h's line, without the index */
    if (!fl->s->sw.memo_on)
        __builtin_prefetch(&h->slot[path_slot(pk->path)], 1);
}

static int start_flow(struct bn_flows *fl, uint32_t flow, struct bn_error *err)
{
    struct bn_sim *s = fl->s;
    const struct bn_flow_spec *f = &fl->flows.flows[flow];
    uint32_t qp = bn_qp_create(&s->nics, f->src, f->dst);
    enum bn_verb verb = s->sc->workload.verb == BN_SC_SEND ? BN_VERB_SEND : BN_VERB_WRITE;
    if (qp == BN_NONE)
        return bn_fail(err, BN_ENOMEM, "out of memory starting flow %u", flow);
    /* its bytes as workload.messages messages, the remainder on the first */
    uint32_t k = s->sc->workload.messages;
    uint64_t each = f->bytes / k, first = f->bytes - each * (k - 1);
    int rc = 0;
    fl->fstate[flow].msgs_left = fl->fstate[flow].msgs_rx_left = k;
    for (uint32_t i = 0; i < k && rc == 0; i++)
        rc = bn_qp_post(&s->nics, qp, i ? each : first, verb, flow);
    if (rc == -2)
        return bn_fail(err, BN_EINPUT, "flow %u: %llu bytes exceed the 2^32 packets of a queue pair",
                       flow, (unsigned long long)f->bytes);
    if (rc != 0)
        return bn_fail(err, BN_ENOMEM, "out of memory starting flow %u", flow);
    fl->fstate[flow].qp = qp;
    fl->qp_flow[qp] = flow;
    return BN_OK;
}

static int flows_start(struct bn_sim *s, void *self, struct bn_error *err)
{
    struct bn_flows *fl = self;
    fl->flows_here = 0;
    for (uint32_t i = 0; i < fl->flows.n; i++) {
        fl->flows_here += bn_sim_here(s, fl->flows.flows[i].src);
        fl->fstate[i] = (struct bn_flow_state){.qp = BN_NONE, .rx_done = BN_TIME_NEVER,
                                               .tx_done = BN_TIME_NEVER,
                                               .failed = BN_TIME_NEVER};
        if (fl->flows.flows[i].gate == BN_NO_TRIGGER)
            bn_fabric_schedule(&s->fab, fl->flows.flows[i].start, BN_EV_APP, i, BN_FLOWS_START);
    }
    int rc = bn_flow_gates_init(fl, err);
    return rc == BN_OK ? bn_flows_series_init(fl, err) : rc;
}

static int flows_event(struct bn_sim *s, void *self, const struct bn_event *ev,
                       struct bn_error *err)
{
    (void)s;
    struct bn_flows *fl = self;
    return ev->arg == BN_FLOWS_START ? start_flow(fl, ev->obj, err)
                                     : bn_flows_series_sample(fl, err);
}

/* On ranks, this process's part: the flows its hosts send. */
static bool flows_done(const void *self)
{
    const struct bn_flows *fl = self;
    return fl->flows_done + fl->flows_failed == fl->flows_here;
}

static void flows_progress(const void *self, uint32_t *done, uint32_t *total)
{
    const struct bn_flows *fl = self;
    *done = fl->flows_done + fl->flows_failed;
    *total = fl->flows.n;
}

/* In-order packets taken by every flow's receiver, and flows done. */
static uint64_t flows_work_mark(const void *self)
{
    const struct bn_flows *fl = self;
    uint64_t mark = fl->flows_done + fl->flows_failed;
    for (uint32_t i = 0; i < fl->flows.n; i++)
        if (fl->fstate[i].qp != BN_NONE)
            mark += fl->s->nics.qp[fl->fstate[i].qp].rcv_nxt;
    return mark;
}

/* On ranks: the samples each part took, and its flows done at the last;
 * once every part took it, the next sample is scheduled if the flows of
 * all parts are not done, as one process decides at the sample. */
static void flows_ranks_state(const void *self, uint64_t out[2])
{
    const struct bn_flows *fl = self;
    out[0] = fl->samples_taken;
    out[1] = fl->sample_done;
}

static bn_time_t flows_ranks_sync(void *self, const uint64_t (*all)[2], uint32_t n)
{
    struct bn_flows *fl = self;
    if (fl->series.interval_us <= 0 || fl->sample_decided == fl->samples_taken)
        return BN_TIME_NEVER;
    uint64_t done = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (all[k][0] != fl->samples_taken)
            return BN_TIME_NEVER; /* a paused part has not taken it yet */
        done += all[k][1];
    }
    fl->sample_decided = fl->samples_taken;
    if (done >= fl->flows.n)
        return BN_TIME_NEVER;
    return bn_flows_series_next(fl);
}

static const struct bn_driver_ranks_ops flows_ranks = {
    .state = flows_ranks_state,
    .sync = flows_ranks_sync,
    .app_everywhere = true,
};

static const struct bn_driver_ops flows_driver = {
    .name = "flows",
    .start = flows_start,
    .event = flows_event,
    .complete = flows_complete,
    .arrival = flows_arrival,
    .done = flows_done,
    .progress = flows_progress,
    .prefetch = flows_prefetch,
    .qp_error = flows_qp_error,
    .work_mark = flows_work_mark,
    .ranks = &flows_ranks,
};

static void flows_free(struct bn_flows *fl)
{
    bn_flow_gates_free(&fl->gates);
    free(fl->host_leaf);
    free(fl->fstate);
    free(fl->qp_flow);
    bn_series_free(&fl->series);
    bn_flows_links_free(fl);
    bn_flow_list_free(&fl->flows);
}

/* The hosts' leaves and link rate, for the generators. */
static int workload_hosts(struct bn_flows *fl, struct bn_error *err)
{
    const struct bn_sim *s = fl->s;
    uint32_t n = s->topo.nhosts;
    fl->host_leaf = malloc(((size_t)n + 1) * sizeof *fl->host_leaf);
    if (!fl->host_leaf)
        return bn_fail(err, BN_ENOMEM, "out of memory for %u hosts", n);
    for (uint32_t h = 0; h < n; h++)
        fl->host_leaf[h] = s->host_route[h].leaf;
    fl->hosts = (struct bn_wl_hosts){n, n ? (double)s->fab.ports[s->host_port[0]].rate_bps : 0,
                                     fl->host_leaf, s->topo.file_host, s->topo.nfile_ids};
    return BN_OK;
}

static int run_flows(struct bn_sim *s, struct bn_flows *fl, const struct bn_run_opts *opts,
                     double t0, struct bn_results *out, struct bn_error *err)
{
    fl->s = s;
    int rc = workload_hosts(fl, err);
    if (rc == BN_OK)
        rc = bn_scenario_locate(s->sc, bn_workload_generate_on(s->sc, &fl->hosts, &fl->flows, err),
                                err);
    if (rc == BN_OK) {
        fl->fstate = calloc(fl->flows.n + 1, sizeof *fl->fstate);
        fl->qp_flow = calloc(fl->flows.n + 1, sizeof *fl->qp_flow);
        if (!fl->fstate || !fl->qp_flow)
            rc = bn_fail(err, BN_ENOMEM, "out of memory for %u flows", fl->flows.n);
    }
    s->nics.record_lat = true; /* each message's latency, for its percentiles */
    bool ranked = opts && opts->ranks;
    if (rc == BN_OK && ranked)
        rc = bn_flows_ranks_bind(fl, opts->ranks, err);
    if (rc == BN_OK)
        rc = bn_sim_attach(s, &flows_driver, fl, err);
    if (ranked)
        rc = bn_ranks_agree(opts->ranks, rc, err);
    if (rc == BN_OK) {
        double t_setup = bn_wall_now();
        out->setup_s = t_setup - t0;
        rc = bn_sim_loop(s, opts, t0, err);
        out->wall_s = bn_wall_now() - t_setup;
    }
    if (rc == BN_OK && ranked)
        rc = bn_flows_ranks_gather(fl, err);
    rc = bn_ranks_check_ledger(s, ranked ? opts->ranks : NULL, rc, err);
    if (rc != BN_OK || !bn_sim_reports(s))
        return rc; /* on ranks, rank 0 reports */
    if (rc == BN_OK && !s->stopped_early && !flows_done(fl))
        rc = bn_fail(err, BN_EINTERNAL, "only %u of %u flows completed (%u failed), yet no event "
                     "is left", fl->flows_done, fl->flows.n, fl->flows_failed);
    if (rc == BN_OK) {
        out->events = s->events;
        bn_partition_report(s, &out->partition);
        bn_hybrid_get_stats(s->flow, &out->hybrid);
        rc = bn_flows_collect(fl, out, err);
    }
    return rc;
}

static int run_once(const struct bn_scenario *sc, const struct bn_run_opts *opts,
                    struct bn_results *out, struct bn_error *err)
{
    double t0 = bn_wall_now();
    struct bn_sim s;
    struct bn_flows fl = {0};
    int rc = bn_sim_build_ranks(&s, sc, opts ? opts->ranks : NULL, err);
    if (rc == BN_OK)
        rc = run_flows(&s, &fl, opts, t0, out, err);
    flows_free(&fl);
    bn_sim_free(&s);
    return rc;
}

/* With faults, the same run without them: what the faults cost. */
static int baseline(const struct bn_scenario *sc, struct bn_results *out, struct bn_error *err)
{
    struct bn_scenario *clean = malloc(sizeof *clean);
    struct bn_results base;
    memset(&base, 0, sizeof base);
    if (!clean)
        return bn_fail(err, BN_ENOMEM, "out of memory for the baseline run");
    *clean = *sc;
    clean->nfaults = 0;
    int rc = run_once(clean, NULL, &base, err);
    if (rc == BN_OK) {
        out->baseline_makespan_us = base.makespan_us;
        out->slowdown = base.makespan_us > 0 && out->flows_failed == 0
                            ? out->makespan_us / base.makespan_us
                            : -1;
    }
    bn_results_free(&base);
    free(clean);
    return rc;
}

int bn_run(const struct bn_scenario *sc, const struct bn_run_opts *opts, struct bn_results *out,
           struct bn_error *err)
{
    memset(out, 0, sizeof *out);
    struct bn_scenario *with = NULL; /* the flow file's failures added */
    const struct bn_ranks *ranks = opts ? opts->ranks : NULL;
    int rc = bn_check_memory_ranks(sc, BN_EST_RUN, ranks, err);
    if (rc == BN_OK)
        rc = bn_flow_file_faults(sc, &with, err);
    if (rc != BN_OK)
        return rc;
    const struct bn_scenario *use = with ? with : sc;
    rc = run_once(use, opts, out, err);
    if (rc == BN_OK)
        rc = bn_provenance_keep(&out->prov, sc, err);
    if (rc == BN_OK && use->nfaults > 0 && use->routing.baseline && !out->interrupted)
        rc = baseline(use, out, err);
    free(with);
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        out->peak_rss_bytes = (uint64_t)ru.ru_maxrss * 1024;
    if (rc != BN_OK)
        bn_results_free(out);
    return rc;
}
