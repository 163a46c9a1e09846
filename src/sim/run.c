/*
 * The event loop: pop the earliest event, set the clock, dispatch it to the
 * layer that owns its object, until every flow has completed and no frame is
 * left in the fabric (or sim.max_time_us). At the end the packet ledger must balance
 * (injected = delivered + dropped + in flight) and, unless the run was cut
 * short by sim.max_time_us, every flow must have completed.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "sim/sim.h"

double bn_wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void on_complete(void *ud, uint32_t cookie, enum bn_completion_side side, bn_time_t when)
{
    struct bn_sim *s = ud;
    struct bn_flow_state *fs = &s->fstate[cookie];
    if (side == BN_COMPLETE_RX) {
        fs->rx_done = when;
    } else {
        fs->tx_done = when;
        s->flows_done++;
    }
}

static inline uint32_t path_slot(uint16_t id)
{
    return (uint32_t)((id * 0x9e37u) >> 9) & (BN_PATHS_SLOTS - 1u);
}

/* Count the path of each data packet that reaches its receiver. */
static void on_arrival(void *ud, uint32_t qpid, const struct bn_packet *pk)
{
    struct bn_sim *s = ud;
    struct bn_path_hist *h = &s->fstate[s->qp_flow[qpid]].paths;
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

static int start_flow(struct bn_sim *s, uint32_t flow, struct bn_error *err)
{
    const struct bn_flow_spec *fl = &s->flows.flows[flow];
    uint32_t qp = bn_qp_create(&s->nics, fl->src, fl->dst);
    enum bn_verb verb = strcmp(s->sc->workload.verb, "send") == 0 ? BN_VERB_SEND : BN_VERB_WRITE;
    if (qp == BN_NONE)
        return bn_fail(err, BN_ENOMEM, "out of memory starting flow %u", flow);
    int rc = bn_qp_post(&s->nics, qp, fl->bytes, verb, flow);
    if (rc == -2)
        return bn_fail(err, BN_EINPUT, "flow %u: %llu bytes exceed the 2^32 packets of a queue pair",
                       flow, (unsigned long long)fl->bytes);
    if (rc != 0)
        return bn_fail(err, BN_ENOMEM, "out of memory starting flow %u", flow);
    s->fstate[flow].qp = qp;
    s->qp_flow[qp] = flow;
    return BN_OK;
}

static int dispatch(struct bn_sim *s, const struct bn_event *ev, struct bn_error *err)
{
    struct bn_fabric *f = &s->fab;
    switch (ev->kind) {
    case BN_EV_PORT_FREE: {
        struct bn_port *port = &f->ports[ev->obj];
        port->flags &= (uint8_t)~BN_PORT_WAKE_PENDING;
        if (!bn_port_idle(f, port)) /* a frame started at this very instant */
            bn_port_want_wake(f, ev->obj);
        else if (f->fcs && bn_port_send_control(f, ev->obj)) /* PFC frames only */
            bn_port_want_wake(f, ev->obj); /* data may be waiting behind it */
        else if (port->flags & BN_PORT_AT_HOST)
            bn_nic_kick(&s->nics, bn_nic_of_port(&s->nics, ev->obj));
        else
            bn_port_send_next(f, ev->obj);
        return BN_OK;
    }
    case BN_EV_ARRIVE:
        bn_switch_receive(f, &s->sw, ev->obj, ev->arg);
        return BN_OK;
    case BN_EV_ARRIVE_HOST:
        bn_nic_receive(&s->nics, bn_nic_of_port(&s->nics, ev->obj), ev->arg);
        return BN_OK;
    case BN_EV_ARRIVE_TAIL:
        bn_port_enqueue(f, ev->obj, ev->arg);
        return BN_OK;
    case BN_EV_RTO:
        bn_nic_rto_event(&s->nics, ev->obj);
        return BN_OK;
    case BN_EV_FLOW_START:
        return start_flow(s, ev->obj, err);
    case BN_EV_QP_PACE:
        bn_nic_pace_event(&s->nics, ev->obj);
        return BN_OK;
    case BN_EV_CC_TIMER:
        bn_nic_cc_timer_event(&s->nics, ev->obj);
        return BN_OK;
    case BN_EV_SAMPLE:
        return bn_sim_observe_sample(s, err);
    case BN_EV_APP:
        return s->app_event(s->app, ev, err);
    case BN_EV_FC_SIGNAL:
        f->fc->on_signal(f, ev->obj, ev->arg & 3u, ev->arg >> 2);
        if ((f->ports[ev->obj].flags & BN_PORT_AT_HOST) || !bn_pktq_empty(&f->ports[ev->obj].q))
            bn_port_want_wake(f, ev->obj); /* only a port with work waits for credit or resume */
        return BN_OK;
    default:
        return bn_fail(err, BN_EINTERNAL, "unknown event kind %u", ev->kind);
    }
}

static void report_progress(const struct bn_sim *s, const struct bn_run_opts *opts, double t0)
{
    struct bn_progress p = {
        .simulated_us = bn_time_to_us(s->fab.now),
        .wall_s = bn_wall_now() - t0,
        .events = s->events,
        .packet_hops = s->fab.packet_hops,
        .flows_done = s->flows_done,
        .flows_total = s->flows.n,
    };
    opts->progress(opts->progress_ud, &p);
}

/* A queue pair's first two lines (its ids, sequence numbers and pacing),
 * and what its transport will touch for `pk` (NULL: a send). */
static inline void prefetch_qp(struct bn_nics *n, uint32_t qpid, const struct bn_packet *pk)
{
    if (qpid == BN_NONE)
        return;
    const char *qp = (const char *)&n->qp[qpid];
    __builtin_prefetch(qp, 1);
    __builtin_prefetch(qp + 64, 1);
    if (n->tp->prefetch)
        n->tp->prefetch(n, qpid, pk);
}

/* The NIC of port p, if p is a host's (its node a host): its port queue
 * and list of active queue pairs. (A host's NVLink port has a NIC of its
 * own; the hint names the backend one.) */
static inline void prefetch_nic(const struct bn_sim *s, uint32_t p)
{
    uint32_t node = s->fab.port_node[p];
    if (node < s->nics.nhosts)
        __builtin_prefetch(&s->nics.nic[node]);
}

/* Start loading what the coming events will touch while this one runs:
 * the flat arrays outgrow the caches on large fabrics, and the coming
 * events are known, in order (bn_evq_peek_ahead). A pipeline in three
 * stages: far ahead, the event's port and packet (at a host, its NIC
 * too); nearer, for an arriving packet, the path memo it will read at its
 * first switch or, without memos, its routing-table entry; nearest, when
 * those are at hand, what they lead to: the egress port a
 * switch will forward an arriving packet to, when that can be told in
 * advance (bn_switch_predict_egress: a path memo, or the lookup), or the
 * frame a freed port will send; at a NIC, the queue pair a packet arrives
 * for or the NIC will serve (with its transport's state). Without the
 * middle stage the prediction waited on the memo's line: a tenth of an
 * 8192-host run's time. */
/* Distances. With two stages (2026-12-03), of 4/2, 5/2, 6/1, 6/3, 7/2,
 * 8/3, 10/4, 12/3 none was better than 6/2; the middle stage then went at
 * 4 (of 3, 4, 5). Measured again with the three (second 2026-12-04 session,
 * sequential medians, 8192 hosts cut at 150 us, ns/hop): 6/4/2 217 ECMP,
 * 243 sprayed; 8/5/3 211, 238; 7/5/3 208, 232; 10/6/3 198, 223 (1024
 * hosts 0.97, 0.98); 12/7/3 205, 218 (1024 sprayed 1.06); 12/8/4 232;
 * 14/9/4 243; 10/6/4 230 sprayed. A stage waits on the one before it
 * (memory here answers in about 150 ns, an event takes about 130), so
 * each needs two or three events' lead. */
enum { PREFETCH_FAR = 10, PREFETCH_MID = 6, PREFETCH_NEAR = 3 };
static inline void prefetch_ahead(struct bn_sim *s)
{
    struct bn_fabric *f = &s->fab;
    const struct bn_evq_entry *far = bn_evq_peek_ahead(&f->evq, PREFETCH_FAR);
    if (far && far->kind == BN_EV_ARRIVE) {
        if (!s->sw.memo_on) /* the lookup's switch; a memoized path needs none */
            __builtin_prefetch(&f->port_node[far->obj]);
        __builtin_prefetch(&f->pool.pkts[far->arg]);
    } else if (far && far->kind == BN_EV_ARRIVE_HOST) { /* the ACK it prompts leaves there */
        __builtin_prefetch(&f->ports[far->obj]);
        prefetch_nic(s, far->obj);
        __builtin_prefetch(&f->pool.pkts[far->arg]);
    } else if (far && far->kind == BN_EV_PORT_FREE) {
        __builtin_prefetch(&f->ports[far->obj]);
        if (far->arg < s->nics.nhosts) /* its node (bn_port_want_wake): a host's NIC */
            __builtin_prefetch(&s->nics.nic[far->arg]);
    }
    const struct bn_evq_entry *mid = bn_evq_peek_ahead(&f->evq, PREFETCH_MID);
    if (mid && mid->kind == BN_EV_ARRIVE) {
        const struct bn_packet *pk = &f->pool.pkts[mid->arg];
        const void *line = s->sw.memo_on
                               ? bn_switch_memo_line(&s->sw, pk)
                               : bn_switch_route_line(&s->sw, f->port_node[mid->obj], pk);
        if (line)
            __builtin_prefetch(line);
    }
    const struct bn_evq_entry *near = bn_evq_peek_ahead(&f->evq, PREFETCH_NEAR);
    if (!near)
        return;
    if (near->kind == BN_EV_PORT_FREE) {
        const struct bn_port *port = &f->ports[near->obj];
        uint32_t head = port->q.head;
        if (head != BN_PKT_NONE)
            __builtin_prefetch(&f->pool.pkts[head]);
        else if (port->flags & BN_PORT_AT_HOST) /* the queue pair the NIC will serve */
            prefetch_qp(&s->nics, s->nics.nic[bn_nic_of_port(&s->nics, near->obj)].active_head,
                        NULL);
    } else if (near->kind == BN_EV_ARRIVE_HOST) { /* its queue pair, and its flow's path counts */
        struct bn_packet *pk = &f->pool.pkts[near->arg];
        prefetch_qp(&s->nics, pk->qp, pk);
        if (s->nics.on_arrival == on_arrival && pk->type == BN_PKT_DATA) {
            struct bn_path_hist *h = &s->fstate[s->qp_flow[pk->qp]].paths;
            __builtin_prefetch(h, 1);
            /* a memoized flow keeps one path: its count is found first
             * try, on h's line, without the index */
            if (!s->sw.memo_on)
                __builtin_prefetch(&h->slot[path_slot(pk->path)], 1);
        }
    } else if (near->kind == BN_EV_ARRIVE) {
        uint32_t out = bn_switch_predict_egress(&s->sw, near->obj, &f->pool.pkts[near->arg]);
        if (out != UINT32_MAX)
            __builtin_prefetch(&f->ports[out]);
    }
}

/* Prefetching pays once the per-port, per-flow and per-event state outgrows
 * the caches; below that it only costs instructions (measured: without it
 * the 128-host permutation is 0.86 of the time and the cluster128 sweep
 * takes 11 % fewer instructions, 432 hosts 0.96, while 1024 hosts, 6144
 * ports, take 1.08). */
enum { PREFETCH_MIN_PORTS = 4096 };
/* Writing the event queue's pushes behind (bn_evq_hide_latency) pays
 * later: the wheel's blocks stay cached longer than the ports and packets
 * do (measured, paired: 8192 hosts, 49 k ports, 0.89 of the time; 3456
 * hosts, 21 k ports, 0.99; 1024 hosts, 6 k ports, 1.07, slower). */
enum { WRITE_BEHIND_MIN_PORTS = 32768 };
static bool latency_hiding_wanted(const struct bn_sim *s, uint32_t min_ports)
{
    const char *mode = s->sc->sim.prefetch;
    if (strcmp(mode, "on") == 0)
        return true;
    if (strcmp(mode, "off") == 0)
        return false;
    return s->fab.nports >= min_ports;
}

/* A queue without a drop limit (a NIC's, an NVSwitch's, a lossless
 * switch's whose flow control did not hold it) passed what a port holds. */
static int queue_overflow(const struct bn_sim *s, struct bn_error *err)
{
    char name[96];
    bn_topo_port_name(&s->topo, s->fab.queue_overflow - 1, name, sizeof name);
    return bn_fail(err, BN_EINPUT,
                   "%s: the queue of port %s would pass 4 GiB at t=%.3f us, more than a port "
                   "holds; check switch.buffer_bytes and the flow-control settings",
                   s->sc->source, name, bn_time_to_us(s->fab.now));
}

static bool work_done(const struct bn_sim *s)
{
    return s->app ? s->app_done(s->app) : s->flows_done == s->flows.n;
}

int bn_sim_loop(struct bn_sim *s, const struct bn_run_opts *opts, double t0, struct bn_error *err)
{
    bn_time_t stop = s->sc->sim.max_time_us > 0 ? bn_time_from_us(s->sc->sim.max_time_us)
                                                : BN_TIME_NEVER;
    struct bn_event ev;
    bool prefetch = latency_hiding_wanted(s, PREFETCH_MIN_PORTS);
    bn_evq_hide_latency(&s->fab.evq, latency_hiding_wanted(s, WRITE_BEHIND_MIN_PORTS));
    while (bn_evq_pop(&s->fab.evq, &ev)) {
        if (ev.time > stop) {
            s->stopped_early = true;
            s->fab.now = stop;
            break;
        }
        if (ev.time < s->fab.now)
            return bn_fail(err, BN_EINTERNAL, "event at %lld ps scheduled in the past (now %lld ps)",
                           (long long)ev.time, (long long)s->fab.now);
        s->fab.now = ev.time;
        if (prefetch)
            prefetch_ahead(s);
        int rc = dispatch(s, &ev, err);
        if (rc != BN_OK)
            return rc;
        if (s->fab.time_overflow)
            return bn_fail(err, BN_EINPUT,
                           "%s: simulated time would pass %.0f s; check link rates and message sizes",
                           s->sc->source, (double)BN_TIME_LIMIT / BN_PS_PER_S);
        if (s->fab.oom && s->fab.evq.past)
            return bn_fail(err, BN_EINTERNAL, "an event was scheduled in the past (now %lld ps)",
                           (long long)s->fab.now);
        if (s->fab.oom)
            return bn_fail(err, BN_ENOMEM, "out of memory for packets or events at t=%.3f us",
                           bn_time_to_us(s->fab.now));
        if (s->fab.queue_overflow)
            return queue_overflow(s, err);
        if ((++s->events & 0x3ffff) == 0) {
            if (opts && opts->progress)
                report_progress(s, opts, t0);
            /* A fabric that has delivered nothing for a simulated second
             * is stuck (a lost wake-up, a closed window); say so. */
            if (s->fab.now - s->fab.last_delivery > BN_PS_PER_S)
                return bn_fail(err, BN_EINTERNAL,
                               "no packet delivered since %.3f us (now %.3f us): the fabric is stuck",
                               bn_time_to_us(s->fab.last_delivery), bn_time_to_us(s->fab.now));
        }
        /* All work done and no frame left: what remains are timers
         * (retransmission, congestion control) that would only lapse. */
        if (s->fab.pool.in_use == 0 && work_done(s))
            break;
    }
    if (s->fab.evq.failed)
        return bn_fail(err, BN_ENOMEM, "out of memory for events at t=%.3f us",
                       bn_time_to_us(s->fab.now));
    return BN_OK;
}

int bn_sim_check_ledger(const struct bn_sim *s, struct bn_error *err)
{
    const struct bn_fabric *f = &s->fab;
    uint64_t in_flight = f->pool.in_use;
    if (f->pkts_injected != f->pkts_delivered + f->pkts_dropped + in_flight)
        return bn_fail(err, BN_EINTERNAL,
                       "packet conservation violated: injected %llu != delivered %llu + "
                       "dropped %llu + in flight %llu",
                       (unsigned long long)f->pkts_injected, (unsigned long long)f->pkts_delivered,
                       (unsigned long long)f->pkts_dropped, (unsigned long long)in_flight);
    if (f->fc->lossless && (f->pkts_dropped || f->lossless_overflows))
        return bn_fail(err, BN_EINTERNAL,
                       "lossless fabric (%s) lost frames: %llu dropped, %llu beyond a buffer's "
                       "headroom",
                       f->fc->name, (unsigned long long)f->pkts_dropped,
                       (unsigned long long)f->lossless_overflows);
    if (s->stopped_early)
        return BN_OK;
    if (in_flight != 0)
        return bn_fail(err, BN_EINTERNAL, "%llu packets left in the fabric after the run",
                       (unsigned long long)in_flight);
    if (s->app && !work_done(s))
        return bn_fail(err, BN_EINTERNAL, "the collective did not complete, yet no event is left");
    if (!work_done(s))
        return bn_fail(err, BN_EINTERNAL, "only %u of %u flows completed, yet no event is left",
                       s->flows_done, s->flows.n);
    return BN_OK;
}

int bn_run(const struct bn_scenario *sc, const struct bn_run_opts *opts, struct bn_results *out,
           struct bn_error *err)
{
    memset(out, 0, sizeof *out);
    double t0 = bn_wall_now();
    struct bn_sim s;
    int rc = bn_sim_build(&s, sc, err);
    if (rc == BN_OK)
        rc = bn_workload_generate(sc, s.topo.nhosts, &s.flows, err);
    if (rc == BN_OK) {
        s.fstate = calloc(s.flows.n + 1, sizeof *s.fstate);
        s.qp_flow = calloc(s.flows.n + 1, sizeof *s.qp_flow);
        if (!s.fstate || !s.qp_flow)
            rc = bn_fail(err, BN_ENOMEM, "out of memory for %u flows", s.flows.n);
    }
    if (rc == BN_OK) {
        s.nics.on_complete = on_complete;
        s.nics.on_arrival = on_arrival;
        s.nics.ud = &s;
        for (uint32_t i = 0; i < s.flows.n; i++) {
            s.fstate[i] = (struct bn_flow_state){.qp = BN_NONE, .rx_done = BN_TIME_NEVER,
                                                 .tx_done = BN_TIME_NEVER};
            bn_fabric_schedule(&s.fab, s.flows.flows[i].start, BN_EV_FLOW_START, i, 0);
        }
        rc = bn_sim_observe_init(&s, err);
    }
    if (rc == BN_OK) {
        double t_setup = bn_wall_now();
        out->setup_s = t_setup - t0;
        rc = bn_sim_loop(&s, opts, t0, err);
        out->wall_s = bn_wall_now() - t_setup;
    }
    if (rc == BN_OK)
        rc = bn_sim_check_ledger(&s, err);
    if (rc == BN_OK) {
        out->events = s.events;
        rc = bn_sim_collect(&s, out, err);
    }
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        out->peak_rss_bytes = (uint64_t)ru.ru_maxrss * 1024;
    bn_sim_free(&s);
    if (rc != BN_OK)
        bn_results_free(out);
    return rc;
}

int bn_describe_topology(const struct bn_scenario *sc, struct bn_topo_info *out,
                         struct bn_error *err)
{
    struct bn_sim s;
    int rc = bn_sim_build(&s, sc, err);
    if (rc == BN_OK)
        bn_sim_topo_info(&s, out);
    bn_sim_free(&s);
    return rc;
}
