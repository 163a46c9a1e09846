/*
 * bnet fitted to a cluster's measurements (`bnet calibrate`,
 * docs/calibration.md). Each nccl-tests input becomes the cluster it ran
 * on (the base scenario at its hosts x GPUs per host, with the NCCL_*
 * variables NCCL reads for its algorithm, protocol and channels); each row
 * runs as a one-size sweep of the collective driver, in this process, at
 * flow level with NCCL's tuning model picking as NCCL picked, and at 1 GiB
 * and above as aggregate flows (within 0.5 % of the packet level there,
 * docs/calibration.md "Speed"). perftest rows run as bnet p2p between a
 * host and its rail peer in the next server. The keys are fitted by
 * least squares on ln(bnet / measured) (calib/fit.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bnet/calib.h"
#include "bnet/coll.h"
#include "bnet/p2p.h"
#include "bnet/version.h"
#include "calib/calib.h"
#include "coll/sched.h"
#include "core/workers.h"

#define AGGREGATE_MIN_BYTES (1ull << 30)

/* A key bnet can fit, with bounds from published hardware figures
 * (docs/calibration.md gives each source). rel: the bounds are fractions
 * of the scenario's own value (a rate's share that carries data). */
struct fittable {
    const char *key;
    double lo, hi;
    bool rel;
    bool dflt;               /* in the default set */
    bool discrete;           /* an integer: searched, not in LM's Jacobian */
    /* the value the key's 0 stands for ("auto"), or NULL */
    double (*auto_value)(const struct bn_scenario *sc);
    /* where the fit starts from the key's 0 when 0 is outside the bounds
     * ("none"), or NULL: the nearer bound */
    double (*zero_start)(const struct bn_scenario *sc);
};

static double auto_channels(const struct bn_scenario *sc)
{
    return bn_coll_channels(sc);
}

/* A channel's cap where it starts to bind: NVLink's data rate a GPU has,
 * over the channels (a ring's channels share it evenly). */
static double cap_start(const struct bn_scenario *sc)
{
    return sc->scale_up.rate_gbps * sc->scale_up.efficiency / 8 / bn_coll_channels(sc);
}

static const struct fittable fittables[] = {
    /* NCCL's per-step software latency: 0.1 us to its Simple network hwLat (14 us) */
    {.key = "coll.step_latency_us", .lo = 0.1, .hi = 14, .rel = false, .dflt = true},
    /* LL's and LL128's ring network step: NCCL's least and most step of the
     * protocol anywhere (hwLat: LL 0.6 NVLink to 5.0 network tree; LL128
     * 1.25 NVLink tree to 8.5 network tree; 2.20.3 src/graph/tuning.cc) */
    {.key = "coll.ll_step_latency_us", .lo = 0.6, .hi = 5.0, .rel = false, .dflt = false},
    {.key = "coll.ll128_step_latency_us", .lo = 1.25, .hi = 8.5, .rel = false, .dflt = true},
    /* one CTA's throughput: a quarter of NCCL's largest per-channel ceiling
     * on Hopper to it (tree 41.4 GB/s, 2.20.3 src/graph/tuning.cc) */
    {.key = "coll.channel_gbs", .lo = 10, .hi = 41.4, .rel = false, .dflt = false,
     .zero_start = cap_start},
    /* NVLink's data share: below NCCL's NVLink4 figure (0.824) to line rate */
    {.key = "scale_up.efficiency", .lo = 0.5, .hi = 1.0, .rel = false, .dflt = true},
    /* the NIC's and fabric's rate: half the line rate to the line rate */
    {.key = "link.rate_gbps", .lo = 0.5, .hi = 1.0, .rel = true, .dflt = true},
    /* one-way PCIe latency NIC <-> memory (Neugebauer et al., SIGCOMM 2018: 0.4 to 1.5 us) */
    {.key = "host.pcie_ns", .lo = 0, .hi = 1500, .rel = false, .dflt = false},
    {.key = "host.gpu_pcie_ns", .lo = 0, .hi = 1500, .rel = false, .dflt = false},
    /* switch port to port: 100 ns (IB NDR class) to 1 us (deep-buffer Ethernet) */
    {.key = "switch.latency_ns", .lo = 100, .hi = 1000, .rel = false, .dflt = false},
    /* NVSwitch forwarding */
    {.key = "scale_up.latency_ns", .lo = 50, .hi = 1000, .rel = false, .dflt = false},
    /* NIC send and receive processing (ConnectX class: hundreds of ns) */
    {.key = "nic.tx_ns", .lo = 0, .hi = 2000, .rel = false, .dflt = false},
    {.key = "nic.rx_ns", .lo = 0, .hi = 2000, .rel = false, .dflt = false},
    /* NCCL's channels: 2 to its 32 (MAXCHANNELS, NCCL_MIN/MAX_NCHANNELS'
     * range); an input's own NCCL_* channel variables bound it further */
    {.key = "coll.channels", .lo = 2, .hi = 32, .rel = false, .dflt = true, .discrete = true,
     .auto_value = auto_channels},
    /* work requests a second: a host thread posting one QP (perftest's
     * 2.5 M/s, tests/data/calib) to ConnectX-7's 370 M/s (its data sheet) */
    {.key = "nic.msg_rate_mpps", .lo = 0.5, .hi = 400, .rel = false, .dflt = false},
};

