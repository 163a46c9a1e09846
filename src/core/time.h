/*
 * Simulated time: signed 64-bit integer picoseconds. 2^63 ps is ~106 days of
 * simulated time, far beyond any run, and integer time keeps event order and
 * results exact and reproducible (no floating-point drift between machines).
 */
#ifndef BN_CORE_TIME_H
#define BN_CORE_TIME_H

#include <stdint.h>

typedef int64_t bn_time_t;

#define BN_PS_PER_NS 1000LL
#define BN_PS_PER_US 1000000LL
#define BN_PS_PER_S 1000000000000LL
#define BN_TIME_NEVER INT64_MAX
/* Latest time an event may be scheduled (~53 days): far from overflow. */
#define BN_TIME_LIMIT (INT64_C(1) << 62)

static inline bn_time_t bn_time_from_ns(double ns) { return (bn_time_t)(ns * 1e3 + 0.5); }
static inline bn_time_t bn_time_from_us(double us) { return (bn_time_t)(us * 1e6 + 0.5); }
static inline double bn_time_to_us(bn_time_t t) { return (double)t / 1e6; }

/* Time to serialize `bytes` at `rate_bps`, rounded to the nearest picosecond. */
static inline bn_time_t bn_serialization_ps(uint64_t bytes, uint64_t rate_bps)
{
    return (bn_time_t)((bytes * 8ULL * (uint64_t)BN_PS_PER_S + rate_bps / 2) / rate_bps);
}

#endif
