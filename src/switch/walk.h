/*
 * The weighted path walk, the one both ideal FCTs (driver/flows/ideal_fct.c) and
 * the flow level (flow/paths.c) take: from a port, hop by hop, the ports a
 * packet like `probe` may cross, as the switches answer bn_switch_choices,
 * each with the share of the flow that crosses it (one next hop carries
 * all of it; a flow spread per packet splits evenly over the next hops,
 * and a port reached twice adds the shares). It also follows the first of
 * the equal paths, which latencies follow.
 */
#ifndef BN_SWITCH_WALK_H
#define BN_SWITCH_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "switch/switch.h"

#define BN_WALK_CHOICES 512 /* next hops of one switch */

enum bn_walk_status {
    BN_WALK_OK = 0,   /* every branch reached a host, or the hop function stopped it */
    BN_WALK_LONG,     /* more hops than asked for */
    BN_WALK_NO_ROUTE, /* a switch (bn_switch_walk.node) has no minimal next hop, or too many */
    BN_WALK_WIDE,     /* the frontier would pass the scratch's capacity */
    BN_WALK_FAILED,   /* the hop function said so */
};

/* The scratch: per port a mark and a slot (merging a port reached twice),
 * the frontier of one hop and of the next. */
struct bn_switch_walk {
    uint32_t *mark, *slot, stamp;
    uint32_t *cur, *next, cap;
    double *curw, *nextw;
    uint32_t node;
    uint32_t cand[BN_WALK_CHOICES];
};

/* One hop: the frontier's ports and shares; the followed path's port and
 * its next one (UINT32_MAX: it reaches a host here); the next frontier's size. */
struct bn_walk_hop {
    uint32_t k;
    const uint32_t *port;
    const double *w;
    uint32_t n;
    uint32_t on, on_next;
    uint32_t next_n;
};

/* Called at every hop once its next hops are known: 0 goes on, > 0 stops
 * (BN_WALK_OK), < 0 fails (BN_WALK_FAILED). */
typedef int (*bn_walk_fn)(void *ctx, const struct bn_walk_hop *h);

int bn_switch_walk_init(struct bn_switch_walk *w, uint32_t nports, uint32_t cap);
void bn_switch_walk_free(struct bn_switch_walk *w);
/* Walk from port p0 for at most max_hops hops; an enum bn_walk_status. */
int bn_switch_walk(struct bn_switch_walk *w, struct bn_switches *s, const struct bn_port *ports,
                   uint32_t p0, const struct bn_packet *probe, bool spread, uint32_t max_hops,
                   bn_walk_fn hop, void *ctx);

#endif
