/*
 * `bnet sweep`: the scenario at every point of a grid of key values. Each
 * point's scenario is made and validated before any runs; points then run
 * in worker processes (workers.c), up to `jobs` at once, each sending its
 * results' scalars back through a pipe. A point's
 * results land at its own index, so the output is the same for any number
 * of workers and any order of finishing.
 */
#include <stdlib.h>
#include <string.h>

#include "bnet/bnet.h"
#include "bnet/sweep.h"
#include "core/interrupt.h"
#include "core/progress.h"
#include "core/workers.h"
#include "sim/sim.h"

/* Key `key`'s type as bnet keys lists it; list items ("faults.0.at_us")
 * match their "faults[].at_us" row. "string" if none matches. */
static void key_type(const char *key, char *buf, size_t len)
{
    char path[BN_NAME_MAX + 8];
    const char *dot = strchr(key, '.'), *idx = dot ? dot + 1 : NULL;
    if (idx && *idx >= '0' && *idx <= '9') {
        const char *rest = strchr(idx, '.');
        snprintf(path, sizeof path, "%.*s[]%s", (int)(dot - key), key, rest ? rest : "");
    } else {
        snprintf(path, sizeof path, "%s", key);
    }
    snprintf(buf, len, "string");
    for (size_t i = 0; i < bn_scenario_key_count(); i++)
        if (strcmp(bn_scenario_key(i)->path, path) == 0)
            snprintf(buf, len, "%s", bn_scenario_key(i)->type);
}

/* "KEY=V1,V2,...": the axis, each value checked on a copy of sc and kept
 * as the scenario holds it. */
static int parse_axis(const struct bn_scenario *sc, const char *spec, struct bn_sweep_axis *ax,
                      struct bn_scenario *tmp, struct bn_error *err)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1])
        return bn_fail(err, BN_EINPUT, "--vary '%s': needs KEY=VALUE,VALUE,...", spec);
    if ((size_t)(eq - spec) >= sizeof ax->key)
        return bn_fail(err, BN_EINPUT, "--vary '%s': no such key", spec);
    snprintf(ax->key, sizeof ax->key, "%.*s", (int)(eq - spec), spec);
    key_type(ax->key, ax->type, sizeof ax->type);
    size_t n = 1;
    for (const char *c = eq + 1; *c; c++)
        n += *c == ',';
    ax->values = calloc(n, sizeof *ax->values);
    char *list = strdup(eq + 1);
    if (!ax->values || !list) {
        free(list);
        return bn_fail(err, BN_ENOMEM, "out of memory");
    }
    int rc = BN_OK;
    char *save = NULL;
    for (char *v = strtok_r(list, ",", &save); v && rc == BN_OK; v = strtok_r(NULL, ",", &save)) {
        size_t len = strlen(ax->key) + strlen(v) + 2;
        char *a = malloc(len), got[BN_PATH_MAX];
        if (!a) {
            rc = bn_fail(err, BN_ENOMEM, "out of memory");
            break;
        }
        snprintf(a, len, "%s=%s", ax->key, v);
        *tmp = *sc;
        rc = bn_scenario_set_flag(tmp, a, "--vary", a, err);
        free(a);
        if (rc == BN_OK && bn_scenario_get(tmp, ax->key, got, sizeof got) != BN_OK)
            snprintf(got, sizeof got, "%s", v);
        if (rc == BN_OK && !(ax->values[ax->nvalues++] = strdup(got)))
            rc = bn_fail(err, BN_ENOMEM, "out of memory");
    }
    free(list);
    if (rc == BN_OK && ax->nvalues == 0)
        rc = bn_fail(err, BN_EINPUT, "--vary '%s': no value given", spec);
    return rc;
}

/* Point p's axis indices, the last axis fastest. */
static void point_values(const struct bn_sweep_results *r, uint32_t p, uint32_t *value)
{
    for (uint32_t a = r->naxes; a-- > 0;) {
        value[a] = p % r->axes[a].nvalues;
        p /= r->axes[a].nvalues;
    }
}

/* "k1=v1 k2=v2" of point p, for messages. */
static void point_text(const struct bn_sweep_results *r, uint32_t p, char *buf, size_t len)
{
    uint32_t v[BN_SWEEP_AXES_MAX];
    point_values(r, p, v);
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t a = 0; a < r->naxes && at < len; a++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s=%s", a ? " " : "", r->axes[a].key,
                               r->axes[a].values[v[a]]);
}

