/*
 * Permutation traffic: every host sends one message to a distinct other host
 * and receives one, the destination map being a uniformly random derangement
 * (Fisher-Yates shuffle, redrawn until no host maps to itself; about e draws
 * are needed on average).
 */
#include <stdlib.h>

#include "workload/workload.h"

static bool has_fixed_point(const uint32_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (p[i] == i)
            return true;
    return false;
}

static int generate(const struct bn_scenario *sc, const struct bn_wl_hosts *h,
                    struct bn_rng *rng, struct bn_flow_list *out, struct bn_error *err)
{
    uint32_t nhosts = h->n;
    if (nhosts < 2)
        return bn_fail(err, BN_EINPUT, "%s: key 'workload.kind': permutation needs >= 2 hosts",
                       sc->source);
    uint32_t *perm = malloc((size_t)nhosts * sizeof *perm);
    if (!perm)
        return bn_fail(err, BN_ENOMEM, "out of memory for a permutation of %u hosts", nhosts);
    do {
        for (uint32_t i = 0; i < nhosts; i++)
            perm[i] = i;
        for (uint32_t i = nhosts - 1; i > 0; i--) {
            uint32_t j = (uint32_t)bn_rng_below(rng, (uint64_t)i + 1);
            uint32_t t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
    } while (has_fixed_point(perm, nhosts));
    bn_time_t start = bn_time_from_us(sc->workload.start_us);
    int rc = BN_OK;
    for (uint32_t i = 0; i < nhosts && rc == BN_OK; i++)
        rc = bn_flow_list_add(out, i, perm[i], sc->workload.message_bytes, start, err);
    free(perm);
    return rc;
}

/* One flow from every host. */
static uint64_t count(const struct bn_scenario *sc, uint64_t nhosts, uint64_t *serial)
{
    (void)sc;
    *serial = 1;
    return nhosts;
}

const struct bn_workload_ops bn_wl_permutation = {
    .name = "permutation",
    .summary = "each host sends one flow to a random other host and gets one",
    .generate = generate,
    .count = count,
};
