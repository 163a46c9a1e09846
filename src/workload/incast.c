/*
 * Incast: N senders, drawn at random (seeded) among the other hosts, each
 * send one message to one receiver at the same instant: the many-to-one
 * pattern of parameter-server and storage reads that overflows one port.
 * A victim flow (workload.incast_victim) may run beside it, between two
 * hosts the senders are not drawn from: the flow that head-of-line
 * blocking slows although its own ports are idle.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/fail_key.h"
#include "workload/workload.h"

/* Its keys (workload.incast_senders is shared: poisson's bursts use it). */
struct incast_keys {
    uint32_t receiver;           /* receiving host index */
    char victim[BN_NAME_MAX];    /* "SRC,DST" host indices of one more flow ("": none) */
};
BN_WL_KEYS_CHECK(struct incast_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "workload.incast_receiver", BN_ROW_INT, .info.unit = "", .info.def = "0",
      .info.doc = "incast: index of the receiving host (must be below the host count).",
      BN_ROW_WL(struct incast_keys, receiver) },
    { .info.path = "workload.incast_victim", BN_ROW_STRING, .info.unit = "", .info.def = "",
      .info.doc = "incast: 'SRC,DST' (host indices) of a victim flow of message_bytes, sent "
                  "beside the incast and drawn from neither; \"\": none. A DST under the "
                  "receiver's leaf shows head-of-line blocking (docs/lossless.md).",
      BN_ROW_WL(struct incast_keys, victim) },
};

extern const struct bn_workload_ops bn_wl_incast; /* below */

static const struct incast_keys *keys_of(const struct bn_scenario *sc)
{
    return bn_workload_keys(sc, &bn_wl_incast);
}

/* workload.incast_victim: "" (none) or "SRC,DST", two hosts other than the
 * receiver, different. */
static int parse_victim(const struct incast_keys *k, uint32_t nhosts, uint32_t *src,
                        uint32_t *dst, struct bn_error *err)
{
    const char *text = k->victim;
    *src = *dst = UINT32_MAX;
    if (!text[0])
        return BN_OK;
    unsigned a, b;
    int end = 0;
    if (sscanf(text, "%u ,%u %n", &a, &b, &end) != 2 || text[end] || text[0] == '-' ||
        a >= nhosts || b >= nhosts || a == b || a == k->receiver || b == k->receiver)
        return bn_fail_key(err, BN_EINPUT, "workload.incast_victim",
                           "'%s' is not 'SRC,DST': two different "
                           "host indices below %u, neither the receiver (%u)",
                           text, nhosts, k->receiver);
    *src = a;
    *dst = b;
    return BN_OK;
}

static int generate(const struct bn_scenario *sc, const struct bn_wl_hosts *h,
                    struct bn_rng *rng, struct bn_flow_list *out, struct bn_error *err)
{
    const struct incast_keys *k = keys_of(sc);
    uint32_t nhosts = h->n;
    uint32_t recv = k->receiver, n = sc->workload.incast_senders;
    if (recv >= nhosts)
        return bn_fail_key(err, BN_EINPUT, "workload.incast_receiver",
                           "host %u does not exist (%u hosts)",
                           recv, nhosts);
    uint32_t vsrc, vdst;
    int rc = parse_victim(k, nhosts, &vsrc, &vdst, err);
    if (rc != BN_OK)
        return rc;
    uint32_t *others = malloc((size_t)nhosts * sizeof *others);
    if (!others)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    uint32_t m = 0;
    for (uint32_t i = 0; i < nhosts; i++)
        if (i != recv && i != vsrc && i != vdst)
            others[m++] = i;
    if (n > m) {
        free(others);
        return bn_fail_key(err, BN_EINPUT, "workload.incast_senders",
                           "%u senders but only %u other hosts%s",
                           n, m,
                           vsrc != UINT32_MAX ? " besides the victim's" : "");
    }
    /* partial Fisher-Yates: the first n are a uniform sample */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = i + (uint32_t)bn_rng_below(rng, m - i);
        uint32_t t = others[i];
        others[i] = others[j];
        others[j] = t;
    }
    bn_time_t start = bn_time_from_us(sc->workload.start_us);
    for (uint32_t i = 0; i < n && rc == BN_OK; i++)
        rc = bn_flow_list_add(out, others[i], recv, sc->workload.message_bytes, start, err);
    if (rc == BN_OK && vsrc != UINT32_MAX) /* the victim last */
        rc = bn_flow_list_add(out, vsrc, vdst, sc->workload.message_bytes, start, err);
    free(others);
    return rc;
}

/* The senders, all into one receiver, and the victim. */
static uint64_t count(const struct bn_scenario *sc, uint64_t nhosts, uint64_t *serial)
{
    (void)nhosts;
    *serial = sc->workload.incast_senders;
    return sc->workload.incast_senders + (keys_of(sc)->victim[0] != 0);
}

const struct bn_workload_ops bn_wl_incast = {
    .name = "incast",
    .summary = "incast_senders random hosts send to one receiver at once",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .generate = generate,
    .count = count,
};
