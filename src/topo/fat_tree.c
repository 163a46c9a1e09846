/*
 * k-ary three-tier fat-tree (Al-Fares et al., SIGCOMM 2008): k pods, each with
 * k/2 edge (ToR) and k/2 aggregation switches; (k/2)^2 core switches. Every
 * ToR serves k/2 hosts, so hosts = k^3/4 and switches = 5k^2/4. Aggregation
 * switch j of every pod connects to cores j*k/2 .. j*k/2 + k/2 - 1.
 */
#include "topo/topo.h"

static int build(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err)
{
    uint32_t k = sc->topology.k, h = k / 2;
    uint32_t hosts = k * k * k / 4, tors = k * k / 2, aggs = k * k / 2, cores = h * h;
    uint32_t links = hosts + tors * h + aggs * h;
    int rc = bn_topo_alloc(t, hosts, tors + aggs + cores, links, err);
    if (rc != BN_OK)
        return rc;
    t->radix = k;
    t->tier_name[1] = "tor";
    t->tier_name[2] = "agg";
    t->tier_name[3] = "core";
    uint32_t tor0 = hosts, agg0 = tor0 + tors, core0 = agg0 + aggs;
    for (uint32_t i = 0; i < tors; i++)
        bn_topo_set_switch(t, tor0 + i, 1);
    for (uint32_t i = 0; i < aggs; i++)
        bn_topo_set_switch(t, agg0 + i, 2);
    for (uint32_t i = 0; i < cores; i++)
        bn_topo_set_switch(t, core0 + i, 3);

    double host_rate = sc->link.rate_gbps, fab_rate = bn_topo_fabric_rate(sc);
    uint8_t host_cable = bn_topo_cable_kind(sc->link.host_cable);
    uint8_t fab_cable = bn_topo_cable_kind(sc->link.fabric_cable);
    for (uint32_t x = 0; x < hosts; x++)
        bn_topo_connect(t, x, tor0 + x / h, host_rate, sc->link.host_cable_m, host_cable);
    for (uint32_t p = 0; p < k; p++)
        for (uint32_t e = 0; e < h; e++)
            for (uint32_t a = 0; a < h; a++)
                bn_topo_connect(t, tor0 + p * h + e, agg0 + p * h + a, fab_rate,
                                sc->link.fabric_cable_m, fab_cable);
    for (uint32_t p = 0; p < k; p++)
        for (uint32_t a = 0; a < h; a++)
            for (uint32_t c = 0; c < h; c++)
                bn_topo_connect(t, agg0 + p * h + a, core0 + a * h + c, fab_rate,
                                sc->link.fabric_cable_m, fab_cable);

    /* Cutting the pods in half: the hosts' own links or the k^3/8 core links
     * of one half, whichever is smaller, bound the traffic across. */
    double host_side = hosts / 2.0 * host_rate;
    double core_side = (double)k * k * k / 8.0 * fab_rate;
    t->bisection_gbps = host_side < core_side ? host_side : core_side;
    return BN_OK;
}

const struct bn_topo_builder_ops bn_topo_fat_tree = {
    .name = "fat_tree",
    .build = build,
};
