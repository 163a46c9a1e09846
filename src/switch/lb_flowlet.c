/*
 * Flowlet switching (Kandula et al., "Dynamic load balancing without packet
 * reordering", CCR 2007; LetFlow, NSDI 2017): a flow keeps its path while
 * its packets come close together, and draws a new random path when it has
 * been idle longer than switch.flowlet_gap_us, when reordering is unlikely.
 * Flows share a fixed table of slots per switch by hash, as switches do; a
 * slot taken by another flow counts as a new flowlet.
 */
#include "switch/lb.h"

/* switch.flowlet_* */
struct flowlet_keys {
    double gap_us;                /* idle time after which a flow may take a new path */
    uint32_t slots;               /* table entries per switch (flows share them by hash) */
};
BN_LB_KEYS_CHECK(struct flowlet_keys);

#define KEY(m) BN_ROW_LB(struct flowlet_keys, m)
static const struct bn_key_row keys[] = {
    { .info.path = "switch.flowlet_gap_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "10",
      .info.doc = "Flowlet switching: idle time after which a flow may take a new path.",
      KEY(gap_us), BN_ROW_RANGE(0, 1e9) },
    { .info.path = "switch.flowlet_slots", BN_ROW_INT, .info.unit = "slots", .info.def = "4096",
      .info.doc = "Flowlet table entries per switch (flows share them by hash).",
      KEY(slots), BN_ROW_RANGE(1, 16777216) },
};
#undef KEY

/* A table slot: where a flow's packets went, and when last. */
struct flowlet_slot {
    bn_time_t last;
    uint32_t port;
    uint32_t entropy;
};

/* A switch's table, switch.flowlet_slots slots, and the keys pick reads. */
struct flowlet_table {
    bn_time_t gap;                /* switch.flowlet_gap_us */
    uint32_t slots;
    struct flowlet_slot slot[];
};

extern const struct bn_lb_ops bn_lb_flowlet; /* below: its keys' block is found by it */

static size_t flowlet_priv_size(const struct bn_scenario *sc)
{
    const struct flowlet_keys *k = bn_lb_keys(sc, &bn_lb_flowlet);
    return sizeof(struct flowlet_table) + (size_t)k->slots * sizeof(struct flowlet_slot);
}

static void flowlet_setup(void *priv, const struct bn_scenario *sc)
{
    const struct flowlet_keys *k = bn_lb_keys(sc, &bn_lb_flowlet);
    struct flowlet_table *t = priv;
    t->gap = bn_time_from_us(k->gap_us);
    t->slots = k->slots;
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
    .summary = "re-pick after an idle gap",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .sticky = true,
    .priv_size = flowlet_priv_size,
    .setup = flowlet_setup,
    .pick = flowlet_pick,
};
