/*
 * `bnet sweep` output (docs/sweep.md): a row per point of the grid, as a
 * table, CSV and JSON. A point's JSON holds its run's summary and seed
 * report as `bnet run --json` writes them; no wall-clock figure, so the
 * same sweep gives the same bytes however many workers ran it.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "bnet/bnet.h"
#include "bnet/sweep.h"
#include "report/csv_util.h"
#include "report/json_util.h"

#define REAL "%.10g"

/* The CSV's columns after the point and its values: a name and how to
 * read it off the point's results. */
struct column {
    const char *name;
    double (*get)(const struct bn_results *r);
};

#define COL(n, expr) \
    static double n(const struct bn_results *r) { return (double)(expr); }
COL(c_seed, r->seed)
COL(c_flows, r->nflows)
COL(c_done, r->flows_completed)
COL(c_failed, r->flows_failed)
COL(c_tp_mean, r->throughput_gbps.mean)
COL(c_tp_min, r->throughput_gbps.min)
COL(c_tp_p50, r->throughput_gbps.p50)
COL(c_fct50, r->fct_p50_us)
COL(c_fct99, r->fct_p99_us)
COL(c_fct999, r->fct_p999_us)
COL(c_lat50, r->msg_lat_p50_us)
COL(c_lat999, r->msg_lat_p999_us)
COL(c_drops, r->pkts_dropped)
COL(c_retx, r->retransmits)
COL(c_timeouts, r->timeouts)
COL(c_ecn, r->ecn_marks)
COL(c_pauses, r->pause_frames)
COL(c_cnps, r->cnps)
COL(c_umax, r->link_util_max)
COL(c_umean, r->link_util_mean)
COL(c_sim, r->simulated_us)
COL(c_events, r->events)

static const struct column columns[] = {
    {"seed", c_seed}, {"flows", c_flows}, {"flows_completed", c_done},
    {"flows_failed", c_failed}, {"throughput_mean_gbps", c_tp_mean},
    {"throughput_min_gbps", c_tp_min}, {"throughput_p50_gbps", c_tp_p50},
    {"fct_p50_us", c_fct50}, {"fct_p99_us", c_fct99}, {"fct_p999_us", c_fct999},
    {"latency_p50_us", c_lat50}, {"latency_p999_us", c_lat999}, {"drops", c_drops},
    {"retransmits", c_retx}, {"timeouts", c_timeouts}, {"ecn_marks", c_ecn},
    {"pause_frames", c_pauses}, {"cnps", c_cnps}, {"link_util_max", c_umax},
    {"link_util_mean", c_umean}, {"simulated_us", c_sim}, {"events", c_events},
};
#define NCOLUMNS (sizeof columns / sizeof columns[0])

void bn_sweep_print(FILE *out, const struct bn_sweep_results *r)
{
    fprintf(out, "%6s", "point");
    for (uint32_t a = 0; a < r->naxes; a++)
        fprintf(out, "  %-*s", (int)(strlen(r->axes[a].key) > 12 ? strlen(r->axes[a].key) : 12),
                r->axes[a].key);
    fprintf(out, "  %11s  %10s  %10s  %10s  %8s  %8s  %8s\n", "flows done", "tput mean",
            "tput min", "FCT p99", "drops", "pauses", "util max");
    fprintf(out, "%6s", "");
    for (uint32_t a = 0; a < r->naxes; a++)
        fprintf(out, "  %-*s", (int)(strlen(r->axes[a].key) > 12 ? strlen(r->axes[a].key) : 12),
                "");
    fprintf(out, "  %11s  %10s  %10s  %10s  %8s  %8s  %8s\n", "", "(Gb/s)", "(Gb/s)", "(us)",
            "(pkts)", "(frames)", "");
    for (uint32_t p = 0; p < r->npoints; p++) {
        const struct bn_sweep_point *pt = &r->points[p];
        if (!pt->done)
            continue;
        const struct bn_results *s = &pt->res;
        fprintf(out, "%6u", p);
        for (uint32_t a = 0; a < r->naxes; a++)
            fprintf(out, "  %-*s",
                    (int)(strlen(r->axes[a].key) > 12 ? strlen(r->axes[a].key) : 12),
                    r->axes[a].values[pt->value[a]]);
        char done[24];
        snprintf(done, sizeof done, "%u/%u", s->flows_completed, s->nflows);
        fprintf(out, "  %11s  %10.2f  %10.2f  %10.2f  %8" PRIu64 "  %8" PRIu64 "  %8.3f\n",
                done, s->throughput_gbps.mean, s->throughput_gbps.min, s->fct_p99_us,
                s->pkts_dropped, s->pause_frames, s->link_util_max);
    }
    fprintf(out, "# %u of %u points, %u at once", r->done, r->npoints, r->jobs);
    if (r->ranks > 1)
        fprintf(out, " on each of %u MPI ranks", r->ranks);
    fprintf(out, ", %.1f s wall%s\n", r->wall_s, r->interrupted ? " (interrupted)" : "");
}

