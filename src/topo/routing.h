/*
 * Minimal-path routing tables. Every host hangs off one leaf, so switches
 * route on the destination *leaf*: for switch s and leaf L the table gives
 * the set of ports on s that lie on a shortest path to L (all equal-cost next
 * hops, for the load balancer to choose among). Built by one BFS per leaf
 * over the switch graph, so any topology (not only regular ones) routes.
 *
 * Layout, for cache economy on large fabrics: the (switch, leaf) table holds
 * a 16-bit index into that switch's few distinct sets (a fat-tree switch has
 * at most k), and each set names a run of ports in one flat array. A
 * switch's sets are numbered in order of first use, so switches in the same
 * place of a regular fabric have identical rows; identical rows are stored
 * once (a k=32 fat-tree's 1280 rows of 512 leaves shrink to a few dozen,
 * 1.3 MB to tens of KB, which stay in cache). A leaf's own row entry is not
 * used: the lookup answers "deliver" for it first.
 */
#ifndef BN_TOPO_ROUTING_H
#define BN_TOPO_ROUTING_H

#include <stdint.h>

#include "topo/topo.h"

struct bn_route_set {
    uint32_t off;   /* into bn_routes.hops */
    uint32_t cnt;   /* 0: the destination leaf is this switch */
};

struct bn_routes {
    uint32_t nleaves, first_switch, nswitches;
    uint16_t *table;             /* [row_of[node - first_switch] + leaf] -> set index */
    uint32_t *row_of;            /* per switch: where its row starts in `table` */
    uint32_t *own_leaf;          /* per switch: its leaf index, UINT32_MAX if not a leaf */
    uint32_t nrows;              /* distinct rows stored */
    struct bn_route_set deliver; /* cnt 0: the destination leaf is this switch */
    uint32_t *set_base;          /* per switch: its first set in `sets` */
    struct bn_route_set *sets;
    uint32_t nsets, sets_cap;
    uint32_t *hops;              /* global port ids */
    uint32_t nhops, hops_cap;
    uint32_t max_leaf_dist;      /* switch-to-switch hops between the farthest leaves */
};

int bn_routes_build(struct bn_routes *r, const struct bn_topo *t, struct bn_error *err);
void bn_routes_free(struct bn_routes *r);

static inline const struct bn_route_set *bn_routes_lookup(const struct bn_routes *r,
                                                          uint32_t node, uint32_t leaf)
{
    uint32_t sw = node - r->first_switch;
    if (leaf == r->own_leaf[sw])
        return &r->deliver;
    return &r->sets[r->set_base[sw] + r->table[r->row_of[sw] + leaf]];
}

/* Links on the longest minimal host-to-host path. */
static inline uint32_t bn_routes_diameter_hops(const struct bn_routes *r)
{
    return r->max_leaf_dist + 2;
}

#endif
