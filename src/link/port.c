/*
 * Port transmission and output queueing; see fabric.h for what is modelled.
 * ECN: RED on the instantaneous queue (Floyd & Jacobson 1993 without the
 * average, as RoCE switches mark): no mark at or below Kmin, always above
 * Kmax, probability Pmax*(q-Kmin)/(Kmax-Kmin) between.
 */
#include <stdlib.h>

#include "link/fabric.h"
#include "link/telemetry.h"

void bn_port_transmit(struct bn_fabric *f, uint32_t p, uint32_t pkt)
{
    struct bn_port *port = &f->ports[p];
    const struct bn_packet *pk = &f->pool.pkts[pkt];
    uint32_t wire = pk->bytes + f->wire_overhead;
    bn_time_t ser = bn_serialization_ps(wire, port->rate_bps);
    if (__builtin_expect(port->flags & BN_PORT_STAMPS, 0) && pk->type == BN_PKT_DATA)
        bn_telemetry_stamp(f, p, pkt);
    if (f->fc->lossless) {
        f->fc->on_transmit(f, p, wire);
        if (!(port->flags & BN_PORT_AT_HOST))
            f->fc->on_depart(f, pk->in_port, wire);
    }
    port->busy_until = f->now + ser;
    port->busy_ps += ser;
    port->tx_bytes += pk->bytes;
    f->packet_hops++;

    bn_time_t until_decision = ser;
    if (bn_port_cuts_through(f->ports, p, UINT32_MAX))
        until_decision = bn_serialization_ps(f->head_bytes, port->rate_bps);
    /* the kind tells a switch from a NIC, so that a switch need not read
     * its arrival port's line (bn_switch_receive) */
    uint16_t kind = (port->flags & BN_PORT_PEER_HOST) ? BN_EV_ARRIVE_HOST : BN_EV_ARRIVE;
    bn_time_t at = f->now + port->lat_ps + until_decision;
    if (__builtin_expect(f->cut != NULL, 0) && f->cut->port[p]) {
        bn_cut_hold(f, at, kind, port->peer, 0, pkt);
        return;
    }
    bn_fabric_schedule(f, at, kind, port->peer, pkt);
}

__attribute__((cold, noinline)) void bn_cut_hold(struct bn_fabric *f, bn_time_t t, uint16_t kind,
                                                 uint32_t obj, uint32_t arg, uint32_t pkt)
{
    struct bn_cut *c = f->cut;
    if (t < c->window_end)
        c->early = true;
    if (c->n == c->cap) {
        uint32_t cap = c->cap ? 2 * c->cap : 1024;
        struct bn_cut_msg *m = realloc(c->msg, (size_t)cap * sizeof *m);
        if (!m) {
            f->oom = true;
            return;
        }
        c->msg = m;
        c->cap = cap;
    }
    struct bn_cut_msg *m = &c->msg[c->n++];
    *m = (struct bn_cut_msg){.time = t, .obj = obj, .arg = arg, .seq = c->n - 1, .kind = kind};
    if (pkt == BN_PKT_NONE) {
        c->signals++;
        return;
    }
    bn_port_queue_settle(f); /* a link owed to it lands before its slot is reused */
    m->pkt = f->pool.pkts[pkt];
    if (f->telemetry) /* the records travel in the frame's headers */
        m->rec = *bn_telemetry_at(f, pkt);
    bn_pool_put(&f->pool, pkt);
    c->frames++;
    c->bytes += m->pkt.bytes;
}

static bool ecn_should_mark(const struct bn_port *port, struct bn_port_stats *st,
                            const struct bn_ecn_params *e, uint64_t backlog)
{
    uint64_t q = port->q.bytes + backlog;
    if (q <= e->kmin)
        return false;
    if (q >= e->kmax)
        return true;
    double p = e->pmax * (double)(q - e->kmin) / (double)(e->kmax - e->kmin);
    return bn_rng_uniform(&st->rng) < p;
}

/*
 * Packet trimming (NDP, Handley et al. SIGCOMM 2017; Ultra Ethernet): a data
 * packet that does not fit loses its payload instead of being dropped; its
 * header jumps the queue so the receiver learns of the loss within a round
 * trip and asks for it again. The cut payload leaves the byte ledger as
 * dropped bytes. Headers, like ACKs and NAKs, may use the control class's
 * room beyond the buffer (f->ctrl_reserve), so that what recovers a loss
 * is not lost. True if the packet was trimmed and queued.
 */
static bool trim(struct bn_fabric *f, uint32_t p, uint32_t pkt)
{
    struct bn_port *port = &f->ports[p];
    struct bn_packet *pk = &f->pool.pkts[pkt];
    if (!f->trim_bytes || pk->type != BN_PKT_DATA || (pk->flags & BN_PKT_TRIMMED) ||
        (uint64_t)port->q.bytes + f->trim_bytes > (uint64_t)port->buffer_bytes + f->ctrl_reserve)
        return false;
    f->bytes_dropped += pk->bytes - f->trim_bytes;
    pk->bytes = f->trim_bytes;
    pk->flags |= BN_PKT_TRIMMED;
    f->stats[p].trims++;
    f->pkts_trimmed++;
    if (bn_port_idle(f, port) && bn_pktq_empty(&port->q) && bn_port_fc_allows(f, p, pk->bytes))
        bn_port_transmit(f, p, pkt);
    else {
        bn_pktq_push_front(&port->q, &f->pool, pkt);
        bn_port_want_wake(f, p);
    }
    return true;
}

