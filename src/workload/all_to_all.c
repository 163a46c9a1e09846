/*
 * All-to-all: every host sends one message to every other host, all at once
 * (n(n-1) flows): the traffic of an expert-parallel dispatch or a naive
 * AllToAll collective.
 */
#include "workload/workload.h"

static int generate(const struct bn_scenario *sc, const struct bn_wl_hosts *h,
                    struct bn_rng *rng, struct bn_flow_list *out, struct bn_error *err)
{
    uint32_t nhosts = h->n;
    (void)rng;
    if ((uint64_t)nhosts * (nhosts - 1) > 50000000ULL)
        return bn_fail(err, BN_EINPUT,
                       "%s: key 'workload.kind': all_to_all on %u hosts is %llu flows (max 5e7)",
                       sc->source, nhosts, (unsigned long long)nhosts * (nhosts - 1));
    bn_time_t start = bn_time_from_us(sc->workload.start_us);
    for (uint32_t s = 0; s < nhosts; s++)
        for (uint32_t d = 0; d < nhosts; d++) {
            if (s == d)
                continue;
            int rc = bn_flow_list_add(out, s, d, sc->workload.message_bytes, start, err);
            if (rc != BN_OK)
                return rc;
        }
    return BN_OK;
}

/* Every host sends to every other: n (n - 1) flows, n - 1 from each. */
static uint64_t count(const struct bn_scenario *sc, uint64_t nhosts, uint64_t *serial)
{
    (void)sc;
    *serial = nhosts ? nhosts - 1 : 0;
    return nhosts * *serial;
}

const struct bn_workload_ops bn_wl_all_to_all = {
    .name = "all_to_all",
    .summary = "every host sends a flow to every other host at once",
    .generate = generate,
    .count = count,
    .count_key = "workload.kind", /* hosts^2 flows */
};
