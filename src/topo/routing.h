/*
 * Minimal-path routing tables. Every host hangs off one leaf, so switches
 * route on the destination *leaf*: for switch s and leaf L the table gives
 * the set of ports on s that lie on a shortest path to L (all equal-cost next
 * hops, for the load balancer to choose among). Built by one BFS per leaf
 * over the switch graph, so any topology (not only regular ones) routes.
 *
 * Layout, for cache economy on large fabrics (a lookup is a chain of
 * dependent loads, each a cache miss once the fabric outgrows the caches):
 * a switch's sets are stretches of one flat array of ports, `hops`, in
 * its own region of it starting at hops_base; the (switch, leaf) table entry names a
 * set directly, as its offset in that region and its size, packed in 32
 * bits. A region opens with the switch's own ports in order, so a set of
 * consecutive ports (every set of a fat-tree: one port down, the uplinks
 * up) is found there, its offset being its first port's number on the
 * switch, and its entry says so (BN_ROUTE_RUN): a lookup then knows the
 * set's ports without reading it. Other sets follow, in order of first use,
 * so switches in the same place of a regular fabric have identical rows;
 * identical rows are stored once (a k=32 fat-tree's 1280 rows of 512 leaves
 * shrink to a few dozen, 2.6 MB to tens of KB, which stay in cache). What a
 * lookup reads about the switch itself (its row, region, first port and own
 * leaf) is one 16-byte record. A leaf's own row entry is not used: the
 * lookup answers "deliver" for it first. So a lookup reads the switch
 * record, one table entry and, if its set is not a run, the set.
 */
#ifndef BN_TOPO_ROUTING_H
#define BN_TOPO_ROUTING_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/topo.h"

struct bn_route_set {
    uint32_t off;   /* into bn_routes.hops: the ports hops[off .. off + cnt) */
    uint32_t cnt;   /* 0: the destination leaf is this switch, or (run set) unreachable */
    uint32_t first; /* a run (always when cnt is 1): the ports first .. first + cnt */
    bool run;
};

/* Per switch (node - first_switch). */
struct bn_route_switch {
    uint32_t row;       /* where its row starts in `table` */
    uint32_t hops_base; /* where its region of `hops` starts */
    uint32_t own_leaf;  /* its leaf index, UINT32_MAX if not a leaf */
    uint32_t first_port;
};

/* A table entry: (offset in the switch's region) << BN_ROUTE_OFF_SHIFT |
 * BN_ROUTE_RUN if the set is a run of the switch's ports | count. */
#define BN_ROUTE_CNT_BITS 12u
#define BN_ROUTE_CNT_MAX ((1u << BN_ROUTE_CNT_BITS) - 1u)
#define BN_ROUTE_RUN (1u << BN_ROUTE_CNT_BITS)
#define BN_ROUTE_OFF_SHIFT (BN_ROUTE_CNT_BITS + 1u)
#define BN_ROUTE_OFF_MAX (UINT32_MAX >> BN_ROUTE_OFF_SHIFT)
/* The entry of a leaf the switch cannot reach (links down): an empty run. */
#define BN_ROUTE_UNREACHABLE BN_ROUTE_RUN

struct bn_routes {
    uint32_t nleaves, first_switch, nswitches;
    uint32_t *table;             /* [sw[node - first_switch].row + leaf] -> entry */
    size_t table_cap;            /* entries allocated (routes appended after failures) */
    struct bn_route_switch *sw;
    uint32_t nrows;              /* distinct rows stored */
    uint32_t *hops;              /* global port ids */
    uint32_t nhops, hops_cap;
    uint32_t max_leaf_dist;      /* switch-to-switch hops between the farthest leaves */
};

int bn_routes_build(struct bn_routes *r, const struct bn_topo *t, struct bn_error *err);
/* The same over the links that are up (down[p] != 0: port p's link is
 * down; down is not NULL): minimal paths of the surviving graph; a leaf a switch cannot
 * reach gets BN_ROUTE_UNREACHABLE instead of an error. */
int bn_routes_build_live(struct bn_routes *r, const struct bn_topo *t, const uint8_t *down,
                         struct bn_error *err);
void bn_routes_free(struct bn_routes *r);

/* After failures: append fresh's rows and sets to r (which goes on
 * serving lookups unchanged) and give, per switch, the record that would
 * make it route as fresh does (rec[nswitches]); installing one is
 * assigning it to r->sw[switch]. */
int bn_routes_append(struct bn_routes *r, const struct bn_routes *fresh,
                     struct bn_route_switch *rec, struct bn_error *err);
/* Whether records a and b of one switch (both in r) route every leaf
 * (bn_routes_same) or leaf l over the same ports. */
bool bn_routes_same(const struct bn_routes *r, const struct bn_route_switch *a,
                    const struct bn_route_switch *b);
bool bn_routes_same_leaf(const struct bn_routes *r, const struct bn_route_switch *a,
                         const struct bn_route_switch *b, uint32_t l);

/* The next hops of switch `node` towards `leaf`; cnt 0 when the
 * destination leaf is this switch. */
static inline struct bn_route_set bn_routes_lookup(const struct bn_routes *r, uint32_t node,
                                                   uint32_t leaf)
{
    const struct bn_route_switch *w = &r->sw[node - r->first_switch];
    if (leaf == w->own_leaf)
        return (struct bn_route_set){0, 0, 0, false};
    uint32_t e = r->table[w->row + leaf], off = e >> BN_ROUTE_OFF_SHIFT;
    return (struct bn_route_set){w->hops_base + off, e & BN_ROUTE_CNT_MAX, w->first_port + off,
                                 (e & BN_ROUTE_RUN) != 0};
}

/* The table entry bn_routes_lookup(r, node, leaf) reads: a prefetch hint. */
static inline const void *bn_routes_entry(const struct bn_routes *r, uint32_t node, uint32_t leaf)
{
    return &r->table[r->sw[node - r->first_switch].row + leaf];
}

/* Port i of a set. */
static inline uint32_t bn_route_port(const struct bn_routes *r, struct bn_route_set set, uint32_t i)
{
    return set.run ? set.first + i : r->hops[set.off + i];
}

/* Links on the longest minimal host-to-host path. */
static inline uint32_t bn_routes_diameter_hops(const struct bn_routes *r)
{
    return r->max_leaf_dist + 2;
}

#endif
