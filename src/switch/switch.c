/* Switch forwarding; see switch.h. */
#include <stdlib.h>

#include "switch/switch.h"

int bn_switches_init(struct bn_switches *s, const struct bn_routes *r,
                     const struct bn_lb_ops *lb, uint64_t seed)
{
    s->routes = r;
    s->lb = lb;
    s->state = calloc(r->nswitches + 1, sizeof *s->state);
    if (!s->state)
        return -1;
    for (uint32_t i = 0; i < r->nswitches; i++)
        s->state[i].salt = bn_mix64(seed ^ (BN_STREAM_SWITCH + r->first_switch + i));
    return 0;
}

void bn_switches_free(struct bn_switches *s)
{
    free(s->state);
    s->state = NULL;
}

static uint32_t choose_egress(const struct bn_fabric *f, const struct bn_switches *s,
                              uint32_t node, const struct bn_packet *pk)
{
    const struct bn_route_set *set = bn_routes_lookup(s->routes, node, s->host_leaf[pk->dst]);
    if (set->cnt == 0)
        return s->deliver_port[pk->dst];
    const uint32_t *ports = &s->routes->hops[set->off];
    if (set->cnt == 1)
        return ports[0];
    return s->lb->pick(f, &s->state[node - s->routes->first_switch], ports, set->cnt, pk);
}

void bn_switch_receive(struct bn_fabric *f, const struct bn_switches *s, uint32_t in_port,
                       uint32_t pkt, bool tail_arrived)
{
    const struct bn_port *in = &f->ports[in_port];
    struct bn_packet *pk = &f->pool.pkts[pkt];
    if (!tail_arrived && f->fc->lossless) {
        pk->in_port = in_port;
        f->fc->on_arrive(f, in_port, pk->bytes + f->wire_overhead);
    }
    uint32_t out = choose_egress(f, s, in->node, pk);
    /* Cut-through cannot outrun its input: onto a faster link the switch
     * must hold the packet until its tail has arrived (store-and-forward). */
    if (!tail_arrived && (in->flags & BN_PORT_CUT_IN) && f->ports[out].rate_bps > in->rate_bps) {
        bn_time_t rest = bn_serialization_ps(pk->bytes + f->wire_overhead, in->rate_bps) -
                         bn_serialization_ps(f->head_bytes, in->rate_bps);
        bn_fabric_schedule(f, f->now + rest, BN_EV_ARRIVE_TAIL, in_port, pkt);
        return;
    }
    bn_port_enqueue(f, out, pkt);
}
