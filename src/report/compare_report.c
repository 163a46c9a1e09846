/*
 * `bnet compare` output: the seed's comparison table with measured rows (a
 * row per figure, a column per fabric), as text, CSV and JSON
 * (docs/compare.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bnet/bnet.h"
#include "bnet/compare.h"
#include "report/csv_util.h"
#include "report/json_util.h"

enum { NROWS = 25 };

static const char *const labels[NROWS] = {
    "link layer", "flow control", "congestion control", "load balancing", "transport",
    "port rate (Gb/s)", "switch latency (ns)", "latency 2 B p50 (us)", "latency 2 B P99.9 (us)",
    "permutation, ECMP (% of line)", "permutation, own LB (% of line)", "incast 16:1 drops",
    "incast 16:1 pauses", "incast 16:1 time / ideal", "incast victim flow (% of line)",
    "AllReduce 1 MiB busbw (GB/s)",
    "AllReduce 64 MiB busbw (GB/s)", "AllReduce 1 GiB busbw (GB/s)",
    "AllReduce 1 MiB / line rate (%)", "AllReduce 64 MiB / line rate (%)",
    "AllReduce 1 GiB / line rate (%)", "failure convergence (ms)", "Gb/s per PFLOPS",
    "network cost per GPU (USD, est.)", "network power per GPU (W, est.)",
};

/* Row `row` (AllReduce size k) of a column a signal cut short before it
 * was measured: NaN, or a count of UINT64_MAX (study/compare.c). */
static bool unmeasured(const struct bn_compare_col *c, int row, int k)
{
    switch (row) {
    case 0: case 1: case 2: case 3: case 4: return isnan(c->port_gbps) && !c->link_layer[0];
    case 5: return isnan(c->port_gbps);
    case 6: return isnan(c->switch_ns);
    case 7: return isnan(c->lat_p50_us);
    case 8: return isnan(c->lat_p999_us);
    case 9: return isnan(c->perm_ecmp_pct);
    case 10: return isnan(c->perm_own_pct);
    case 11: return c->incast_drops == UINT64_MAX;
    case 12: return c->incast_pauses == UINT64_MAX;
    case 13: return isnan(c->incast_slowdown);
    case 14: return c->victim_src != UINT32_MAX && isnan(c->victim_pct);
    case 15: case 16: case 17: return isnan(c->ar_busbw_gbs[k]);
    case 18: case 19: case 20: return isnan(c->ar_eff_pct[k]);
    case 21: return c->has_faults && isnan(c->converge_ms);
    case 22: return isnan(c->gbps_per_pflops);
    default: return false;
    }
}

/* A figure, null when not measured (NaN). */
static json_t *real_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static json_t *count_or_null(uint64_t v)
{
    return v == UINT64_MAX ? json_null() : json_integer((json_int_t)v);
}

/* Row `row` of column c as text. */
static void cell(const struct bn_compare_col *c, int row, char *buf, size_t len)
{
    const char *const text[] = {c->link_layer, c->flow_control, c->congestion_control,
                                c->load_balancing, c->transport};
    int k = row < 18 ? row - 15 : row - 18; /* AllReduce size */
    if (unmeasured(c, row, k)) {
        snprintf(buf, len, "n/m");
        return;
    }
    if (row < 5) {
        snprintf(buf, len, "%s", text[row]);
        return;
    }
    switch (row) {
    case 5: snprintf(buf, len, "%.0f", c->port_gbps); break;
    case 6: snprintf(buf, len, "%.0f", c->switch_ns); break;
    case 7: snprintf(buf, len, "%.2f", c->lat_p50_us); break;
    case 8: snprintf(buf, len, "%.2f", c->lat_p999_us); break;
    case 9: snprintf(buf, len, "%.1f", c->perm_ecmp_pct); break;
    case 10: snprintf(buf, len, "%.1f", c->perm_own_pct); break;
    case 11: snprintf(buf, len, "%llu", (unsigned long long)c->incast_drops); break;
    case 12: snprintf(buf, len, "%llu", (unsigned long long)c->incast_pauses); break;
    case 13: snprintf(buf, len, "%.2f", c->incast_slowdown); break;
    case 14:
        snprintf(buf, len, c->victim_src == UINT32_MAX ? "-" : "%.1f", c->victim_pct);
        break;
    case 15: case 16: case 17:
        snprintf(buf, len, "%.1f %s", c->ar_busbw_gbs[k], c->ar_algo[k]);
        break;
    case 18: case 19: case 20: snprintf(buf, len, "%.1f", c->ar_eff_pct[k]); break;
    case 21:
        snprintf(buf, len, !c->has_faults ? "-" : c->converge_never ? "never" : "%.3g",
                 c->converge_ms);
        break;
    case 22:
        snprintf(buf, len, c->gbps_per_pflops > 0 ? "%.1f" : "-", c->gbps_per_pflops);
        break;
    case 23: snprintf(buf, len, c->cost_stated ? "%.0f" : "-", c->cost_per_gpu_usd); break;
    default: snprintf(buf, len, c->cost_stated ? "%.1f" : "-", c->power_per_gpu_w);
    }
}

