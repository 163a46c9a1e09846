/*
 * SHARP aggregation units. NVIDIA's Quantum switches each hold aggregation
 * nodes that take a reduction's operands from their children, combine
 * them and send one result on (SHARP v2/v3; NVIDIA SHARP docs, v2.6.1 and
 * v3.6.0 introductions). bnet gives every
 * backend switch one unit, modelled as an endpoint hanging off the switch
 * by an internal link: its rate is the unit's aggregation throughput
 * (sharp.rate_gbps; default, line rate on every port of the switch), the
 * latency into it its aggregation latency. Collectives choose which units
 * form a reduction tree (driver/coll_sweep.c); packets reach a unit over
 * fixed next hops (switch/switch.c).
 *
 * Units are nodes after every other node, one per switch in switch order.
 */
#include "topo/topo.h"

int bn_topo_add_aggregation(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err)
{
    if (!sc->sharp.enabled)
        return BN_OK;
    uint32_t m = t->nswitches, first_switch = t->nhosts;
    int rc = bn_topo_append_nodes(t, m, BN_NODE_AGG, m, &t->agg_first, err);
    if (rc != BN_OK)
        return rc;
    t->nagg = m;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t sw = first_switch + i;
        double rate = sc->sharp.rate_gbps > 0 ? sc->sharp.rate_gbps
                                              : t->nodes[sw].nports * sc->link.rate_gbps;
        if (rate < sc->link.rate_gbps)
            rate = sc->link.rate_gbps;
        bn_topo_connect(t, t->agg_first + i, sw, rate, 0, BN_CABLE_COPPER);
    }
    return BN_OK;
}
