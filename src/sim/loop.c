/*
 * The event loop: pop the earliest event, set the clock, dispatch it to the
 * layer that owns its object (a driver's own events to the driver), until
 * the driver's work is done and no frame is left in the fabric (or
 * sim.max_time_us). At the end the packet ledger must balance (injected =
 * delivered + dropped + lost to failures + in flight). Like Redis's ae.c, the loop knows none
 * of its clients: drivers come in through struct bn_driver_ops.
 */
#include <time.h>

#include "core/interrupt.h"
#include "core/progress.h"
#include "link/impair.h"
#include "sim/sim.h"

double bn_wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int bn_sim_attach(struct bn_sim *s, const struct bn_driver_ops *ops, void *self,
                  struct bn_error *err)
{
    s->drv = (struct bn_driver){ops, self};
    s->nics.on_complete = ops->complete;
    s->nics.on_arrival = ops->arrival;
    s->nics.on_error = ops->qp_error;
    s->nics.ud = self;
    return ops->start(s, self, err);
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
        else if (bn_port_send_control(f, ev->obj)) /* PFC frames only */
            bn_port_want_wake(f, ev->obj); /* data may be waiting behind it */
        else if (port->flags & BN_PORT_AT_HOST)
            bn_nic_kick(&s->nics, bn_nic_of_port(&s->nics, ev->obj));
        else
            bn_port_send_next(f, ev->obj);
        return BN_OK;
    }
    case BN_EV_ARRIVE:
        if (__builtin_expect(f->impaired, 0) && bn_link_loses(f, ev->obj, ev->arg))
            return BN_OK;
        bn_switch_receive(f, &s->sw, ev->obj, ev->arg);
        return BN_OK;
    case BN_EV_ARRIVE_HOST:
        if (__builtin_expect(f->impaired, 0) && bn_link_loses(f, ev->obj, ev->arg))
            return BN_OK;
        bn_nic_receive(&s->nics, bn_nic_of_port(&s->nics, ev->obj), ev->arg);
        return BN_OK;
    case BN_EV_ARRIVE_TAIL:
        bn_port_enqueue(f, ev->obj, ev->arg);
        return BN_OK;
    case BN_EV_RTO:
        bn_nic_rto_event(&s->nics, ev->obj);
        return BN_OK;
    case BN_EV_QP_PACE:
        bn_nic_pace_event(&s->nics, ev->obj);
        return BN_OK;
    case BN_EV_CC_TIMER:
        bn_nic_cc_timer_event(&s->nics, ev->obj);
        return BN_OK;
    case BN_EV_COMPLETE:
        bn_nic_complete_event(&s->nics, ev->obj, ev->arg);
        return BN_OK;
    case BN_EV_NIC_RX:
        bn_nic_rx_event(&s->nics, ev->obj, ev->arg);
        return BN_OK;
    case BN_EV_APP:
        return s->drv.ops->event(s, s->drv.self, ev, err);
    case BN_EV_FLOW_SOLVE:
    case BN_EV_FLOW_SENT:
    case BN_EV_FLOW_RX:
    case BN_EV_FLOW_ACK:
    case BN_EV_FLOW_START:
    case BN_EV_FLOW_HYBRID:
        return bn_flow_event(s->flow, ev, err);
    case BN_EV_FAULT:
    case BN_EV_ROUTE:
        return bn_faults_event(s->faults, ev, err);
    case BN_EV_FC_SIGNAL:
        if (__builtin_expect(f->impaired, 0) && bn_link_is_down(f, ev->obj))
            return BN_OK; /* lost with its link */
        f->fc->on_signal(f, ev->obj, ev->arg & 3u, ev->arg >> 2);
        if ((f->ports[ev->obj].flags & BN_PORT_AT_HOST) || !bn_pktq_empty(&f->ports[ev->obj].q))
            bn_port_want_wake(f, ev->obj); /* only a port with work waits for credit or resume */
        return BN_OK;
    default:
        return bn_fail(err, BN_EINTERNAL, "unknown event kind %u", ev->kind);
    }
}

/* The driver's share of its work: its units done, or (none counted) the
 * simulated time against sim.max_time_us; -1 if neither is known. */
static double run_share(const struct bn_sim *s, uint32_t done, uint32_t total, bn_time_t stop)
{
    double units = total ? (double)done / total : -1;
    double time = stop != BN_TIME_NEVER && stop > 0 ? (double)s->fab.now / (double)stop : -1;
    return units > time ? units : time;
}