const char *bn_calib_default_key(uint32_t i)
{
    for (size_t k = 0; k < sizeof fittables / sizeof fittables[0]; k++)
        if (fittables[k].dflt && i-- == 0)
            return fittables[k].key;
    return NULL;
}

static const struct fittable *fittable_of(const char *key)
{
    for (size_t k = 0; k < sizeof fittables / sizeof fittables[0]; k++)
        if (strcmp(fittables[k].key, key) == 0)
            return &fittables[k];
    return NULL;
}

bool bn_calib_fittable(const char *key)
{
    return fittable_of(key) != NULL;
}

struct run {
    const struct bn_calib_data *d;
    struct bn_scenario **input_sc;  /* [ninputs]: each input's cluster */
    struct bn_scenario *row_sc;     /* scratch */
    struct bn_calib_results *out;
    uint32_t nparams;
    double *pred_us;                /* [nrows] the last run's times */
    double *pred_gbs;
    char (*algo)[16];
    char (*proto)[8];
    unsigned jobs;                  /* rows run at once, each in a worker process */
    /* the lowest-cost run so far, for the table at lmdif's optimum */
    double best_x[BN_CALIB_MAX_PARAMS], best_cost;
    double *best_us, *best_gbs;
    char (*best_algo)[16];
    char (*best_proto)[8];
    bool have_best;
    int channels_param;             /* coll.channels' index in params, or -1 */
};

static int set_value(struct bn_scenario *sc, const char *key, const char *value,
                     struct bn_error *err)
{
    char a[160];
    snprintf(a, sizeof a, "%s=%s", key, value);
    return bn_scenario_set(sc, a, err);
}

static int set_number(struct bn_scenario *sc, const char *key, double v, struct bn_error *err)
{
    char buf[40];
    if (v == floor(v) && fabs(v) < 1e15) /* integer keys take no exponent */
        snprintf(buf, sizeof buf, "%.0f", v);
    else
        snprintf(buf, sizeof buf, "%.9g", v);
    return set_value(sc, key, buf, err);
}

static const char *env_of(const struct bn_calib_input *in, const char *name)
{
    for (uint32_t i = 0; i < in->nenv; i++)
        if (strcmp(in->env[i].name, name) == 0)
            return in->env[i].value;
    return NULL;
}

/* NCCL_ALGO / NCCL_PROTO as NCCL names them, to bnet's; NULL if bnet has
 * no such algorithm. */
static const char *nccl_name(const char *v, bool proto)
{
    static const char *const algos[][2] = {{"ring", "ring"}, {"tree", "tree"},
                                           {"collnetdirect", "collnet"},
                                           {"collnetchain", "collnet"}, {"collnet", "collnet"},
                                           {"nvls", "nvls"}};
    static const char *const protos[][2] = {{"ll", "ll"}, {"ll128", "ll128"},
                                            {"simple", "simple"}};
    char low[40];
    size_t n = 0;
    for (; v[n] && n + 1 < sizeof low; n++)
        low[n] = (char)(v[n] >= 'A' && v[n] <= 'Z' ? v[n] - 'A' + 'a' : v[n]);
    low[n] = '\0';
    for (size_t i = 0; i < (proto ? 3 : 6); i++)
        if (strcmp(low, proto ? protos[i][0] : algos[i][0]) == 0)
            return proto ? protos[i][1] : algos[i][1];
    return NULL;
}

/* The channel bounds an input's NCCL_MIN/MAX_NCHANNELS and NCCL_MIN/MAX_CTAS
 * give (one CTA per channel); 1 and 64 without them. */
