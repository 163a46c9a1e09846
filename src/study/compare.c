/*
 * bn_compare_run: the scenario's cluster over each of compare.fabrics, one
 * column per fabric (docs/compare.md). Each column runs the tools bnet
 * already has on the fabric's scenario: bnet p2p for latency, bn_run for
 * a permutation (ECMP and the fabric's own load balancing) and an incast
 * with a victim flow, bnet coll for AllReduce at three sizes, and the
 * scenario's own faults. A scale-up preset (nvlink5) is a column when one
 * of its domains holds the whole cluster: its rows run over NVLink.
 * Columns run in worker processes (workers.c), `jobs` at a time; a column
 * is plain data, sent back through a pipe and placed by its index, so the
 * results do not depend on how many ran at once. A stop request
 * (bn_interrupt: SIGINT or SIGTERM) starts no more columns, and a column
 * whose worker sees one (a terminal's signal reaches the whole process
 * group) measures nothing more: both are marked interrupted.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bnet/bnet.h"
#include "bnet/coll.h"
#include "bnet/compare.h"
#include "bnet/p2p.h"
#include "core/interrupt.h"
#include "core/progress.h"
#include "core/where.h"
#include "core/workers.h"
#include "sim/sim.h"

static const uint64_t ar_sizes[BN_COMPARE_SIZES] = {1ull << 20, 64ull << 20, 1ull << 30};
/* compare.fabrics: auto: these, and the scale-up presets that fit */
static const char *const auto_fabrics[] = {"ib-ndr", "roce-400g", "uec-800g"};

/* Preset i sets only scale_up.* keys (a scale-up domain, not a backend
 * fabric): its domain's GPUs, else 0. */
static uint32_t scale_up_domain(size_t i)
{
    const char *set;
    unsigned gpus = 0;
    for (size_t k = 0; (set = bn_scenario_preset_set(i, k)); k++) {
        if (strncmp(set, "scale_up.", 9) != 0)
            return 0;
        sscanf(set, "scale_up.domain_gpus=%u", &gpus);
    }
    return gpus;
}

/* The column's scenario with assignments applied ("key=value" each). */
static int derive(const struct bn_scenario *base, const char *const *extra,
                  struct bn_scenario *sc, struct bn_error *err)
{
    *sc = *base;
    for (int rc; extra && *extra; extra++)
        if ((rc = bn_scenario_set(sc, *extra, err)) != BN_OK)
            return rc;
    return bn_scenario_validate(sc, err);
}

/* A column's scenario: the base with `fabric` set to the preset, then the
 * caller's overrides again over the preset's. */
static int column_scenario(const struct bn_scenario *base, const char *const *sets,
                           const char *fabric, struct bn_scenario *fsc, struct bn_error *err)
{
    char pick[BN_NAME_MAX + 16];
    snprintf(pick, sizeof pick, "fabric=%s", fabric);
    const char *const first[] = {pick, NULL};
    int rc = derive(base, first, fsc, err);
    return rc == BN_OK ? derive(fsc, sets, fsc, err) : rc;
}

/* A column before it is measured: the sizes it will run, no peers yet,
 * every figure NaN (a count UINT64_MAX): not measured, which the table
 * and the JSON say (an interrupted column keeps them for what it did not
 * measure, where 0.0 would read as a measurement). */
static void unmeasured(struct bn_compare_col *c)
{
    for (int i = 0; i < BN_COMPARE_SIZES; i++) {
        c->ar_bytes[i] = ar_sizes[i];
        c->ar_busbw_gbs[i] = c->ar_eff_pct[i] = NAN;
    }
    c->lat_dst = c->victim_src = c->victim_dst = UINT32_MAX;
    c->lat_p50_us = c->lat_p999_us = c->perm_ecmp_pct = c->perm_own_pct = NAN;
    c->incast_slowdown = c->victim_pct = c->converge_ms = c->gbps_per_pflops = NAN;
    c->incast_drops = c->incast_pauses = UINT64_MAX;
    c->port_gbps = c->switch_ns = NAN; /* a column never started: not even its scenario */
}

/* Whether a stop was requested: the column then measures nothing more
 * (what it measured stands) and says so. */
static bool cut_short(struct bn_compare_col *c)
{
    c->interrupted = c->interrupted || bn_interrupt_requested();
    return c->interrupted;
}

/* A measurement's status: one stopped by bn_interrupt (BN_EINTR in its
 * set-up, or results marked interrupted) leaves its figures unmeasured
 * and cuts the column short; the comparison goes on to report. */