/* A control frame (ACK, NAK, a trimmed header) in the control class's room
 * beyond the buffer. */
static bool control_fits(const struct bn_fabric *f, const struct bn_port *port,
                         const struct bn_packet *pk)
{
    return (pk->type != BN_PKT_DATA || (pk->flags & BN_PKT_TRIMMED)) &&
           (uint64_t)port->q.bytes + pk->bytes <= (uint64_t)port->buffer_bytes + f->ctrl_reserve;
}

void bn_port_enqueue(struct bn_fabric *f, uint32_t p, uint32_t pkt)
{
    struct bn_port *port = &f->ports[p];
    struct bn_packet *pk = &f->pool.pkts[pkt];
    if (__builtin_expect(f->impaired, 0) && (port->flags & BN_PORT_DOWN)) {
        bn_fabric_lose(f, p, pkt, true); /* routed into a dead link */
        return;
    }
    if (!bn_pktq_has_room(&port->q, pk->bytes)) {
        bn_fabric_overflow(f, p, pkt);
        return;
    }
    if (!f->fc->lossless && (uint64_t)port->q.bytes + pk->bytes > port->buffer_bytes &&
        !control_fits(f, port, pk)) {
        if (trim(f, p, pkt))
            return;
        bn_fabric_drop(f, p, pkt);
        return;
    }
    if (f->ecn.enabled && (pk->flags & BN_PKT_ECN_CAPABLE) &&
        ecn_should_mark(port, &f->stats[p], &f->ecn, f->ecn_backlog ? f->ecn_backlog[p] : 0)) {
        pk->flags |= BN_PKT_ECN_CE;
        if (++port->ecn_marks_lo == 0)
            f->stats[p].ecn_marks_hi += 1u << 16;
    }
    /* An idle port sends at once, unless a PFC frame must go first or its
     * peer has paused it. */
    if (bn_pktq_empty(&port->q) && bn_port_idle(f, port) && !bn_port_send_control(f, p) &&
        bn_port_fc_allows(f, p, pk->bytes + f->wire_overhead)) {
        bn_port_transmit(f, p, pkt);
    } else {
        bn_port_queue_push(f, &port->q, pkt);
        bn_port_want_wake(f, p);
    }
}

uint32_t bn_fabric_new_packet(struct bn_fabric *f)
{
    if (f->pool.in_use == 0) /* the watchdog counts from the first frame in (loop.c) */
        f->last_delivery = f->now;
    uint32_t i = bn_pool_get(&f->pool);
    if (i == BN_PKT_NONE)
        f->oom = true;
    return i;
}

void bn_fabric_count_injected(struct bn_fabric *f, const struct bn_packet *pk)
{
    f->pkts_injected++;
    f->bytes_injected += pk->bytes;
}

void bn_fabric_deliver(struct bn_fabric *f, uint32_t in, uint32_t pkt)
{
    if (f->fc->lossless) {
        /* a NIC takes the frame in and consumes it at once */
        uint32_t wire = f->pool.pkts[pkt].bytes + f->wire_overhead;
        f->fc->on_arrive(f, in, wire);
        f->fc->on_depart(f, in, wire);
    }
    f->pkts_delivered++;
    f->last_delivery = f->now;
    f->bytes_delivered += f->pool.pkts[pkt].bytes;
    bn_pool_put(&f->pool, pkt);
}

void bn_fabric_drop(struct bn_fabric *f, uint32_t port, uint32_t pkt)
{
    const struct bn_packet *pk = &f->pool.pkts[pkt];
    if (++f->ports[port].drops_lo == 0)
        f->stats[port].drops_hi += 1u << 8;
    f->pkts_dropped++;
    f->bytes_dropped += pk->bytes;
    if (pk->type == BN_PKT_DATA)
        f->data_pkts_dropped++;
    bn_pool_put(&f->pool, pkt);
}

void bn_fabric_lose(struct bn_fabric *f, uint32_t port, uint32_t pkt, bool at_switch)
{
    const struct bn_packet *pk = &f->pool.pkts[pkt];
    if (at_switch && f->fc->lossless)
        f->fc->on_depart(f, pk->in_port, pk->bytes + f->wire_overhead);
    f->stats[port].lost++;
    f->pkts_lost++;
    f->last_delivery = f->now; /* not stuck: a failure took it (loop.c's watchdog) */
    if (f->loss_log && f->loss_log->n < f->loss_log->cap)
        f->loss_log->qp[f->loss_log->n++] = pk->qp;
    f->bytes_lost += pk->bytes;
    bn_pool_put(&f->pool, pkt);
}

void bn_fabric_overflow(struct bn_fabric *f, uint32_t port, uint32_t pkt)
{
    f->queue_overflow = port + 1;
    bn_fabric_drop(f, port, pkt);
}
