/*
 * The flows driver on a partitioned run's processes (sim/ranks.c): every
 * process starts every flow (its queue pair and messages, so that both
 * ends hold them; only the sender's process sends), the sender's process
 * sees it acknowledged, the receiver's sees it in. After the run rank 0
 * takes each flow's sending end from the one and its receiving end from
 * the other, and adds up the parts' time series (each part reads what
 * it runs, zeros elsewhere).
 */
#include <stdlib.h>

#include "driver/flows/flows.h"
#include "sim/ranks_buf.h"

int bn_flows_ranks_bind(struct bn_flows *fl, const struct bn_ranks *ranks, struct bn_error *err)
{
    struct bn_sim *s = fl->s;
    const char *at = s->sc->source;
    for (uint32_t i = 0; i < fl->flows.n; i++)
        if (fl->flows.flows[i].gate != BN_NO_TRIGGER)
            return bn_fail(err, BN_EINPUT, "%s: flow %u waits for other flows, which "
                           "processes cannot tell each other in time: run it in one", at, i);
    int rc = bn_ranks_bind(s, ranks, err);
    /* the next sample is decided at the exchange after the last one */
    double sample = s->sc->observe.sample_us;
    if (rc == BN_OK && sample > 0 && bn_time_from_us(sample) < s->part->lookahead)
        return bn_fail(err, BN_EINPUT, "%s: key 'observe.sample_us': %g us is shorter than the "
                       "lookahead (%.0f ns), within which processes cannot agree to sample",
                       at, sample, (double)s->part->lookahead / 1000.0);
    return rc;
}

/* A flow's sending end (its sender's process) and receiving end. */
struct tx_end {
    uint32_t flow;
    uint8_t failed_why;
    bn_time_t tx_done, failed;
    uint32_t msgs_left;
};
struct rx_end {
    uint32_t flow;
    bn_time_t rx_done;
    uint32_t msgs_rx_left;
    struct bn_path_hist paths;
};
struct counts {
    uint32_t done, failed, ntx, nrx;
};

/* The series' readings: each part's are the others' zeros. */
static double *series_col(struct bn_series *sr, int i, uint32_t *width)
{
    double *col[] = {sr->rate_gbps, sr->alpha, sr->delivered_bytes, sr->queue_bytes,
                     sr->link_util, sr->link_paused, sr->cwnd_bytes};
    uint32_t w[] = {sr->nflows, sr->nflows, sr->nflows, sr->nqueues, sr->nlinks, sr->nlinks,
                    sr->nflows};
    *width = w[i];
    return col[i];
}
enum { SERIES_COLS = 7 };

static void pack(const struct bn_flows *fl, struct bn_rbuf *b)
{
    const struct bn_sim *s = fl->s;
    struct counts c = {fl->flows_done, fl->flows_failed, 0, 0};
    for (uint32_t i = 0; i < fl->flows.n; i++) {
        c.ntx += bn_sim_here(s, fl->flows.flows[i].src);
        c.nrx += bn_sim_here(s, fl->flows.flows[i].dst);
    }
    bn_rbuf_put(b, &c, sizeof c);
    for (uint32_t i = 0; i < fl->flows.n; i++) {
        const struct bn_flow_state *fs = &fl->fstate[i];
        if (bn_sim_here(s, fl->flows.flows[i].src)) {
            struct tx_end t = {i, fs->failed_why, fs->tx_done, fs->failed, fs->msgs_left};
            bn_rbuf_put(b, &t, sizeof t);
        }
    }
    for (uint32_t i = 0; i < fl->flows.n; i++) {
        const struct bn_flow_state *fs = &fl->fstate[i];
        if (bn_sim_here(s, fl->flows.flows[i].dst)) {
            struct rx_end r = {i, fs->rx_done, fs->msgs_rx_left, fs->paths};
            bn_rbuf_put(b, &r, sizeof r);
        }
    }
    struct bn_series *sr = (struct bn_series *)&fl->series;
    bn_rbuf_put(b, &sr->nsamples, sizeof sr->nsamples);
    for (int i = 0; i < SERIES_COLS; i++) {
        uint32_t w;
        const double *v = series_col(sr, i, &w);
        bn_rbuf_put(b, v, (size_t)sr->nsamples * w * sizeof *v);
    }
}