static int stopped(struct bn_compare_col *c, int rc, bool interrupted)
{
    if (rc == BN_EINTR || (rc == BN_OK && interrupted)) {
        c->interrupted = true;
        return BN_EINTR;
    }
    return rc;
}

/* A host under host 0's leaf switch (UINT32_MAX: none). */
static int leaf_peer(const struct bn_scenario *sc, uint32_t *out, struct bn_error *err)
{
    struct bn_sim *s = calloc(1, sizeof *s);
    int rc = s ? bn_sim_build(s, sc, err) : bn_fail(err, BN_ENOMEM, "out of memory");
    *out = UINT32_MAX;
    for (uint32_t h = 1; rc == BN_OK && h < s->topo.nhosts && *out == UINT32_MAX; h++)
        if (s->topo.nodes[h].leaf == s->topo.nodes[0].leaf)
            *out = h;
    if (rc == BN_OK && *out == UINT32_MAX)
        *out = s->topo.nhosts > 1 ? 1 : UINT32_MAX;
    if (s)
        bn_sim_free(s);
    free(s);
    return rc;
}

/* A scale-up column's latency: 2 B from every GPU to another (a random
 * permutation, one frame per NVLink port), each message's own sample. */
static int nvlink_latency(const struct bn_scenario *sc, struct bn_compare_col *c,
                          struct bn_error *err)
{
    const char *const sets[] = {"workload.kind=permutation", "workload.message_bytes=2",
                                "workload.messages=1", "sim.max_time_us=0", "observe.sample_us=0",
                                "routing.baseline=false", NULL};
    struct bn_scenario nofaults = *sc;
    nofaults.nfaults = 0;
    struct bn_scenario rsc;
    struct bn_results r;
    int rc = derive(&nofaults, sets, &rsc, err);
    if (rc == BN_OK)
        rc = bn_run(&rsc, NULL, &r, err);
    bool ok = rc == BN_OK && !r.interrupted;
    if (ok) {
        c->lat_p50_us = r.msg_lat_p50_us;
        c->lat_p999_us = r.msg_lat_p999_us;
    }
    if (rc == BN_OK) {
        rc = stopped(c, rc, r.interrupted);
        bn_results_free(&r);
    }
    return stopped(c, rc, false);
}

/* The traffic rows' sets start with NVLink off, which a scale-up column
 * skips (sets + c->scale_up): its traffic is NVLink's. */
static int measure_latency(const struct bn_scenario *fsc, struct bn_compare_col *c,
                           struct bn_error *err)
{
    struct bn_scenario sc;
    const char *const off[] = {"scale_up.domain_gpus=0", NULL};
    int rc = derive(fsc, off + c->scale_up, &sc, err);
    if (rc == BN_OK)
        rc = leaf_peer(&sc, &c->lat_dst, err);
    if (rc != BN_OK || c->lat_dst == UINT32_MAX)
        return rc;
    if (c->scale_up) /* bnet p2p measures NICs: NVLink's 2 B are a run's */
        return nvlink_latency(&sc, c, err);
    char hosts[64];
    snprintf(hosts, sizeof hosts, "p2p.hosts=0,%u", c->lat_dst);
    const char *const p2p[] = {"p2p.test=write_lat", "p2p.bytes=2", "p2p.iterations=100", hosts,
                               NULL};
    struct bn_scenario psc;
    struct bn_p2p_results r;
    rc = derive(&sc, p2p, &psc, err);
    if (rc == BN_OK)
        rc = bn_p2p_run(&psc, NULL, NULL, &r, err);
    if (rc == BN_OK) {
        if (!r.interrupted && r.npairs && r.pairs[0].nrows) {
            c->lat_p50_us = r.pairs[0].rows[0].t_typical_us;
            c->lat_p999_us = r.pairs[0].rows[0].t_p999_us;
        }
        c->port_gbps = r.line_gbps;
        rc = stopped(c, rc, r.interrupted);
        bn_p2p_results_free(&r);
    }
    return stopped(c, rc, false);
}

/* The rate of the hosts' ports the column's traffic takes: NIC or NVLink. */
static double line_gbps(const struct bn_results *r, const struct bn_compare_col *c)
{
    return c->scale_up ? r->topo.scaleup_rate_gbps : r->topo.host_rate_gbps;
}

