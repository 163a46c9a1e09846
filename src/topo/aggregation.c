/*
 * SHARP aggregation units. NVIDIA's Quantum switches each hold aggregation
 * nodes that take a reduction's operands from their children, combine
 * them and send one result on (SHARP v2/v3; NVIDIA SHARP docs, v2.6.1 and
 * v3.6.0 introductions). bnet gives every
 * backend switch one unit, modelled as an endpoint hanging off the switch
 * by an internal link: its rate is the unit's aggregation throughput
 * (sharp.rate_gbps; default, line rate on every port of the switch), the
 * latency into it its aggregation latency. Collectives choose which units
 * form a reduction tree (driver/coll/coll_sweep.c); packets reach a unit over
 * fixed next hops (switch/switch.c).
 *
 * Units are nodes after every other node, one per switch in switch order.
 *
 * NVLink SHARP (NVLS, third-generation NVSwitch) is the same idea inside an
 * NVLink domain: the NVSwitch reduces operands it reads from every GPU
 * (multimem.ld_reduce) and multicasts stores to all of them (multimem.st;
 * NVIDIA Hopper architecture whitepaper, "NVLink SHARP"). With
 * scale_up.nvls each domain's NVSwitch gets one unit too, after the SHARP
 * units, in domain order.
 */
#include "topo/topo.h"

BN_KEYS_FIT(struct bn_topo_sharp_keys, struct bn_scenario_agg_block);
#define ROW(m) BN_ROW_IN(BN_KEY_BLOCK_AGG, struct bn_topo_sharp_keys, m)

/* sharp.*: what the units are (CollNet, coll.algo collnet, runs on them). */
static const struct bn_key_row keys[] = {
    { .info.path = "sharp.enabled", BN_ROW_BOOL, .info.unit = "", .info.def = "false",
      .info.doc = "Aggregation units in the switches (SHARP), for coll.algo collnet.",
      ROW(enabled) },
    { .info.path = "sharp.rate_gbps", BN_ROW_FLOAT, .info.unit = "Gb/s", .info.def = "0",
      .info.doc = "Aggregation throughput of one switch's unit; 0 = line rate on every port of "
                  "the switch (the ASIC reduces at line rate).",
      ROW(rate_gbps), BN_ROW_RANGE(0, 1e7) },
    { .info.path = "sharp.latency_ns", BN_ROW_FLOAT, .info.unit = "ns", .info.def = "500",
      .info.doc = "Aggregation latency of a switch's unit.",
      ROW(latency_ns), BN_ROW_RANGE(0, 1e6) },
    { .info.path = "sharp.max_trees", BN_ROW_INT, .info.unit = "", .info.def = "2",
      .info.doc = "Concurrent aggregation trees a switch holds (NVIDIA: 2 streaming "
                  "aggregation flows per switch); CollNet uses at most this many channels.",
      ROW(max_trees), BN_ROW_RANGE(1, 64) },
};

_Static_assert(sizeof keys / sizeof keys[0] <= BN_TOPO_AGG_KEYS_MAX,
               "the scenario registry has no room for the units' keys");

const struct bn_topo_sharp_keys *bn_topo_sharp(const struct bn_scenario *sc)
{
    return (const struct bn_topo_sharp_keys *)(const void *)&sc->agg;
}

static const struct bn_key_row *rows_of(size_t i, size_t *nrows)
{
    (void)i;
    *nrows = sizeof keys / sizeof keys[0];
    return keys;
}

const struct bn_key_modules bn_topo_agg_key_modules = {1, rows_of, NULL};

int bn_topo_add_aggregation(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err)
{
    const struct bn_topo_sharp_keys *sharp = bn_topo_sharp(sc);
    uint32_t m = sharp->enabled ? t->nswitches : 0, first_switch = t->nhosts;
    uint32_t d = sc->scale_up.nvls ? t->nscaleup : 0;
    if (m + d == 0)
        return BN_OK;
    int rc = bn_topo_append_nodes(t, m + d, BN_NODE_AGG, m + d, &t->agg_first, err);
    if (rc != BN_OK)
        return rc;
    t->nagg = m + d;
    t->nsharp = m;
    t->nnvls = d;
    t->nvls_first = t->agg_first + m;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t sw = first_switch + i;
        double rate = sharp->rate_gbps > 0 ? sharp->rate_gbps
                                           : t->nodes[sw].nports * sc->link.rate_gbps;
        if (rate < sc->link.rate_gbps)
            rate = sc->link.rate_gbps;
        bn_topo_connect(t, t->agg_first + i, sw, rate, 0, BN_CABLE_COPPER);
    }
    /* NVLS: the engine of each domain's NVSwitch takes every GPU's
     * operands and multicasts results at a share of its GPU ports' rate */
    for (uint32_t i = 0; i < d; i++) {
        uint32_t gpus = t->domain_gpus;
        if ((i + 1) * t->domain_gpus > t->nhosts)
            gpus = t->nhosts - i * t->domain_gpus;
        bn_topo_connect(t, t->nvls_first + i, t->scaleup_first + i,
                        sc->scale_up.nvls_efficiency * gpus * sc->scale_up.rate_gbps *
                            sc->scale_up.efficiency,
                        0,
                        BN_CABLE_COPPER);
    }
    return BN_OK;
}
