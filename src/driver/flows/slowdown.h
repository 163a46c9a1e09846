/* FCT slowdown statistics of a run's flows (slowdown.c). */
#ifndef BN_DRIVER_SLOWDOWN_H
#define BN_DRIVER_SLOWDOWN_H

#include "bnet/bnet.h"

/* out->fct_slowdown and its buckets, from the flows' slowdown (set before). */
int bn_slowdown_collect(const struct bn_scenario *sc, struct bn_results *out,
                        struct bn_error *err);

#endif
