/*
 * Results of a finished run: per-flow completion times and throughput, their
 * order statistics, the packet ledger, drops/marks/retransmissions, and link
 * utilization (busy time over simulated time, per port = per link direction).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "driver/flows/flows.h"
#include "driver/flows/ideal_fct.h"
#include "driver/flows/slowdown.h"

static void flow_results(const struct bn_flows *flows, struct bn_ideal *id,
                         struct bn_results *out)
{
    const struct bn_sim *s = flows->s;
    for (uint32_t i = 0; i < flows->flows.n; i++) {
        const struct bn_flow_spec *fl = &flows->flows.flows[i];
        const struct bn_flow_state *fs = &flows->fstate[i];
        struct bn_flow_result *r = &out->flows[i];
        r->src = fl->src;
        r->dst = fl->dst;
        r->bytes = fl->bytes;
        r->start_us = bn_time_to_us(fl->start);
        r->done = fs->tx_done != BN_TIME_NEVER && fs->rx_done != BN_TIME_NEVER;
        r->failed_us = fs->failed == BN_TIME_NEVER ? -1 : bn_time_to_us(fs->failed);
        r->no_path = fs->failed_why == BN_QP_NO_PATH;
        r->dep_failed = fs->dep_failed;
        out->flows_failed += fs->failed != BN_TIME_NEVER;
        bn_time_t ideal = bn_ideal_fct(id, fs->qp == BN_NONE ? 0 : fs->qp, fl->src, fl->dst,
                                       fl->bytes, s->sc->workload.messages,
                                       s->sc->workload.verb == BN_SC_SEND);
        r->ideal_us = ideal == BN_TIME_NEVER ? 0 : bn_time_to_us(ideal);
        if (fl->unbounded && fs->qp != BN_NONE) {
            /* sent until the end: what it delivered in order, over its time */
            double got = (double)s->nics.qp[fs->qp].rcv_nxt * s->nics.mtu;
            double span_ns = bn_time_to_us(s->fab.now - fl->start) * 1e3;
            r->bytes = got < (double)fl->bytes ? (uint64_t)got : fl->bytes;
            r->throughput_gbps = span_ns > 0 ? (double)r->bytes * 8.0 / span_ns : 0;
        }
        if (fs->rx_done != BN_TIME_NEVER) {
            r->fct_us = bn_time_to_us(fs->rx_done - fl->start);
            r->throughput_gbps = r->fct_us > 0 ? (double)fl->bytes * 8.0 / (r->fct_us * 1e3) : 0;
            r->slowdown = ideal > 0 && ideal != BN_TIME_NEVER
                              ? (double)(fs->rx_done - fl->start) / (double)ideal : 0;
        }
        if (fs->tx_done != BN_TIME_NEVER)
            r->ack_us = bn_time_to_us(fs->tx_done - fl->start);
        if (fs->qp != BN_NONE) {
            const struct bn_qp *qp = &s->nics.qp[fs->qp];
            out->cnps += qp->cnps_received;
            r->retransmits = qp->retransmits;
            r->timeouts = qp->timeouts;
            r->duplicates = qp->duplicates;
            out->retransmits += qp->retransmits;
            out->timeouts += qp->timeouts;
            out->out_of_order += qp->out_of_order;
            out->spurious_retransmits += qp->duplicates;
        }
        r->paths = fs->paths.n;
        if (r->done)
            out->flows_completed++;
        if (r->done && r->start_us + r->fct_us > out->makespan_us)
            out->makespan_us = r->start_us + r->fct_us;
    }
}

/* Per-path packet counts of the followed flows. */
static int path_results(const struct bn_flows *fl, struct bn_results *out, struct bn_error *err)
{
    const struct bn_sim *s = fl->s;
    uint32_t followed = s->sc->observe.max_flows < out->nflows ? s->sc->observe.max_flows : out->nflows;
    for (uint32_t i = 0; i < followed; i++) {
        const struct bn_path_hist *h = &fl->fstate[i].paths;
        out->flows[i].path_packets = calloc(h->n + 1, sizeof(uint32_t));
        if (!out->flows[i].path_packets)
            return bn_fail(err, BN_ENOMEM, "out of memory for path counts");
        for (uint32_t k = 0; k < h->n; k++)
            out->flows[i].path_packets[k] = h->path[k].count;
    }
    return BN_OK;
}