static int env_channels(const struct bn_calib_input *in, uint32_t *lo, uint32_t *hi,
                        struct bn_error *err)
{
    const char *names[] = {"NCCL_MIN_NCHANNELS", "NCCL_MIN_CTAS", "NCCL_MAX_NCHANNELS",
                           "NCCL_MAX_CTAS"};
    *lo = 1;
    *hi = 64;
    for (int i = 0; i < 4; i++) {
        const char *v = env_of(in, names[i]);
        char *end;
        unsigned long n = v ? strtoul(v, &end, 10) : 0;
        if (v && (*end || n < 1 || n > 64))
            return bn_fail(err, BN_EINPUT, "%s: %s '%s': a channel count, 1 to 64", in->path,
                           names[i], v);
        if (v && i < 2 && n > *lo)
            *lo = (uint32_t)n;
        if (v && i >= 2 && n < *hi)
            *hi = (uint32_t)n;
    }
    return BN_OK;
}

/* The NCCL_* variables NCCL reads for what it runs: the algorithm, the
 * protocol, the channels (NCCL_MIN_CTAS / NCCL_MAX_CTAS count CTAs, one
 * per channel). Others are kept in the input, not modelled. */
static int apply_env(struct bn_scenario *sc, const struct bn_calib_input *in,
                     struct bn_error *err)
{
    int rc = BN_OK;
    const char *algo = env_of(in, "NCCL_ALGO"), *proto = env_of(in, "NCCL_PROTO");
    if (algo && !nccl_name(algo, false))
        return bn_fail(err, BN_EINPUT, "%s: NCCL_ALGO '%s': bnet runs Ring, Tree, CollNet or "
                       "NVLS", in->path, algo);
    if (proto && !nccl_name(proto, true))
        return bn_fail(err, BN_EINPUT, "%s: NCCL_PROTO '%s': bnet runs LL, LL128 or Simple",
                       in->path, proto);
    if (algo)
        rc = set_value(sc, "coll.algo", nccl_name(algo, false), err);
    if (rc == BN_OK && proto)
        rc = set_value(sc, "coll.proto", nccl_name(proto, true), err);
    uint32_t now = bn_coll_channels(sc), lo = 1, hi = 64;
    if (rc == BN_OK)
        rc = env_channels(in, &lo, &hi, err);
    uint32_t ch = now < lo ? lo : now > hi ? hi : now;
    if (rc == BN_OK && ch != now)
        rc = set_number(sc, "coll.channels", ch, err);
    return rc;
}

/* The cluster an nccl-tests input ran on: the base at its shape. */
static int input_scenario(const struct bn_scenario *base, const struct bn_calib_input *in,
                          struct bn_scenario *sc, struct bn_error *err)
{
    *sc = *base;
    int rc = BN_OK;
    if (in->kind == BN_CALIB_NCCL_TESTS) {
        /* servers of 8 GPUs with a NIC each on a rail-optimized fabric, as
         * bnet coll -N x -g 8 builds them (docs/collectives.md) */
        char typed[48];
        snprintf(typed, sizeof typed, "%u hosts x %u GPUs", in->nodes, in->gpus_per_node);
        if (in->gpus_per_node != 8 && in->nodes > 1)
            return bn_fail(err, BN_EINPUT, "%s: %s: bnet builds multi-server clusters of 8 "
                           "GPUs per server; give the cluster with --scenario", in->path, typed);
        rc = bn_scenario_set_ranks(sc, in->nranks, in->path, typed, err);
        if (rc == BN_OK)
            rc = set_value(sc, "coll.op", in->op, err);
        if (rc == BN_OK)
            rc = set_value(sc, "coll.tuner", "nccl", err);
        if (rc == BN_OK)
            rc = apply_env(sc, in, err);
    }
    /* one timed iteration, out of place, no check: times are deterministic */
    const char *sets[] = {"coll.in_place=false", "coll.iters=1", "coll.warmup=0",
                          "coll.check=0", "sim.fidelity=flow"};
    for (size_t i = 0; rc == BN_OK && in->kind == BN_CALIB_NCCL_TESTS && i < 5; i++)
        rc = bn_scenario_set(sc, sets[i], err);
    if (rc == BN_OK)
        rc = bn_scenario_validate(sc, err);
    if (rc != BN_OK && err->msg[0] && !strstr(err->msg, in->path)) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        bn_fail(err, rc, "%s: the cluster it ran on: %s", in->path, msg);
    }
    return rc;
}