void bn_compare_print(FILE *out, const struct bn_compare_results *r)
{
    fprintf(out, "# bnet compare: %s, %u GPUs (%s)\n", r->scenario, r->hosts, r->topology);
    fprintf(out, "%-34s", "figure");
    for (uint32_t j = 0; j < r->ncols; j++) { /* '*': cut short by a signal */
        char name[BN_NAME_MAX + 2];
        snprintf(name, sizeof name, "%s%s", r->cols[j].fabric, r->cols[j].interrupted ? "*" : "");
        fprintf(out, " %16s", name);
    }
    fputc('\n', out);
    for (int row = 0; row < NROWS; row++) {
        fprintf(out, "%-34s", labels[row]);
        for (uint32_t j = 0; j < r->ncols; j++) {
            char buf[48];
            cell(&r->cols[j], row, buf, sizeof buf);
            fprintf(out, " %16s", buf);
        }
        fputc('\n', out);
    }
    if (r->ncols)
        fprintf(out, "# latency: bnet p2p write_lat between hosts 0 and %u (one switch); "
                "traffic rows without NVLink but in scale-up columns; victim: host %d -> %d "
                "beside the incast into host 0; wall %.1f s\n", r->cols[0].lat_dst,
                (int)r->cols[0].victim_src, (int)r->cols[0].victim_dst, r->wall_s);
    for (uint32_t j = 0; j < r->ncols; j++) /* what each column's cost and power leave out */
        if (r->cols[j].cost_stated && r->cols[j].cost_unstated[0])
            fprintf(out, "# %s: cost and power are estimates (cost.*) without %s\n",
                    r->cols[j].fabric, r->cols[j].cost_unstated);
    if (r->interrupted)
        fprintf(out, "# interrupted: the columns marked * were cut short by the signal; their "
                "figures are those measured before it, n/m where none was (not measured)\n");
}

int bn_compare_write_csv(const struct bn_compare_results *r, const char *path,
                         struct bn_error *err)
{
    struct bn_output *o = bn_output_open(path, "CSV", err);
    if (!o)
        return err ? err->status : BN_EINPUT;
    FILE *f = bn_output_stream(o);
    fputs("figure", f);
    for (uint32_t j = 0; j < r->ncols; j++) {
        fputc(',', f);
        bn_csv_text(f, r->cols[j].fabric);
    }
    fputc('\n', f);
    for (int row = 0; row < NROWS; row++) {
        bn_csv_text(f, labels[row]);
        for (uint32_t j = 0; j < r->ncols; j++) {
            char buf[48];
            cell(&r->cols[j], row, buf, sizeof buf);
            fputc(',', f);
            bn_csv_text(f, buf);
        }
        fputc('\n', f);
    }
    return bn_output_close(o, false, err);
}