/* Reorder depth over all out-of-order arrivals, from the NICs' histogram. */
static void reorder_results(const struct bn_nics *n, struct bn_results *out)
{
    uint64_t total = 0, seen = 0;
    for (uint32_t d = 0; d < n->reorder_hist_len; d++)
        total += n->reorder_hist[d];
    for (uint32_t d = 0; d < n->reorder_hist_len; d++) {
        if (!n->reorder_hist[d])
            continue;
        out->reorder_depth_max = d;
        if (out->reorder_depth_p99 == 0 && (seen += n->reorder_hist[d]) >= 0.99 * (double)total)
            out->reorder_depth_p99 = d;
    }
}

static int order_stats(const struct bn_flows *fl, struct bn_results *out, struct bn_error *err)
{
    /* throughput: the completed flows and those that send until the end
     * (htsim's size 0: not done, a throughput of their own); FCT: completed */
    uint32_t n = out->flows_completed, nt = 0;
    for (uint32_t i = 0; i < out->nflows; i++)
        nt += out->flows[i].done || fl->flows.flows[i].unbounded;
    if (nt == 0)
        return BN_OK;
    double *tp = malloc((size_t)nt * sizeof *tp), *fct = malloc(((size_t)n + 1) * sizeof *fct);
    if (!tp || !fct) {
        free(tp);
        free(fct);
        return bn_fail(err, BN_ENOMEM, "out of memory for statistics");
    }
    uint32_t m = 0, mf = 0;
    double sum = 0;
    for (uint32_t i = 0; i < out->nflows; i++) {
        if (!out->flows[i].done && !fl->flows.flows[i].unbounded)
            continue;
        tp[m] = out->flows[i].throughput_gbps;
        sum += tp[m++];
        if (out->flows[i].done)
            fct[mf++] = out->flows[i].fct_us;
    }
    bn_sort_doubles(tp, nt);
    out->throughput_gbps = (struct bn_summary_stats){
        .mean = sum / nt, .min = tp[0], .p1 = bn_percentile_sorted(tp, nt, 1),
        .p50 = bn_percentile_sorted(tp, nt, 50), .p99 = bn_percentile_sorted(tp, nt, 99),
        .max = tp[nt - 1],
    };
    free(tp);
    if (n == 0) {
        free(fct);
        return BN_OK;
    }
    bn_sort_doubles(fct, n);
    out->fct_p50_us = bn_percentile_sorted(fct, n, 50);
    out->fct_p99_us = bn_percentile_sorted(fct, n, 99);
    out->fct_p999_us = bn_percentile_sorted(fct, n, 99.9);
    free(fct);
    return BN_OK;
}

static double utilization(const struct bn_fabric *f, uint32_t p)
{
    double u = f->now > 0 ? (double)f->ports[p].busy_ps / (double)f->now : 0;
    return u > 1 ? 1 : u; /* a run cut short counts a frame's whole serialization */
}

/* Port p's flow-control counters (zero where the module keeps none). */
static struct bn_fc_port_stats fc_stats(const struct bn_fabric *f, uint32_t p)
{
    struct bn_fc_port_stats st = {0};
    if (f->fc_final)
        return f->fc_final[p];
    if (f->fc->port_stats)
        f->fc->port_stats(f, p, &st);
    return st;
}

static bool noteworthy(const struct bn_fabric *f, bool all, uint32_t p)
{
    if (all || bn_port_drops(f, p) || bn_port_ecn_marks(f, p))
        return true;
    struct bn_fc_port_stats st = fc_stats(f, p);
    return st.pause_sent || st.pause_received;
}

static void port_entry(const struct bn_sim *s, uint32_t p, struct bn_port_result *pr)
{
    const struct bn_fabric *f = &s->fab;
    pr->port = p;
    bn_topo_port_name(&s->topo, p, pr->name, sizeof pr->name);
    bn_topo_node_name(&s->topo, s->topo.ports[s->topo.ports[p].peer].node, pr->peer,
                      sizeof pr->peer);
    const struct bn_topo *t = &s->topo;
    uint32_t a = t->ports[p].node, b = t->ports[t->ports[p].peer].node;
    pr->tier = bn_topo_in_fabric(t, a) ? t->nodes[a].tier : -1;
    pr->peer_tier = bn_topo_in_fabric(t, b) ? t->nodes[b].tier : -1;
    pr->utilization = utilization(f, p);
    pr->tx_bytes = f->ports[p].tx_bytes;
    pr->drops = bn_port_drops(f, p);
    pr->ecn_marks = bn_port_ecn_marks(f, p);
    struct bn_fc_port_stats st = fc_stats(f, p);
    pr->pause_sent = st.pause_sent;
    pr->pause_received = st.pause_received;
    /* pause time still running at the end counts up to the end */
    pr->paused_fraction = f->now > 0 ? (double)st.paused_ps / (double)f->now : 0;
}