static int run_coll_row(struct run *run, const struct bn_calib_row *row, uint32_t i,
                        struct bn_error *err)
{
    struct bn_scenario *sc = run->row_sc;
    *sc = *run->input_sc[row->input];
    int rc = set_number(sc, "coll.min_bytes", (double)row->bytes, err);
    if (rc == BN_OK)
        rc = set_number(sc, "coll.max_bytes", (double)row->bytes, err);
    /* aggregate flows where they match the packet level: ring AllReduce
     * of 1 GiB and more (what NCCL's model and bnet's tuner both run) */
    bool agg = row->bytes >= AGGREGATE_MIN_BYTES && sc->coll.op == BN_COLL_ALLREDUCE &&
               sc->coll.proto == 0;
    if (rc == BN_OK && agg)
        rc = bn_scenario_set(sc, "coll.aggregate=true", err);
    if (rc == BN_OK && agg)
        rc = bn_scenario_set(sc, "coll.tuner=bnet", err);
    if (rc == BN_OK)
        rc = bn_scenario_validate(sc, err);
    struct bn_coll_results res;
    if (rc == BN_OK)
        rc = bn_coll_sweep(sc, &res, err);
    if (rc != BN_OK)
        return rc;
    if (res.nrows != 1 || res.rows[0].failed || res.rows[0].time_us <= 0)
        rc = bn_fail(err, BN_EINTERNAL, "row %u of %s: no time", i, run->d->inputs[row->input].path);
    else {
        run->pred_us[i] = res.rows[0].time_us;
        run->pred_gbs[i] = res.rows[0].busbw_gbs;
        snprintf(run->algo[i], sizeof run->algo[i], "%s", res.rows[0].algo);
        snprintf(run->proto[i], sizeof run->proto[i], "%s",
                 res.rows[0].proto[0] ? res.rows[0].proto : res.rows[0].nccl_proto);
    }
    bn_coll_results_free(&res);
    return rc;
}

/* A perftest row as bnet p2p runs it: host 0 and host G (the same rail in
 * the next server, through the network). */
static int run_p2p_row(struct run *run, const struct bn_calib_row *row, uint32_t i,
                       struct bn_error *err)
{
    struct bn_scenario *sc = run->row_sc;
    *sc = *run->input_sc[row->input];
    char hosts[32];
    uint32_t g = sc->topology.gpus_per_server ? sc->topology.gpus_per_server : 1;
    snprintf(hosts, sizeof hosts, "0,%u", g);
    bool lat = strstr(row->op, "_lat") != NULL;
    int rc = set_value(sc, "p2p.test", row->op, err);
    if (rc == BN_OK)
        rc = set_number(sc, "p2p.bytes", (double)row->bytes, err);
    if (rc == BN_OK)
        rc = set_value(sc, "p2p.hosts", hosts, err);
    if (rc == BN_OK)
        rc = set_number(sc, "p2p.iterations", lat ? 100 : 200, err);
    /* what the test inlined (perftest's -I, printed in its header): a small
     * WRITE or SEND then skips the NIC's fetches of its WQE and data */
    if (rc == BN_OK && row->inline_bytes >= 0)
        rc = set_number(sc, "nic.inline_bytes", row->inline_bytes, err);
    if (rc == BN_OK)
        rc = bn_scenario_validate(sc, err);
    struct bn_p2p_results res;
    if (rc == BN_OK)
        rc = bn_p2p_run(sc, NULL, NULL, &res, err);
    if (rc != BN_OK)
        return rc;
    const struct bn_p2p_row *r = res.npairs && res.pairs[0].nrows ? &res.pairs[0].rows[0] : NULL;
    double t = !r ? 0 : lat ? r->t_typical_us : r->bw_avg_gbps > 0 ? row->bytes * 8 / (r->bw_avg_gbps * 1e3) : 0;
    if (t <= 0)
        rc = bn_fail(err, BN_EINTERNAL, "row %u of %s: no time", i, run->d->inputs[row->input].path);
    run->pred_us[i] = t;
    run->pred_gbs[i] = r && !lat ? r->bw_avg_gbps : 0;
    snprintf(run->algo[i], sizeof run->algo[i], "p2p");
    run->proto[i][0] = '\0';
    bn_p2p_results_free(&res);
    return rc;
}

static int run_row(struct run *run, uint32_t i, struct bn_error *err)
{
    const struct bn_calib_row *row = &run->d->rows[i];
    return run->d->inputs[row->input].kind == BN_CALIB_NCCL_TESTS ? run_coll_row(run, row, i, err)
                                                                : run_p2p_row(run, row, i, err);
}

/* A row's outcome, from its worker process. */
struct row_msg {
    int rc;
    double us, gbs;
    char algo[16], proto[8];
    char msg[sizeof((struct bn_error *)0)->msg];
};

static void row_task(void *ctx, uint32_t i, void *out)
{
    struct run *run = ctx;
    struct row_msg *m = out;
    struct bn_error err = {0};
    m->rc = run_row(run, i, &err);
    m->us = run->pred_us[i];
    m->gbs = run->pred_gbs[i];
    memcpy(m->algo, run->algo[i], sizeof m->algo);
    memcpy(m->proto, run->proto[i], sizeof m->proto);
    snprintf(m->msg, sizeof m->msg, "%s", err.msg);
}

