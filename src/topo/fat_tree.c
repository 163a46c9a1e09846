/*
 * Three-tier fat-tree (Al-Fares et al., SIGCOMM 2008), generalised to an
 * oversubscription ratio per tier with the switch radix k fixed. A ToR
 * splits its k ports r1:1 into d1 host ports and u1 uplinks, an aggregation
 * switch r2:1 into d2 ToR-facing ports and u2 core-facing ones
 * (bn_topo_split_ports). Then, for k pods (a core has one port per pod):
 *   pod       = d2 ToRs x u1 aggs, every ToR linked once to every agg;
 *   cores     = u1 planes of u2: agg j of every pod links to the u2 cores
 *               of plane j;
 *   hosts     = k * d2 * d1.
 * With r1 = r2 = 1 this is the k-ary fat-tree: k^3/4 hosts, k^2/2 ToR,
 * k^2/2 agg, k^2/4 core switches (htsim's fat_tree_topology sizes).
 */
#include "topo/topo.h"

int bn_fat_tree_shape(const struct bn_scenario *sc, struct bn_fat_tree_shape *s,
                      struct bn_error *err)
{
    uint32_t k = sc->topology.k;
    int rc = bn_topo_split_ports(sc, "topology.oversubscription", k,
                                 sc->topology.oversubscription, &s->d1, &s->u1, err);
    return rc == BN_OK ? bn_topo_split_ports(sc, "topology.agg_oversubscription", k,
                                             sc->topology.agg_oversubscription, &s->d2, &s->u2,
                                             err)
                       : rc;
}

static int build(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err)
{
    struct bn_fat_tree_shape sh;
    int rc = bn_fat_tree_shape(sc, &sh, err);
    if (rc != BN_OK)
        return rc;
    uint32_t k = sc->topology.k, d1 = sh.d1, u1 = sh.u1, d2 = sh.d2, u2 = sh.u2;
    uint32_t pods = k, tpp = d2, app = u1; /* ToRs and aggs per pod */
    uint32_t tors = pods * tpp, aggs = pods * app, cores = app * u2, hosts = tors * d1;
    uint32_t links = hosts + tors * app + aggs * u2;
    rc = bn_topo_alloc(t, hosts, tors + aggs + cores, links, err);
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
    uint8_t host_cable = sc->link.host_cable;
    uint8_t fab_cable = sc->link.fabric_cable;
    for (uint32_t x = 0; x < hosts; x++)
        bn_topo_connect(t, x, tor0 + x / d1, host_rate, sc->link.host_cable_m, host_cable);
    for (uint32_t p = 0; p < pods; p++)
        for (uint32_t e = 0; e < tpp; e++)
            for (uint32_t a = 0; a < app; a++)
                bn_topo_connect(t, tor0 + p * tpp + e, agg0 + p * app + a, fab_rate,
                                sc->link.fabric_cable_m, fab_cable);
    for (uint32_t p = 0; p < pods; p++)
        for (uint32_t a = 0; a < app; a++)
            for (uint32_t c = 0; c < u2; c++)
                bn_topo_connect(t, agg0 + p * app + a, core0 + a * u2 + c, fab_rate,
                                sc->link.fabric_cable_m, fab_cable);

    /* Cut the pods in half: what crosses must leave half the hosts, then
     * half the ToRs' uplinks, then half the aggs' core links; the narrowest
     * of the three bounds the bisection (cores sit on either side: each
     * has as many links into one half as into the other). */
    double half = pods / 2.0;
    double host_side = hosts / 2.0 * host_rate;
    double tor_side = half * tpp * u1 * fab_rate;
    double core_side = half * app * u2 * fab_rate;
    double b = host_side < tor_side ? host_side : tor_side;
    t->bisection_gbps = b < core_side ? b : core_side;
    return BN_OK;
}

const struct bn_topo_builder_ops bn_topo_fat_tree = {
    .name = "fat_tree",
    .summary = "three-tier fat-tree of k pods",
    .fat_tree_shape = true,
    .build = build,
};
