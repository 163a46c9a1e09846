/*
 * `bnet p2p` output: perftest's table (its columns; bandwidth in MB/sec,
 * 2^20 bytes per second, as perftest prints it by default, or Gb/sec,
 * 10^9 bits, with --report_gbits: its format_factor in
 * perftest_resources.c) and the JSON of docs/results.md (always Gb/s).
 */
#include <stdio.h>

#include "bnet/bnet.h"
#include "bnet/p2p.h"
#include "report/json_util.h"

static const char rule[] =
    "---------------------------------------------------------------------------------------\n";

/* Gb/s (10^9 bits) as perftest's MB/sec: 125,000,000 / 2^20 MB per Gb. */
static double in_units(double gbps, unsigned flags)
{
    return flags & BN_PRINT_GBITS ? gbps : gbps * 125e6 / 1048576.0;
}

void bn_p2p_print_header_opts(FILE *out, const struct bn_p2p_results *r, uint32_t pair,
                              unsigned flags)
{
    const struct bn_p2p_pair *p = &r->pairs[pair];
    fprintf(out, "%s # %s: %s -> %s (hosts %u -> %u), %u QP%s, tx depth %u\n", rule, r->test,
            p->src_name, p->dst_name, p->src, p->dst, r->qps, r->qps == 1 ? "" : "s",
            r->tx_depth);
    fputs(rule, out);
    const char *unit = flags & BN_PRINT_GBITS ? "Gb/sec" : "MB/sec";
    if (r->latency)
        fputs(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
              "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]\n",
              out);
    else
        fprintf(out, " #bytes     #iterations    BW peak[%s]    BW average[%s]   "
                "MsgRate[Mpps]\n", unit, unit);
}

void bn_p2p_print_row_opts(FILE *out, const struct bn_p2p_results *r, uint32_t pair,
                           uint32_t row, unsigned flags)
{
    const struct bn_p2p_row *w = &r->pairs[pair].rows[row];
    if (r->latency)
        fprintf(out, " %-7llu %-10u %-14.2f %-12.2f %-18.2f %-14.2f %-15.2f %-22.2f %.2f\n",
                (unsigned long long)w->bytes, w->iterations, w->t_min_us, w->t_max_us,
                w->t_typical_us, w->t_avg_us, w->t_stdev_us, w->t_p99_us, w->t_p999_us);
    else
        fprintf(out, " %-10llu %-10u       %-18.2f %-20.2f %.6f\n", (unsigned long long)w->bytes,
                w->iterations, in_units(w->bw_peak_gbps, flags), in_units(w->bw_avg_gbps, flags),
                w->msg_rate_mpps);
}

void bn_p2p_print_footer_opts(FILE *out, const struct bn_p2p_results *r, unsigned flags)
{
    fputs(rule, out);
    fprintf(out, "# bounds: line %.1f Gb/s, goodput %.2f Gb/s at the MTU", r->line_gbps,
            r->goodput_gbps);
    if (r->pcie_gbps > 0)
        fprintf(out, ", PCIe %.1f Gb/s", r->pcie_gbps);
    if (r->msg_rate_mpps > 0)
        fprintf(out, ", message rate %.0f Mpps", r->msg_rate_mpps);
    fputs(r->interrupted ? "\n# interrupted: the rows above are what was measured\n" : "\n", out);
    if (flags & BN_PRINT_NO_SEED)
        return;
    struct bn_seed_report seed;
    bn_seed_of_p2p(r, &seed);
    fputs("#\n", out);
    bn_seed_print(out, "# ", &seed);
}

void bn_p2p_print_header(FILE *out, const struct bn_p2p_results *r, uint32_t pair)
{
    bn_p2p_print_header_opts(out, r, pair, BN_PRINT_GBITS);
}

void bn_p2p_print_row(FILE *out, const struct bn_p2p_results *r, uint32_t pair, uint32_t row)
{
    bn_p2p_print_row_opts(out, r, pair, row, BN_PRINT_GBITS);
}

void bn_p2p_print_footer(FILE *out, const struct bn_p2p_results *r)
{
    bn_p2p_print_footer_opts(out, r, BN_PRINT_GBITS);
}

static json_t *row_json(const struct bn_p2p_results *r, const struct bn_p2p_row *w)
{
    if (r->latency)
        return json_pack("{s:I, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "bytes",
                         (json_int_t)w->bytes, "iterations", (int)w->iterations, "t_min_us",
                         w->t_min_us, "t_max_us", w->t_max_us, "t_typical_us", w->t_typical_us,
                         "t_avg_us", w->t_avg_us, "t_stdev_us", w->t_stdev_us, "t_p99_us",
                         w->t_p99_us, "t_p999_us", w->t_p999_us);
    return json_pack("{s:I, s:i, s:f, s:f, s:f}", "bytes", (json_int_t)w->bytes, "iterations",
                     (int)w->iterations, "bw_peak_gbps", w->bw_peak_gbps, "bw_avg_gbps",
                     w->bw_avg_gbps, "msg_rate_mpps", w->msg_rate_mpps);
}

int bn_p2p_write_json(const struct bn_p2p_results *r, const char *path, struct bn_error *err)
{
    json_t *pairs = json_array();
    for (uint32_t k = 0; pairs && k < r->npairs; k++) {
        const struct bn_p2p_pair *p = &r->pairs[k];
        json_t *rows = json_array();
        for (uint32_t i = 0; rows && i < p->nrows; i++)
            json_array_append_new(rows, row_json(r, &p->rows[i]));
        json_array_append_new(pairs, json_pack("{s:i, s:i, s:o, s:o, s:o}", "src", (int)p->src,
                                               "dst", (int)p->dst, "src_name",
                                               bn_json_text(p->src_name), "dst_name",
                                               bn_json_text(p->dst_name), "rows", rows));
    }
    json_t *root = json_object();
    json_object_set_new(root, "bnet_version", json_string(BNET_VERSION));
    bn_json_command(root, &r->prov);
    json_object_update_new(root, json_pack("{s:o, s:s, s:b, s:i, s:i, s:f, s:f, s:f, s:f, s:o, s:b}",
                             "scenario", bn_json_text(r->scenario),
                             "test", r->test, "latency", r->latency, "qps", (int)r->qps,
                             "tx_depth", (int)r->tx_depth, "line_gbps", r->line_gbps,
                             "goodput_gbps", r->goodput_gbps, "pcie_gbps", r->pcie_gbps,
                             "msg_rate_ceiling_mpps", r->msg_rate_mpps, "pairs", pairs,
                             "interrupted", r->interrupted));
    json_object_set_new(root, "stop_reason",
                        json_string(bn_stop_reason(r->interrupted, false, false)));
    struct bn_seed_report seed;
    bn_seed_of_p2p(r, &seed);
    json_object_set_new(root, "seed_report", bn_json_seed(&seed));
    bn_json_config(root, &r->prov);
    return bn_json_dump(root, path, BN_JSON_FLAGS, err);
}
