/*
 * Seeded random streams. Every component (each switch's ECN marker, the
 * workload generator, ...) owns a stream derived from (run seed, stream id),
 * so adding a component or reordering draws elsewhere never changes another
 * component's numbers. Generator: xoshiro256** seeded through splitmix64
 * (Blackman & Vigna, "Scrambled linear pseudorandom number generators", 2021).
 */
#ifndef BN_CORE_RNG_H
#define BN_CORE_RNG_H

#include <stdint.h>

struct bn_rng {
    uint64_t s[4];
};

/* Stream ids: a class tag in the top bits keeps the classes apart. */
#define BN_STREAM_WORKLOAD (1ULL << 56)
#define BN_STREAM_PORT (2ULL << 56)
#define BN_STREAM_SWITCH (3ULL << 56)
#define BN_STREAM_BER (4ULL << 56)     /* link bit errors (link/impair.c) */
#define BN_STREAM_FAULT (5ULL << 56)   /* random fault targets (src/fault) */

void bn_rng_init(struct bn_rng *r, uint64_t seed, uint64_t stream);
uint64_t bn_rng_next(struct bn_rng *r);
/* Uniform in [0, 1). */
double bn_rng_uniform(struct bn_rng *r);
/* Uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t bn_rng_below(struct bn_rng *r, uint64_t n);

/* A strong 64-bit mixer (splitmix64 finalizer), used for hashing too. */
static inline uint64_t bn_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
