/*
 * Switches: a packet that has arrived (its head, under cut-through) is
 * routed on its destination leaf to the set of minimal next hops, the load
 * balancer picks one, and the packet joins that port's output queue.
 */
#ifndef BN_SWITCH_SWITCH_H
#define BN_SWITCH_SWITCH_H

#include "link/fabric.h"
#include "switch/lb.h"
#include "topo/routing.h"

struct bn_switches {
    const struct bn_routes *routes;
    const struct bn_lb_ops *lb;
    struct bn_lb_switch_state *state;   /* per switch (node - first_switch) */
    const uint32_t *host_leaf;          /* host -> leaf index */
    const uint32_t *deliver_port;       /* host -> the leaf port facing it */
};

int bn_switches_init(struct bn_switches *s, const struct bn_routes *r,
                     const struct bn_lb_ops *lb, uint64_t seed);
void bn_switches_free(struct bn_switches *s);

/* BN_EV_ARRIVE / BN_EV_ARRIVE_TAIL at switch port `in_port`. */
void bn_switch_receive(struct bn_fabric *f, const struct bn_switches *s, uint32_t in_port,
                       uint32_t pkt, bool tail_arrived);

#endif