int bn_sweep_write_csv(const struct bn_sweep_results *r, const char *path, struct bn_error *err)
{
    struct bn_output *o = bn_output_open(path, "CSV", err);
    if (!o)
        return err ? err->status : BN_EINPUT;
    FILE *f = bn_output_stream(o);
    fputs("point", f);
    for (uint32_t a = 0; a < r->naxes; a++) {
        fputc(',', f);
        bn_csv_text(f, r->axes[a].key);
    }
    for (size_t c = 0; c < NCOLUMNS; c++)
        fprintf(f, ",%s", columns[c].name);
    fputs(",stopped_early\n", f);
    for (uint32_t p = 0; p < r->npoints; p++) {
        const struct bn_sweep_point *pt = &r->points[p];
        if (!pt->done)
            continue;
        fprintf(f, "%u", p);
        for (uint32_t a = 0; a < r->naxes; a++) {
            fputc(',', f);
            bn_csv_text(f, r->axes[a].values[pt->value[a]]);
        }
        for (size_t c = 0; c < NCOLUMNS; c++)
            fprintf(f, "," REAL, columns[c].get(&pt->res));
        fprintf(f, ",%s\n", pt->res.stopped_early ? "true" : "false");
    }
    return bn_output_close(o, false, err);
}

static json_t *point_json(const struct bn_sweep_results *r, uint32_t p)
{
    const struct bn_sweep_point *pt = &r->points[p];
    const struct bn_results *s = &pt->res;
    json_t *values = json_object();
    for (uint32_t a = 0; a < r->naxes; a++)
        json_object_set_new(values, r->axes[a].key,
                            bn_json_typed(r->axes[a].values[pt->value[a]], r->axes[a].type));
    struct bn_seed_report seed;
    bn_seed_of_run(s, &seed);
    return json_pack("{s:i, s:o, s:I, s:s, s:s, s:o, s:o, s:{s:I, s:I, s:f, s:b, s:b, s:b, s:s}}",
                     "point",
                     (json_int_t)p, "values", values, "seed", (json_int_t)s->seed,
                     "flow_control", s->flow_control, "congestion_control",
                     s->congestion_control, "summary", bn_json_summary(s), "seed_report",
                     bn_json_seed(&seed), "sim", "events", (json_int_t)s->events,
                     "packet_hops", (json_int_t)s->packet_hops, "simulated_us",
                     s->simulated_us, "stopped_early", s->stopped_early, "interrupted",
                     s->interrupted, "stalled", s->stalled, "stop_reason",
                     bn_stop_reason(s->interrupted, s->stalled, s->stopped_early));
}

int bn_sweep_write_json(const struct bn_sweep_results *r, const char *path, struct bn_error *err)
{
    json_t *root = json_object();
    json_object_set_new(root, "bnet_version", json_string(BNET_VERSION));
    bn_json_command(root, &r->prov);
    json_object_set_new(root, "scenario", bn_json_text(r->scenario));
    json_t *axes = json_array();
    for (uint32_t a = 0; a < r->naxes; a++) {
        json_t *v = json_array();
        for (uint32_t k = 0; k < r->axes[a].nvalues; k++)
            json_array_append_new(v, bn_json_typed(r->axes[a].values[k], r->axes[a].type));
        json_array_append_new(axes, json_pack("{s:s, s:o}", "key", r->axes[a].key, "values", v));
    }
    json_object_set_new(root, "axes", axes);
    json_object_set_new(root, "points_total", json_integer(r->npoints));
    json_object_set_new(root, "points_done", json_integer(r->done));
    json_object_set_new(root, "interrupted", json_boolean(r->interrupted));
    json_object_set_new(root, "stop_reason",
                        json_string(bn_stop_reason(r->interrupted, false, false)));
    struct bn_json_stream js;
    int rc = bn_json_stream_open(&js, path, root, err);
    if (rc != BN_OK)
        return rc;
    bn_json_stream_array(&js, "points");
    for (uint32_t p = 0; p < r->npoints; p++)
        if (r->points[p].done)
            bn_json_stream_elem(&js, point_json(r, p));
    bn_json_stream_array_end(&js);
    if (r->prov.config) {
        json_t *cfg = json_object();
        bn_json_config(cfg, &r->prov);
        bn_json_stream_key(&js, "config", json_incref(json_object_get(cfg, "config")));
        json_decref(cfg);
    }
    return bn_json_stream_close(&js, err);
}