static int row_place(void *ctx, uint32_t i, const void *in, struct bn_error *err)
{
    struct run *run = ctx;
    const struct row_msg *m = in;
    if (m->rc != BN_OK)
        return bn_fail(err, m->rc, "%s", m->msg);
    run->pred_us[i] = m->us;
    run->pred_gbs[i] = m->gbs;
    memcpy(run->algo[i], m->algo, sizeof run->algo[i]);
    memcpy(run->proto[i], m->proto, sizeof run->proto[i]);
    return BN_OK;
}

/* Every row at parameter values x (NULL: the scenario's own), `jobs` rows
 * at once in worker processes (the results do not depend on it). */
static int run_rows(struct run *run, const double *x, struct bn_error *err)
{
    int rc = BN_OK;
    const struct bn_calib_data *d = run->d;
    if (x) { /* the values into each input's cluster */
        for (uint32_t k = 0; rc == BN_OK && k < d->ninputs; k++)
            for (uint32_t p = 0; rc == BN_OK && p < run->nparams; p++) {
                double v = x[p];
                if ((int)p == run->channels_param) { /* within the input's NCCL_* bounds */
                    uint32_t lo = 1, hi = 64;
                    rc = env_channels(&d->inputs[k], &lo, &hi, err);
                    v = v < lo ? lo : v > hi ? hi : v;
                }
                if (rc == BN_OK)
                    rc = set_number(run->input_sc[k], run->out->params[p].key, v, err);
            }
    }
    if (rc != BN_OK)
        return rc;
    if (run->jobs <= 1) {
        for (uint32_t i = 0; rc == BN_OK && i < d->nrows; i++)
            rc = run_row(run, i, err);
        return rc;
    }
    struct bn_workers w = {.ntasks = d->nrows, .jobs = run->jobs, .msg_size = sizeof(struct row_msg),
                           .what = "calibrate", .run = row_task, .place = row_place, .ctx = run};
    return bn_workers_run(&w, err);
}

static void keep_best(struct run *run, const double *x, double cost)
{
    size_t n = run->d->nrows;
    run->have_best = true;
    run->best_cost = cost;
    memcpy(run->best_x, x, run->nparams * sizeof *x);
    memcpy(run->best_us, run->pred_us, n * sizeof *run->pred_us);
    memcpy(run->best_gbs, run->pred_gbs, n * sizeof *run->pred_gbs);
    memcpy(run->best_algo, run->algo, n * sizeof *run->algo);
    memcpy(run->best_proto, run->proto, n * sizeof *run->proto);
}

static bool same_x(const struct run *run, const double *a, const double *b)
{
    return memcmp(a, b, run->nparams * sizeof *a) == 0;
}

static int residuals(void *ud, const double *x, double *r, struct bn_error *err)
{
    struct run *run = ud;
    int rc = BN_OK;
    /* lmdif starts where the "before" run was: no second run of it */
    bool cached = run->have_best && same_x(run, x, run->best_x);
    if (cached) {
        memcpy(run->pred_us, run->best_us, run->d->nrows * sizeof *run->pred_us);
    } else {
        rc = run_rows(run, x, err);
        run->out->evaluations++;
    }
    double cost = 0;
    for (uint32_t i = 0; rc == BN_OK && i < run->d->nrows; i++) {
        r[i] = log(run->pred_us[i] / run->d->rows[i].time_us);
        cost += r[i] * r[i];
    }
    if (rc == BN_OK && !cached && cost < run->best_cost)
        keep_best(run, x, cost);
    return rc;
}

static double rms(const double *pred, const struct bn_calib_data *d)
{
    double s = 0;
    for (uint32_t i = 0; i < d->nrows; i++) {
        double e = log(pred[i] / d->rows[i].time_us);
        s += e * e;
    }
    return d->nrows ? sqrt(s / d->nrows) : 0;
}

