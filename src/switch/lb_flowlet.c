/*
 * Flowlet switching (Kandula et al., "Dynamic load balancing without packet
 * reordering", CCR 2007; LetFlow, NSDI 2017): a flow keeps its path while
 * its packets come close together, and draws a new random path when it has
 * been idle longer than switch.flowlet_gap_us, when reordering is unlikely.
 * Flows share a fixed table of slots per switch by hash, as switches do; a
 * slot taken by another flow counts as a new flowlet.
 */
#include "switch/lb.h"

/* A table slot: where a flow's packets went, and when last. */
struct flowlet_slot {
    bn_time_t last;
    uint32_t port;
    uint32_t entropy;
};

/* A switch's table, switch.flowlet_slots slots. */
struct flowlet_table {
    bn_time_t gap;                /* switch.flowlet_gap_us */
    uint32_t slots;
    struct flowlet_slot slot[];
};

static size_t flowlet_priv_size(const struct bn_scenario *sc)
{
    return sizeof(struct flowlet_table) + (size_t)sc->sw.flowlet_slots * sizeof(struct flowlet_slot);
}

static void flowlet_setup(void *priv, const struct bn_scenario *sc)
{
    struct flowlet_table *t = priv;
    t->gap = bn_time_from_us(sc->sw.flowlet_gap_us);
    t->slots = sc->sw.flowlet_slots;
}

static uint32_t flowlet_pick(struct bn_lb_ctx *ctx, struct bn_lb_switch_state *sw,
                             const uint32_t *ports, uint32_t nports, const struct bn_packet *pk)
{
    struct flowlet_table *t = sw->priv;
    uint32_t slot = bn_lb_by_hash(bn_mix64(pk->entropy ^ sw->salt), t->slots);
    struct flowlet_slot *fl = &t->slot[slot];
    bn_time_t now = ctx->f->now;
    bool fresh = fl->entropy != pk->entropy || now - fl->last > t->gap;
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
    .sticky = true,
    .priv_size = flowlet_priv_size,
    .setup = flowlet_setup,
    .pick = flowlet_pick,
};
