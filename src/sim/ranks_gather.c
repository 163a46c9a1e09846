/*
 * After a partitioned run on ranks (ranks.c): rank 0 takes what the
 * others' parts measured of the fabric, so that its results are the whole
 * run's, byte for byte one process's. Each part sends what it owns: its
 * nodes' ports (their line, counters and flow-control counters), its NICs'
 * endpoint state, the sending end of the queue pairs its hosts send on and
 * the counters of the receiving end of those its hosts receive on, its
 * messages' latencies and the fabric's counters (summed).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/ranks_buf.h"
#include "sim/sim.h"

struct totals {
    uint64_t pkts_injected, pkts_delivered, pkts_dropped, pkts_lost;
    uint64_t bytes_injected, bytes_delivered, bytes_dropped, bytes_lost, data_pkts_dropped;
    uint64_t pkts_corrupted, pkts_trimmed, packet_hops, lossless_overflows;
    uint64_t events, unattributed, replicated, mirrors, part_events;
    uint64_t cut_frames, cut_signals, cut_bytes;
    uint64_t rx_dma_pkts, ecn_ce_received, qps_failed, in_pool;
    int64_t rx_wait_sum, rx_wait_max;
    uint64_t nports, neps, nlat, nreorder, nqps, qp_tx, qp_rx;
};

/* The receiving end's counters of a queue pair. */
struct qp_rx {
    uint32_t qp, rcv_nxt;
    uint64_t out_of_order, duplicates, cnps_sent;
};

static void totals_of(const struct bn_sim *s, struct totals *t)
{
    const struct bn_fabric *f = &s->fab;
    const struct bn_partition *pt = s->part;
    *t = (struct totals){
        .pkts_injected = f->pkts_injected, .pkts_delivered = f->pkts_delivered,
        .pkts_dropped = f->pkts_dropped, .pkts_lost = f->pkts_lost,
        .bytes_injected = f->bytes_injected, .bytes_delivered = f->bytes_delivered,
        .bytes_dropped = f->bytes_dropped, .bytes_lost = f->bytes_lost,
        .data_pkts_dropped = f->data_pkts_dropped, .pkts_corrupted = f->pkts_corrupted,
        .pkts_trimmed = f->pkts_trimmed, .packet_hops = f->packet_hops,
        .lossless_overflows = f->lossless_overflows, .events = s->events,
        .unattributed = pt->unattributed, .replicated = pt->replicated, .mirrors = pt->mirrors,
        .part_events = pt->events[pt->ranks->rank], .cut_frames = pt->cut.frames,
        .cut_signals = pt->cut.signals, .cut_bytes = pt->cut.bytes,
        .rx_dma_pkts = s->nics.rx_dma_pkts, .ecn_ce_received = s->nics.ecn_ce_received,
        .qps_failed = s->nics.qps_failed, .in_pool = f->pool.in_use,
        .rx_wait_sum = s->nics.rx_wait_sum, .rx_wait_max = s->nics.rx_wait_max, .nlat = s->nics.nlat,
        .nreorder = s->nics.reorder_hist_len, .nqps = s->nics.nqps};
}

static bool nic_here(const struct bn_sim *s, uint32_t i)
{
    return bn_sim_here(s, s->fab.port_node[s->nics.nic[i].port]);
}

/* Rank 0's own ports, NICs and sending ends are in its model already: it
 * packs only its totals, latencies and receiving ends (`self`). */
