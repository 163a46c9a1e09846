/*
 * The p2p driver and bn_p2p_run: perftest's tests between two hosts, one
 * fabric built per pair and size (docs/endpoints.md).
 *
 *   latency   one message in flight. WRITE and SEND ping-pong: the
 *             requester's message lands, the responder answers with its
 *             own, and a sample is half the round trip; READ and atomic:
 *             a sample is the whole operation (as perftest reports them)
 *   bandwidth qps queue pairs keep tx_depth messages each outstanding, a
 *             new one posted per completion, `iterations` per queue pair
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bnet/p2p.h"
#include "core/grow.h"
#include "core/interrupt.h"
#include "core/progress.h"
#include "core/where.h"
#include "sim/sim.h"

static const char *const test_names[] = {"write_bw", "write_lat", "send_bw", "send_lat",
                                         "read_bw", "read_lat", "atomic_bw", "atomic_lat"};

struct p2p {
    struct bn_sim *s;
    bool latency, halve;        /* halve: a sample is half a ping-pong */
    enum bn_verb verb;
    uint64_t bytes;
    uint32_t iters, nqps, depth;
    uint32_t qp[2];             /* latency: requester -> responder, and back */
    uint32_t *qps;              /* bandwidth: the queue pairs */
    uint32_t *posted;           /* per queue pair */
    uint64_t done, total;
    bn_time_t t0;               /* latency: the pending sample's start */
    bn_time_t *t;               /* latency: samples; bandwidth: completion times */
    bn_time_t first_post;
    int rc;
};

static void post(struct p2p *p, uint32_t qp, uint32_t cookie)
{
    int rc = bn_qp_post(&p->s->nics, qp, p->bytes, p->verb, cookie);
    if (rc != 0 && p->rc == 0)
        p->rc = rc;
}

static void lat_complete(struct p2p *p, uint32_t cookie, enum bn_completion_side side,
                         bn_time_t when)
{
    if (p->halve) {
        if (side != BN_COMPLETE_RX)
            return; /* the sender's own completions play no part */
        if (cookie == 0) { /* the responder sees it: it answers */
            post(p, p->qp[1], 1);
            return;
        }
    }
    p->t[p->done++] = p->halve ? (when - p->t0) / 2 : when - p->t0;
    if (p->done < p->total) {
        p->t0 = when;
        post(p, p->qp[0], 0);
    }
}

static void p2p_complete(void *self, uint32_t cookie, enum bn_completion_side side,
                         bn_time_t when)
{
    struct p2p *p = self;
    if (p->latency) {
        lat_complete(p, cookie, side, when);
        return;
    }
    if (side != BN_COMPLETE_TX)
        return; /* bandwidth is the requester's: its completions */
    p->t[p->done++] = when;
    if (p->posted[cookie] < p->iters) {
        p->posted[cookie]++;
        post(p, p->qps[cookie], cookie);
    }
}

static int p2p_start(struct bn_sim *s, void *self, struct bn_error *err)
{
    (void)s;
    struct p2p *p = self;
    p->first_post = s->fab.now;
    p->t0 = s->fab.now;
    if (p->latency) {
        post(p, p->qp[0], 0);
    } else {
        for (uint32_t q = 0; q < p->nqps; q++)
            for (; p->posted[q] < p->depth && p->posted[q] < p->iters; p->posted[q]++)
                post(p, p->qps[q], q);
    }
    return p->rc ? bn_fail(err, BN_ENOMEM, "out of memory posting messages") : BN_OK;
}

static int p2p_event(struct bn_sim *s, void *self, const struct bn_event *ev, struct bn_error *err)
{
    (void)s, (void)self, (void)ev;
    return bn_fail(err, BN_EINTERNAL, "p2p: an application event it did not schedule");
}

static bool p2p_done(const void *self)
{
    const struct p2p *p = self;
    return p->done == p->total || p->rc != 0;
}

