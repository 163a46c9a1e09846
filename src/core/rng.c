/* Seeded per-component random streams; see rng.h. */
#include "core/rng.h"

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void bn_rng_init(struct bn_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = bn_mix64(seed) ^ bn_mix64(stream ^ 0x5851f42d4c957f2dULL);
    for (int i = 0; i < 4; i++) {
        x = bn_mix64(x);
        r->s[i] = x;
    }
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
        r->s[0] = 1; /* the all-zero state is the one fixed point */
}

uint64_t bn_rng_next(struct bn_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double bn_rng_uniform(struct bn_rng *r)
{
    return (double)(bn_rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t bn_rng_below(struct bn_rng *r, uint64_t n)
{
    /* Rejection keeps every value equally likely. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do {
        x = bn_rng_next(r);
    } while (x >= limit);
    return x % n;
}