static int port_results(const struct bn_sim *s, struct bn_results *out, struct bn_error *err)
{
    const struct bn_fabric *f = &s->fab;
    bool all = s->sc->observe.ports == BN_SC_PORTS_ALL;
    double sum = 0, max = 0;
    uint32_t n = 0, nfabric = 0;
    for (uint32_t p = 0; p < f->nports; p++) {
        out->ecn_marks += bn_port_ecn_marks(f, p);
        struct bn_fc_port_stats st = fc_stats(f, p);
        out->pause_frames += st.pause_sent;
        out->resume_frames += st.resume_sent;
        n += noteworthy(f, all, p);
        /* the backend's links: NVLink and SHARP units' internal links apart */
        const struct bn_topo_port *tp = &s->topo.ports[p];
        if (!bn_topo_in_fabric(&s->topo, tp->node) ||
            !bn_topo_in_fabric(&s->topo, s->topo.ports[tp->peer].node))
            continue;
        double u = utilization(f, p);
        sum += u;
        max = u > max ? u : max;
        nfabric++;
    }
    out->link_util_max = max;
    out->link_util_mean = nfabric ? sum / nfabric : 0;
    const struct bn_nics *nics = &s->nics;
    out->host_wait_mean_us =
        nics->rx_dma_pkts ? bn_time_to_us(nics->rx_wait_sum) / (double)nics->rx_dma_pkts : 0;
    out->host_wait_max_us = bn_time_to_us(nics->rx_wait_max);
    out->ports = calloc(n + 1, sizeof *out->ports);
    if (!out->ports)
        return bn_fail(err, BN_ENOMEM, "out of memory for port results");
    for (uint32_t p = 0; p < f->nports; p++)
        if (noteworthy(f, all, p))
            port_entry(s, p, &out->ports[out->nports++]);
    return BN_OK;
}

/* The series moves into the results; queue ports get their names. */
static int take_series(struct bn_flows *fl, struct bn_results *out, struct bn_error *err)
{
    const struct bn_sim *s = fl->s;
    bn_flows_links_finish(fl);
    out->series = fl->series;
    memset(&fl->series, 0, sizeof fl->series);
    struct bn_series *sr = &out->series;
    sr->queue_name = calloc(sr->nqueues + 1, sizeof *sr->queue_name);
    if (!sr->queue_name)
        return bn_fail(err, BN_ENOMEM, "out of memory for the time series");
    for (uint32_t q = 0; q < sr->nqueues; q++)
        bn_topo_port_name(&s->topo, sr->queue_port[q], sr->queue_name[q], sizeof sr->queue_name[q]);
    return BN_OK;
}

/* The seed's end-to-end latency target for the P99.9 (docs/endpoints.md). */
#define SEED_P999_US 10.0

/* Each message's latency, and the messages each NIC sent per second over
 * the run (its first flow's start to the end). */
static int msg_results(const struct bn_flows *fl, struct bn_results *out, struct bn_error *err)
{
    const struct bn_nics *n = &fl->s->nics;
    out->messages = n->nlat;
    if (n->nlat) {
        double *v = malloc((size_t)n->nlat * sizeof *v);
        if (!v)
            return bn_fail(err, BN_ENOMEM, "out of memory for message latencies");
        for (uint32_t i = 0; i < n->nlat; i++)
            v[i] = bn_time_to_us(n->lat[i]);
        bn_sort_doubles(v, n->nlat);
        out->msg_lat_p50_us = bn_percentile_sorted(v, n->nlat, 50);
        out->msg_lat_p99_us = bn_percentile_sorted(v, n->nlat, 99);
        out->msg_lat_p999_us = bn_percentile_sorted(v, n->nlat, 99.9);
        out->msg_lat_max_us = v[n->nlat - 1];
        out->msg_lat_over_target = out->msg_lat_p999_us > SEED_P999_US;
        free(v);
    }
    bn_time_t start = BN_TIME_NEVER;
    for (uint32_t i = 0; i < fl->flows.n; i++)
        start = fl->flows.flows[i].start < start ? fl->flows.flows[i].start : start;
    double span_us = fl->flows.n ? bn_time_to_us(fl->s->fab.now - start) : 0;
    uint32_t senders = 0;
    double sum = 0;
    for (uint32_t i = 0; span_us > 0 && i < n->nnics; i++) {
        if (!n->ep[i].msgs)
            continue;
        double r = (double)n->ep[i].msgs / span_us; /* per us = millions per s */
        senders++;
        sum += r;
        out->msg_rate_max_mpps = r > out->msg_rate_max_mpps ? r : out->msg_rate_max_mpps;
    }
    out->msg_rate_mean_mpps = senders ? sum / senders : 0;
    return BN_OK;
}