/* A flows run of the column's scenario with `extra` applied. */
static int run_with(const struct bn_scenario *fsc, const char *const *extra,
                    struct bn_results *r, struct bn_error *err)
{
    struct bn_scenario sc;
    int rc = derive(fsc, extra, &sc, err);
    return rc == BN_OK ? bn_run(&sc, NULL, r, err) : rc;
}

/* Mean flow throughput of a permutation over line rate, in percent. */
static int permutation(const struct bn_scenario *fsc, struct bn_compare_col *c, bool ecmp,
                       double *pct, struct bn_error *err)
{
    const char *const sets[] = {"scale_up.domain_gpus=0", "workload.kind=permutation",
                                "sim.max_time_us=0", "observe.sample_us=0", "routing.baseline=false",
                                ecmp ? "switch.load_balancing=ecmp" : NULL,
                                ecmp ? "nic.entropy=per_flow" : NULL, NULL};
    struct bn_scenario nofaults = *fsc;
    nofaults.nfaults = 0;
    struct bn_results r;
    int rc = run_with(&nofaults, sets + c->scale_up, &r, err);
    if (rc == BN_OK) {
        if (!r.interrupted)
            *pct = 100 * r.throughput_gbps.mean / line_gbps(&r, c);
        rc = stopped(c, rc, r.interrupted);
        bn_results_free(&r);
    }
    return stopped(c, rc, false);
}

/* 16 senders (or all but three hosts) of 1 MB to host 0, and a victim flow
 * of 1 MB from the last host to the latency row's peer under host 0's leaf:
 * its own ports idle, it shares only the fabric's way down into that leaf. */
static int incast(const struct bn_scenario *fsc, uint32_t hosts, struct bn_compare_col *c,
                  struct bn_error *err)
{
    char senders[48], victim[48];
    bool with_victim = c->lat_dst != UINT32_MAX && hosts >= 4 && c->lat_dst != hosts - 1;
    uint32_t others = hosts - 1 - 2 * with_victim;
    c->incast_senders = others > 16 ? 16 : others;
    c->victim_src = with_victim ? hosts - 1 : UINT32_MAX;
    c->victim_dst = with_victim ? c->lat_dst : UINT32_MAX;
    snprintf(senders, sizeof senders, "workload.incast_senders=%u", c->incast_senders);
    snprintf(victim, sizeof victim, "workload.incast_victim=%u,%u", c->victim_src, c->victim_dst);
    const char *const sets[] = {"scale_up.domain_gpus=0", "workload.kind=incast",
                                "workload.incast_receiver=0", senders,
                                "workload.message_bytes=1000000", "sim.max_time_us=0",
                                "observe.sample_us=0", "routing.baseline=false",
                                with_victim ? victim : NULL, NULL};
    struct bn_scenario nofaults = *fsc;
    nofaults.nfaults = 0;
    struct bn_results r;
    int rc = run_with(&nofaults, sets + c->scale_up, &r, err);
    if (rc == BN_OK && r.interrupted) {
        bn_results_free(&r);
        return stopped(c, rc, true);
    }
    if (rc == BN_OK) {
        double last = 0;
        for (uint32_t i = 0; i < c->incast_senders && i < r.nflows; i++)
            last = r.flows[i].fct_us > last ? r.flows[i].fct_us : last;
        /* the receiver's link alone: all the bytes at its line rate */
        double ideal = (double)c->incast_senders * 1e6 * 8 / (line_gbps(&r, c) * 1e3);
        c->incast_slowdown = last / ideal;
        /* the victim alone would take 1 MB at line rate (less headers) */
        if (with_victim && r.nflows > c->incast_senders)
            c->victim_pct = 100 * r.flows[c->incast_senders].throughput_gbps / line_gbps(&r, c);
        c->incast_drops = r.data_pkts_dropped;
        c->incast_pauses = r.pause_frames;
        bn_results_free(&r);
    }
    return stopped(c, rc, false);
}