/* Point p's scenario: sc with each axis's value set, validated. */
static int point_scenario(const struct bn_scenario *sc, const struct bn_sweep_results *r,
                          uint32_t p, struct bn_scenario *out, struct bn_error *err)
{
    uint32_t v[BN_SWEEP_AXES_MAX];
    point_values(r, p, v);
    *out = *sc;
    int rc = BN_OK;
    for (uint32_t a = 0; a < r->naxes && rc == BN_OK; a++) {
        char assignment[BN_NAME_MAX + BN_PATH_MAX + 2];
        snprintf(assignment, sizeof assignment, "%s=%s", r->axes[a].key, r->axes[a].values[v[a]]);
        rc = bn_scenario_set_flag(out, assignment, "--vary", assignment, err);
    }
    if (rc == BN_OK)
        rc = bn_scenario_validate(out, err);
    if (rc != BN_OK) {
        char where[512], msg[sizeof err->msg];
        point_text(r, p, where, sizeof where);
        snprintf(msg, sizeof msg, "%s", err->msg);
        rc = bn_fail(err, err->status, "sweep point %u (%s): %s", p, where, msg);
    }
    return rc;
}

/* Every point's scenario valid, and `jobs` of the largest within memory. */
static int check_points(const struct bn_scenario *sc, const struct bn_sweep_results *r,
                        unsigned jobs, struct bn_scenario *tmp, struct bn_error *err)
{
    uint64_t most = 0, avail = UINT64_MAX;
    for (uint32_t p = 0; p < r->npoints; p++) {
        struct bn_mem_estimate e;
        int rc = point_scenario(sc, r, p, tmp, err);
        if (rc == BN_OK)
            rc = bn_check_memory(tmp, BN_EST_RUN, err);
        if (rc == BN_OK)
            rc = bn_estimate_memory(tmp, BN_EST_RUN, &e, err);
        if (rc != BN_OK)
            return rc;
        most = e.total_bytes > most ? e.total_bytes : most;
        avail = e.available_bytes;
    }
    unsigned at_once = jobs < r->npoints ? jobs : r->npoints;
    if (most * at_once > avail)
        return bn_fail(err, BN_EINPUT, "sweep: %u points at once, each up to %.2f GB, need "
                       "more than the %.2f GB available: lower -j", at_once, most / 1e9,
                       avail / 1e9);
    return BN_OK;
}

/* What a worker sends back: status, error, results and their faults. */
struct point_msg {
    int rc;
    struct bn_error err;
    struct bn_results res;
    struct bn_fault_result faults[BN_SC_FAULTS_MAX];
};

struct sweep_ctx {
    const struct bn_scenario *sc;
    struct bn_scenario *psc;     /* a point's scenario (large: off the stack), the worker's */
    struct bn_sweep_results *out;
    uint32_t part, nparts;       /* task t runs point t * nparts + part */
    uint32_t tasks;              /* points of this share */
    bn_sweep_progress_fn progress;
    void *ud;
    double t0;
};

/* In the worker: run point p, keep its results' scalars and faults. */
static void run_point(void *ctx, uint32_t t, void *msg)
{
    const struct sweep_ctx *x = ctx;
    uint32_t p = t * x->nparts + x->part;
    struct point_msg *m = msg;
    struct bn_run_opts ro = {0};
    m->rc = point_scenario(x->sc, x->out, p, x->psc, &m->err);
    if (m->rc == BN_OK)
        m->rc = bn_run(x->psc, &ro, &m->res, &m->err);
    if (m->rc != BN_OK)
        return;
    uint32_t nf = m->res.nfaults < BN_SC_FAULTS_MAX ? m->res.nfaults : BN_SC_FAULTS_MAX;
    if (nf)
        memcpy(m->faults, m->res.faults, nf * sizeof *m->faults);
    struct bn_results keep = m->res;
    bn_results_free(&m->res);
    m->res = keep; /* the scalars; the arrays are gone */
    m->res.flows = NULL;
    m->res.ports = NULL;
    m->res.nports = 0;
    m->res.faults = NULL;
    m->res.nfaults = nf;
    m->res.slowdown_buckets = NULL; /* a point keeps the overall slowdown only */
    m->res.nslowdown_buckets = 0;
    memset(&m->res.series, 0, sizeof m->res.series);
    memset(&m->res.prov, 0, sizeof m->res.prov);
}

/* In the parent: point p's results at its index. */
static int place_point(void *ctx, uint32_t t, const void *msg, struct bn_error *err)
{
    struct sweep_ctx *x = ctx;
    uint32_t p = t * x->nparts + x->part;
    const struct point_msg *m = msg;
    if (m->rc == BN_EINTR) /* stopped in its set-up: not done, the sweep interrupted */
        return BN_OK;
    if (m->rc != BN_OK) {
        *err = m->err;
        return m->rc;
    }
    struct bn_sweep_point *pt = &x->out->points[p];
    pt->res = m->res;
    if (m->res.nfaults) {
        pt->res.faults = malloc(m->res.nfaults * sizeof *pt->res.faults);
        if (!pt->res.faults)
            return bn_fail(err, BN_ENOMEM, "out of memory");
        memcpy(pt->res.faults, m->faults, m->res.nfaults * sizeof *m->faults);
    }
    pt->done = true;
    x->out->done++;
    double wall = bn_wall_now() - x->t0;
    if (x->progress)
        x->progress(x->ud, x->out->done, x->tasks, wall);
    bn_progress_parts((double)x->out->done / x->tasks, x->out->done, x->tasks, wall);
    return BN_OK;
}

