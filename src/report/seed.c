/*
 * The seed's report: its figures of merit (port rate, end-to-end and P99.9
 * latency, message rate, AllReduce bus bandwidth against line rate,
 * diameter, failure convergence, Gb/s per PFLOPS) from a result, with the
 * seed's targets where it gives them (docs/results.md).
 */
#include <stdio.h>
#include <string.h>

#include "bnet/coll.h"
#include "bnet/p2p.h"
#include "bnet/results.h"

/* The seed's targets. */
#define P999_TARGET_US 10.0        /* P99.9 end-to-end latency within 10 us */
#define BUSBW_TARGET_PCT 90.0      /* AllReduce bus bandwidth >= 90 % of its bound */
#define CONVERGE_TARGET_MS 100.0   /* failure convergence under 100 ms */
#define RATE_TARGET_MPPS 200.0     /* a 400 Gb/s port: over 200 million messages per second */

enum { PORT, LAT50, LAT999, RATE, BUSBW, DIAMETER, CONVERGE, GBPS_PFLOPS };

static const struct bn_seed_figure blank[BN_SEED_FIGURES] = {
    [PORT] = {"port_rate_gbps", "port rate", "Gb/s", "", 0, BN_SEED_UNMEASURED, ""},
    [LAT50] = {"latency_p50_us", "end-to-end latency p50", "us", "", 0, BN_SEED_UNMEASURED,
               "bnet run (each message's latency) or bnet p2p --test write_lat"},
    [LAT999] = {"latency_p999_us", "end-to-end latency P99.9", "us", "<= 10", 0,
                BN_SEED_UNMEASURED,
                "bnet run (each message's latency) or bnet p2p --test write_lat"},
    [RATE] = {"message_rate_mpps", "message rate per NIC", "M/s", "> 200", 0, BN_SEED_UNMEASURED,
              "bnet p2p --test write_bw -s 64 -q 16 (the NIC's ceiling)"},
    [BUSBW] = {"allreduce_busbw_pct", "AllReduce busbw / NIC bound", "%", ">= 90", 0,
               BN_SEED_UNMEASURED, "bnet coll --coll allreduce (its largest size)"},
    [DIAMETER] = {"diameter_hops", "diameter", "hops", "", 0, BN_SEED_UNMEASURED, ""},
    [CONVERGE] = {"convergence_ms", "failure convergence", "ms", "< 100", 0,
                  BN_SEED_UNMEASURED, "bnet run with a scenario's faults: list (docs/failures.md)"},
    [GBPS_PFLOPS] = {"gbps_per_pflops", "Gb/s per PFLOPS", "Gb/s", "", 0, BN_SEED_UNMEASURED,
                     "topology.gpu_tflops (the GPUs' compute)"},
};

static void set(struct bn_seed_report *s, int i, double v, uint8_t verdict)
{
    s->fig[i].value = v;
    s->fig[i].verdict = verdict;
    s->fig[i].measure = "";
}

void bn_seed_of_topo(const struct bn_topo_info *t, struct bn_seed_report *out)
{
    for (int i = 0; i < BN_SEED_FIGURES; i++)
        out->fig[i] = blank[i];
    set(out, PORT, t->host_rate_gbps, BN_SEED_NO_TARGET);
    set(out, DIAMETER, t->diameter_hops, BN_SEED_NO_TARGET);
    if (t->gbps_per_pflops > 0)
        set(out, GBPS_PFLOPS, t->gbps_per_pflops, BN_SEED_NO_TARGET);
}

void bn_seed_of_run(const struct bn_results *r, struct bn_seed_report *out)
{
    bn_seed_of_topo(&r->topo, out);
    if (r->messages) {
        set(out, LAT50, r->msg_lat_p50_us, BN_SEED_NO_TARGET);
        set(out, LAT999, r->msg_lat_p999_us,
            r->msg_lat_p999_us <= P999_TARGET_US ? BN_SEED_MET : BN_SEED_MISSED);
    }
    /* the slowest fault's routes; one whose routes never change (static
     * routing) misses, shown as -1 */
    bool never = false;
    double worst_ms = 0;
    for (uint32_t i = 0; i < r->nfaults; i++) {
        double c = r->faults[i].converged_us / 1e3;
        never = never || c < 0;
        worst_ms = c > worst_ms ? c : worst_ms;
    }
    if (r->nfaults)
        set(out, CONVERGE, never ? -1 : worst_ms,
            !never && worst_ms < CONVERGE_TARGET_MS ? BN_SEED_MET : BN_SEED_MISSED);
}

