/*
 * Incast: N senders, drawn at random (seeded) among the other hosts, each
 * send one message to one receiver at the same instant: the many-to-one
 * pattern of parameter-server and storage reads that overflows one port.
 */
#include <stdlib.h>

#include "core/where.h"
#include "workload/workload.h"

static int generate(const struct bn_scenario *sc, uint32_t nhosts, struct bn_rng *rng,
                    struct bn_flow_list *out, struct bn_error *err)
{
    uint32_t recv = sc->workload.incast_receiver, n = sc->workload.incast_senders;
    if (recv >= nhosts)
        return bn_fail(err, BN_EINPUT,
                       "%s: key 'workload.incast_receiver': host %u does not exist (%u hosts)",
                       BN_WHERE(sc, "workload.incast_receiver"), recv, nhosts);
    if (n > nhosts - 1)
        return bn_fail(err, BN_EINPUT,
                       "%s: key 'workload.incast_senders': %u senders but only %u other hosts",
                       BN_WHERE(sc, "workload.incast_senders"), n, nhosts - 1);
    uint32_t *others = malloc((size_t)nhosts * sizeof *others);
    if (!others)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    uint32_t m = 0;
    for (uint32_t h = 0; h < nhosts; h++)
        if (h != recv)
            others[m++] = h;
    /* partial Fisher-Yates: the first n are a uniform sample */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = i + (uint32_t)bn_rng_below(rng, m - i);
        uint32_t t = others[i];
        others[i] = others[j];
        others[j] = t;
    }
    bn_time_t start = bn_time_from_us(sc->workload.start_us);
    int rc = BN_OK;
    for (uint32_t i = 0; i < n && rc == BN_OK; i++)
        rc = bn_flow_list_add(out, others[i], recv, sc->workload.message_bytes, start, err);
    free(others);
    return rc;
}

/* The senders, all into one receiver. */
static uint64_t count(const struct bn_scenario *sc, uint64_t nhosts, uint64_t *serial)
{
    (void)nhosts;
    *serial = sc->workload.incast_senders;
    return sc->workload.incast_senders;
}

const struct bn_workload_ops bn_wl_incast = {
    .name = "incast",
    .generate = generate,
    .count = count,
};
