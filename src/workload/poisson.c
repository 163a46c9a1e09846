/*
 * Poisson traffic, as the traffic generator of HPCC's ns-3 makes it (Li et
 * al., SIGCOMM 2019): at every host, flows arrive as a Poisson process
 * from workload.start_us for workload.duration_us, their sizes drawn from
 * workload.size_cdf, the mean gap being the mean size over load x the host
 * link's rate; each goes to another host drawn uniformly, or, with
 * workload.rack_local, to one under the sender's leaf with that
 * probability and elsewhere otherwise. workload.incast_share of the load
 * comes instead as incast bursts (a Poisson process of its own): each one
 * is incast_senders hosts sending message_bytes to one host at once.
 * Flows are listed by start time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/fail_key.h"
#include "workload/size_cdf.h"
#include "workload/workload.h"

#define MAX_FLOWS 100000000u /* beyond the memory estimate's reach anyway */

/* Its keys (docs/traffic.md); workload.incast_senders and message_bytes,
 * which its bursts take, are shared with incast. */
struct poisson_keys {
    double load;                 /* a fraction of a host link's rate */
    double duration_us;          /* flows arrive from workload.start_us for this long */
    double rack_local;           /* share of flows under the sender's leaf (-1: uniform) */
    double incast_share;         /* fraction of the load sent as incast bursts */
    char size_cdf[BN_PATH_MAX];  /* "websearch", "fb_hadoop" or a file of "<bytes> <cdf>" lines */
};
BN_WL_KEYS_CHECK(struct poisson_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "workload.load", BN_ROW_FLOAT, .info.unit = "", .info.def = "0.3",
      .info.doc = "poisson: offered load per host, a fraction of its link's rate.",
      BN_ROW_WL(struct poisson_keys, load), BN_ROW_RANGE(1e-6, 1) },
    { .info.path = "workload.size_cdf", BN_ROW_STRING, .info.unit = "", .info.def = "websearch",
      .info.doc = "poisson: flow sizes: websearch (DCTCP), fb_hadoop (Facebook), or a file of "
                  "'<bytes> <cdf>' lines, cdf rising to 1 or 100 (docs/traffic.md).",
      BN_ROW_WL(struct poisson_keys, size_cdf) },
    { .info.path = "workload.duration_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "100",
      .info.doc = "poisson: flows arrive from workload.start_us for this long.",
      BN_ROW_WL(struct poisson_keys, duration_us), BN_ROW_RANGE(1e-3, 1e12) },
    { .info.path = "workload.rack_local", BN_ROW_FLOAT, .info.unit = "", .info.def = "-1",
      .info.doc = "poisson: fraction of flows to a host under the sender's leaf; -1 = "
                  "destinations uniform over all other hosts.",
      BN_ROW_WL(struct poisson_keys, rack_local), BN_ROW_RANGE(-1, 1) },
    { .info.path = "workload.incast_share", BN_ROW_FLOAT, .info.unit = "", .info.def = "0",
      .info.doc = "poisson: fraction of the load sent as incast bursts: incast_senders hosts "
                  "each send message_bytes to one random host at once.",
      BN_ROW_WL(struct poisson_keys, incast_share), BN_ROW_RANGE(0, 1) },
};

extern const struct bn_workload_ops bn_wl_poisson; /* below */

static const struct poisson_keys *keys_of(const struct bn_scenario *sc)
{
    return bn_workload_keys(sc, &bn_wl_poisson);
}

/* rack_local's range takes -1 .. 1; of the negatives only -1 means uniform. */
static int validate(const void *keys_, struct bn_error *err)
{
    const struct poisson_keys *k = keys_;
    if (k->rack_local < 0 && k->rack_local != -1)
        return bn_fail_key(err, BN_EINPUT, "workload.rack_local", "%g is neither -1 "
                           "(uniform) nor a fraction 0..1", k->rack_local);
    return BN_OK;
}

static void offered_load(const void *keys_, double *load, double *duration_us)
{
    const struct poisson_keys *k = keys_;
    *load = k->load;
    *duration_us = k->duration_us;
}

/* Hosts grouped by leaf: by_leaf[first[l] .. first[l] + count[l]) are leaf
 * l's; host h sits at pos[h]. */
struct racks {
    uint32_t *by_leaf, *first, *count, *pos, nleaves;
};

static void racks_free(struct racks *r)
{
    free(r->by_leaf);
    free(r->first);
    free(r->count);
    free(r->pos);
}