static void pack(const struct bn_sim *s, struct bn_rbuf *b, bool self)
{
    const struct bn_fabric *f = &s->fab;
    const struct bn_nics *n = &s->nics;
    struct totals t;
    totals_of(s, &t);
    for (uint32_t p = 0; !self && p < f->nports; p++)
        t.nports += bn_sim_here(s, f->port_node[p]);
    for (uint32_t i = 0; !self && n->ep && i < n->nnics; i++)
        t.neps += nic_here(s, i);
    for (uint32_t q = 0; q < n->nqps; q++) {
        t.qp_tx += !self && bn_sim_here(s, n->qp[q].src);
        t.qp_rx += bn_sim_here(s, n->qp[q].dst);
    }
    bn_rbuf_put(b, &t, sizeof t);
    for (uint32_t p = 0; p < f->nports; p++) {
        if (self || !bn_sim_here(s, f->port_node[p]))
            continue;
        struct bn_fc_port_stats st = {0};
        bn_rbuf_put(b, &p, sizeof p);
        bn_rbuf_put(b, &f->ports[p], sizeof f->ports[p]);
        bn_rbuf_put(b, &f->stats[p], sizeof f->stats[p]);
        if (f->fc->port_stats) { /* (a module without counters reports zeros) */
            f->fc->port_stats(f, p, &st);
            bn_rbuf_put(b, &st, sizeof st);
        }
    }
    for (uint32_t i = 0; !self && n->ep && i < n->nnics; i++)
        if (nic_here(s, i)) {
            bn_rbuf_put(b, &i, sizeof i);
            bn_rbuf_put(b, &n->ep[i], sizeof n->ep[i]);
        }
    bn_rbuf_put(b, n->lat, (size_t)n->nlat * sizeof *n->lat);
    bn_rbuf_put(b, n->reorder_hist, (size_t)n->reorder_hist_len * sizeof *n->reorder_hist);
    for (uint32_t q = 0; !self && q < n->nqps; q++)
        if (bn_sim_here(s, n->qp[q].src)) {
            bn_rbuf_put(b, &q, sizeof q);
            bn_rbuf_put(b, &n->qp[q], sizeof n->qp[q]);
        }
    for (uint32_t q = 0; q < n->nqps; q++)
        if (bn_sim_here(s, n->qp[q].dst)) {
            const struct bn_qp *qp = &n->qp[q];
            struct qp_rx r = {q, qp->rcv_nxt, qp->out_of_order, qp->duplicates, qp->cnps_sent};
            bn_rbuf_put(b, &r, sizeof r);
        }
}

static void add_totals(struct totals *sum, const struct totals *t)
{
    sum->pkts_injected += t->pkts_injected;
    sum->pkts_delivered += t->pkts_delivered;
    sum->pkts_dropped += t->pkts_dropped;
    sum->pkts_lost += t->pkts_lost;
    sum->bytes_injected += t->bytes_injected;
    sum->bytes_delivered += t->bytes_delivered;
    sum->bytes_dropped += t->bytes_dropped;
    sum->bytes_lost += t->bytes_lost;
    sum->data_pkts_dropped += t->data_pkts_dropped;
    sum->pkts_corrupted += t->pkts_corrupted;
    sum->pkts_trimmed += t->pkts_trimmed;
    sum->packet_hops += t->packet_hops;
    sum->lossless_overflows += t->lossless_overflows;
    /* every process ran the driver's own (or two, mirroring) */
    sum->events += t->events - t->replicated - t->mirrors;
    sum->unattributed += t->unattributed - t->replicated - t->mirrors;
    sum->cut_frames += t->cut_frames;
    sum->cut_signals += t->cut_signals;
    sum->cut_bytes += t->cut_bytes;
    sum->rx_dma_pkts += t->rx_dma_pkts;
    sum->ecn_ce_received += t->ecn_ce_received;
    sum->qps_failed += t->qps_failed;
    sum->in_pool += t->in_pool;
    sum->rx_wait_sum += t->rx_wait_sum;
    sum->rx_wait_max = t->rx_wait_max > sum->rx_wait_max ? t->rx_wait_max : sum->rx_wait_max;
    sum->nlat += t->nlat;
    sum->nreorder = t->nreorder > sum->nreorder ? t->nreorder : sum->nreorder;
}

