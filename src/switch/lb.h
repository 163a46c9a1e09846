/*
 * Load balancing: given the equal-cost next-hop ports a switch may use
 * towards a packet's destination, pick one. One policy per file, each an ops
 * table (as Linux's tcp_congestion_ops); the switch calls only through it.
 */
#ifndef BN_SWITCH_LB_H
#define BN_SWITCH_LB_H

#include <stdint.h>

#include "link/fabric.h"

struct bn_lb_switch_state {
    uint64_t salt;   /* per-switch hash seed */
};

struct bn_lb_ops {
    const char *name;
    uint32_t (*pick)(const struct bn_fabric *f, const struct bn_lb_switch_state *sw,
                     const uint32_t *ports, uint32_t nports, const struct bn_packet *pk);
};

/* NULL if unknown. */
const struct bn_lb_ops *bn_lb_find(const char *name);

#endif
