/*
 * Packet spraying by the switch: every packet independently takes a random
 * minimal next hop (spray_random, as in DRILL's random baseline and RPS) or
 * the next one in turn (spray_rr). Perfect balance in the long run, and
 * reordering the receiver must absorb.
 */
#include "switch/lb.h"

static uint32_t random_pick(struct bn_lb_ctx *ctx, struct bn_lb_switch_state *sw,
                            const uint32_t *ports, uint32_t nports, const struct bn_packet *pk)
{
    (void)ctx;
    (void)pk;
    return ports[bn_rng_below(&sw->rng, nports)];
}

static uint32_t rr_pick(struct bn_lb_ctx *ctx, struct bn_lb_switch_state *sw,
                        const uint32_t *ports, uint32_t nports, const struct bn_packet *pk)
{
    (void)ctx;
    (void)pk;
    /* a cursor per next-hop set (by its place in the routing table), so
     * flows to different leaves do not lock each other into one port */
    uint32_t *rr = &sw->rr[((uintptr_t)ports / sizeof *ports) % BN_LB_RR_CURSORS];
    return ports[(*rr)++ % nports];
}

const struct bn_lb_ops bn_lb_spray_random = {
    .name = "spray_random",
    .pick = random_pick,
};

const struct bn_lb_ops bn_lb_spray_rr = {
    .name = "spray_rr",
    .pick = rr_pick,
};