static void set_totals(struct bn_sim *s, const struct totals *t)
{
    struct bn_fabric *f = &s->fab;
    struct bn_partition *pt = s->part;
    f->pkts_injected = t->pkts_injected;
    f->pkts_delivered = t->pkts_delivered;
    f->pkts_dropped = t->pkts_dropped;
    f->pkts_lost = t->pkts_lost;
    f->bytes_injected = t->bytes_injected;
    f->bytes_delivered = t->bytes_delivered;
    f->bytes_dropped = t->bytes_dropped;
    f->bytes_lost = t->bytes_lost;
    f->data_pkts_dropped = t->data_pkts_dropped;
    f->pkts_corrupted = t->pkts_corrupted;
    f->pkts_trimmed = t->pkts_trimmed;
    f->packet_hops = t->packet_hops;
    f->lossless_overflows = t->lossless_overflows;
    s->events = t->events + pt->replicated;
    pt->unattributed = t->unattributed + pt->replicated;
    pt->cut.frames = t->cut_frames;
    pt->cut.signals = t->cut_signals;
    pt->cut.bytes = t->cut_bytes;
    s->nics.rx_dma_pkts = t->rx_dma_pkts;
    s->nics.ecn_ce_received = t->ecn_ce_received;
    s->nics.qps_failed = (uint32_t)t->qps_failed;
    pt->in_flight_elsewhere = t->in_pool - s->fab.pool.in_use;
    s->nics.rx_wait_sum = t->rx_wait_sum;
    s->nics.rx_wait_max = t->rx_wait_max;
}

/* Rank 0's gathering: the sums of every part's totals, where the parts'
 * latencies go, and the queue pairs' receiving ends, laid over their
 * sending ends once every part's are in (a later part's sending end would
 * cover an earlier one's receiving end). */
struct merge {
    struct bn_sim *s;
    bn_time_t *lat;
    uint64_t *reorder;
    size_t nlat;
    struct qp_rx *rx;
    uint32_t nrx, bad;
    bool failed, room;
};

/* Rank 0: one part's records into the model. */
static bool unpack_part(struct merge *m, uint32_t part, struct bn_rcur *c)
{
    struct bn_sim *s = m->s;
    struct bn_fabric *f = &s->fab;
    struct bn_nics *n = &s->nics;
    struct totals t;
    if (!bn_rcur_get(c, &t, sizeof t) || t.nqps != n->nqps)
        return false;
    for (uint64_t k = 0; k < t.nports; k++) {
        uint32_t p;
        if (!bn_rcur_get(c, &p, sizeof p) || p >= f->nports)
            return false;
        if (!bn_rcur_get(c, &f->ports[p], sizeof f->ports[p]) ||
            !bn_rcur_get(c, &f->stats[p], sizeof f->stats[p]) ||
            (f->fc->port_stats &&
             !bn_rcur_get(c, &s->part->fc_final[p], sizeof s->part->fc_final[p])))
            return false;
    }
    for (uint64_t k = 0; k < t.neps; k++) {
        uint32_t i;
        if (!bn_rcur_get(c, &i, sizeof i) || i >= n->nnics ||
            !bn_rcur_get(c, &n->ep[i], sizeof n->ep[i]))
            return false;
    }
    if (!bn_rcur_get(c, m->lat + m->nlat, (size_t)t.nlat * sizeof *m->lat))
        return false;
    m->nlat += t.nlat;
    for (uint64_t d = 0; d < t.nreorder; d++) {
        uint64_t v;
        if (!bn_rcur_get(c, &v, sizeof v))
            return false;
        m->reorder[d] += v;
    }
    for (uint64_t k = 0; k < t.qp_tx; k++) {
        uint32_t q;
        if (!bn_rcur_get(c, &q, sizeof q) || q >= n->nqps ||
            !bn_rcur_get(c, &n->qp[q], sizeof n->qp[q]))
            return false;
    }
    for (uint64_t k = 0; k < t.qp_rx; k++) {
        struct qp_rx r;
        if (m->nrx >= n->nqps || !bn_rcur_get(c, &r, sizeof r) || r.qp >= n->nqps)
            return false;
        m->rx[m->nrx++] = r;
    }
    s->part->events[part] = t.part_events;
    return bn_rcur_end(c);
}