static int allreduce(const struct bn_scenario *fsc, struct bn_compare_col *c,
                     struct bn_error *err)
{
    int rc = BN_OK;
    for (int i = 0; i < BN_COMPARE_SIZES && rc == BN_OK && !cut_short(c); i++) {
        char lo[48], hi[48];
        snprintf(lo, sizeof lo, "coll.min_bytes=%llu", (unsigned long long)ar_sizes[i]);
        snprintf(hi, sizeof hi, "coll.max_bytes=%llu", (unsigned long long)ar_sizes[i]);
        const char *const sets[] = {"coll.op=allreduce", "coll.in_place=false", lo, hi, NULL};
        struct bn_scenario sc;
        struct bn_coll_results r;
        struct bn_scenario nofaults = *fsc;
        nofaults.nfaults = 0;
        rc = derive(&nofaults, sets, &sc, err);
        if (rc == BN_OK)
            rc = bn_coll_sweep(&sc, &r, err);
        if (rc != BN_OK)
            break;
        if (r.interrupted) { /* the row is not whole */
            bn_coll_results_free(&r);
            rc = stopped(c, rc, true);
            break;
        }
        if (r.nrows) {
            c->ar_busbw_gbs[i] = r.rows[0].busbw_gbs;
            /* over what its algorithm reaches at line rate (seed.c's figure) */
            double line = r.rows[0].line_busbw_gbs;
            c->ar_eff_pct[i] = line > 0 ? 100 * r.rows[0].busbw_gbs / line : 0;
            snprintf(c->ar_algo[i], sizeof c->ar_algo[i], "%s", r.rows[0].algo);
        }
        c->gbps_per_pflops = r.topo.gbps_per_pflops;
        bn_coll_results_free(&r);
    }
    return stopped(c, rc, false);
}

/* The scenario's faults on this fabric: its slowest routes' convergence. */
static int faults(const struct bn_scenario *fsc, struct bn_compare_col *c, struct bn_error *err)
{
    c->has_faults = fsc->nfaults > 0;
    if (!c->has_faults)
        return BN_OK;
    const char *const sets[] = {"observe.sample_us=0", "routing.baseline=false", NULL};
    struct bn_results r;
    int rc = run_with(fsc, sets, &r, err);
    if (rc == BN_OK && r.interrupted) {
        bn_results_free(&r);
        return stopped(c, rc, true);
    }
    if (rc == BN_OK)
        c->converge_ms = 0;
    for (uint32_t i = 0; rc == BN_OK && i < r.nfaults; i++) {
        double ms = r.faults[i].converged_us / 1e3;
        c->converge_never = c->converge_never || ms < 0;
        c->converge_ms = ms > c->converge_ms ? ms : c->converge_ms;
    }
    if (rc == BN_OK)
        bn_results_free(&r);
    return stopped(c, rc, false);
}

static void key_text(const struct bn_scenario *sc, const char *path, char *buf, size_t len)
{
    if (bn_scenario_get(sc, path, buf, len) != BN_OK)
        snprintf(buf, len, "?");
}

/* One fabric's column. */
static int measure(const struct bn_scenario *base, const char *const *sets, const char *fabric,
                   uint32_t hosts, struct bn_compare_col *c, struct bn_error *err)
{
    double t0 = bn_wall_now();
    memset(c, 0, sizeof *c);
    unmeasured(c);
    snprintf(c->fabric, sizeof c->fabric, "%s", fabric);
    c->scale_up = scale_up_domain(bn_scenario_preset_find(fabric)) > 0;
    struct bn_scenario *fsc = malloc(sizeof *fsc);
    if (!fsc)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    int rc = column_scenario(base, sets, fabric, fsc, err);
    if (rc == BN_OK) {
        key_text(fsc, "nic.encap", c->link_layer, sizeof c->link_layer);
        key_text(fsc, "link.flow_control", c->flow_control, sizeof c->flow_control);
        key_text(fsc, "nic.congestion_control", c->congestion_control,
                 sizeof c->congestion_control);
        key_text(fsc, "switch.load_balancing", c->load_balancing, sizeof c->load_balancing);
        if (fsc->nic.entropy == BN_SC_PER_PACKET)
            strncat(c->load_balancing, "+spray", sizeof c->load_balancing - 1 -
                                                      strlen(c->load_balancing));
        key_text(fsc, "nic.transport", c->transport, sizeof c->transport);
        c->switch_ns = fsc->sw.latency_ns;
        c->has_faults = fsc->nfaults > 0; /* its row is n/m, not "-", until measured */
        if (c->scale_up) { /* NVLink: credits end to end, no CC, one NVSwitch hop */
            snprintf(c->link_layer, sizeof c->link_layer, "nvlink");
            snprintf(c->congestion_control, sizeof c->congestion_control, "none");
            snprintf(c->load_balancing, sizeof c->load_balancing, "nvswitch");
            c->switch_ns = fsc->scale_up.latency_ns;
        }
        rc = measure_latency(fsc, c, err);
        if (c->scale_up)
            c->port_gbps = fsc->scale_up.rate_gbps;
    }
    if (rc == BN_OK && !cut_short(c))
        rc = permutation(fsc, c, true, &c->perm_ecmp_pct, err);
    if (rc == BN_OK && !cut_short(c))
        rc = permutation(fsc, c, false, &c->perm_own_pct, err);
    if (rc == BN_OK && !cut_short(c))
        rc = incast(fsc, hosts, c, err);
    if (rc == BN_OK && !cut_short(c))
        rc = allreduce(fsc, c, err);
    if (rc == BN_OK && !cut_short(c))
        rc = faults(fsc, c, err);
    struct bn_topo_info ti;
    bool cut = rc == BN_OK && cut_short(c); /* stopped: not the planner's table either */
    if (rc == BN_OK && !cut)
        rc = bn_plan_topology(fsc, NULL, &ti, err);
    if (rc == BN_OK && !cut) {
        c->cost_stated = ti.cost_stated;
        snprintf(c->cost_unstated, sizeof c->cost_unstated, "%s", ti.cost_unstated);
        c->cost_per_gpu_usd = ti.cost_per_gpu_usd;
        c->power_per_gpu_w = ti.power_per_gpu_w;
    }
    free(fsc);
    c->wall_s = bn_wall_now() - t0;
    return rc == BN_EINTR ? BN_OK : rc; /* cut short: marked, its figures unmeasured */
}