static void p2p_progress(const void *self, uint32_t *done, uint32_t *total)
{
    const struct p2p *p = self;
    *done = (uint32_t)p->done;
    *total = (uint32_t)p->total;
}

static const struct bn_driver_ops p2p_driver = {
    .name = "p2p",
    .start = p2p_start,
    .event = p2p_event,
    .complete = p2p_complete,
    .done = p2p_done,
    .progress = p2p_progress,
};

static int cmp_time(const void *a, const void *b)
{
    bn_time_t x = *(const bn_time_t *)a, y = *(const bn_time_t *)b;
    return (x > y) - (x < y);
}

/* The sample of rank ceil(q n) (nearest rank) of n sorted samples. */
static double pct_us(const bn_time_t *t, uint64_t n, double q)
{
    uint64_t k = (uint64_t)ceil(q * (double)n);
    return bn_time_to_us(t[k ? k - 1 : 0]);
}

static void lat_row(struct p2p *p, struct bn_p2p_row *row)
{
    uint64_t n = p->done;
    qsort(p->t, n, sizeof *p->t, cmp_time);
    double sum = 0, sq = 0;
    for (uint64_t i = 0; i < n; i++)
        sum += bn_time_to_us(p->t[i]);
    row->t_avg_us = sum / (double)n;
    for (uint64_t i = 0; i < n; i++) {
        double d = bn_time_to_us(p->t[i]) - row->t_avg_us;
        sq += d * d;
    }
    row->t_min_us = bn_time_to_us(p->t[0]);
    row->t_max_us = bn_time_to_us(p->t[n - 1]);
    row->t_typical_us = pct_us(p->t, n, 0.5); /* perftest's typical: the median */
    row->t_stdev_us = sqrt(sq / (double)n);
    row->t_p99_us = pct_us(p->t, n, 0.99);
    row->t_p999_us = pct_us(p->t, n, 0.999);
}

static void bw_row(struct p2p *p, struct bn_p2p_row *row)
{
    /* the peak: the best window of an eighth of the run (at least the
     * messages in flight, so that completions bunched by queue-pair
     * interleaving do not read as a rate) */
    uint64_t n = p->done, w = (uint64_t)p->nqps * p->depth;
    if (w < n / 8)
        w = n / 8;
    double bits = (double)p->bytes * 8;
    double span = (double)(p->t[n - 1] - p->first_post) / 1e12;
    row->bw_avg_gbps = bits * (double)n / span / 1e9;
    row->msg_rate_mpps = (double)n / span / 1e6;
    row->bw_peak_gbps = row->bw_avg_gbps;
    for (uint64_t i = 0; w < n && i + w < n; i++) { /* w messages between two completions */
        double dt = (double)(p->t[i + w] - p->t[i]) / 1e12;
        if (dt > 0 && bits * (double)w / dt / 1e9 > row->bw_peak_gbps)
            row->bw_peak_gbps = bits * (double)w / dt / 1e9;
    }
}