static bool unpack(void *ud, uint32_t part, struct bn_rcur *c)
{
    struct merge *m = ud;
    if (m->room && unpack_part(m, part, c))
        return true;
    m->failed = true;
    m->bad = part;
    return false;
}

static void pack_cb(void *ud, struct bn_rbuf *b)
{
    const struct bn_sim *s = ud;
    pack(s, b, s->part->ranks->rank == 0);
}

/* Rank 0: the sums, then each part's records as they come. */
static int merge(struct bn_sim *s, const struct totals *tot, struct bn_error *err)
{
    struct bn_partition *pt = s->part;
    struct totals sum = {0};
    for (uint32_t r = 0; tot && r < pt->parts; r++)
        add_totals(&sum, &tot[r]);
    struct merge m = {.s = s};
    if (tot) {
        m.lat = malloc((sum.nlat + 1) * sizeof *m.lat);
        m.reorder = calloc(sum.nreorder + 1, sizeof *m.reorder);
        m.rx = malloc((s->nics.nqps + 1) * sizeof *m.rx);
        if (s->fab.fc->port_stats)
            pt->fc_final = calloc(s->fab.nports + 1, sizeof *pt->fc_final);
    }
    bool room = m.room = !tot || (m.lat && m.reorder && m.rx &&
                                  (pt->fc_final || !s->fab.fc->port_stats));
    for (uint32_t p = 0; tot && room && s->fab.fc->port_stats && p < s->fab.nports; p++)
        if (bn_sim_here(s, s->fab.port_node[p])) /* rank 0's own, not packed */
            s->fab.fc->port_stats(&s->fab, p, &pt->fc_final[p]);
    /* every rank takes its turn, whatever rank 0 could hold */
    int rc = bn_ranks_gather_stream(s, pack_cb, s, unpack, &m, err);
    if (rc != BN_OK && !room)
        rc = bn_fail(err, BN_ENOMEM, "out of memory gathering the results");
    else if (rc != BN_OK && m.failed)
        rc = bn_fail(err, BN_EINTERNAL, "part %u's results do not match the model", m.bad);
    if (rc != BN_OK || !tot) {
        free(m.lat);
        free(m.reorder);
        free(m.rx);
        return rc;
    }
    for (uint32_t k = 0; k < m.nrx; k++) {
        struct bn_qp *qp = &s->nics.qp[m.rx[k].qp];
        qp->rcv_nxt = m.rx[k].rcv_nxt;
        qp->out_of_order = m.rx[k].out_of_order;
        qp->duplicates = m.rx[k].duplicates;
        qp->cnps_sent = m.rx[k].cnps_sent;
    }
    free(m.rx);
    set_totals(s, &sum);
    free(s->nics.lat);
    s->nics.lat = m.lat;
    s->nics.nlat = s->nics.lat_cap = (uint32_t)sum.nlat;
    free(s->nics.reorder_hist);
    s->nics.reorder_hist = m.reorder;
    s->nics.reorder_hist_len = (uint32_t)sum.nreorder;
    s->fab.fc_final = pt->fc_final;
    return BN_OK;
}

int bn_ranks_gather_fabric(struct bn_sim *s, struct bn_error *err)
{
    /* the totals first (rank 0 sizes the latencies from them), then the
     * records, a piece at a time */
    struct totals t;
    totals_of(s, &t);
    size_t *lens = calloc(s->part->parts, sizeof *lens);
    void *tot = NULL;
    int rc = lens ? bn_ranks_gather(s, &t, sizeof t, &tot, lens, err)
                  : bn_fail(err, BN_ENOMEM, "out of memory gathering the results");
    free(lens);
    if (rc == BN_OK)
        rc = merge(s, s->part->ranks->rank == 0 ? tot : NULL, err);
    free(tot);
    return rc;
}
