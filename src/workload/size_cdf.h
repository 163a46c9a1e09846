/*
 * Flow-size distributions as the traffic generators of HPCC's ns-3 and its
 * successors give them: points (bytes, cumulative probability), the CDF
 * linear between them, so a size is drawn by inverting it at a uniform
 * draw. Built in: the web-search distribution of DCTCP (Alizadeh et al.,
 * SIGCOMM 2010) and Facebook's Hadoop distribution (Roy et al., SIGCOMM
 * 2015), as the HPCC paper (Li et al., SIGCOMM 2019) uses them.
 */
#ifndef BN_WORKLOAD_SIZE_CDF_H
#define BN_WORKLOAD_SIZE_CDF_H

#include <stdint.h>

#include "bnet/error.h"
#include "core/rng.h"

#define BN_CDF_POINTS_MAX 4096

struct bn_size_cdf {
    double bytes[BN_CDF_POINTS_MAX];
    double p[BN_CDF_POINTS_MAX];   /* 0..1, rising to 1 */
    uint32_t n;
};

/* `name` a built-in ("websearch", "fb_hadoop") or a file of "<bytes> <cdf>"
 * lines (cdf in 0..1 or in percent, rising to 1 or 100; '#' comments);
 * a relative file is taken beside `source` (the scenario). Errors name
 * file:line, or the key. */
int bn_size_cdf_load(struct bn_size_cdf *c, const char *name, const char *source,
                     struct bn_error *err);
/* The i-th built-in's name (NULL past the last). */
const char *bn_size_cdf_builtin(uint32_t i);
/* Mean size, in bytes, of the linear CDF. */
double bn_size_cdf_mean(const struct bn_size_cdf *c);
/* A size drawn from it (at least 1 byte). */
uint64_t bn_size_cdf_draw(const struct bn_size_cdf *c, struct bn_rng *rng);
/* Its CDF at x bytes. */
double bn_size_cdf_at(const struct bn_size_cdf *c, double x);

#endif
