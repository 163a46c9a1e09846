/*
 * Time series while flows run: every observe.sample_us, each followed flow's
 * sending rate (the pace its congestion control allows), DCQCN alpha, a
 * window module's congestion window (its rate is the line rate: the window
 * is what moves) and payload delivered in order (to the packet: PSNs x MTU,
 * capped at the size),
 * the output-queue depth of the observed ports, and the link rows
 * (link_series.c). Sampling stops when the last flow completes, so it never
 * keeps a finished run alive; past observe.max_samples the series is halved
 * and the interval doubled, so its memory is bounded however long the run.
 */
#include <stdlib.h>
#include <string.h>

#include "driver/flows/flows.h"

static int add_queue_port(struct bn_series *sr, uint32_t port)
{
    for (uint32_t i = 0; i < sr->nqueues; i++)
        if (sr->queue_port[i] == port)
            return 0;
    uint32_t *q = realloc(sr->queue_port, (sr->nqueues + 1) * sizeof *q);
    if (!q)
        return -1;
    sr->queue_port = q;
    sr->queue_port[sr->nqueues++] = port;
    return 0;
}

static int parse_queue_ports(struct bn_flows *fl, struct bn_error *err)
{
    const struct bn_sim *s = fl->s;
    char buf[BN_PATH_MAX], *save = NULL;
    snprintf(buf, sizeof buf, "%s", s->sc->observe.queue_ports);
    for (char *tok = strtok_r(buf, " ,\t", &save); tok; tok = strtok_r(NULL, " ,\t", &save)) {
        uint32_t p = bn_topo_find_port(&s->topo, tok);
        if (p == UINT32_MAX)
            return bn_fail(err, BN_EINPUT,
                           "%s: key 'observe.queue_ports': no port named '%s' (names look like "
                           "tor0/1 or leaf2/0: node, '/', port index on it)",
                           s->sc->source, tok);
        if (add_queue_port(&fl->series, p) != 0)
            return bn_fail(err, BN_ENOMEM, "out of memory");
    }
    return BN_OK;
}

int bn_flows_series_init(struct bn_flows *fl, struct bn_error *err)
{
    struct bn_sim *s = fl->s;
    struct bn_series *sr = &fl->series;
    memset(sr, 0, sizeof *sr);
    if (s->sc->observe.sample_us <= 0)
        return BN_OK;
    sr->interval_us = s->sc->observe.sample_us;
    sr->nflows = fl->flows.n < s->sc->observe.max_flows ? fl->flows.n : s->sc->observe.max_flows;
    int rc = parse_queue_ports(fl, err);
    if (rc != BN_OK)
        return rc;
    if (s->sc->observe.queue_ports[0] == '\0')
        for (uint32_t i = 0; i < sr->nflows && sr->nqueues < 16; i++)
            if (add_queue_port(sr, s->host_route[fl->flows.flows[i].dst].deliver_port) != 0)
                return bn_fail(err, BN_ENOMEM, "out of memory");
    rc = bn_flows_links_init(fl, err);
    if (rc != BN_OK)
        return rc;
    bn_fabric_schedule(&s->fab, 0, BN_EV_APP, 0, BN_FLOWS_SAMPLE);
    return BN_OK;
}

/* Make room for `rows` rows of `width` reals in *column; false if out of memory. */
static bool widen(double **column, uint32_t rows, uint32_t width)
{
    double *c = realloc(*column, (size_t)rows * width * sizeof *c + 1);
    if (c)
        *column = c;
    return c != NULL;
}

static int grow(struct bn_flows *fl, uint32_t most)
{
    struct bn_series *sr = &fl->series;
    uint32_t *cap = &fl->series_cap;
    if (sr->nsamples < *cap)
        return 0;
    uint32_t n = *cap ? *cap * 2 : 256;
    n = n < most ? n : most;
    bool ok = widen(&sr->t_us, n, 1) && widen(&sr->rate_gbps, n, sr->nflows) &&
              widen(&sr->alpha, n, sr->nflows) && widen(&sr->cwnd_bytes, n, sr->nflows) &&
              widen(&sr->delivered_bytes, n, sr->nflows) &&
              widen(&sr->queue_bytes, n, sr->nqueues) && widen(&sr->link_util, n, sr->nlinks) &&
              widen(&sr->link_paused, n, sr->nlinks) && widen(&fl->links.span, n, 1);
    if (!ok)
        return -1;
    *cap = n;
    return 0;
}

/* Keep samples 0, 2, 4, ... of a [nsamples][width] array of readings. */
static void keep_even(double *m, uint32_t nkept, uint32_t width)
{
    for (uint32_t j = 1; j < nkept; j++)
        memmove(m + (size_t)j * width, m + (size_t)2 * j * width, width * sizeof *m);
}

/* The same for time over the interval before each sample (link rows'
 * busy and paused time, the interval itself): the kept sample's interval
 * is the two it spans, so their sum. */
