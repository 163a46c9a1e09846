/* Workload registry and the flow list shared by all generators. */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
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
_Static_assert(NWORKLOADS <= BN_SC_WL_MAX, "bn_scenario.wl has no block for every workload");

const struct bn_workload_ops *bn_workload_at(size_t i)
{
    return i < NWORKLOADS ? workloads[i] : NULL;
}

const char *bn_workload_name(size_t i)
{
    return i < NWORKLOADS ? workloads[i]->name : NULL;
}

const char *bn_workload_summary(size_t i)
{
    return i < NWORKLOADS ? workloads[i]->summary : NULL;
}

/* A constant for the key's row: tests/scenario/test_module_keys.c fails
 * when it and the summaries disagree. */
const char bn_workload_doc[] =
    "Traffic: permutation (each host sends one flow to a random other host and gets one), "
    "incast (incast_senders random hosts send to one receiver at once), all_to_all (every "
    "host sends a flow to every other host at once), flow_list (the flows listed in "
    "workload.flow_file), poisson (Poisson arrivals of sizes from size_cdf at a load). See "
    "docs/traffic.md.";

const void *bn_workload_keys(const struct bn_scenario *sc, const struct bn_workload_ops *w)
{
    for (size_t i = 0; i < NWORKLOADS; i++)
        if (workloads[i] == w)
            return &sc->wl[i];
    abort(); /* not a registered generator: a bug */
}

static const struct bn_key_row *rows_of(size_t i, size_t *nrows)
{
    *nrows = workloads[i]->nkeys;
    return workloads[i]->keys;
}

const struct bn_key_modules bn_workload_key_modules = {NWORKLOADS, rows_of, NULL};

int bn_workload_validate(const struct bn_scenario *sc, struct bn_error *err)
{
    for (size_t i = 0; i < NWORKLOADS; i++) {
        int rc = workloads[i]->validate ? workloads[i]->validate(&sc->wl[i], err) : BN_OK;
        if (rc != BN_OK)
            return rc;
    }
    return BN_OK;
}

bool bn_workload_offered_load(const struct bn_scenario *sc, double *load, double *duration_us)
{
    const struct bn_workload_ops *w = bn_workload_at(sc->workload.kind);
    if (!w || !w->offered_load)
        return false;
    w->offered_load(&sc->wl[sc->workload.kind], load, duration_us);
    return true;
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
    free(l->trig);
    free(l->sig);
    free(l->fail);
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
    struct bn_flow_spec *f = &l->flows[l->n++];
    memset(f, 0, sizeof *f); /* padding too: lists are compared byte for byte */
    f->src = src, f->dst = dst, f->bytes = bytes, f->start = start, f->gate = BN_NO_TRIGGER;
    return BN_OK;
}

int bn_flow_list_trigger(struct bn_flow_list *l, uint32_t need, bool multishot, uint32_t line,
                         uint32_t *id, struct bn_error *err)
{
    if (!bn_grow((void **)&l->trig, l->ntrig, &l->trig_cap, sizeof *l->trig))
        return bn_fail(err, BN_ENOMEM, "out of memory for %u triggers", l->ntrig);
    *id = l->ntrig;
    l->trig[l->ntrig++] = (struct bn_flow_trigger){need, line, multishot};
    return BN_OK;
}

int bn_flow_list_signal(struct bn_flow_list *l, uint32_t flow, uint32_t trigger, bool on_sent,
                        struct bn_error *err)
{
    if (!bn_grow((void **)&l->sig, l->nsig, &l->sig_cap, sizeof *l->sig))
        return bn_fail(err, BN_ENOMEM, "out of memory for %u signals", l->nsig);
    l->sig[l->nsig++] = (struct bn_flow_signal){flow, trigger, on_sent};
    return BN_OK;
}

/* Which flows can start: ungated ones, and, to a fixed point, those whose
 * trigger gets enough signals from flows that can (a multishot trigger's
 * k-th flow needs k signals). */
int bn_flow_list_check_gates(const struct bn_flow_list *l, const char *path,
                             struct bn_error *err)
{
    if (l->ntrig == 0)
        return BN_OK;
    bool *can = calloc(l->n + 1, sizeof *can);
    uint32_t *sigs = calloc(l->ntrig + 1, sizeof *sigs), *rank = calloc(l->n + 1, sizeof *rank);
    uint32_t *seen = calloc(l->ntrig + 1, sizeof *seen);
    int rc = can && sigs && rank && seen
                 ? BN_OK
                 : bn_fail(err, BN_ENOMEM, "out of memory checking %u flows' triggers", l->n);
    for (uint32_t i = 0; rc == BN_OK && i < l->n; i++) /* a multishot trigger's flows in order */
        if (l->flows[i].gate != BN_NO_TRIGGER)
            rank[i] = ++seen[l->flows[i].gate];
    for (bool moved = rc == BN_OK; moved;) {
        moved = false;
        memset(sigs, 0, l->ntrig * sizeof *sigs);
        for (uint32_t k = 0; k < l->nsig; k++)
            sigs[l->sig[k].trigger] += l->flows[l->sig[k].flow].gate == BN_NO_TRIGGER ||
                                       can[l->sig[k].flow];
        for (uint32_t i = 0; i < l->n; i++) {
            uint32_t g = l->flows[i].gate;
            if (can[i] || g == BN_NO_TRIGGER)
                continue;
            uint32_t need = l->trig[g].multishot ? rank[i] : l->trig[g].need;
            if (sigs[g] >= need)
                can[i] = moved = true;
        }
    }
    for (uint32_t i = 0; i < l->n && rc == BN_OK; i++) {
        uint32_t g = l->flows[i].gate;
        if (g == BN_NO_TRIGGER || can[i])
            continue;
        uint32_t need = l->trig[g].multishot ? rank[i] : l->trig[g].need;
        rc = bn_fail(err, BN_EINPUT, "%s:%u: this flow can never start: its trigger (line %u) "
                     "needs %u activation%s, and the flows that can run give it at most %u",
                     path, l->flows[i].line, l->trig[g].line, need, need == 1 ? "" : "s",
                     sigs[g]);
    }
    free(can);
    free(sigs);
    free(rank);
    free(seen);
    return rc;
}
