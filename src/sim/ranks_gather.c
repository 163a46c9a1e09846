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

static void pack(const struct bn_sim *s, struct bn_rbuf *b)
{
    const struct bn_fabric *f = &s->fab;
    const struct bn_nics *n = &s->nics;
    struct totals t;
    totals_of(s, &t);
    for (uint32_t p = 0; p < f->nports; p++)
        t.nports += bn_sim_here(s, f->port_node[p]);
    for (uint32_t i = 0; n->ep && i < n->nnics; i++)
        t.neps += nic_here(s, i);
    for (uint32_t q = 0; q < n->nqps; q++) {
        t.qp_tx += bn_sim_here(s, n->qp[q].src);
        t.qp_rx += bn_sim_here(s, n->qp[q].dst);
    }
    bn_rbuf_put(b, &t, sizeof t);
    for (uint32_t p = 0; p < f->nports; p++) {
        if (!bn_sim_here(s, f->port_node[p]))
            continue;
        struct bn_fc_port_stats st = {0};
        if (f->fc->port_stats)
            f->fc->port_stats(f, p, &st);
        bn_rbuf_put(b, &p, sizeof p);
        bn_rbuf_put(b, &f->ports[p], sizeof f->ports[p]);
        bn_rbuf_put(b, &f->stats[p], sizeof f->stats[p]);
        bn_rbuf_put(b, &st, sizeof st);
    }
    for (uint32_t i = 0; n->ep && i < n->nnics; i++)
        if (nic_here(s, i)) {
            bn_rbuf_put(b, &i, sizeof i);
            bn_rbuf_put(b, &n->ep[i], sizeof n->ep[i]);
        }
    bn_rbuf_put(b, n->lat, (size_t)n->nlat * sizeof *n->lat);
    bn_rbuf_put(b, n->reorder_hist, (size_t)n->reorder_hist_len * sizeof *n->reorder_hist);
    for (uint32_t q = 0; q < n->nqps; q++)
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

/* Rank 0: one part's records into the model (pass 0: all but the queue
 * pairs' receiving ends, which pass 1 lays over their sending ends). */
static bool unpack(struct bn_sim *s, uint32_t part, struct bn_rcur *c, int pass,
                   struct totals *sum, bn_time_t *lat, uint64_t *reorder)
{
    struct bn_fabric *f = &s->fab;
    struct bn_nics *n = &s->nics;
    struct totals t;
    if (!bn_rcur_get(c, &t, sizeof t) || t.nqps != n->nqps)
        return false;
    for (uint64_t k = 0; k < t.nports; k++) {
        uint32_t p;
        if (!bn_rcur_get(c, &p, sizeof p) || p >= f->nports)
            return false;
        struct bn_fc_port_stats *st = &s->part->fc_final[p];
        if (!bn_rcur_get(c, pass ? NULL : &f->ports[p], sizeof f->ports[p]) ||
            !bn_rcur_get(c, pass ? NULL : &f->stats[p], sizeof f->stats[p]) ||
            !bn_rcur_get(c, pass ? NULL : st, sizeof *st))
            return false;
    }
    for (uint64_t k = 0; k < t.neps; k++) {
        uint32_t i;
        if (!bn_rcur_get(c, &i, sizeof i) || i >= n->nnics ||
            !bn_rcur_get(c, pass ? NULL : &n->ep[i], sizeof n->ep[i]))
            return false;
    }
    if (!bn_rcur_get(c, pass ? NULL : lat, (size_t)t.nlat * sizeof *lat))
        return false;
    for (uint64_t d = 0; d < t.nreorder; d++) {
        uint64_t v;
        if (!bn_rcur_get(c, &v, sizeof v))
            return false;
        if (!pass)
            reorder[d] += v;
    }
    for (uint64_t k = 0; k < t.qp_tx; k++) {
        uint32_t q;
        if (!bn_rcur_get(c, &q, sizeof q) || q >= n->nqps ||
            !bn_rcur_get(c, pass ? NULL : &n->qp[q], sizeof n->qp[q]))
            return false;
    }
    for (uint64_t k = 0; k < t.qp_rx; k++) {
        struct qp_rx r;
        if (!bn_rcur_get(c, &r, sizeof r) || r.qp >= n->nqps)
            return false;
        if (pass) {
            struct bn_qp *qp = &n->qp[r.qp];
            qp->rcv_nxt = r.rcv_nxt;
            qp->out_of_order = r.out_of_order;
            qp->duplicates = r.duplicates;
            qp->cnps_sent = r.cnps_sent;
        }
    }
    if (!pass) {
        add_totals(sum, &t);
        s->part->events[part] = t.part_events;
    }
    return true;
}

static int merge(struct bn_sim *s, const char *all, const size_t *lens, struct bn_error *err)
{
    struct bn_partition *pt = s->part;
    uint32_t parts = pt->parts;
    struct totals sum = {0};
    /* every part's latencies and reorder depths, summed first */
    for (uint32_t r = 0, off = 0; r < parts; off += (uint32_t)lens[r], r++) {
        struct totals t;
        if (lens[r] < sizeof t)
            return bn_fail(err, BN_EINTERNAL, "part %u's results are cut short", r);
        memcpy(&t, all + off, sizeof t);
        add_totals(&sum, &t);
    }
    bn_time_t *lat = malloc((sum.nlat + 1) * sizeof *lat);
    uint64_t *reorder = calloc(sum.nreorder + 1, sizeof *reorder);
    pt->fc_final = calloc(s->fab.nports + 1, sizeof *pt->fc_final);
    if (!lat || !reorder || !pt->fc_final) {
        free(lat);
        free(reorder);
        return bn_fail(err, BN_ENOMEM, "out of memory gathering the results");
    }
    memset(&sum, 0, sizeof sum);
    for (int pass = 0; pass < 2; pass++) {
        size_t off = 0, nlat = 0;
        for (uint32_t r = 0; r < parts; off += lens[r], r++) {
            struct bn_rcur c = {all + off, lens[r]};
            struct totals t;
            memcpy(&t, all + off, sizeof t);
            if (!unpack(s, r, &c, pass, &sum, lat + nlat, reorder) || c.len != 0) {
                free(lat);
                free(reorder);
                return bn_fail(err, BN_EINTERNAL, "part %u's results do not match the model", r);
            }
            nlat += t.nlat;
        }
    }
    set_totals(s, &sum);
    free(s->nics.lat);
    s->nics.lat = lat;
    s->nics.nlat = s->nics.lat_cap = (uint32_t)sum.nlat;
    free(s->nics.reorder_hist);
    s->nics.reorder_hist = reorder;
    s->nics.reorder_hist_len = (uint32_t)sum.nreorder;
    s->fab.fc_final = pt->fc_final;
    return BN_OK;
}

int bn_ranks_gather_fabric(struct bn_sim *s, struct bn_error *err)
{
    struct bn_rbuf b = {0};
    pack(s, &b);
    if (b.oom) {
        free(b.p);
        return bn_fail(err, BN_ENOMEM, "out of memory gathering the results");
    }
    size_t *lens = calloc(s->part->parts, sizeof *lens);
    void *all = NULL;
    int rc = lens ? bn_ranks_gather(s, b.p, b.n, &all, lens, err)
                  : bn_fail(err, BN_ENOMEM, "out of memory gathering the results");
    free(b.p);
    if (rc == BN_OK && s->part->ranks->rank == 0)
        rc = merge(s, all, lens, err);
    free(all);
    free(lens);
    return rc;
}