/* One size between hosts a and b on a fabric of its own. */
static int run_size(const struct bn_scenario *sc, uint32_t a, uint32_t b, uint64_t bytes,
                    struct bn_p2p_row *row, bool *interrupted, struct bn_error *err)
{
    static const enum bn_verb verbs[] = {BN_VERB_WRITE, BN_VERB_WRITE, BN_VERB_SEND,
                                         BN_VERB_SEND, BN_VERB_READ, BN_VERB_READ,
                                         BN_VERB_ATOMIC, BN_VERB_ATOMIC};
    uint8_t test = sc->p2p.test;
    struct p2p p = {
        .latency = test % 2 == 1, .verb = verbs[test], .bytes = bytes,
        .nqps = test % 2 == 1 ? 1 : sc->p2p.qps, .depth = sc->p2p.tx_depth,
    };
    p.halve = p.latency && (p.verb == BN_VERB_WRITE || p.verb == BN_VERB_SEND);
    /* perftest's: 5000 for ib_write_bw, 1000 for the others */
    p.iters = sc->p2p.iterations ? sc->p2p.iterations : test == BN_SC_P2P_WRITE_BW ? 5000 : 1000;
    p.total = (uint64_t)p.iters * p.nqps;
    struct bn_sim *s = calloc(1, sizeof *s);
    p.t = malloc((size_t)p.total * sizeof *p.t);
    p.qps = calloc(p.nqps, sizeof *p.qps);
    p.posted = calloc(p.nqps, sizeof *p.posted);
    int rc = s && p.t && p.qps && p.posted ? bn_sim_build(s, sc, err)
                                           : bn_fail(err, BN_ENOMEM, "out of memory for p2p");
    if (rc == BN_OK) {
        p.s = s;
        for (uint32_t q = 0; q < p.nqps && rc == BN_OK; q++) {
            p.qps[q] = bn_qp_create(&s->nics, a, b);
            if (p.qps[q] == BN_NONE)
                rc = bn_fail(err, BN_ENOMEM, "out of memory for queue pairs");
        }
        p.qp[0] = p.qps[0];
        p.qp[1] = p.latency && rc == BN_OK ? bn_qp_create(&s->nics, b, a) : BN_NONE;
        if (p.latency && p.qp[1] == BN_NONE)
            rc = bn_fail(err, BN_ENOMEM, "out of memory for queue pairs");
    }
    if (rc == BN_OK)
        rc = bn_sim_attach(s, &p2p_driver, &p, err);
    if (rc == BN_OK)
        rc = bn_sim_loop(s, NULL, bn_wall_now(), err);
    if (rc == BN_OK && p.rc)
        rc = bn_fail(err, p.rc == -2 ? BN_EINPUT : BN_ENOMEM,
                     p.rc == -2 ? "%s: key 'p2p.iterations': the test's packets exceed a queue "
                                  "pair's 2^32 sequence numbers"
                                : "out of memory posting messages", sc->source);
    if (rc == BN_OK)
        rc = bn_sim_check_ledger(s, err);
    *interrupted = rc == BN_OK && s->interrupted;
    if (rc == BN_OK && s->stopped_early && !s->interrupted)
        rc = bn_fail(err, BN_EINPUT, "%s: key 'sim.max_time_us': the test of %llu bytes did not "
                     "finish in %.1f us", BN_WHERE(sc, "sim.max_time_us"),
                     (unsigned long long)bytes, sc->sim.max_time_us);
    if (rc == BN_OK && !s->stopped_early && p.done != p.total)
        rc = bn_fail(err, BN_EINTERNAL, "p2p: %llu of %llu messages completed, yet no event "
                     "is left", (unsigned long long)p.done, (unsigned long long)p.total);
    if (rc == BN_OK && p.done == p.total) {
        row->bytes = bytes;
        row->iterations = p.iters;
        if (p.latency)
            lat_row(&p, row);
        else
            bw_row(&p, row);
    }
    if (s)
        bn_sim_free(s);
    free(s);
    free(p.t);
    free(p.qps);
    free(p.posted);
    return rc;
}