static void report_progress(const struct bn_sim *s, const struct bn_run_opts *opts, double t0,
                            double now, bn_time_t stop)
{
    struct bn_progress p = {
        .simulated_us = bn_time_to_us(s->fab.now),
        .wall_s = now - t0,
        .events = s->events,
        .packet_hops = s->fab.packet_hops,
    };
    if (s->drv.ops->progress)
        s->drv.ops->progress(s->drv.self, &p.flows_done, &p.flows_total);
    if (opts && opts->progress)
        opts->progress(opts->progress_ud, &p);
    struct bn_run_progress rp = {
        .simulated_us = p.simulated_us, .wall_s = p.wall_s, .events = p.events,
        .packet_hops = p.packet_hops, .done = p.flows_done, .total = p.flows_total,
        .share = run_share(s, p.flows_done, p.flows_total, stop),
    };
    bn_progress_report(&rp);
}

/* The wall clock, read every check_every events: the progress report (at
 * most every quarter second) and a stop asked from outside. The interval
 * doubles or halves to keep the reads 50 to 200 ms apart, whatever an
 * event costs (a packet's hop, tens of ns; a flow-level re-solve, up to
 * milliseconds), so a stop is acted on within a fraction of a second and
 * the clock costs nothing measurable. True: stop here. */
enum { CHECK_FIRST = 1024, CHECK_MAX = 1u << 20 };
static bool wall_check(struct bn_sim *s, const struct bn_run_opts *opts, double t0,
                       bn_time_t stop, bool ranked)
{
    double now = bn_wall_now(), dt = now - s->check_wall;
    if (s->check_every == 0)
        s->check_every = CHECK_FIRST, s->report_wall = now;
    else if (dt < 0.05 && s->check_every < CHECK_MAX)
        s->check_every *= 2;
    else if (dt > 0.2 && s->check_every > 1)
        s->check_every /= 2;
    s->check_wall = now;
    s->check_at = s->events + s->check_every;
    if (now - s->report_wall >= 0.25 && ((opts && opts->progress) || bn_progress_watched())) {
        s->report_wall = now;
        report_progress(s, opts, t0, now, stop);
    }
    return !ranked && bn_interrupt_requested(); /* on ranks: at the exchange (ranks.c) */
}

/* Start loading what the coming events will touch while this one runs:
 * the flat arrays outgrow the caches on large fabrics, and the coming
 * events are known, in order (bn_evq_peek_ahead). A pipeline in three
 * stages, each asking the layer that owns the state for its hint: far
 * ahead, the event's port and packet (at a host, its NIC too); nearer, for
 * an arriving packet, what its first switch's routing will read (a path
 * memo or the routing-table entry); nearest, when those are at hand, what
 * they lead to: the egress port a switch will forward an arriving packet
 * to, when that can be told in advance, or the frame a freed port will
 * send; at a NIC, the queue pair a packet arrives for or the NIC will
 * serve (with its transport's state), and what the driver will touch.
 * Each stage needs two or three events' lead over the one before it
 * (distances measured: docs/performance-journal.md, "Prefetch distances"). */
enum { PREFETCH_FAR = 10, PREFETCH_MID = 6, PREFETCH_NEAR = 3 };
static inline void prefetch_ahead(struct bn_sim *s)
{
    struct bn_fabric *f = &s->fab;
    const struct bn_evq_entry *far = bn_evq_peek_ahead(&f->evq, PREFETCH_FAR);
    if (far && far->kind == BN_EV_ARRIVE) {
        bn_switch_prefetch_arrival(&s->sw, f, far->obj);
        bn_pool_prefetch(&f->pool, far->arg);
    } else if (far && far->kind == BN_EV_ARRIVE_HOST) { /* the ACK it prompts leaves there */
        bn_port_prefetch(f, far->obj);
        bn_nic_prefetch_node(&s->nics, f->port_node[far->obj]);
        bn_pool_prefetch(&f->pool, far->arg);
    } else if (far && far->kind == BN_EV_PORT_FREE) {
        bn_port_prefetch(f, far->obj);
        bn_nic_prefetch_node(&s->nics, far->arg); /* its node (bn_port_want_wake): a host's NIC */
    }
    const struct bn_evq_entry *mid = bn_evq_peek_ahead(&f->evq, PREFETCH_MID);
    if (mid && mid->kind == BN_EV_ARRIVE)
        bn_switch_prefetch_route(&s->sw, f, mid->obj, &f->pool.pkts[mid->arg]);
    const struct bn_evq_entry *near = bn_evq_peek_ahead(&f->evq, PREFETCH_NEAR);
    if (!near)
        return;
    if (near->kind == BN_EV_PORT_FREE) {
        if (!bn_port_prefetch_head(f, near->obj) && (f->ports[near->obj].flags & BN_PORT_AT_HOST))
            bn_nic_prefetch_next(&s->nics, near->obj); /* the queue pair the NIC will serve */
    } else if (near->kind == BN_EV_ARRIVE_HOST) { /* its queue pair, and the driver's state */
        const struct bn_packet *pk = &f->pool.pkts[near->arg];
        bn_nic_prefetch_qp(&s->nics, pk->qp, pk);
        if (s->drv.ops->prefetch && pk->type == BN_PKT_DATA)
            s->drv.ops->prefetch(s->drv.self, pk);
    } else if (near->kind == BN_EV_ARRIVE) {
        uint32_t out = bn_switch_predict_egress(&s->sw, near->obj, &f->pool.pkts[near->arg]);
        if (out != UINT32_MAX)
            bn_port_prefetch(f, out);
    }
}