/* A workload that offers a load (poisson): what its flows offer, over
 * the hosts' link capacity in the arrival window. */
static void offered_load(const struct bn_flows *fl, struct bn_results *out)
{
    double load, duration_us;
    if (!bn_workload_offered_load(fl->s->sc, &load, &duration_us))
        return;
    double bytes = 0;
    for (uint32_t i = 0; i < fl->flows.n; i++)
        bytes += (double)fl->flows.flows[i].bytes;
    double cap = (double)fl->hosts.n * fl->hosts.rate_bps / 8 * duration_us / 1e6;
    out->load_target = load;
    out->load_offered = cap > 0 ? bytes / cap : 0;
}

int bn_flows_collect(struct bn_flows *fl, struct bn_results *out, struct bn_error *err)
{
    const struct bn_sim *s = fl->s;
    const struct bn_fabric *f = &s->fab;
    out->seed = s->sc->seed;
    snprintf(out->scenario, sizeof out->scenario, "%s", s->sc->source);
    snprintf(out->workload, sizeof out->workload, "%s", bn_workload_name(s->sc->workload.kind));
    bn_sim_topo_info(s, &out->topo);
    out->nflows = fl->flows.n;
    out->flows = calloc(fl->flows.n + 1, sizeof *out->flows);
    if (!out->flows)
        return bn_fail(err, BN_ENOMEM, "out of memory for flow results");
    snprintf(out->flow_control, sizeof out->flow_control, "%s", f->fc->name);
    snprintf(out->congestion_control, sizeof out->congestion_control, "%s", s->nics.cc->name);
    snprintf(out->notifications, sizeof out->notifications, "%s",
             s->nics.cc->notice ? s->nics.cc->notice : "");
    out->fc_pauses = f->fc->pauses;
    out->cc_passive = s->nics.cc->passive;
    struct bn_ideal id;
    int rc = bn_ideal_init(&id, fl->s, err);
    if (rc != BN_OK)
        return rc;
    flow_results(fl, &id, out);
    bn_ideal_free(&id);
    offered_load(fl, out);
    reorder_results(&s->nics, out);
    rc = port_results(s, out, err);
    if (rc == BN_OK)
        rc = msg_results(fl, out, err);
    if (rc == BN_OK)
        rc = path_results(fl, out, err);
    if (rc == BN_OK)
        rc = take_series(fl, out, err);
    if (rc != BN_OK)
        return rc;
    out->pkts_injected = f->pkts_injected;
    out->pkts_delivered = f->pkts_delivered;
    out->pkts_dropped = f->pkts_dropped;
    out->pkts_in_flight = f->pkts_injected - f->pkts_delivered - f->pkts_dropped - f->pkts_lost;
    out->pkts_lost = f->pkts_lost;
    out->bytes_lost = f->bytes_lost;
    out->pkts_corrupted = f->pkts_corrupted;
    out->bytes_injected = f->bytes_injected;
    out->bytes_delivered = f->bytes_delivered;
    out->bytes_dropped = f->bytes_dropped;
    out->bytes_in_flight = f->bytes_injected - f->bytes_delivered - f->bytes_dropped -
                           f->bytes_lost;
    out->data_pkts_dropped = f->data_pkts_dropped;
    out->trimmed = f->pkts_trimmed;
    out->packet_hops = f->packet_hops;
    out->simulated_us = bn_time_to_us(f->now);
    out->stopped_early = s->stopped_early;
    out->interrupted = s->interrupted;
    out->stalled = s->stalled;
    if (s->faults) {
        snprintf(out->control_plane, sizeof out->control_plane, "%s",
                 bn_faults_control_plane(s->faults));
        out->reroute_wall_s = bn_faults_reroute_s(s->faults);
        rc = bn_faults_report(s->faults, &out->faults, &out->nfaults, err);
        if (rc != BN_OK)
            return rc;
    }
    rc = order_stats(fl, out, err);
    return rc == BN_OK ? bn_slowdown_collect(s->sc, out, err) : rc;
}

void bn_results_free(struct bn_results *r)
{
    bn_provenance_free(&r->prov);
    for (uint32_t i = 0; r->flows && i < r->nflows; i++)
        free(r->flows[i].path_packets);
    free(r->flows);
    r->flows = NULL;
    r->nflows = 0;
    free(r->ports);
    r->ports = NULL;
    r->nports = 0;
    free(r->faults);
    r->faults = NULL;
    r->nfaults = 0;
    free(r->slowdown_buckets);
    r->slowdown_buckets = NULL;
    r->nslowdown_buckets = 0;
    bn_series_free(&r->series);
}