/* p2p.hosts: indices or names, comma-separated, at least two, none twice. */
static int parse_hosts(const struct bn_scenario *sc, const struct bn_topo *t, uint32_t **out,
                       uint32_t *n, struct bn_error *err)
{
    char buf[BN_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", sc->p2p.hosts);
    uint32_t cap = 0;
    *n = 0;
    for (char *save, *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        char *end;
        unsigned long v = strtoul(tok, &end, 10);
        uint32_t h = *tok >= '0' && *tok <= '9' && !*end && v < t->nhosts ? (uint32_t)v
                                                                          : bn_topo_find_node(t, tok);
        if (h >= t->nhosts)
            return bn_fail(err, BN_EINPUT, "%s: key 'p2p.hosts': '%s' is not a host (an index "
                           "below %u or a host's name)", BN_WHERE(sc, "p2p.hosts"), tok, t->nhosts);
        for (uint32_t i = 0; i < *n; i++)
            if ((*out)[i] == h)
                return bn_fail(err, BN_EINPUT, "%s: key 'p2p.hosts': host '%s' is given twice",
                               BN_WHERE(sc, "p2p.hosts"), tok);
        if (*n == 64)
            return bn_fail(err, BN_EINPUT, "%s: key 'p2p.hosts': more than 64 hosts (%u pairs "
                           "and more)", BN_WHERE(sc, "p2p.hosts"), 64 * 63 / 2);
        if (!bn_grow((void **)out, *n, &cap, sizeof **out))
            return bn_fail(err, BN_ENOMEM, "out of memory");
        (*out)[(*n)++] = h;
    }
    if (*n < 2)
        return bn_fail(err, BN_EINPUT, "%s: key 'p2p.hosts': needs two hosts or more (got '%s')",
                       BN_WHERE(sc, "p2p.hosts"), sc->p2p.hosts);
    return BN_OK;
}

/* A test's own memory, refused up front past what is available: a sample
 * per message, and the messages outstanding with their queue pairs. */
static int check_memory(const struct bn_scenario *sc, struct bn_error *err)
{
    struct bn_mem_estimate e;
    int rc = bn_estimate_memory(sc, BN_EST_TOPO, &e, err);
    if (rc != BN_OK)
        return rc;
    bool latency = sc->p2p.test % 2 == 1;
    uint64_t qps = latency ? 2 : sc->p2p.qps, depth = latency ? 1 : sc->p2p.tx_depth;
    uint64_t iters = sc->p2p.iterations ? sc->p2p.iterations : 5000;
    uint64_t samples = iters * qps * sizeof(bn_time_t);
    uint64_t flight = qps * (depth < iters ? depth : iters) * 2 * sizeof(struct bn_msg) +
                      qps * 2 * sizeof(struct bn_qp);
    double need = (double)e.total_bytes + (double)samples + (double)flight;
    if (need <= (double)e.available_bytes)
        return BN_OK;
    const char *key = samples > flight ? "p2p.iterations" : "p2p.tx_depth";
    return bn_fail(err, BN_EINPUT, "%s: key '%s': the test would need about %.1f GB (%.1f GB of "
                   "samples, %.1f GB of messages in flight), more than the %.1f GB %s",
                   BN_WHERE(sc, key), key, need / 1e9, (double)samples / 1e9,
                   (double)flight / 1e9, (double)e.available_bytes / 1e9,
                   sc->sim.memory_limit_bytes ? "of sim.memory_limit_bytes" : "of memory available");
}

/* The fabric's figures the table's bounds come from, and the pairs. */
static int plan(const struct bn_scenario *sc, struct bn_p2p_results *out, struct bn_error *err)
{
    struct bn_sim *s = calloc(1, sizeof *s);
    uint32_t *hosts = NULL, nh = 0;
    int rc = s ? bn_sim_build(s, sc, err) : bn_fail(err, BN_ENOMEM, "out of memory");
    if (rc == BN_OK)
        rc = parse_hosts(sc, &s->topo, &hosts, &nh, err);
    if (rc == BN_OK) {
        out->pairs = calloc((size_t)nh * (nh - 1) / 2, sizeof *out->pairs);
        if (!out->pairs)
            rc = bn_fail(err, BN_ENOMEM, "out of memory");
    }
    uint32_t dg = s->nics.domain_gpus;
    for (uint32_t i = 0; rc == BN_OK && i < nh; i++)
        for (uint32_t j = i + 1; rc == BN_OK && j < nh; j++) {
            if (dg && hosts[i] / dg == hosts[j] / dg) {
                rc = bn_fail(err, BN_EINPUT, "%s: key 'p2p.hosts': hosts %u and %u share an "
                             "NVLink domain, so they would not use their NICs; pick hosts of "
                             "different domains (scale_up.domain_gpus %u)",
                             BN_WHERE(sc, "p2p.hosts"), hosts[i], hosts[j], dg);
                break;
            }
            struct bn_p2p_pair *pr = &out->pairs[out->npairs++];
            pr->src = hosts[i];
            pr->dst = hosts[j];
            bn_topo_node_name(&s->topo, pr->src, pr->src_name, sizeof pr->src_name);
            bn_topo_node_name(&s->topo, pr->dst, pr->dst_name, sizeof pr->dst_name);
        }
    if (rc == BN_OK) {
        const struct bn_nics *n = &s->nics;
        uint64_t line = n->nic[hosts[0]].line_bps;
        out->line_gbps = (double)line / 1e9;
        out->goodput_gbps = bn_encap_goodput_gbps(n->encap, n->mtu, out->line_gbps);
        out->pcie_gbps = (double)n->ep_params.dma_bps / 1e9;
        out->msg_rate_mpps = sc->nic.msg_rate_mpps;
    }
    free(hosts);
    if (s)
        bn_sim_free(s);
    free(s);
    return rc;
}

int bn_p2p_run(const struct bn_scenario *sc,
               void (*on_row)(void *ud, const struct bn_p2p_results *r, uint32_t pair,
                              uint32_t row),
               void *ud, struct bn_p2p_results *out, struct bn_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->scenario, sizeof out->scenario, "%s", sc->source);
    snprintf(out->test, sizeof out->test, "%s", test_names[sc->p2p.test]);
    out->latency = sc->p2p.test % 2 == 1;
    out->qps = out->latency ? 1 : sc->p2p.qps;
    out->tx_depth = out->latency ? 1 : sc->p2p.tx_depth;
    bool atomic = sc->p2p.test >= BN_SC_P2P_ATOMIC_BW;
    /* -a: 2 B to 8 MiB, as perftest's; atomics are 8 bytes */
    uint64_t lo = atomic ? BN_ATOMIC_BYTES : sc->p2p.bytes ? sc->p2p.bytes : 2;
    uint64_t hi = atomic ? BN_ATOMIC_BYTES : sc->p2p.bytes ? sc->p2p.bytes : 8u << 20;
    uint32_t nsizes = 0;
    for (uint64_t b = lo; b <= hi; b *= 2)
        nsizes++;
    int rc = bn_check_memory(sc, BN_EST_TOPO, err);
    if (rc == BN_OK)
        rc = check_memory(sc, err);
    if (rc == BN_OK)
        rc = bn_provenance_keep(&out->prov, sc, err);
    if (rc == BN_OK)
        rc = plan(sc, out, err);
    /* the progress line: each size a share of every pair's bytes */
    double all = rc == BN_OK ? (double)out->npairs * (double)(2 * hi - lo) : 0, before = 0;
    for (uint32_t k = 0; rc == BN_OK && k < out->npairs && !out->interrupted; k++) {
        struct bn_p2p_pair *pr = &out->pairs[k];
        pr->rows = calloc(nsizes, sizeof *pr->rows);
        if (!pr->rows)
            rc = bn_fail(err, BN_ENOMEM, "out of memory");
        for (uint64_t b = lo; rc == BN_OK && b <= hi && !out->interrupted; b *= 2) {
            bn_progress_stage(before / all, (double)b / all, k * nsizes + pr->nrows,
                              out->npairs * nsizes);
            before += (double)b;
            rc = run_size(sc, pr->src, pr->dst, b, &pr->rows[pr->nrows], &out->interrupted, err);
            if (rc == BN_OK && !out->interrupted) {
                pr->nrows++;
                if (on_row)
                    on_row(ud, out, k, pr->nrows - 1);
            }
            out->interrupted = out->interrupted || bn_interrupt_requested();
        }
    }
    bn_progress_stage_clear();
    if (rc != BN_OK)
        bn_p2p_results_free(out);
    return rc;
}

void bn_p2p_results_free(struct bn_p2p_results *r)
{
    for (uint32_t k = 0; r->pairs && k < r->npairs; k++)
        free(r->pairs[k].rows);
    free(r->pairs);
    r->pairs = NULL;
    r->npairs = 0;
    bn_provenance_free(&r->prov);
}