/* Prefetching pays once the per-port, per-flow and per-event state outgrows
 * the caches; below that it only costs instructions. Writing the event
 * queue's pushes behind (bn_evq_hide_latency) pays later still: the wheel's
 * blocks stay cached longer than the ports and packets do. (Both thresholds
 * measured: docs/performance.md, "Thresholds".) */
enum { PREFETCH_MIN_PORTS = 4096, WRITE_BEHIND_MIN_PORTS = 32768 };
static bool latency_hiding_wanted(const struct bn_sim *s, uint32_t min_ports)
{
    if (s->sc->sim.prefetch == BN_SC_PREFETCH_ON)
        return true;
    if (s->sc->sim.prefetch == BN_SC_PREFETCH_OFF)
        return false;
    return s->fab.nports >= min_ports;
}

/* A queue without a drop limit (a NIC's, an NVSwitch's, a lossless
 * switch's whose flow control did not hold it) passed what a port holds. */
static int queue_overflow(const struct bn_sim *s, struct bn_error *err)
{
    char name[BN_TOPO_PORT_NAME_MAX];
    bn_topo_port_name(&s->topo, s->fab.queue_overflow - 1, name, sizeof name);
    return bn_fail(err, BN_EINPUT,
                   "%s: the queue of port %s would pass 4 GiB at t=%.3f us, more than a port "
                   "holds; check switch.buffer_bytes and the flow-control settings",
                   s->sc->source, name, bn_time_to_us(s->fab.now));
}

/* A livelock: frames keep arriving at hosts, yet for sim.stall_us no
 * flow took data in order (go-back-N flows whose drops line up with their
 * retransmissions, every time, in a deterministic fabric without
 * congestion control). Checked with the progress report; the window
 * restarts whenever the work moves on or nothing arrives (timers only). */
static bool stalled(struct bn_sim *s)
{
    if (s->sc->sim.stall_us <= 0 || !s->drv.ops->work_mark)
        return false;
    uint64_t mark = s->drv.ops->work_mark(s->drv.self);
    if (mark != s->stall_mark || s->fab.pkts_delivered == s->stall_delivered) {
        s->stall_mark = mark;
        s->stall_delivered = s->fab.pkts_delivered;
        s->stall_since = s->fab.now;
        return false;
    }
    s->stall_delivered = s->fab.pkts_delivered;
    return s->fab.now - s->stall_since > bn_time_from_us(s->sc->sim.stall_us);
}

static bool work_done(const struct bn_sim *s)
{
    return s->drv.ops->done(s->drv.self);
}

int bn_sim_run_events(struct bn_sim *s, const struct bn_run_opts *opts, double t0, bool windows,
                      bn_time_t end, bn_time_t stop, bool prefetch, bool *over,
                      struct bn_error *err)
{
    struct bn_event ev;
    struct bn_partition *ranked = s->part && s->part->ranks ? s->part : NULL;
    for (;;) {
        if (__builtin_expect(ranked != NULL, 0)) {
            if (ranked->pausing && ranked->idle) {
                ranked->paused = true;
                return BN_OK;
            }
            if (ranked->limited ? !bn_evq_next_upto(&s->fab.evq, ranked->limit.time,
                                                    ranked->limit.kind, ranked->limit.obj)
                                : !bn_evq_next_before(&s->fab.evq, end))
                break;
        } else if (windows && !bn_evq_next_before(&s->fab.evq, end)) {
            break;
        }
        if (!bn_evq_pop(&s->fab.evq, &ev))
            break;
        if (ev.time > stop) {
            if (ranked) { /* the processes stop together (ranks.c) */
                ranked->past_stop = true;
                return BN_OK;
            }
            s->stopped_early = *over = true;
            s->fab.now = stop;
            return BN_OK;
        }
        if (ev.time < s->fab.now)
            return bn_fail(err, BN_EINTERNAL, "event at %lld ps scheduled in the past (now %lld ps)",
                           (long long)ev.time, (long long)s->fab.now);
        s->fab.now = ev.time;
        if (prefetch)
            prefetch_ahead(s);
        if (windows)
            bn_partition_count(s, &ev);
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
        if (__builtin_expect(++s->events >= s->check_at, 0) &&
            wall_check(s, opts, t0, stop, ranked)) { /* what ran so far stands, marked so */
            s->stopped_early = s->interrupted = *over = true;
            return BN_OK;
        }
        if ((s->events & 0x3ffff) == 0) { /* at fixed counts: the same run stops alike */
            if (ranked) /* stalls: at the windows' exchange (ranks.c) */
                ;
            else if (stalled(s)) {
                s->stopped_early = s->stalled = *over = true;
                return BN_OK;
            }
            /* A fabric holding frames that has delivered (or lost to a
             * failure) none of them for a simulated second is stuck (a
             * lost wake-up, a closed window); say so. An empty fabric
             * waiting for work to start is not. */
            if (s->fab.pool.in_use && s->fab.now - s->fab.last_delivery > BN_PS_PER_S)
                return bn_fail(err, BN_EINTERNAL,
                               "no packet delivered since %.3f us (now %.3f us): the fabric is stuck",
                               bn_time_to_us(s->fab.last_delivery), bn_time_to_us(s->fab.now));
        }
        /* All work done and no frame left: what remains are timers
         * (retransmission, congestion control) that would only lapse. */
        if (ranked)
            bn_ranks_after_event(s, &ev);
        else if (s->fab.pool.in_use == 0 && (!windows || s->fab.cut->n == 0) && work_done(s)) {
            *over = true;
            return BN_OK;
        }
    }
    return BN_OK;
}

