/*
 * A flow's ideal completion time (docs/traffic.md): alone on the idle
 * fabric, computed from the model's own figures, not simulated.
 */
#ifndef BN_DRIVER_IDEAL_FCT_H
#define BN_DRIVER_IDEAL_FCT_H

#include <stdbool.h>

#include "sim/sim.h"
#include "switch/walk.h"

/* Scratch for the path walks. */
struct bn_ideal {
    struct bn_sim *s;
    struct bn_switch_walk w;
};

int bn_ideal_init(struct bn_ideal *id, struct bn_sim *s, struct bn_error *err);
void bn_ideal_free(struct bn_ideal *id);
/* The FCT (post to the receiver's completion) of `bytes` from host src to
 * dst on queue pair qpid (its header picks an ECMP path), posted as
 * `messages` WRITEs (SENDs with `send`) at once, with the fabric to itself;
 * BN_TIME_NEVER if no path leads there. */
bn_time_t bn_ideal_fct(struct bn_ideal *id, uint32_t qpid, uint32_t src, uint32_t dst,
                       uint64_t bytes, uint32_t messages, bool send);

#endif
