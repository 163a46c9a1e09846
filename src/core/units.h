/*
 * Sizes as scenarios, --set and --vary write them: a whole number with an
 * optional suffix, K/k, M, G or T (powers of 1000), Ki, Mi, Gi or Ti
 * (powers of 1024), each with an optional B ("64KiB", "2MB", "1kB",
 * "1500"). The nccl-tests flags (-b, -e, -i) read a bare K/M/G/T as a
 * power of 1024 before they get here (src/cli/opts.c); docs/scenario.md
 * states both.
 */
#ifndef BN_CORE_UNITS_H
#define BN_CORE_UNITS_H

#include <stdint.h>

/* 0 = ok, -1 = not such a number, -2 = too large (or negative). */
int bn_parse_uint(const char *s, uint64_t *out);

/* A comma-separated list of sizes, rising ("10K,100K,1M"), into out[max];
 * *n how many. 0 = ok, else -1 - the index of the bad item (not a size,
 * 0, not above the one before, or one too many). */
int bn_parse_size_list(const char *s, uint64_t *out, uint32_t max, uint32_t *n);

#endif
