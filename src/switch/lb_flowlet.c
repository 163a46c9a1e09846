/*
 * Flowlet switching (Kandula et al., "Dynamic load balancing without packet
 * reordering", CCR 2007; LetFlow, NSDI 2017): a flow keeps its path while
 * its packets come close together, and draws a new random path when it has
 * been idle longer than switch.flowlet_gap_us, when reordering is unlikely.
 * Flows share a fixed table of slots per switch by hash, as switches do; a
 * slot taken by another flow counts as a new flowlet.
 */
#include "switch/lb.h"

static uint32_t flowlet_pick(struct bn_lb_ctx *ctx, struct bn_lb_switch_state *sw,
                             const uint32_t *ports, uint32_t nports, const struct bn_packet *pk)
{
    uint32_t slot = bn_lb_by_hash(bn_mix64(pk->entropy ^ sw->salt), ctx->flowlet_slots);
    struct bn_flowlet *fl = &ctx->flowlet[sw->flowlets + slot];
    bn_time_t now = ctx->f->now;
    bool fresh = fl->entropy != pk->entropy || now - fl->last > ctx->flowlet_gap;
    if (!fresh) {
        fresh = true; /* the remembered port must still be a minimal next hop */
        for (uint32_t i = 0; i < nports && fresh; i++)
            fresh = ports[i] != fl->port;
    }
    if (fresh) {
        fl->port = ports[bn_rng_below(&sw->rng, nports)];
        fl->entropy = pk->entropy;
    }
    fl->last = now;
    return fl->port;
}

const struct bn_lb_ops bn_lb_flowlet = {
    .name = "flowlet",
    .uses_flowlets = true,
    .pick = flowlet_pick,
};
