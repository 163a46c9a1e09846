/*
 * Non-minimal routing on Dragonfly+ (switch.nonminimal):
 *   valiant  every packet between two groups goes first to an intermediate
 *            group I, drawn from a hash of its entropy (so per flow, or per
 *            packet when the NIC sprays), then minimally to its destination
 *            (Valiant & Brebner, STOC 1981; Kim et al., ISCA 2008);
 *   ugal     the first switch (the source leaf) compares the least-loaded
 *            minimal next hop with the least-loaded Valiant one, weighted by
 *            path length (3 vs 5 switch-to-switch hops, UGAL-L), and marks
 *            the packet if Valiant wins; later switches follow the mark.
 * No route is carried: the intermediate group is recomputed from the packet
 * at each switch; one flag bit records that the packet has reached I, after
 * which it routes minimally (a minimal route on from I may cross a third
 * group, whose switches must not send it back towards I).
 */
#include <stdlib.h>

#include "switch/switch.h"

int bn_groups_init(struct bn_groups *g, const struct bn_topo *t, uint8_t mode)
{
    g->mode = t->ngroups > 2 ? mode : BN_NM_NONE;
    g->ngroups = t->ngroups;
    g->group_leaves = t->group_leaves;
    g->sw_group = calloc(t->nswitches + 1, sizeof *g->sw_group);
    if (!g->sw_group)
        return -1;
    for (uint32_t i = 0; i < t->nswitches; i++)
        g->sw_group[i] = t->nodes[t->nhosts + i].group;
    return 0;
}

/* A leaf of the intermediate group: never the destination's group. */
static uint32_t valiant_leaf(const struct bn_groups *g, const struct bn_packet *pk, uint32_t dg)
{
    uint64_t h = bn_mix64((uint64_t)pk->entropy * 0x9e3779b97f4a7c15ULL + pk->dst);
    uint32_t ig = (uint32_t)((h >> 32) % (g->ngroups - 1));
    if (ig >= dg)
        ig++;
    return ig * g->group_leaves + (uint32_t)(h % g->group_leaves);
}

static uint64_t least_load(const struct bn_switches *s, uint32_t node, uint32_t leaf)
{
    struct bn_route_set set = bn_routes_lookup(s->routes, node, leaf);
    uint64_t best = UINT64_MAX;
    for (uint32_t i = 0; i < set.cnt; i++) {
        uint64_t q = s->ctx.f->ports[bn_route_port(s->routes, set, i)].q.bytes;
        best = q < best ? q : best;
    }
    return best;
}

uint32_t bn_nonminimal_leaf(struct bn_switches *s, uint32_t node, struct bn_packet *pk,
                            uint32_t in_port)
{
    const struct bn_groups *g = &s->groups;
    uint32_t dleaf = s->host_route[pk->dst].leaf, dg = dleaf / g->group_leaves;
    uint32_t cur = g->sw_group[node - s->routes->first_switch];
    if (cur == dg || (pk->flags & BN_PKT_VIA_DONE))
        return dleaf;
    uint32_t vleaf = valiant_leaf(g, pk, dg);
    if (g->mode == BN_NM_UGAL && !(pk->flags & BN_PKT_VALIANT)) {
        const struct bn_fabric *f = s->ctx.f;
        bool first = f->ports[f->ports[in_port].peer].flags & BN_PORT_AT_HOST;
        if (!first)
            return dleaf;
        /* UGAL-L: queue x hops, 3 switch-to-switch hops minimal, 5 Valiant */
        if (least_load(s, node, dleaf) * 3 <= least_load(s, node, vleaf) * 5)
            return dleaf;
        pk->flags |= BN_PKT_VALIANT;
    }
    if (cur != vleaf / g->group_leaves)
        return vleaf;
    pk->flags |= BN_PKT_VIA_DONE;
    return dleaf;
}