static int racks_build(struct racks *r, const struct bn_wl_hosts *h, struct bn_error *err)
{
    uint32_t nl = 0;
    for (uint32_t i = 0; i < h->n; i++)
        nl = h->leaf[i] + 1 > nl ? h->leaf[i] + 1 : nl;
    r->nleaves = nl;
    r->by_leaf = malloc((size_t)h->n * sizeof *r->by_leaf);
    r->pos = malloc((size_t)h->n * sizeof *r->pos);
    r->first = calloc(nl + 1, sizeof *r->first);
    r->count = calloc(nl + 1, sizeof *r->count);
    if (!r->by_leaf || !r->pos || !r->first || !r->count)
        return bn_fail(err, BN_ENOMEM, "out of memory for %u hosts' racks", h->n);
    for (uint32_t i = 0; i < h->n; i++)
        r->count[h->leaf[i]]++;
    for (uint32_t l = 1; l < nl; l++)
        r->first[l] = r->first[l - 1] + r->count[l - 1];
    uint32_t *fill = calloc(nl + 1, sizeof *fill);
    if (!fill)
        return bn_fail(err, BN_ENOMEM, "out of memory for %u hosts' racks", h->n);
    for (uint32_t i = 0; i < h->n; i++) {
        uint32_t l = h->leaf[i], at = r->first[l] + fill[l]++;
        r->by_leaf[at] = i;
        r->pos[i] = at;
    }
    free(fill);
    return BN_OK;
}

/* A destination for src: under its leaf with probability `local` (< 0:
 * uniform over all others). */
static uint32_t pick_dst(const struct racks *r, uint32_t n, uint32_t src, const uint32_t *leaf,
                         double local, struct bn_rng *rng)
{
    if (local < 0) {
        uint32_t d = (uint32_t)bn_rng_below(rng, n - 1);
        return d >= src ? d + 1 : d;
    }
    uint32_t l = leaf[src], first = r->first[l], m = r->count[l];
    if (bn_rng_uniform(rng) < local) {
        uint32_t k = (uint32_t)bn_rng_below(rng, m - 1), self = r->pos[src] - first;
        return r->by_leaf[first + (k >= self ? k + 1 : k)];
    }
    uint32_t k = (uint32_t)bn_rng_below(rng, n - m);
    return r->by_leaf[k >= first ? k + m : k];
}

/* Each leaf must offer what rack_local asks: a neighbour, and a host elsewhere. */
static int racks_check(const struct poisson_keys *k, const struct racks *r, uint32_t n,
                       struct bn_error *err)
{
    double f = k->rack_local;
    for (uint32_t l = 0; l < r->nleaves; l++) {
        if (!r->count[l])
            continue;
        if (f > 0 && r->count[l] < 2)
            return bn_fail_key(err, BN_EINPUT, "workload.rack_local", "leaf %u holds one "
                               "host, with no neighbour to send to", l);
        if (f < 1 && r->count[l] == n)
            return bn_fail_key(err, BN_EINPUT, "workload.rack_local", "every host is under "
                               "one leaf: no flow can leave it (set 1 or -1)");
    }
    return BN_OK;
}

static int add(struct bn_flow_list *out, uint32_t src, uint32_t dst, uint64_t bytes, double t_us,
               struct bn_error *err)
{
    if (out->n >= MAX_FLOWS)
        return bn_fail(err, BN_EINPUT, "poisson: more than %u flows: lower workload.load or "
                       "workload.duration_us", MAX_FLOWS);
    return bn_flow_list_add(out, src, dst, bytes, bn_time_from_us(t_us), err);
}

/* Incast bursts: one every `gap_us` on average over the window. */
static int bursts(const struct bn_scenario *sc, uint32_t n, double gap_us, struct bn_rng *rng,
                  struct bn_flow_list *out, struct bn_error *err)
{
    uint32_t k = sc->workload.incast_senders;
    if (k > n - 1)
        return bn_fail_key(err, BN_EINPUT, "workload.incast_senders", "%u senders but only "
                           "%u other hosts", k, n - 1);
    uint32_t *hosts = malloc((size_t)n * sizeof *hosts);
    if (!hosts)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        hosts[i] = i;
    double t0 = sc->workload.start_us, end = t0 + keys_of(sc)->duration_us;
    int rc = BN_OK;
    for (double t = t0 - gap_us * log1p(-bn_rng_uniform(rng)); rc == BN_OK && t < end;
         t -= gap_us * log1p(-bn_rng_uniform(rng))) {
        uint32_t dst = (uint32_t)bn_rng_below(rng, n);
        for (uint32_t i = 0; i < n; i++) /* the receiver last, out of the draw */
            if (hosts[i] == dst) {
                hosts[i] = hosts[n - 1];
                hosts[n - 1] = dst;
                break;
            }
        for (uint32_t i = 0; i < k && rc == BN_OK; i++) {
            uint32_t j = i + (uint32_t)bn_rng_below(rng, n - 1 - i), s = hosts[j];
            hosts[j] = hosts[i];
            hosts[i] = s;
            rc = add(out, s, dst, sc->workload.message_bytes, t, err);
        }
    }
    free(hosts);
    return rc;
}