static json_t *col_json(const struct bn_compare_col *c)
{
    json_t *ar = json_array();
    for (int k = 0; k < BN_COMPARE_SIZES; k++)
        json_array_append_new(ar, json_pack("{s:I, s:o, s:o, s:s}", "bytes",
                                            (json_int_t)c->ar_bytes[k], "busbw_gbs",
                                            real_or_null(c->ar_busbw_gbs[k]), "line_rate_pct",
                                            real_or_null(c->ar_eff_pct[k]), "algo", c->ar_algo[k]));
    json_t *o = json_pack("{s:s, s:b, s:b, s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "fabric",
                          c->fabric, "scale_up", c->scale_up, "interrupted", c->interrupted,
                          "link_layer", c->link_layer, "flow_control", c->flow_control,
                          "congestion_control", c->congestion_control, "load_balancing",
                          c->load_balancing, "transport", c->transport, "port_gbps",
                          real_or_null(c->port_gbps), "switch_ns", real_or_null(c->switch_ns));
    /* null: not measured (a signal cut the column short first) */
    json_object_set_new(o, "latency", json_pack("{s:i, s:i, s:I, s:o, s:o}", "src",
                                                 (int)c->lat_src, "dst", (int)c->lat_dst,
                                                 "bytes", (json_int_t)2, "p50_us",
                                                 real_or_null(c->lat_p50_us), "p999_us",
                                                 real_or_null(c->lat_p999_us)));
    json_object_set_new(o, "permutation", json_pack("{s:o, s:o}", "ecmp_line_rate_pct",
                                                    real_or_null(c->perm_ecmp_pct),
                                                    "own_line_rate_pct",
                                                    real_or_null(c->perm_own_pct)));
    json_t *inc = json_pack("{s:i, s:o, s:o, s:o}", "senders", (int)c->incast_senders,
                            "data_drops", count_or_null(c->incast_drops), "pause_frames",
                            count_or_null(c->incast_pauses), "time_over_ideal",
                            real_or_null(c->incast_slowdown));
    bool victim = c->victim_src != UINT32_MAX;
    json_object_set_new(inc, "victim", victim ? json_pack("{s:i, s:i, s:o}", "src",
                                                           (int)c->victim_src, "dst",
                                                           (int)c->victim_dst, "line_rate_pct",
                                                           real_or_null(c->victim_pct))
                                              : json_null());
    json_object_set_new(o, "incast", inc);
    json_object_set_new(o, "allreduce", ar);
    json_object_set_new(o, "convergence_ms",
                        !c->has_faults      ? json_null()
                        : c->converge_never ? json_real(-1)
                                            : real_or_null(c->converge_ms));
    json_object_set_new(o, "gbps_per_pflops",
                        c->gbps_per_pflops > 0 ? json_real(c->gbps_per_pflops) : json_null());
    json_object_set_new(o, "cost_usd_per_gpu",
                        c->cost_stated ? json_real(c->cost_per_gpu_usd) : json_null());
    json_object_set_new(o, "power_w_per_gpu",
                        c->cost_stated ? json_real(c->power_per_gpu_w) : json_null());
    json_object_set_new(o, "cost_not_stated", c->cost_stated ? json_string(c->cost_unstated)
                                                             : json_null());
    return o;
}

int bn_compare_write_json(const struct bn_compare_results *r, const char *path,
                          struct bn_error *err)
{
    json_t *cols = json_array();
    for (uint32_t j = 0; cols && j < r->ncols; j++)
        json_array_append_new(cols, col_json(&r->cols[j]));
    json_t *root = json_object();
    json_object_set_new(root, "bnet_version", json_string(BNET_VERSION));
    bn_json_command(root, &r->prov);
    json_object_set_new(root, "scenario", bn_json_text(r->scenario));
    json_object_set_new(root, "topology", json_string(r->topology));
    json_object_set_new(root, "hosts", json_integer(r->hosts));
    json_object_set_new(root, "fabrics", cols);
    json_object_set_new(root, "interrupted", json_boolean(r->interrupted));
    json_object_set_new(root, "stop_reason",
                        json_string(bn_stop_reason(r->interrupted, false, false)));
    bn_json_config(root, &r->prov);
    return bn_json_dump(root, path, BN_JSON_FLAGS, err);
}
