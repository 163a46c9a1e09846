/*
 * Port transmission and output queueing; see fabric.h for what is modelled.
 * ECN: RED on the instantaneous queue (Floyd & Jacobson 1993 without the
 * average, as RoCE switches mark): no mark below Kmin, always above Kmax,
 * probability Pmax*(q-Kmin)/(Kmax-Kmin) between.
 */
#include "link/fabric.h"

void bn_port_transmit(struct bn_fabric *f, uint32_t p, uint32_t pkt)
{
    struct bn_port *port = &f->ports[p];
    const struct bn_packet *pk = &f->pool.pkts[pkt];
    bn_time_t ser = bn_serialization_ps(pk->bytes + f->wire_overhead, port->rate_bps);
    port->busy_until = f->now + ser;
    port->busy_ps += ser;
    port->tx_pkts++;
    port->tx_bytes += pk->bytes;
    f->packet_hops++;

    bn_time_t arrive = f->now + port->prop_ps;
    if (port->peer_is_switch) {
        bn_time_t until_decision = port->cut_through
            ? bn_serialization_ps(pk->head_bytes, port->rate_bps) : ser;
        arrive += until_decision + port->peer_fwd_ps;
    } else {
        arrive += ser;
    }
    bn_fabric_schedule(f, arrive, BN_EV_ARRIVE, port->peer, pkt);
}

static bool ecn_should_mark(struct bn_port *port, const struct bn_ecn_params *e)
{
    uint64_t q = port->q.bytes;
    if (q <= e->kmin)
        return false;
    if (q >= e->kmax)
        return true;
    double p = e->pmax * (double)(q - e->kmin) / (double)(e->kmax - e->kmin);
    return bn_rng_uniform(&port->rng) < p;
}

void bn_port_enqueue(struct bn_fabric *f, uint32_t p, uint32_t pkt)
{
    struct bn_port *port = &f->ports[p];
    struct bn_packet *pk = &f->pool.pkts[pkt];
    if (port->q.bytes + pk->bytes > port->buffer_bytes) {
        bn_fabric_drop(f, port, pkt);
        return;
    }
    if (f->ecn.enabled && (pk->flags & BN_PKT_ECN_CAPABLE) && ecn_should_mark(port, &f->ecn)) {
        pk->flags |= BN_PKT_ECN_CE;
        port->ecn_marks++;
    }
    if (port->q.len == 0 && bn_port_idle(f, port)) {
        bn_port_transmit(f, p, pkt);
    } else {
        bn_pktq_push(&port->q, &f->pool, pkt);
        bn_port_want_wake(f, p);
    }
}

uint32_t bn_fabric_new_packet(struct bn_fabric *f)
{
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

void bn_fabric_deliver(struct bn_fabric *f, uint32_t pkt)
{
    f->pkts_delivered++;
    f->bytes_delivered += f->pool.pkts[pkt].bytes;
    bn_pool_put(&f->pool, pkt);
}

void bn_fabric_drop(struct bn_fabric *f, struct bn_port *port, uint32_t pkt)
{
    const struct bn_packet *pk = &f->pool.pkts[pkt];
    port->drops++;
    port->drop_bytes += pk->bytes;
    f->pkts_dropped++;
    f->bytes_dropped += pk->bytes;
    if (pk->type == BN_PKT_DATA)
        f->data_pkts_dropped++;
    bn_pool_put(&f->pool, pkt);
}
