/* Workload registry and the flow list shared by all generators. */
#include <stdlib.h>
#include <string.h>

#include "workload/workload.h"

extern const struct bn_workload_ops bn_wl_permutation;
extern const struct bn_workload_ops bn_wl_incast;
extern const struct bn_workload_ops bn_wl_all_to_all;
extern const struct bn_workload_ops bn_wl_flow_list;
extern const struct bn_workload_ops bn_wl_poisson;

static const struct bn_workload_ops *const workloads[] = {
    &bn_wl_permutation,
    &bn_wl_incast,
    &bn_wl_all_to_all,
    &bn_wl_flow_list,
    &bn_wl_poisson,
};

#define NWORKLOADS (sizeof workloads / sizeof workloads[0])

const struct bn_workload_ops *bn_workload_at(size_t i)
{
    return i < NWORKLOADS ? workloads[i] : NULL;
}

const char *bn_workload_name(size_t i)
{
    return i < NWORKLOADS ? workloads[i]->name : NULL;
}

int bn_workload_generate(const struct bn_scenario *sc, uint32_t nhosts,
                         struct bn_flow_list *out, struct bn_error *err)
{
    struct bn_wl_hosts h = {.n = nhosts, .rate_bps = sc->link.rate_gbps * 1e9};
    return bn_workload_generate_on(sc, &h, out, err);
}

int bn_workload_generate_on(const struct bn_scenario *sc, const struct bn_wl_hosts *h,
                            struct bn_flow_list *out, struct bn_error *err)
{
    memset(out, 0, sizeof *out);
    struct bn_rng rng;
    bn_rng_init(&rng, sc->seed, BN_STREAM_WORKLOAD);
    if (sc->workload.kind >= NWORKLOADS) /* the scenario's setter checked it */
        return bn_fail(err, BN_EINTERNAL, "workload.kind %u: no such workload", sc->workload.kind);
    int rc = workloads[sc->workload.kind]->generate(sc, h, &rng, out, err);
    if (rc != BN_OK)
        bn_flow_list_free(out);
    return rc;
}

void bn_flow_list_free(struct bn_flow_list *l)
{
    free(l->flows);
    memset(l, 0, sizeof *l);
}

int bn_flow_list_add(struct bn_flow_list *l, uint32_t src, uint32_t dst, uint64_t bytes,
                     bn_time_t start, struct bn_error *err)
{
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 64;
        struct bn_flow_spec *f = realloc(l->flows, (size_t)cap * sizeof *f);
        if (!f)
            return bn_fail(err, BN_ENOMEM, "out of memory for %u flows", cap);
        l->flows = f;
        l->cap = cap;
    }
    l->flows[l->n++] = (struct bn_flow_spec){src, dst, bytes, start};
    return BN_OK;
}