/* Partitioned: synchronous windows as long as the lookahead, each from
 * the earliest event; what crossed a cut is delivered between them. */
static int run_windows(struct bn_sim *s, const struct bn_run_opts *opts, double t0, bn_time_t stop,
                       bool prefetch, struct bn_error *err)
{
    bool over = false;
    while (!over) {
        if (bn_partition_deliver(s) != 0)
            return bn_fail(err, BN_ENOMEM, "out of memory for events at t=%.3f us",
                           bn_time_to_us(s->fab.now));
        bn_time_t next;
        if (!bn_evq_next_time(&s->fab.evq, &next))
            break;
        bn_time_t end = bn_partition_window(s, next);
        int rc = bn_sim_run_events(s, opts, t0, true, end, stop, prefetch, &over, err);
        if (rc != BN_OK)
            return rc;
        if (s->fab.cut->early)
            return bn_fail(err, BN_EINTERNAL, "a frame crossed a cut within its window: the "
                           "lookahead (%.3f ns) is wrong", (double)s->part->lookahead / 1000.0);
    }
    return BN_OK;
}

int bn_sim_loop(struct bn_sim *s, const struct bn_run_opts *opts, double t0, struct bn_error *err)
{
    bn_time_t stop = s->sc->sim.max_time_us > 0 ? bn_time_from_us(s->sc->sim.max_time_us)
                                                : BN_TIME_NEVER;
    bool prefetch = latency_hiding_wanted(s, PREFETCH_MIN_PORTS), over = false;
    bn_evq_hide_latency(&s->fab.evq, latency_hiding_wanted(s, WRITE_BEHIND_MIN_PORTS));
    int rc;
    if (s->part && s->part->ranks)
        rc = bn_ranks_loop(s, opts, t0, stop, prefetch, err);
    else if (s->part)
        rc = run_windows(s, opts, t0, stop, prefetch, err);
    else
        rc = bn_sim_run_events(s, opts, t0, false, BN_TIME_NEVER, stop, prefetch, &over, err);
    if (rc == BN_OK && s->fab.evq.failed)
        return bn_fail(err, BN_ENOMEM, "out of memory for events at t=%.3f us",
                       bn_time_to_us(s->fab.now));
    return rc;
}

/* Frames held at a cut for the next window: its messages less the
 * flow-control signals (credits, pauses), which are no packets. */
static uint64_t cut_frames(const struct bn_cut *c)
{
    uint64_t n = 0;
    for (uint32_t i = 0; c && i < c->n; i++)
        n += c->msg[i].kind != BN_EV_FC_SIGNAL;
    return n;
}

int bn_sim_check_ledger(const struct bn_sim *s, struct bn_error *err)
{
    const struct bn_fabric *f = &s->fab;
    uint64_t in_flight = f->pool.in_use + cut_frames(f->cut) +
                         (s->part ? s->part->in_flight_elsewhere : 0);
    if (f->pkts_injected != f->pkts_delivered + f->pkts_dropped + f->pkts_lost + in_flight)
        return bn_fail(err, BN_EINTERNAL,
                       "packet conservation violated: injected %llu != delivered %llu + "
                       "dropped %llu + lost %llu + in flight %llu",
                       (unsigned long long)f->pkts_injected, (unsigned long long)f->pkts_delivered,
                       (unsigned long long)f->pkts_dropped, (unsigned long long)f->pkts_lost,
                       (unsigned long long)in_flight);
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
    return BN_OK;
}
