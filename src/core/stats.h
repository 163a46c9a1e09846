/*
 * Order statistics for result summaries. Percentiles use linear interpolation
 * between closest ranks (the "type 7" rule of Hyndman & Fan, numpy's default),
 * so p50 of {1,2,3,4} is 2.5; documented in docs/results.md.
 */
#ifndef BN_CORE_STATS_H
#define BN_CORE_STATS_H

#include <stddef.h>

/* Sorts `v` in place. Returns 0 for n == 0. p in [0, 100]. */
double bn_percentile(double *v, size_t n, double p);
/* Percentile of an already sorted array. */
double bn_percentile_sorted(const double *v, size_t n, double p);
void bn_sort_doubles(double *v, size_t n);

#endif
