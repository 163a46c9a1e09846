/*
 * SHARP aggregation units. NVIDIA's Quantum switches each hold aggregation
 * nodes that take a reduction's operands from their children, combine
 * them and send one result on (SHARP v2/v3; FACTS.md 5). bnet gives every
 * backend switch one unit, modelled as an endpoint hanging off the switch
 * by an internal link: its rate is the unit's aggregation throughput
 * (sharp.rate_gbps; default, line rate on every port of the switch), the
 * latency into it its aggregation latency. Collectives choose which units
 * form a reduction tree (sim/coll_sweep.c); packets reach a unit over
 * fixed next hops (switch/switch.c).
 *
 * Units are nodes after every other node, one per switch in switch order.
 */
#include <stdlib.h>

#include "topo/topo.h"

int bn_topo_add_aggregation(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err)
{
    if (!sc->sharp.enabled)
        return BN_OK;
    uint32_t m = t->nswitches;
    uint32_t nn = t->nnodes + m, ne = t->nedges + m;
    struct bn_topo_node *nodes = realloc(t->nodes, (size_t)nn * sizeof *nodes);
    if (nodes)
        t->nodes = nodes;
    struct bn_topo_edge *edges = realloc(t->edges, (size_t)ne * sizeof *edges);
    if (edges)
        t->edges = edges;
    char **names = t->names ? realloc(t->names, (size_t)nn * sizeof *names) : NULL;
    if (names)
        t->names = names;
    if (!nodes || !edges || (t->names && !names))
        return bn_fail(err, BN_ENOMEM, "out of memory adding %u aggregation units", m);
    t->edges_cap = ne;
    t->agg_first = t->nnodes;
    t->nagg = m;
    for (uint32_t i = t->nnodes; i < nn; i++) {
        t->nodes[i] = (struct bn_topo_node){.kind = BN_NODE_AGG, .leaf = UINT32_MAX};
        if (t->names)
            t->names[i] = NULL;
    }
    uint32_t first_switch = t->nhosts;
    t->nnodes = nn;
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
