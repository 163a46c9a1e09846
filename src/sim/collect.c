/*
 * Results of a finished run: per-flow completion times and throughput, their
 * order statistics, the packet ledger, drops/marks/retransmissions, and link
 * utilization (busy time over simulated time, per port = per link direction).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "sim/sim.h"

static void flow_results(const struct bn_sim *s, struct bn_results *out)
{
    for (uint32_t i = 0; i < s->flows.n; i++) {
        const struct bn_flow_spec *fl = &s->flows.flows[i];
        const struct bn_flow_state *fs = &s->fstate[i];
        struct bn_flow_result *r = &out->flows[i];
        r->src = fl->src;
        r->dst = fl->dst;
        r->bytes = fl->bytes;
        r->start_us = bn_time_to_us(fl->start);
        r->done = fs->tx_done != BN_TIME_NEVER && fs->rx_done != BN_TIME_NEVER;
        if (fs->rx_done != BN_TIME_NEVER) {
            r->fct_us = bn_time_to_us(fs->rx_done - fl->start);
            r->throughput_gbps = r->fct_us > 0 ? (double)fl->bytes * 8.0 / (r->fct_us * 1e3) : 0;
        }
        if (fs->tx_done != BN_TIME_NEVER)
            r->ack_us = bn_time_to_us(fs->tx_done - fl->start);
        if (fs->qp != BN_NONE) {
            const struct bn_qp *qp = &s->nics.qp[fs->qp];
            r->retransmits = qp->retransmits;
            r->timeouts = qp->timeouts;
            out->retransmits += qp->retransmits;
            out->timeouts += qp->timeouts;
            out->out_of_order += qp->out_of_order;
        }
        if (r->done)
            out->flows_completed++;
    }
}

static int order_stats(struct bn_results *out, struct bn_error *err)
{
    uint32_t n = out->flows_completed;
    if (n == 0)
        return BN_OK;
    double *tp = malloc((size_t)n * sizeof *tp), *fct = malloc((size_t)n * sizeof *fct);
    if (!tp || !fct) {
        free(tp);
        free(fct);
        return bn_fail(err, BN_ENOMEM, "out of memory for statistics");
    }
    uint32_t m = 0;
    double sum = 0;
    for (uint32_t i = 0; i < out->nflows; i++) {
        if (!out->flows[i].done)
            continue;
        tp[m] = out->flows[i].throughput_gbps;
        fct[m] = out->flows[i].fct_us;
        sum += tp[m++];
    }
    bn_sort_doubles(tp, n);
    bn_sort_doubles(fct, n);
    out->throughput_gbps = (struct bn_summary_stats){
        .mean = sum / n, .min = tp[0], .p1 = bn_percentile_sorted(tp, n, 1),
        .p50 = bn_percentile_sorted(tp, n, 50), .p99 = bn_percentile_sorted(tp, n, 99),
        .max = tp[n - 1],
    };
    out->fct_p50_us = bn_percentile_sorted(fct, n, 50);
    out->fct_p99_us = bn_percentile_sorted(fct, n, 99);
    out->fct_p999_us = bn_percentile_sorted(fct, n, 99.9);
    free(tp);
    free(fct);
    return BN_OK;
}

static void port_results(const struct bn_sim *s, struct bn_results *out)
{
    const struct bn_fabric *f = &s->fab;
    double end = (double)f->now, sum = 0, max = 0;
    for (uint32_t p = 0; p < f->nports; p++) {
        const struct bn_port_stats *st = &f->stats[p];
        out->ecn_marks += st->ecn_marks;
        double u = end > 0 ? (double)st->busy_ps / end : 0;
        if (u > 1)
            u = 1; /* a run cut short counts a frame's whole serialization */
        sum += u;
        if (u > max)
            max = u;
    }
    out->link_util_max = max;
    out->link_util_mean = f->nports ? sum / f->nports : 0;
}

int bn_sim_collect(const struct bn_sim *s, struct bn_results *out, struct bn_error *err)
{
    const struct bn_fabric *f = &s->fab;
    out->seed = s->sc->seed;
    snprintf(out->scenario, sizeof out->scenario, "%s", s->sc->source);
    snprintf(out->workload, sizeof out->workload, "%s", s->sc->workload.kind);
    bn_sim_topo_info(s, &out->topo);
    out->nflows = s->flows.n;
    out->flows = calloc(s->flows.n + 1, sizeof *out->flows);
    if (!out->flows)
        return bn_fail(err, BN_ENOMEM, "out of memory for flow results");
    flow_results(s, out);
    port_results(s, out);
    out->pkts_injected = f->pkts_injected;
    out->pkts_delivered = f->pkts_delivered;
    out->pkts_dropped = f->pkts_dropped;
    out->pkts_in_flight = f->pkts_injected - f->pkts_delivered - f->pkts_dropped;
    out->bytes_injected = f->bytes_injected;
    out->bytes_delivered = f->bytes_delivered;
    out->bytes_dropped = f->bytes_dropped;
    out->bytes_in_flight = f->bytes_injected - f->bytes_delivered - f->bytes_dropped;
    out->data_pkts_dropped = f->data_pkts_dropped;
    out->packet_hops = f->packet_hops;
    out->simulated_us = bn_time_to_us(f->now);
    out->stopped_early = s->stopped_early;
    return order_stats(out, err);
}

void bn_results_free(struct bn_results *r)
{
    free(r->flows);
    r->flows = NULL;
    r->nflows = 0;
}