void bn_seed_of_coll(const struct bn_coll_results *r, struct bn_seed_report *out)
{
    bn_seed_of_topo(&r->topo, out);
    const struct bn_coll_row *big = NULL;
    for (uint32_t i = 0; i < r->nrows; i++)
        if (!r->rows[i].failed && (!big || r->rows[i].size > big->size))
            big = &r->rows[i];
    /* across servers the bound NCCL users mean, the NICs' goodput; inside
     * one, the links' line rate */
    double bound = big ? (big->nic_busbw_gbs > 0 ? big->nic_busbw_gbs : big->line_busbw_gbs) : 0;
    if (r->allreduce && big && bound > 0) {
        double pct = 100 * big->busbw_gbs / bound;
        set(out, BUSBW, pct, pct >= BUSBW_TARGET_PCT ? BN_SEED_MET : BN_SEED_MISSED);
    }
}

void bn_seed_of_p2p(const struct bn_p2p_results *r, struct bn_seed_report *out)
{
    struct bn_topo_info t = {.host_rate_gbps = r->line_gbps};
    bn_seed_of_topo(&t, out);
    set(out, DIAMETER, 0, BN_SEED_UNMEASURED);
    out->fig[DIAMETER].measure = "bnet topo";
    if (!r->npairs || !r->pairs[0].nrows)
        return;
    double best = 0, p50 = 1e300, p999 = 1e300;
    for (uint32_t k = 0; k < r->npairs; k++) /* the smallest size's latency, the best rate */
        for (uint32_t i = 0; i < r->pairs[k].nrows; i++) {
            const struct bn_p2p_row *w = &r->pairs[k].rows[i];
            best = w->msg_rate_mpps > best ? w->msg_rate_mpps : best;
            if (i == 0 && w->t_typical_us < p50)
                p50 = w->t_typical_us;
            if (i == 0 && w->t_p999_us < p999)
                p999 = w->t_p999_us;
        }
    if (r->latency) {
        set(out, LAT50, p50, BN_SEED_NO_TARGET);
        set(out, LAT999, p999, p999 <= P999_TARGET_US ? BN_SEED_MET : BN_SEED_MISSED);
        out->fig[RATE].measure = "bnet p2p --test write_bw -s 64 -q 16";
    } else {
        set(out, RATE, best, best > RATE_TARGET_MPPS ? BN_SEED_MET : BN_SEED_MISSED);
    }
}

void bn_seed_print(FILE *out, const char *prefix, const struct bn_seed_report *s)
{
    static const char *const verdicts[] = {"met", "MISSED", "", "not measured"};
    /* the target column is 11 wide: "<= 10 us" and the like */
    fprintf(out, "%sseed's figures %28s %12s  %s\n", prefix, "", "value", "target");
    for (int i = 0; i < BN_SEED_FIGURES; i++) {
        const struct bn_seed_figure *f = &s->fig[i];
        char value[32] = "-", target[24] = "-";
        if (f->verdict != BN_SEED_UNMEASURED && i == CONVERGE && f->value < 0)
            snprintf(value, sizeof value, "never");
        else if (f->verdict != BN_SEED_UNMEASURED)
            snprintf(value, sizeof value, f->value < 1e4 ? "%.4g %s" : "%.0f %s", f->value,
                     f->unit);
        if (f->target[0])
            snprintf(target, sizeof target, "%s %s", f->target, f->unit);
        fprintf(out, "%s  %-40s %12s  %s", prefix, f->name, value, target);
        if (f->verdict != BN_SEED_NO_TARGET)
            fprintf(out, "%*s%s%s%s", 11 - (int)strlen(target), "", verdicts[f->verdict],
                    f->verdict == BN_SEED_UNMEASURED ? ": " : "",
                    f->verdict == BN_SEED_UNMEASURED ? f->measure : "");
        fputc('\n', out);
    }
}

const char *bn_seed_verdict_name(uint8_t v)
{
    static const char *const names[] = {"met", "missed", "no target", "not measured"};
    return v < 4 ? names[v] : "";
}
