/*
 * Classes of identical links in front of the max-min solver. Links that
 * every flow uses alike (the same weight, both active or both passive)
 * and that have the same capacity are one constraint: the solver sees one
 * link per class. Spread routing makes such classes large: a leaf's
 * uplinks carry each of its spread flows 1/(k/2) each; a pod's links to
 * the cores, 1/(k/2)^2 each. A flow's path set of 1 + k/2 + k^2/4 ports
 * each way is then a handful of uses.
 *
 * Classes are refined as flows come (partition refinement, as in Paige &
 * Tarjan, "Three partition refinement algorithms", SIAM J. Comput. 1987):
 * a new flow's links of one class that it uses differently from the rest
 * of the class, or not at all, split off into a class of their own, which
 * every earlier flow on the class also uses (bn_mm_split). A split costs
 * one use per flow on the class, so classes pay where whole path sets
 * spread alike (adaptive routing: data and ACKs) and not where they
 * fragment to single links.
 */
#ifndef BN_FLOW_LINKCLASS_H
#define BN_FLOW_LINKCLASS_H

#include <stdbool.h>
#include <stdint.h>

#include "bnet/error.h"
#include "flow/maxmin.h"

struct bn_lc_item;

struct bn_linkclass {
    uint32_t nlinks, nclasses;
    bool on;                    /* false: every link its own class */
    double *cap;                /* per link */
    uint32_t *cls;              /* per link: its class, a solver link (UINT32_MAX: unused) */
    uint32_t *size;             /* per class: its links */
    uint32_t *seen, stamp;      /* per link: set in the path being added */
    struct bn_lc_item *it;      /* scratch: the path's uses, sorted */
    uint32_t it_cap;
    uint32_t *out_link;
    float *out_w;
    uint8_t *out_passive;
};

/* on = false: no classes (each link is its own; see flow.h for when). */
int bn_lc_init(struct bn_linkclass *lc, uint32_t nlinks, bool on, struct bn_error *err);
void bn_lc_free(struct bn_linkclass *lc);
/* A link's capacity, before any flow uses it. */
static inline void bn_lc_set_cap(struct bn_linkclass *lc, uint32_t link, double cap)
{
    lc->cap[link] = cap;
}
/* Flow f's uses of links (as bn_mm_set_path), given to m as uses of
 * classes, the classes split where f tells links apart. */
int bn_lc_set_path(struct bn_linkclass *lc, struct bn_maxmin *m, uint32_t f,
                   const uint32_t *links, const float *weights, const uint8_t *passive,
                   uint32_t n, struct bn_error *err);

#endif