static int by_start(const void *a, const void *b)
{
    const struct bn_flow_spec *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

static int generate(const struct bn_scenario *sc, const struct bn_wl_hosts *h,
                    struct bn_rng *rng, struct bn_flow_list *out, struct bn_error *err)
{
    const struct poisson_keys *k = keys_of(sc);
    uint32_t n = h->n;
    if (n < 2)
        return bn_fail(err, BN_EINPUT, "%s: key 'workload.kind': poisson needs >= 2 hosts",
                       sc->source);
    struct bn_size_cdf *cdf = malloc(sizeof *cdf);
    if (!cdf)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    int rc = bn_size_cdf_load(cdf, k->size_cdf, sc->source, err);
    if (rc != BN_OK) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        free(cdf);
        return bn_fail_key(err, BN_EINPUT, "workload.size_cdf", "%s", why);
    }
    struct racks r = {0};
    double local = k->rack_local;
    if (local >= 0 && !h->leaf)
        rc = bn_fail(err, BN_EINTERNAL, "poisson: workload.rack_local without the hosts' leaves");
    if (rc == BN_OK && local >= 0)
        rc = racks_build(&r, h, err);
    if (rc == BN_OK && local >= 0)
        rc = racks_check(k, &r, n, err);
    /* bytes per microsecond each host offers */
    double bpus = k->load * h->rate_bps / 8 / 1e6, share = k->incast_share;
    double t0 = sc->workload.start_us, end = t0 + k->duration_us;
    if (rc == BN_OK && share < 1) {
        double gap_us = bn_size_cdf_mean(cdf) / (bpus * (1 - share));
        for (uint32_t src = 0; src < n && rc == BN_OK; src++)
            for (double t = t0 - gap_us * log1p(-bn_rng_uniform(rng)); rc == BN_OK && t < end;
                 t -= gap_us * log1p(-bn_rng_uniform(rng))) {
                uint64_t bytes = bn_size_cdf_draw(cdf, rng);
                rc = add(out, src, pick_dst(&r, n, src, h->leaf, local, rng), bytes, t, err);
            }
    }
    if (rc == BN_OK && share > 0)
        rc = bursts(sc, n,
                    (double)sc->workload.incast_senders * (double)sc->workload.message_bytes /
                        (bpus * share * n),
                    rng, out, err);
    if (rc == BN_OK && out->n == 0)
        rc = bn_fail_key(err, BN_EINPUT, "workload.duration_us", "no flow arrives in %g us "
                         "at this load", k->duration_us);
    if (rc == BN_OK)
        qsort(out->flows, out->n, sizeof *out->flows, by_start);
    racks_free(&r);
    free(cdf);
    return rc;
}

/* The expected count with six standard deviations to spare. */
static uint64_t count(const struct bn_scenario *sc, uint64_t nhosts, uint64_t *serial)
{
    const struct poisson_keys *k = keys_of(sc);
    struct bn_size_cdf *cdf = malloc(sizeof *cdf);
    struct bn_error err = {0};
    *serial = 0;
    if (!cdf || bn_size_cdf_load(cdf, k->size_cdf, sc->source, &err) != BN_OK) {
        free(cdf);
        return 0;
    }
    double bytes = k->load * sc->link.rate_gbps * 1e9 / 8 * k->duration_us / 1e6 * (double)nhosts;
    double share = k->incast_share;
    double flows = bytes * (1 - share) / bn_size_cdf_mean(cdf) +
                   bytes * share / (double)sc->workload.message_bytes;
    free(cdf);
    double spare = flows + 6 * sqrt(flows) + 64;
    *serial = (uint64_t)(spare / (double)nhosts * 2 + 16);
    return spare > (double)MAX_FLOWS ? MAX_FLOWS : (uint64_t)spare;
}

const struct bn_workload_ops bn_wl_poisson = {
    .name = "poisson",
    .summary = "Poisson arrivals of sizes from size_cdf at a load",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .validate = validate,
    .offered_load = offered_load,
    .generate = generate,
    .count = count,
    .count_key = "workload.duration_us", /* arrivals over the duration */
};