/* The keys to fit with their bounds and the scenario's values. */
static int choose_params(const struct bn_scenario *base, const struct bn_calib_opts *o,
                         struct bn_calib_results *out, struct bn_error *err)
{
    for (uint32_t i = 0;; i++) {
        const char *key = o->keys ? o->keys[i] : bn_calib_default_key(i);
        if (!key)
            break;
        const struct fittable *f = fittable_of(key);
        if (!f)
            return bn_fail(err, BN_EINPUT, "key '%s' cannot be fitted (bnet calibrate --help "
                           "lists the keys it fits)", key);
        if (out->nparams == BN_CALIB_MAX_PARAMS)
            return bn_fail(err, BN_EINPUT, "more than %d keys to fit", BN_CALIB_MAX_PARAMS);
        for (uint32_t p = 0; p < out->nparams; p++)
            if (strcmp(out->params[p].key, key) == 0)
                return bn_fail(err, BN_EINPUT, "key '%s' given twice", key);
        struct bn_calib_param *p = &out->params[out->nparams++];
        snprintf(p->key, sizeof p->key, "%s", key);
        char buf[64];
        int rc = bn_scenario_get(base, key, buf, sizeof buf);
        if (rc != BN_OK)
            return bn_fail(err, BN_EINTERNAL, "key '%s' has no value", key);
        p->initial = p->value = strtod(buf, NULL);
        if (p->initial == 0 && f->auto_value)
            p->initial = p->value = f->auto_value(base);
        p->discrete = f->discrete;
        p->lo = f->rel ? f->lo * p->initial : f->lo;
        p->hi = f->rel ? f->hi * p->initial : f->hi;
        if (!(p->hi > p->lo))
            return bn_fail(err, BN_EINPUT, "key '%s' is %g in the scenario: no room to fit it",
                           key, p->initial);
        if (p->initial < p->lo || p->initial > p->hi) /* start inside the bounds */
            p->value = p->initial < p->lo ? p->lo : p->hi;
        if (p->initial == 0 && f->zero_start)
            p->value = fmin(p->hi, fmax(p->lo, f->zero_start(base)));
    }
    return BN_OK;
}

static void keep_rows(struct run *run, bool after)
{
    const struct bn_calib_data *d = run->d;
    for (uint32_t i = 0; i < d->nrows; i++) {
        struct bn_calib_fit_row *fr = &run->out->rows[i];
        if (!after) {
            fr->row = i;
            fr->input = d->rows[i].input;
            fr->nodes = d->inputs[d->rows[i].input].nodes;
            fr->bytes = d->rows[i].bytes;
            fr->measured_us = d->rows[i].time_us;
            fr->measured_gbs = d->rows[i].busbw_gbs;
            fr->before_us = run->pred_us[i];
            fr->before_gbs = run->pred_gbs[i];
            fr->fitted = run->out->fitted;
        }
        fr->after_us = run->pred_us[i];
        fr->after_gbs = run->pred_gbs[i];
        snprintf(fr->algo, sizeof fr->algo, "%s", run->algo[i]);
        snprintf(fr->proto, sizeof fr->proto, "%s", run->proto[i]);
    }
}

/* The cost (sum of squared log errors) of every row at x. */
static int cost_at(struct run *run, const double *x, double *r, double *cost,
                   struct bn_error *err)
{
    int rc = residuals(run, x, r, err);
    *cost = 0;
    for (uint32_t i = 0; rc == BN_OK && i < run->d->nrows; i++)
        *cost += r[i] * r[i];
    return rc;
}

/* Before LM, a compass search (Kolda, Lewis and Torczon, SIAM Review 2003):
 * each key in turn one step up and down (a quarter of its range at first),
 * kept where the cost falls; the steps halve after a pass that found
 * nothing. The rows' times are not smooth in the keys: NCCL's model picks
 * another algorithm or protocol as a bandwidth moves, and a step latency
 * hides behind a slice's transfer until it passes it, so LM's forward
 * differences alone stop where the slope they see is flat or wrong (a
 * one-pass scan and LM left hold-out A at NVLink share 0.61, rms 0.149,
 * where 0.73 gives 0.142). Discrete keys (the channel count) step by
 * whole numbers down to 1 and are fitted here only. It spends at most
 * `budget` runs. */
static int search(struct run *run, double *x, uint32_t budget, struct bn_error *err)
{
    const struct bn_calib_results *out = run->out;
    uint32_t n = out->nparams, used = 0;
    double *r = malloc(run->d->nrows * sizeof *r);
    if (!r)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    double best = run->have_best ? run->best_cost : INFINITY, h[BN_CALIB_MAX_PARAMS];
    int rc = BN_OK;
    if (!run->have_best) { /* a start clamped into its bounds: run it */
        rc = cost_at(run, x, r, &best, err);
        used++;
    }
    for (uint32_t p = 0; p < n; p++) {
        double range = out->params[p].hi - out->params[p].lo;
        h[p] = out->params[p].discrete ? fmax(1, round(range / 4)) : range / 4;
    }
    for (int pass = 0; rc == BN_OK && pass < 8 && used < budget; pass++) {
        bool moved = false;
        for (uint32_t p = 0; rc == BN_OK && p < n && used < budget; p++) {
            const struct bn_calib_param *q = &out->params[p];
            double keep = x[p];
            for (int dir = 1; rc == BN_OK && dir >= -1 && used < budget; dir -= 2) {
                double v = fmin(q->hi, fmax(q->lo, keep + dir * h[p]));
                if (q->discrete)
                    v = round(v);
                if (v == keep || v == x[p])
                    continue;
                double c, was = x[p];
                x[p] = v;
                rc = cost_at(run, x, r, &c, err);
                used++;
                if (rc == BN_OK && c < best) {
                    best = c;
                    moved = true;
                } else {
                    x[p] = was;
                }
            }
        }
        bool small = true;
        for (uint32_t p = 0; !moved && p < n; p++) {
            double range = out->params[p].hi - out->params[p].lo;
            h[p] = out->params[p].discrete ? fmax(1, floor(h[p] / 2)) : h[p] / 2;
            small &= out->params[p].discrete ? false : h[p] < 0.02 * range;
        }
        if (!moved && small)
            break;
    }
    free(r);
    return rc;
}