/* What a worker sends back: its status, the error, the column. */
struct worker_msg {
    int rc;
    struct bn_error err;
    struct bn_compare_col col;
};

struct compare_ctx {
    const struct bn_scenario *sc;
    const char *const *sets;
    uint32_t part, nparts;     /* task k is column part + k x nparts */
    struct bn_compare_results *out;
    uint32_t placed, mine;     /* the progress line: columns in, of this share's */
    double t0;
};

/* In the worker: measure column i. */
static void run_column(void *ctx, uint32_t i, void *msg)
{
    const struct compare_ctx *x = ctx;
    struct worker_msg *m = msg;
    i = x->part + i * x->nparts;
    m->rc = measure(x->sc, x->sets, x->out->cols[i].fabric, x->out->hosts, &m->col, &m->err);
}

/* In the parent: column i at its index. */
static int place_column(void *ctx, uint32_t i, const void *msg, struct bn_error *err)
{
    struct compare_ctx *x = ctx;
    const struct worker_msg *m = msg;
    i = x->part + i * x->nparts;
    if (m->rc != BN_OK) {
        *err = m->err;
        return m->rc;
    }
    x->out->cols[i] = m->col;
    x->placed++;
    bn_progress_parts((double)x->placed / x->mine, x->placed, x->mine, bn_wall_now() - x->t0);
    return BN_OK;
}

/* The GPUs of one scale-up domain once preset `name` and then `sets` apply
 * (the column's scenario: the caller may have turned the domain off). */
static int domain_after(const struct bn_scenario *sc, const char *const *sets, const char *name,
                        uint32_t *gpus, struct bn_error *err)
{
    struct bn_scenario *fsc = malloc(sizeof *fsc);
    if (!fsc)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    int rc = column_scenario(sc, sets, name, fsc, err);
    *gpus = fsc->scale_up.domain_gpus;
    free(fsc);
    return rc;
}

static int add_fabric(const struct bn_scenario *sc, const char *name, struct bn_compare_results *out,
                      struct bn_error *err)
{
    if (out->ncols == BN_COMPARE_FABRICS_MAX)
        return bn_fail(err, BN_EINPUT, "%s: key 'compare.fabrics': more than %d fabrics",
                       BN_WHERE(sc, "compare.fabrics"), BN_COMPARE_FABRICS_MAX);
    snprintf(out->cols[out->ncols++].fabric, sizeof out->cols[0].fabric, "%s", name);
    return BN_OK;
}

/* compare.fabrics: presets, comma-separated, at least one; auto: the
 * backend fabrics of auto_fabrics and each scale-up preset whose domain
 * holds all out->hosts, as the column's scenario has it (a scale-up column
 * runs the cluster in one domain). */
