/*
 * Two-tier leaf-spine (folded Clos) of radix-k switches. A leaf splits its
 * ports r:1 (topology.oversubscription) into d host ports and u uplinks, one
 * to each of u spines; a spine has a port for each of k leaves. So hosts =
 * k*d; with r = 1, k^2/2 hosts, k leaves, k/2 spines (htsim's two-tier
 * sizing).
 */
#include "topo/topo.h"

static int build(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err)
{
    uint32_t k = sc->topology.k, d, u;
    int rc = bn_topo_split_ports(sc, "topology.oversubscription", k,
                                 sc->topology.oversubscription, &d, &u, err);
    if (rc != BN_OK)
        return rc;
    uint32_t leaves = k, spines = u, hosts = leaves * d;
    rc = bn_topo_alloc(t, hosts, leaves + spines, hosts + leaves * spines, err);
    if (rc != BN_OK)
        return rc;
    t->radix = k;
    t->tier_name[1] = "leaf";
    t->tier_name[2] = "spine";
    uint32_t leaf0 = hosts, spine0 = hosts + leaves;
    for (uint32_t i = 0; i < leaves; i++)
        bn_topo_set_switch(t, leaf0 + i, 1);
    for (uint32_t i = 0; i < spines; i++)
        bn_topo_set_switch(t, spine0 + i, 2);

    double host_rate = sc->link.rate_gbps, fab_rate = bn_topo_fabric_rate(sc);
    for (uint32_t x = 0; x < hosts; x++)
        bn_topo_connect(t, x, leaf0 + x / d, host_rate, sc->link.host_cable_m,
                        sc->link.host_cable);
    for (uint32_t l = 0; l < leaves; l++)
        for (uint32_t s = 0; s < spines; s++)
            bn_topo_connect(t, leaf0 + l, spine0 + s, fab_rate, sc->link.fabric_cable_m,
                            sc->link.fabric_cable);

    /* Half the leaves' uplinks cross any balanced cut of the leaves. */
    double host_side = hosts / 2.0 * host_rate;
    double spine_side = (double)leaves / 2.0 * spines * fab_rate;
    t->bisection_gbps = host_side < spine_side ? host_side : spine_side;
    return BN_OK;
}

const struct bn_topo_builder_ops bn_topo_leaf_spine = {
    .name = "leaf_spine",
    .summary = "two-tier leaf-spine, a folded Clos",
    .build = build,
};