/* LM over the continuous keys, the discrete ones held at the search's. */
struct lm_sub {
    struct run *run;
    double x[BN_CALIB_MAX_PARAMS];
    uint32_t idx[BN_CALIB_MAX_PARAMS];
};

static int sub_residuals(void *ud, const double *x, double *r, struct bn_error *err)
{
    struct lm_sub *s = ud;
    for (uint32_t i = 0; i < BN_CALIB_MAX_PARAMS && s->idx[i] != UINT32_MAX; i++)
        s->x[s->idx[i]] = x[i];
    return residuals(s->run, s->x, r, err);
}

static int fit(struct run *run, const struct bn_calib_opts *o, struct bn_error *err)
{
    struct bn_calib_results *out = run->out;
    uint32_t budget = o->max_evals ? o->max_evals : 30;
    double x[BN_CALIB_MAX_PARAMS];
    for (uint32_t p = 0; p < out->nparams; p++)
        x[p] = out->params[p].value;
    /* the search takes up to two thirds of the runs, LM what is left */
    uint32_t before = out->evaluations;
    int rc = search(run, x, budget * 2 / 3, err);
    /* from the best point found (the search keeps only improvements) */
    struct lm_sub sub = {.run = run};
    memcpy(sub.x, x, sizeof x);
    memset(sub.idx, 0xff, sizeof sub.idx);
    struct bn_calib_fit f = {.m = run->d->nrows};
    for (uint32_t p = 0; p < out->nparams; p++) {
        if (out->params[p].discrete)
            continue;
        sub.idx[f.n] = p;
        f.x[f.n] = x[p];
        f.lo[f.n] = out->params[p].lo;
        f.hi[f.n] = out->params[p].hi;
        f.n++;
    }
    uint32_t spent = out->evaluations - before;
    f.max_evals = budget > spent + f.n + 1 ? budget - spent : f.n + 1;
    if (rc == BN_OK && f.n)
        rc = bn_calib_lm(&f, sub_residuals, &sub, err);
    if (rc != BN_OK)
        return rc;
    out->status = f.n ? f.info : 0;
    for (uint32_t i = 0; i < f.n; i++)
        sub.x[sub.idx[i]] = f.x[i];
    for (uint32_t p = 0, i = 0; p < out->nparams; p++) {
        struct bn_calib_param *q = &out->params[p];
        bool cont = !q->discrete;
        q->value = sub.x[p];
        q->sigma = cont ? f.sigma[i++] : NAN;
        /* 0.1 % of the range: a wide range (0.5 to 400 M/s) holds fitted
         * values near a bound that are not at it */
        double room = 0.001 * (q->hi - q->lo);
        q->at_bound = q->value - q->lo <= room || q->hi - q->value <= room;
    }
    /* the rows at the optimum, for the table: lmdif returns the best x it
     * ran (its last call may be a Jacobian column's) */
    double *best = sub.x;
    if (run->have_best && same_x(run, best, run->best_x)) {
        size_t n = run->d->nrows;
        memcpy(run->pred_us, run->best_us, n * sizeof *run->pred_us);
        memcpy(run->pred_gbs, run->best_gbs, n * sizeof *run->pred_gbs);
        memcpy(run->algo, run->best_algo, n * sizeof *run->algo);
        memcpy(run->proto, run->best_proto, n * sizeof *run->proto);
        return BN_OK;
    }
    out->evaluations++;
    return run_rows(run, best, err);
}