static int parse_fabrics(const struct bn_scenario *sc, const char *const *sets,
                         struct bn_compare_results *out, struct bn_error *err)
{
    char buf[BN_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", sc->compare.fabrics);
    int rc = BN_OK;
    for (char *save, *tok = strtok_r(buf, ", ", &save); tok && rc == BN_OK;
         tok = strtok_r(NULL, ", ", &save)) {
        if (strcmp(tok, "auto") == 0) {
            for (size_t i = 0; i < sizeof auto_fabrics / sizeof *auto_fabrics && rc == BN_OK; i++)
                rc = add_fabric(sc, auto_fabrics[i], out, err);
            for (size_t i = 0; bn_scenario_preset_name(i) && rc == BN_OK; i++) {
                uint32_t gpus = 0;
                if (scale_up_domain(i))
                    rc = domain_after(sc, sets, bn_scenario_preset_name(i), &gpus, err);
                if (rc == BN_OK && gpus >= out->hosts)
                    rc = add_fabric(sc, bn_scenario_preset_name(i), out, err);
            }
            continue;
        }
        size_t i = bn_scenario_preset_find(tok);
        if (!bn_scenario_preset_name(i))
            return bn_fail(err, BN_EINPUT, "%s: key 'compare.fabrics': '%s' is not a preset (see "
                           "bnet presets)", BN_WHERE(sc, "compare.fabrics"), tok);
        uint32_t gpus = 0;
        if (scale_up_domain(i) && (rc = domain_after(sc, sets, tok, &gpus, err)) == BN_OK &&
            gpus < out->hosts)
            return bn_fail(err, BN_EINPUT, "%s: key 'compare.fabrics': '%s' is a scale-up domain; "
                           "with it the cluster's %u GPUs are not in one (scale_up.domain_gpus "
                           "%u)", BN_WHERE(sc, "compare.fabrics"), tok, out->hosts, gpus);
        if (rc == BN_OK)
            rc = add_fabric(sc, tok, out, err);
    }
    if (rc != BN_OK)
        return rc;
    if (!out->ncols)
        return bn_fail(err, BN_EINPUT, "%s: key 'compare.fabrics': no fabric given",
                       BN_WHERE(sc, "compare.fabrics"));
    return BN_OK;
}

int bn_compare_run(const struct bn_scenario *sc, const char *const *sets, unsigned jobs,
                   struct bn_compare_results *out, struct bn_error *err)
{
    return bn_compare_run_part(sc, sets, jobs, 0, 1, out, err);
}

int bn_compare_run_part(const struct bn_scenario *sc, const char *const *sets, unsigned jobs,
                        uint32_t part, uint32_t nparts, struct bn_compare_results *out,
                        struct bn_error *err)
{
    memset(out, 0, sizeof *out);
    if (nparts < 1 || part >= nparts)
        return bn_fail(err, BN_EINPUT, "compare: share %u of %u", part, nparts);
    double t0 = bn_wall_now();
    snprintf(out->scenario, sizeof out->scenario, "%s", sc->source);
    struct bn_topo_info ti;
    int rc = bn_describe_topology(sc, &ti, err);
    if (rc == BN_OK) {
        snprintf(out->topology, sizeof out->topology, "%s", ti.kind);
        out->hosts = ti.hosts;
        rc = parse_fabrics(sc, sets, out, err);
    }
    if (rc == BN_OK)
        rc = bn_provenance_keep(&out->prov, sc, err);
    if (rc != BN_OK) {
        bn_compare_results_free(out);
        return rc;
    }
    struct compare_ctx x = {.sc = sc, .sets = sets, .part = part, .nparts = nparts, .out = out};
    uint32_t mine = out->ncols > part ? (out->ncols - part + nparts - 1) / nparts : 0;
    x.mine = mine;
    x.t0 = t0;
    struct bn_workers w = {.ntasks = mine, .jobs = jobs, .msg_size = sizeof(struct worker_msg),
                           .what = "compare", .interruptible = true, .run = run_column,
                           .place = place_column, .ctx = &x};
    /* a column of this share not placed was never started */
    for (uint32_t i = part; i < out->ncols; i += nparts) {
        unmeasured(&out->cols[i]);
        out->cols[i].interrupted = true;
    }
    rc = mine ? bn_workers_run(&w, err) : BN_OK;
    for (uint32_t i = part; rc == BN_OK && i < out->ncols; i += nparts)
        out->interrupted = out->interrupted || out->cols[i].interrupted;
    out->wall_s = bn_wall_now() - t0;
    if (rc != BN_OK)
        bn_compare_results_free(out);
    return rc;
}

void bn_compare_results_free(struct bn_compare_results *r)
{
    bn_provenance_free(&r->prov);
}
