/*
 * FCT slowdown over the completed flows, overall and per flow-size bucket
 * (docs/traffic.md). Buckets as the HPCC paper's analysis cuts them (Li et
 * al., SIGCOMM 2019, artifact analysis/fct_analysis.py): flows sorted by
 * size, each bucket an equal share of them (observe.slowdown_step_pct); or
 * at fixed sizes (observe.slowdown_edges).
 */
#include <stdlib.h>

#include "core/stats.h"
#include "core/units.h"
#include "driver/flows/slowdown.h"

#define EDGES_MAX 64

struct sized {
    uint64_t bytes;
    double slowdown;
    uint32_t flow;
};

static int by_size(const void *a, const void *b)
{
    const struct sized *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? -1 : 1;
    return x->flow < y->flow ? -1 : x->flow > y->flow;
}

/* Stats of v[0..n), which it sorts. */
static struct bn_slowdown_stats stats(double *v, uint32_t n)
{
    if (n == 0)
        return (struct bn_slowdown_stats){0};
    double sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += v[i];
    bn_sort_doubles(v, n);
    return (struct bn_slowdown_stats){n, sum / n, bn_percentile_sorted(v, n, 50),
                                      bn_percentile_sorted(v, n, 95),
                                      bn_percentile_sorted(v, n, 99), v[n - 1]};
}

static int bucket(struct bn_results *out, const struct sized *f, uint32_t n, double *scratch,
                  struct bn_error *err)
{
    if (n == 0)
        return BN_OK;
    struct bn_slowdown_bucket *b = realloc(out->slowdown_buckets,
                                           (out->nslowdown_buckets + 1) * sizeof *b);
    if (!b)
        return bn_fail(err, BN_ENOMEM, "out of memory for slowdown buckets");
    out->slowdown_buckets = b;
    for (uint32_t i = 0; i < n; i++)
        scratch[i] = f[i].slowdown;
    b[out->nslowdown_buckets++] = (struct bn_slowdown_bucket){f[0].bytes, f[n - 1].bytes,
                                                              stats(scratch, n)};
    return BN_OK;
}

static int buckets(const struct bn_scenario *sc, struct bn_results *out, struct sized *f,
                   uint32_t n, double *scratch, struct bn_error *err)
{
    qsort(f, n, sizeof *f, by_size);
    uint64_t edges[EDGES_MAX];
    uint32_t nedges;
    if (bn_parse_size_list(sc->observe.slowdown_edges, edges, EDGES_MAX, &nedges) != 0)
        return bn_fail(err, BN_EINPUT, "key 'observe.slowdown_edges': '%s' is not a rising "
                       "list of sizes", sc->observe.slowdown_edges);
    int rc = BN_OK;
    uint32_t lo = 0;
    if (nedges) {
        for (uint32_t e = 0; e <= nedges && rc == BN_OK; e++) {
            uint32_t hi = lo;
            while (hi < n && (e == nedges || f[hi].bytes <= edges[e]))
                hi++;
            rc = bucket(out, f + lo, hi - lo, scratch, err);
            lo = hi;
        }
        return rc;
    }
    double step = sc->observe.slowdown_step_pct;
    for (uint32_t g = 1; lo < n && rc == BN_OK; g++) {
        double cut = g * step >= 100 ? n : (double)n * g * step / 100;
        uint32_t hi = (uint32_t)cut;
        rc = bucket(out, f + lo, hi - lo, scratch, err);
        lo = hi > lo ? hi : lo;
    }
    return rc;
}

int bn_slowdown_collect(const struct bn_scenario *sc, struct bn_results *out,
                        struct bn_error *err)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < out->nflows; i++)
        n += out->flows[i].done && out->flows[i].slowdown > 0;
    if (n == 0)
        return BN_OK;
    struct sized *f = malloc((size_t)n * sizeof *f);
    double *v = malloc((size_t)n * sizeof *v);
    if (!f || !v) {
        free(f);
        free(v);
        return bn_fail(err, BN_ENOMEM, "out of memory for %u flows' slowdown", n);
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < out->nflows; i++) {
        const struct bn_flow_result *r = &out->flows[i];
        if (r->done && r->slowdown > 0) {
            f[m] = (struct sized){r->bytes, r->slowdown, i};
            v[m++] = r->slowdown;
        }
    }
    out->fct_slowdown = stats(v, n);
    int rc = buckets(sc, out, f, n, v, err);
    free(f);
    free(v);
    return rc;
}