int bn_calibrate(const struct bn_scenario *base, const struct bn_calib_data *d,
                 const struct bn_calib_opts *o, struct bn_calib_results *out,
                 struct bn_error *err)
{
    memset(out, 0, sizeof *out);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    snprintf(out->bnet_version, sizeof out->bnet_version, "%s", BNET_VERSION);
    out->fitted = o->fit;
    if (o->applied)
        snprintf(out->applied, sizeof out->applied, "%s", o->applied);
    struct run run = {.d = d, .out = out};
    run.input_sc = calloc(d->ninputs, sizeof *run.input_sc);
    run.row_sc = malloc(sizeof *run.row_sc);
    run.pred_us = calloc(d->nrows, sizeof *run.pred_us);
    run.pred_gbs = calloc(d->nrows, sizeof *run.pred_gbs);
    run.algo = calloc(d->nrows, sizeof *run.algo);
    run.proto = calloc(d->nrows, sizeof *run.proto);
    out->rows = calloc(d->nrows, sizeof *out->rows);
    out->inputs = calloc(d->ninputs, sizeof *out->inputs);
    int rc = run.input_sc && run.row_sc && run.pred_us && run.pred_gbs && run.algo &&
                     run.proto && out->rows && out->inputs
                 ? BN_OK
                 : bn_fail(err, BN_ENOMEM, "out of memory");
    if (rc == BN_OK) {
        memcpy(out->inputs, d->inputs, d->ninputs * sizeof *d->inputs);
        out->ninputs = d->ninputs;
        out->nrows = d->nrows;
    }
    for (uint32_t k = 0; rc == BN_OK && k < d->ninputs; k++) {
        run.input_sc[k] = malloc(sizeof **run.input_sc);
        rc = run.input_sc[k] ? input_scenario(base, &d->inputs[k], run.input_sc[k], err)
                             : bn_fail(err, BN_ENOMEM, "out of memory");
    }
    if (rc == BN_OK && o->fit)
        rc = choose_params(base, o, out, err);
    run.nparams = out->nparams;
    run.channels_param = -1;
    for (uint32_t p = 0; p < out->nparams; p++)
        if (strcmp(out->params[p].key, "coll.channels") == 0)
            run.channels_param = (int)p;
    /* the channels start as the first input's cluster runs them (its NCCL_*
     * channel variables applied), not as the base would */
    for (uint32_t k = 0; rc == BN_OK && run.channels_param >= 0 && k < d->ninputs; k++)
        if (d->inputs[k].kind == BN_CALIB_NCCL_TESTS) {
            struct bn_calib_param *q = &out->params[run.channels_param];
            q->initial = q->value = bn_coll_channels(run.input_sc[k]);
            break;
        }
    run.jobs = o->jobs;
    run.best_us = calloc(d->nrows, sizeof *run.best_us);
    run.best_gbs = calloc(d->nrows, sizeof *run.best_gbs);
    run.best_algo = calloc(d->nrows, sizeof *run.best_algo);
    run.best_proto = calloc(d->nrows, sizeof *run.best_proto);
    if (rc == BN_OK && (!run.best_us || !run.best_gbs || !run.best_algo || !run.best_proto))
        rc = bn_fail(err, BN_ENOMEM, "out of memory");
    if (rc == BN_OK)
        rc = run_rows(&run, NULL, err);
    if (rc == BN_OK) {
        double x0[BN_CALIB_MAX_PARAMS], cost = 0;
        for (uint32_t p = 0; p < out->nparams; p++)
            x0[p] = out->params[p].value;
        for (uint32_t i = 0; i < d->nrows; i++)
            cost += pow(log(run.pred_us[i] / d->rows[i].time_us), 2);
        /* the "before" run is at x0 only when every start lies inside its bounds */
        bool inside = true;
        for (uint32_t p = 0; p < out->nparams; p++)
            inside &= out->params[p].value == out->params[p].initial;
        if (inside)
            keep_best(&run, x0, cost);
        else
            run.best_cost = INFINITY;
        out->evaluations = 1;
        out->rms_before = rms(run.pred_us, d);
        keep_rows(&run, false);
        if (o->fit)
            rc = fit(&run, o, err);
        for (uint32_t k = 0; rc == BN_OK && !o->fit && o->after && k < d->ninputs; k++)
            rc = input_scenario(o->after, &d->inputs[k], run.input_sc[k], err);
        if (rc == BN_OK && !o->fit && o->after) {
            rc = run_rows(&run, NULL, err);
            out->evaluations++;
        }
    }
    if (rc == BN_OK) {
        keep_rows(&run, true);
        out->rms_after = rms(run.pred_us, d);
    }
    for (uint32_t k = 0; run.input_sc && k < d->ninputs; k++)
        free(run.input_sc[k]);
    free(run.input_sc);
    free(run.row_sc);
    free(run.pred_us);
    free(run.pred_gbs);
    free(run.algo);
    free(run.proto);
    free(run.best_us);
    free(run.best_gbs);
    free(run.best_algo);
    free(run.best_proto);
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (rc != BN_OK)
        bn_calib_results_free(out);
    return rc;
}

void bn_calib_results_free(struct bn_calib_results *r)
{
    free(r->rows);
    free(r->inputs);
    memset(r, 0, sizeof *r);
}