/* Add a part's readings to rank 0's own. */
static bool add_series(struct bn_flows *fl, struct bn_rcur *c)
{
    struct bn_series *sr = &fl->series;
    uint32_t nsamples;
    if (!bn_rcur_get(c, &nsamples, sizeof nsamples) || nsamples != sr->nsamples)
        return false;
    for (int i = 0; i < SERIES_COLS; i++) {
        uint32_t w;
        double *v = series_col(sr, i, &w);
        for (size_t k = 0; k < (size_t)nsamples * w; k++) {
            double x;
            if (!bn_rcur_get(c, &x, sizeof x))
                return false;
            v[k] += x;
        }
    }
    return true;
}

static bool unpack(struct bn_flows *fl, uint32_t part, struct bn_rcur *c, uint32_t *done,
                   uint32_t *failed)
{
    struct counts n;
    if (!bn_rcur_get(c, &n, sizeof n))
        return false;
    *done += n.done;
    *failed += n.failed;
    for (uint32_t k = 0; k < n.ntx; k++) {
        struct tx_end t;
        if (!bn_rcur_get(c, &t, sizeof t) || t.flow >= fl->flows.n)
            return false;
        struct bn_flow_state *fs = &fl->fstate[t.flow];
        fs->failed_why = t.failed_why;
        fs->tx_done = t.tx_done;
        fs->failed = t.failed;
        fs->msgs_left = t.msgs_left;
    }
    for (uint32_t k = 0; k < n.nrx; k++) {
        struct rx_end r;
        if (!bn_rcur_get(c, &r, sizeof r) || r.flow >= fl->flows.n)
            return false;
        struct bn_flow_state *fs = &fl->fstate[r.flow];
        fs->rx_done = r.rx_done;
        fs->msgs_rx_left = r.msgs_rx_left;
        fs->paths = r.paths;
    }
    if (part == 0) { /* its readings are rank 0's own */
        uint32_t nsamples;
        if (!bn_rcur_get(c, &nsamples, sizeof nsamples))
            return false;
        for (int i = 0; i < SERIES_COLS; i++) {
            uint32_t w;
            series_col(&fl->series, i, &w);
            if (!bn_rcur_get(c, NULL, (size_t)nsamples * w * sizeof(double)))
                return false;
        }
    } else if (!add_series(fl, c)) {
        return false;
    }
    return bn_rcur_end(c);
}

struct take {
    struct bn_flows *fl;
    uint32_t done, failed, bad;
    bool failed_part;
};

static void pack_cb(void *ud, struct bn_rbuf *b)
{
    pack(ud, b);
}

static bool unpack_cb(void *ud, uint32_t part, struct bn_rcur *c)
{
    struct take *t = ud;
    if (unpack(t->fl, part, c, &t->done, &t->failed))
        return true;
    if (!t->failed_part)
        t->bad = part;
    t->failed_part = true;
    return false;
}

int bn_flows_ranks_gather(struct bn_flows *fl, struct bn_error *err)
{
    struct bn_sim *s = fl->s;
    int rc = bn_ranks_gather_fabric(s, err);
    if (rc != BN_OK)
        return rc;
    /* each part's ends a piece at a time (at 8192 hosts a part's were
     * 3 MB, every part's at once on rank 0) */
    struct take t = {.fl = fl};
    rc = bn_ranks_gather_stream(s, pack_cb, fl, unpack_cb, &t, err);
    if (rc != BN_OK && t.failed_part)
        rc = bn_fail(err, BN_EINTERNAL, "part %u's flows do not match the run's", t.bad);
    if (rc == BN_OK && bn_sim_reports(s)) {
        fl->flows_done = t.done;
        fl->flows_failed = t.failed;
        fl->flows_here = fl->flows.n;
    }
    return rc;
}
