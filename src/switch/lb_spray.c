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

#define RR_CURSORS 8

/* spray_rr: a cursor per next-hop set (by its place in the routing table),
 * so flows to different leaves do not lock each other into one port. */
struct rr {
    uint32_t cursor[RR_CURSORS];
};

static size_t rr_priv_size(const struct bn_scenario *sc)
{
    (void)sc;
    return sizeof(struct rr);
}

static uint32_t rr_pick(struct bn_lb_ctx *ctx, struct bn_lb_switch_state *sw,
                        const uint32_t *ports, uint32_t nports, const struct bn_packet *pk)
{
    (void)ctx;
    (void)pk;
    struct rr *r = sw->priv;
    uint32_t *rr = &r->cursor[((uintptr_t)ports / sizeof *ports) % RR_CURSORS];
    return ports[(*rr)++ % nports];
}

const struct bn_lb_ops bn_lb_spray_random = {
    .name = "spray_random",
    .summary = "per packet",
    .pick = random_pick,
};

const struct bn_lb_ops bn_lb_spray_rr = {
    .name = "spray_rr",
    .summary = "per packet",
    .priv_size = rr_priv_size,
    .pick = rr_pick,
};