static void merge_pairs(double *m, uint32_t nkept, uint32_t width)
{
    for (uint32_t j = 1; j < nkept; j++)
        for (uint32_t i = 0; i < width; i++)
            m[(size_t)j * width + i] =
                m[(size_t)(2 * j - 1) * width + i] + m[(size_t)2 * j * width + i];
}

/* Halve the series once its last sample has an even index past the
 * limit: it is kept, so the series still ends at the latest sample. */
static void decimate(struct bn_flows *fl, uint32_t most)
{
    struct bn_series *sr = &fl->series;
    if (sr->nsamples <= most || (sr->nsamples - 1) % 2 != 0)
        return;
    uint32_t kept = (sr->nsamples - 1) / 2 + 1;
    keep_even(sr->t_us, kept, 1);
    keep_even(sr->rate_gbps, kept, sr->nflows);
    keep_even(sr->alpha, kept, sr->nflows);
    keep_even(sr->cwnd_bytes, kept, sr->nflows);
    keep_even(sr->delivered_bytes, kept, sr->nflows);
    keep_even(sr->queue_bytes, kept, sr->nqueues);
    merge_pairs(sr->link_util, kept, sr->nlinks);
    merge_pairs(sr->link_paused, kept, sr->nlinks);
    merge_pairs(fl->links.span, kept, 1);
    sr->nsamples = kept;
    sr->interval_us *= 2;
    sr->decimations++;
}

int bn_flows_series_sample(struct bn_flows *fl, struct bn_error *err)
{
    struct bn_sim *s = fl->s;
    struct bn_series *sr = &fl->series;
    /* one past the limit (the sample that triggers halving) and one more */
    if (grow(fl, s->sc->observe.max_samples + 2) != 0)
        return bn_fail(err, BN_ENOMEM, "out of memory for time series");
    uint32_t k = sr->nsamples++;
    sr->t_us[k] = bn_time_to_us(s->fab.now);
    /* on ranks each part fills what it runs, the rest 0 (flow_ranks.c adds them) */
    for (uint32_t i = 0; i < sr->nflows; i++) {
        const struct bn_flow_state *fs = &fl->fstate[i];
        double rate = 0, alpha = 0, cwnd = 0, got = 0;
        bool tx = bn_sim_here(s, fl->flows.flows[i].src);
        if (fs->qp != BN_NONE && bn_sim_here(s, fl->flows.flows[i].dst)) {
            const struct bn_qp *qp = &s->nics.qp[fs->qp];
            double bytes = (double)qp->rcv_nxt * s->nics.mtu, size = (double)fl->flows.flows[i].bytes;
            got = bytes < size ? bytes : size;
        }
        if (fs->qp != BN_NONE && fs->tx_done == BN_TIME_NEVER && tx) {
            const struct bn_qp *qp = &s->nics.qp[fs->qp];
            rate = (double)qp->rate_bps / 1e9;
            alpha = s->nics.cc->alpha && !qp->nvlink ? s->nics.cc->alpha(&s->nics, qp) : 0;
            /* at flow level no ACK moves it: the window would be its first */
            cwnd = s->nics.cc->window && !qp->nvlink && !s->flow
                       ? s->nics.cc->window(&s->nics, qp)
                       : 0;
        }
        sr->delivered_bytes[(size_t)k * sr->nflows + i] = got;
        sr->rate_gbps[(size_t)k * sr->nflows + i] = rate;
        sr->alpha[(size_t)k * sr->nflows + i] = alpha;
        sr->cwnd_bytes[(size_t)k * sr->nflows + i] = cwnd;
    }
    for (uint32_t q = 0; q < sr->nqueues; q++) {
        uint32_t p = sr->queue_port[q];
        sr->queue_bytes[(size_t)k * sr->nqueues + q] =
            bn_sim_here(s, s->fab.port_node[p]) ? (double)s->fab.ports[p].q.bytes : 0;
    }
    bn_flows_links_sample(fl, k);
    decimate(fl, s->sc->observe.max_samples);
    fl->samples_taken++;
    fl->sample_done = fl->flows_done;
    fl->sample_at = s->fab.now;
    if (s->part && s->part->ranks) /* whether to go on: every part's flows (bn_flows_ranks_sync) */
        return BN_OK;
    if (fl->flows_done < fl->flows.n)
        (void)bn_flows_series_next(fl);
    return BN_OK;
}

bn_time_t bn_flows_series_next(struct bn_flows *fl)
{
    struct bn_sim *s = fl->s;
    bn_time_t at = fl->sample_at + bn_time_from_us(fl->series.interval_us);
    bn_fabric_schedule(&s->fab, at, BN_EV_APP, 0, BN_FLOWS_SAMPLE);
    return at;
}

void bn_series_free(struct bn_series *sr)
{
    free(sr->t_us);
    free(sr->rate_gbps);
    free(sr->alpha);
    free(sr->cwnd_bytes);
    free(sr->delivered_bytes);
    free(sr->queue_port);
    free(sr->queue_name);
    free(sr->queue_bytes);
    free(sr->links);
    free(sr->link_util);
    free(sr->link_paused);
    memset(sr, 0, sizeof *sr);
}