static int setup(const struct bn_scenario *sc, const char *const *vary,
                 struct bn_sweep_results *out, struct bn_scenario *tmp, struct bn_error *err)
{
    snprintf(out->scenario, sizeof out->scenario, "%s", sc->source);
    int rc = bn_provenance_keep(&out->prov, sc, err);
    for (size_t i = 0; rc == BN_OK && vary && vary[i]; i++) {
        if (out->naxes == BN_SWEEP_AXES_MAX)
            return bn_fail(err, BN_EINPUT, "sweep: more than %d keys varied at once",
                           BN_SWEEP_AXES_MAX);
        struct bn_sweep_axis *ax = &out->axes[out->naxes++];
        rc = parse_axis(sc, vary[i], ax, tmp, err);
        for (uint32_t a = 0; rc == BN_OK && a + 1 < out->naxes; a++)
            if (strcmp(out->axes[a].key, ax->key) == 0)
                rc = bn_fail(err, BN_EINPUT, "--vary: key '%s' varied twice", ax->key);
    }
    uint64_t n = 1;
    for (uint32_t a = 0; rc == BN_OK && a < out->naxes; a++)
        if ((n *= out->axes[a].nvalues) > BN_SWEEP_POINTS_MAX)
            rc = bn_fail(err, BN_EINPUT, "sweep: more than %d points", BN_SWEEP_POINTS_MAX);
    if (rc != BN_OK)
        return rc;
    out->npoints = (uint32_t)n;
    out->points = calloc(n, sizeof *out->points);
    if (!out->points)
        return bn_fail(err, BN_ENOMEM, "out of memory for %llu sweep points",
                       (unsigned long long)n);
    for (uint32_t p = 0; p < out->npoints; p++)
        point_values(out, p, out->points[p].value);
    return BN_OK;
}

int bn_sweep_run(const struct bn_scenario *sc, const char *const *vary, unsigned jobs,
                 bn_sweep_progress_fn progress, void *ud, struct bn_sweep_results *out,
                 struct bn_error *err)
{
    return bn_sweep_run_part(sc, vary, jobs, 0, 1, progress, ud, out, err);
}

int bn_sweep_run_part(const struct bn_scenario *sc, const char *const *vary, unsigned jobs,
                      uint32_t part, uint32_t nparts, bn_sweep_progress_fn progress, void *ud,
                      struct bn_sweep_results *out, struct bn_error *err)
{
    memset(out, 0, sizeof *out);
    double t0 = bn_wall_now();
    if (jobs < 1 || jobs > BN_SWEEP_JOBS_MAX)
        return bn_fail(err, BN_EINPUT, "sweep: -j %u: workers at once must be 1 to %d", jobs,
                       BN_SWEEP_JOBS_MAX);
    if (nparts < 1 || part >= nparts)
        return bn_fail(err, BN_EINPUT, "sweep: share %u of %u does not exist", part, nparts);
    struct bn_scenario *tmp = malloc(sizeof *tmp);
    int rc = tmp ? setup(sc, vary, out, tmp, err) : bn_fail(err, BN_ENOMEM, "out of memory");
    if (rc == BN_OK)
        rc = check_points(sc, out, jobs, tmp, err);
    out->jobs = jobs < out->npoints ? jobs : out->npoints;
    uint32_t mine = out->npoints > part ? (out->npoints - part + nparts - 1) / nparts : 0;
    /* tmp is the points' scratch now: each forked worker writes its own copy */
    struct sweep_ctx x = {.sc = sc, .psc = tmp, .out = out, .part = part, .nparts = nparts,
                          .tasks = mine, .progress = progress, .ud = ud, .t0 = t0};
    struct bn_workers w = {.ntasks = mine, .jobs = out->jobs,
                           .msg_size = sizeof(struct point_msg), .what = "sweep",
                           .interruptible = true, .run = run_point, .place = place_point,
                           .ctx = &x};
    if (rc == BN_OK)
        rc = bn_workers_run(&w, err);
    free(tmp);
    out->interrupted = rc == BN_OK && (out->done < mine || bn_interrupt_requested());
    out->wall_s = bn_wall_now() - t0;
    if (rc != BN_OK)
        bn_sweep_results_free(out);
    return rc;
}

void bn_sweep_results_free(struct bn_sweep_results *r)
{
    for (uint32_t a = 0; a < r->naxes; a++) {
        for (uint32_t v = 0; v < r->axes[a].nvalues; v++)
            free(r->axes[a].values[v]);
        free(r->axes[a].values);
    }
    for (uint32_t p = 0; r->points && p < r->npoints; p++)
        free(r->points[p].res.faults);
    free(r->points);
    bn_provenance_free(&r->prov);
    memset(r, 0, sizeof *r);
}
