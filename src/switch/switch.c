/* Switch forwarding; see switch.h. */
#include <stdlib.h>

#include "core/bigmem.h"
#include "switch/switch.h"

int bn_switches_init(struct bn_switches *s, struct bn_fabric *f, const struct bn_routes *r,
                     const struct bn_topo *t, const struct bn_lb_config *cfg, uint64_t seed)
{
    s->routes = r;
    s->ctx = (struct bn_lb_ctx){
        .f = f, .hash_fields = cfg->hash_fields, .ar_metric = cfg->ar_metric,
        .flowlet_gap = cfg->flowlet_gap, .flowlet_slots = cfg->flowlet_slots,
    };
    s->state = calloc(r->nswitches + 1, sizeof *s->state);
    if (!s->state)
        return -1;
    bool flowlets = false;
    for (uint32_t i = 0; i < r->nswitches; i++) {
        struct bn_lb_switch_state *st = &s->state[i];
        uint32_t node = r->first_switch + i;
        st->ops = cfg->tier_ops[t->nodes[node].tier];
        st->salt = bn_mix64(bn_mix64(seed) ^ bn_mix64(BN_STREAM_SWITCH + (cfg->same_salt ? 0 : node)));
        bn_rng_init(&st->rng, seed, BN_STREAM_SWITCH + node);
        st->flowlets = i * cfg->flowlet_slots;
        flowlets |= st->ops->uses_flowlets;
    }
    if (flowlets) {
        s->ctx.flowlet = bn_big_calloc((size_t)r->nswitches * cfg->flowlet_slots + 1,
                                       sizeof *s->ctx.flowlet);
        if (!s->ctx.flowlet)
            return -1;
    }
    return 0;
}

void bn_switches_free(struct bn_switches *s)
{
    free(s->state);
    free(s->groups.sw_group);
    bn_big_free(s->ctx.flowlet);
    s->state = NULL;
    s->ctx.flowlet = NULL;
}

/* The egress port of `pk` at switch `node`. Deciding (`decide`) may draw
 * at random, read queues, update a policy's state and stamps the packet's
 * path; without it nothing changes, and where only deciding could tell
 * (non-minimal routing, a policy that is not pure) the answer is UINT32_MAX. */
static uint32_t route(struct bn_switches *s, uint32_t node, struct bn_packet *pk, uint32_t in_port,
                      bool decide)
{
    if (node >= s->scaleup_first)
        return s->scaleup_port[pk->dst];
    if (pk->dst >= s->agg_first)
        return s->agg_next[(size_t)(pk->dst - s->agg_first) * s->routes->nswitches +
                           (node - s->routes->first_switch)];
    if (s->groups.mode && !decide)
        return UINT32_MAX;
    uint32_t leaf = s->groups.mode ? bn_nonminimal_leaf(s, node, pk, in_port)
                                   : s->host_leaf[pk->dst];
    struct bn_route_set set = bn_routes_lookup(s->routes, node, leaf);
    if (set.cnt == 0)
        return s->deliver_port[pk->dst];
    const uint32_t *ports = &s->routes->hops[set.off];
    if (set.cnt == 1)
        return ports[0];
    struct bn_lb_switch_state *st = &s->state[node - s->routes->first_switch];
    if (!decide && !st->ops->pure)
        return UINT32_MAX;
    uint32_t out = st->ops->pick(&s->ctx, st, ports, set.cnt, pk);
    if (decide && pk->type == BN_PKT_DATA)
        pk->path = (uint16_t)(pk->path * 31u + out + 1u); /* which path, for the results */
    return out;
}

uint32_t bn_switch_predict_egress(struct bn_switches *s, uint32_t node, struct bn_packet *pk)
{
    return route(s, node, pk, UINT32_MAX, false);
}

void bn_switch_receive(struct bn_fabric *f, struct bn_switches *s, uint32_t in_port, uint32_t pkt)
{
    const struct bn_port *in = &f->ports[in_port];
    struct bn_packet *pk = &f->pool.pkts[pkt];
    if (f->fc->lossless) {
        pk->in_port = in_port;
        f->fc->on_arrive(f, in_port, pk->bytes + f->wire_overhead);
    }
    /* The switch decides on the head. Cut-through cannot outrun its input,
     * though: onto a faster link it holds the packet until its tail has
     * arrived (store-and-forward) and only then queues it. */
    uint32_t out = route(s, in->node, pk, in_port, true);
    if ((in->flags & BN_PORT_CUT_IN) && f->ports[out].rate_bps > in->rate_bps) {
        bn_time_t rest = bn_serialization_ps(pk->bytes + f->wire_overhead, in->rate_bps) -
                         bn_serialization_ps(f->head_bytes, in->rate_bps);
        bn_fabric_schedule(f, f->now + rest, BN_EV_ARRIVE_TAIL, out, pkt);
        return;
    }
    bn_port_enqueue(f, out, pkt);
}
