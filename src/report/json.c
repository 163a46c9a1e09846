/*
 * Results as JSON (jansson), schema in docs/results.md: run identity, topology,
 * summary, per-flow results, noteworthy ports and the sampled time series.
 * Keys are emitted in a fixed order and reals with a fixed precision, so the
 * same scenario and seed give byte-identical files; with BN_JSON_REPRODUCIBLE
 * the few machine-dependent figures (wall time, memory) are written as 0.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bnet/bnet.h"
#include "bnet/coll.h"
#include "report/json_util.h"

#define JSON_FLAGS BN_JSON_FLAGS

/* Length of the valid UTF-8 sequence at p (n bytes left), 0 if there is
 * none: as strict as jansson (no overlong forms, surrogates or > U+10FFFF). */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, cp = c & 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((p[k] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (p[k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* A JSON string of user text (a scenario path, node names from a topology
 * file): jansson refuses text that is not UTF-8, and the member would
 * vanish, so each invalid byte becomes U+FFFD. */
json_t *bn_json_text(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    size_t n = strlen(s), used = 0;
    char *buf = malloc(3 * n + 1);
    if (!buf)
        return NULL;
    for (size_t i = 0; i < n;) {
        size_t len = utf8_seq((const unsigned char *)s + i, n - i);
        if (len) {
            memcpy(buf + used, s + i, len);
            used += len;
            i += len;
        } else {
            memcpy(buf + used, "\xEF\xBF\xBD", 3);
            used += 3;
            i++;
        }
    }
    buf[used] = '\0';
    j = json_string(buf);
    free(buf);
    return j;
}

static json_t *topo_json_base(const struct bn_topo_info *t)
{
    json_t *tiers = json_object();
    for (uint32_t i = 1; i <= t->tiers && i < 5; i++)
        json_object_set_new(tiers, t->tier_name[i], json_integer(t->switches_per_tier[i]));
    return json_pack("{s:s, s:i, s:i, s:i, s:o, s:i, s:i, s:i, s:i, s:f, s:f, s:f}",
                     "kind", t->kind, "k", (json_int_t)t->k, "hosts", (json_int_t)t->hosts,
                     "switches", (json_int_t)t->switches, "switches_per_tier", tiers,
                     "links", (json_int_t)t->links, "radix", (json_int_t)t->radix,
                     "diameter_hops", (json_int_t)t->diameter_hops,
                     "diameter_switches", (json_int_t)t->diameter_switches,
                     "bisection_gbps", t->bisection_gbps, "host_rate_gbps", t->host_rate_gbps,
                     "fabric_rate_gbps", t->fabric_rate_gbps);
}

/* Present only with NVLink domains, so runs without them print as before. */
static void scale_up_json(json_t *o, const struct bn_topo_info *t)
{
    if (t->scaleup_domains)
        json_object_set_new(o, "scale_up",
                            json_pack("{s:i, s:i, s:f}", "domains",
                                      (json_int_t)t->scaleup_domains, "gpus_per_domain",
                                      (json_int_t)t->scaleup_gpus_per_domain, "rate_gbps",
                                      t->scaleup_rate_gbps));
}

/* The planner's figures (bn_plan_topology); see docs/results.md. */
static void plan_json(json_t *o, const struct bn_topo_info *t)
{
    json_t *tiers = json_array();
    for (uint32_t i = 1; i <= t->tiers && i < 5; i++) {
        const struct bn_tier_info *ti = &t->tier[i];
        json_array_append_new(
            tiers, json_pack("{s:s, s:i, s:i, s:i, s:i, s:f, s:f, s:f}", "name", t->tier_name[i],
                             "switches", (json_int_t)ti->nodes, "radix", (json_int_t)ti->ports_max,
                             "down_links", (json_int_t)ti->down_links, "up_links",
                             (json_int_t)ti->up_links, "down_gbps", ti->down_gbps, "up_gbps",
                             ti->up_gbps, "oversubscription", ti->oversubscription));
    }
    json_object_set_new(o, "tiers", tiers);
    json_t *rates = json_array();
    for (uint32_t i = 0; i < t->nrates; i++)
        json_array_append_new(rates, json_pack("{s:f, s:i}", "gbps", t->rates[i].gbps, "links",
                                               (json_int_t)t->rates[i].links));
    json_object_set_new(o, "links_by_rate", rates);
    json_object_set_new(o, "cables",
                        json_pack("{s:i, s:i, s:i, s:i, s:i}", "host_copper",
                                  (json_int_t)t->host_copper, "host_fiber",
                                  (json_int_t)t->host_fiber, "fabric_copper",
                                  (json_int_t)t->fabric_copper, "fabric_fiber",
                                  (json_int_t)t->fabric_fiber, "transceivers",
                                  (json_int_t)t->transceivers));
    if (t->cost_stated)
        json_object_set_new(o, "cost", json_pack("{s:f, s:f, s:f, s:f, s:s}", "usd", t->cost_usd,
                                                 "watts", t->power_w, "usd_per_gpu",
                                                 t->cost_per_gpu_usd, "watts_per_gpu",
                                                 t->power_per_gpu_w, "not_stated",
                                                 t->cost_unstated));
    json_object_set_new(o, "gpus_per_server", json_integer(t->gpus_per_server));
    json_object_set_new(o, "gpu_tflops", json_real(t->gpu_tflops));
    json_object_set_new(o, "gbps_per_pflops", json_real(t->gbps_per_pflops));
    json_object_set_new(o, "bisection_gbps_per_pflops", json_real(t->bisection_gbps_per_pflops));
    if (t->memory_available_bytes) /* what this machine has is not the scenario's: text only */
        json_object_set_new(o, "memory_estimate",
                            json_pack("{s:I, s:I}", "run_bytes", (json_int_t)t->memory_run_bytes,
                                      "coll_bytes", (json_int_t)t->memory_coll_bytes));
    if (t->paths_asked)
        json_object_set_new(o, "paths",
                            json_pack("{s:i, s:i, s:i, s:I}", "src", (json_int_t)t->path_src,
                                      "dst", (json_int_t)t->path_dst, "hops",
                                      (json_int_t)t->path_hops, "minimal_paths",
                                      (json_int_t)(t->minimal_paths > INT64_MAX
                                                       ? INT64_MAX : t->minimal_paths)));
}

json_t *bn_json_typed(const char *text, const char *type)
{
    if (strcmp(type, "int") == 0)
        return json_integer((json_int_t)strtoull(text, NULL, 10));
    if (strcmp(type, "float") == 0)
        return json_real(strtod(text, NULL));
    if (strcmp(type, "bool") == 0)
        return json_boolean(strcmp(text, "true") == 0);
    return bn_json_text(text);
}

/* Key `path`'s value in sc, typed as the key is. */
static json_t *key_value(const struct bn_scenario *sc, const char *path, const char *type)
{
    char buf[BN_PATH_MAX];
    if (bn_scenario_get(sc, path, buf, sizeof buf) != BN_OK)
        return json_null();
    return bn_json_typed(buf, type);
}

static json_t *config_json(const struct bn_scenario *sc)
{
    json_t *o = json_object(), *faults = json_array(), *jobs = json_array();
    for (uint32_t i = 0; i < sc->nfaults; i++)
        json_array_append_new(faults, json_object());
    for (uint32_t i = 0; i < sc->njobs; i++)
        json_array_append_new(jobs, json_object());
    for (size_t i = 0; i < bn_scenario_key_count(); i++) {
        const struct bn_scenario_key_info *k = bn_scenario_key(i);
        const char *item = strstr(k->path, "[].");
        if (!item) {
            json_object_set_new(o, k->path, key_value(sc, k->path, k->type));
            continue;
        }
        /* "faults[].kind": the field of each given item, as "faults.N.kind" */
        json_t *list = strncmp(k->path, "faults[", 7) == 0 ? faults : jobs;
        for (size_t n = 0; n < json_array_size(list); n++) {
            char path[BN_NAME_MAX + 32];
            snprintf(path, sizeof path, "%.*s.%zu.%s", (int)(item - k->path), k->path, n,
                     item + 3);
            json_object_set_new(json_array_get(list, n), item + 3,
                                key_value(sc, path, k->type));
        }
    }
    json_object_set_new(o, "faults", faults);
    json_object_set_new(o, "jobs", jobs);
    return o;
}

void bn_json_command(json_t *root, const struct bn_provenance *p)
{
    json_object_set_new(root, "command", p->command ? bn_json_text(p->command) : json_null());
}

void bn_json_config(json_t *root, const struct bn_provenance *p)
{
    if (p->config)
        json_object_set_new(root, "config", config_json(p->config));
}

json_t *bn_json_seed(const struct bn_seed_report *s)
{
    json_t *a = json_array();
    for (int i = 0; a && i < BN_SEED_FIGURES; i++) {
        const struct bn_seed_figure *f = &s->fig[i];
        json_t *o = json_pack("{s:s, s:s, s:o, s:s, s:o, s:s}", "key", f->key, "figure", f->name,
                              "value", f->verdict == BN_SEED_UNMEASURED ? json_null()
                                                                        : json_real(f->value),
                              "unit", f->unit,
                              "target", f->target[0] ? json_string(f->target) : json_null(),
                              "verdict", bn_seed_verdict_name(f->verdict));
        if (o && f->verdict == BN_SEED_UNMEASURED)
            json_object_set_new(o, "measured_by", json_string(f->measure));
        json_array_append_new(a, o);
    }
    return a;
}

json_t *bn_json_topo(const struct bn_topo_info *t)
{
    json_t *o = topo_json_base(t);
    scale_up_json(o, t);
    if (t->planned)
        plan_json(o, t);
    return o;
}

static json_t *ledger_json(uint64_t inj, uint64_t del, uint64_t drop, uint64_t lost,
                           uint64_t fly)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I}", "injected", (json_int_t)inj, "delivered",
                     (json_int_t)del, "dropped", (json_int_t)drop, "lost", (json_int_t)lost,
                     "in_flight", (json_int_t)fly);
}

/* The faults and what they cost (only when the scenario has some). */
static json_t *faults_json(const struct bn_results *r, int flags)
{
    json_t *o = json_object(), *a = json_array();
    json_object_set_new(o, "control_plane", json_string(r->control_plane));
    json_object_set_new(o, "pkts_lost", json_integer((json_int_t)r->pkts_lost));
    json_object_set_new(o, "pkts_corrupted", json_integer((json_int_t)r->pkts_corrupted));
    json_object_set_new(o, "flows_failed", json_integer(r->flows_failed));
    json_object_set_new(o, "makespan_us", json_real(r->makespan_us));
    json_object_set_new(o, "baseline_makespan_us", json_real(r->baseline_makespan_us));
    json_object_set_new(o, "slowdown", json_real(r->slowdown));
    json_object_set_new(o, "reroute_wall_s",
                        json_real(flags & BN_JSON_REPRODUCIBLE ? 0 : r->reroute_wall_s));
    for (uint32_t i = 0; i < r->nfaults; i++) {
        const struct bn_fault_result *f = &r->faults[i];
        json_t *e = json_pack("{s:s, s:s, s:f, s:f, s:i, s:i, s:i, s:f, s:f, s:f, s:I}", "kind",
                              f->kind, "target", f->target, "at_us", f->at_us, "until_us",
                              f->until_us, "links", (json_int_t)f->links, "flaps",
                              (json_int_t)f->flaps, "switches_changed",
                              (json_int_t)f->switches_changed, "converged_us", f->converged_us,
                              "rate_before_gbps", f->rate_before_gbps, "restored_us",
                              f->restore_measured ? f->restored_us : -1.0, "pkts_lost",
                              (json_int_t)f->pkts_lost);
        json_array_append_new(a, e);
    }
    json_object_set_new(o, "list", a);
    return o;
}

static json_t *slowdown_stats_json(const struct bn_slowdown_stats *st)
{
    return json_pack("{s:i, s:f, s:f, s:f, s:f, s:f}", "flows", (json_int_t)st->flows, "mean",
                     st->mean, "p50", st->p50, "p95", st->p95, "p99", st->p99, "max", st->max);
}

/* FCT slowdown, overall and per size bucket (docs/traffic.md). */
static json_t *slowdown_json(const struct bn_results *r)
{
    json_t *o = slowdown_stats_json(&r->fct_slowdown), *a = json_array();
    for (uint32_t i = 0; i < r->nslowdown_buckets; i++) {
        const struct bn_slowdown_bucket *b = &r->slowdown_buckets[i];
        json_t *e = json_pack("{s:I, s:I}", "min_bytes", (json_int_t)b->min_bytes, "max_bytes",
                              (json_int_t)b->max_bytes);
        json_object_update_new(e, slowdown_stats_json(&b->s));
        json_array_append_new(a, e);
    }
    json_object_set_new(o, "buckets", a);
    return o;
}

json_t *bn_json_summary(const struct bn_results *r)
{
    const struct bn_summary_stats *t = &r->throughput_gbps;
    json_t *s = json_object();
    json_object_set_new(s, "flows", json_integer(r->nflows));
    json_object_set_new(s, "flows_completed", json_integer(r->flows_completed));
    json_object_set_new(s, "throughput_gbps",
                        json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "mean", t->mean, "min", t->min,
                                  "p1", t->p1, "p50", t->p50, "p99", t->p99, "max", t->max));
    json_object_set_new(s, "fct_us", json_pack("{s:f, s:f, s:f}", "p50", r->fct_p50_us, "p99",
                                               r->fct_p99_us, "p999", r->fct_p999_us));
    json_object_set_new(s, "fct_slowdown", slowdown_json(r));
    if (r->load_target > 0)
        json_object_set_new(s, "load", json_pack("{s:f, s:f}", "target", r->load_target,
                                                 "offered", r->load_offered));
    json_object_set_new(s, "messages",
                        json_pack("{s:I, s:f, s:f, s:f, s:f, s:b, s:f, s:f}", "count",
                                  (json_int_t)r->messages, "latency_p50_us", r->msg_lat_p50_us,
                                  "latency_p99_us", r->msg_lat_p99_us, "latency_p999_us",
                                  r->msg_lat_p999_us, "latency_max_us", r->msg_lat_max_us,
                                  "p999_over_10us", r->msg_lat_over_target,
                                  "rate_mean_mpps_per_nic", r->msg_rate_mean_mpps,
                                  "rate_max_mpps_per_nic", r->msg_rate_max_mpps));
    json_object_set_new(s, "drops", json_integer((json_int_t)r->pkts_dropped));
    json_object_set_new(s, "data_drops", json_integer((json_int_t)r->data_pkts_dropped));
    json_object_set_new(s, "retransmits", json_integer((json_int_t)r->retransmits));
    json_object_set_new(s, "timeouts", json_integer((json_int_t)r->timeouts));
    json_object_set_new(s, "ecn_marks", json_integer((json_int_t)r->ecn_marks));
    json_object_set_new(s, "out_of_order", json_integer((json_int_t)r->out_of_order));
    json_object_set_new(s, "reorder_depth",
                        json_pack("{s:i, s:f}", "max", (json_int_t)r->reorder_depth_max, "p99",
                                  r->reorder_depth_p99));
    json_object_set_new(s, "spurious_retransmits", json_integer((json_int_t)r->spurious_retransmits));
    json_object_set_new(s, "trimmed", json_integer((json_int_t)r->trimmed));
    json_object_set_new(s, "pause_frames", json_integer((json_int_t)r->pause_frames));
    json_object_set_new(s, "resume_frames", json_integer((json_int_t)r->resume_frames));
    json_object_set_new(s, "cnps", json_integer((json_int_t)r->cnps));
    json_object_set_new(s, "link_utilization",
                        json_pack("{s:f, s:f}", "max", r->link_util_max, "mean", r->link_util_mean));
    json_object_set_new(s, "host_wait_us", json_pack("{s:f, s:f}", "mean", r->host_wait_mean_us,
                                                     "max", r->host_wait_max_us));
    json_object_set_new(s, "flows_failed", json_integer(r->flows_failed));
    json_object_set_new(s, "packets", ledger_json(r->pkts_injected, r->pkts_delivered,
                                                  r->pkts_dropped, r->pkts_lost,
                                                  r->pkts_in_flight));
    json_object_set_new(s, "bytes", ledger_json(r->bytes_injected, r->bytes_delivered,
                                                r->bytes_dropped, r->bytes_lost,
                                                r->bytes_in_flight));
    return s;
}

static json_t *sim_json(const struct bn_results *r, int flags)
{
    bool repro = flags & BN_JSON_REPRODUCIBLE;
    double wall = repro ? 0 : r->wall_s;
    return json_pack("{s:I, s:I, s:f, s:f, s:f, s:I, s:f, s:b, s:b, s:b, s:s}", "events",
                     (json_int_t)r->events, "packet_hops", (json_int_t)r->packet_hops,
                     "simulated_us", r->simulated_us, "wall_s", wall, "setup_s",
                     repro ? 0 : r->setup_s, "peak_rss_bytes",
                     (json_int_t)(repro ? 0 : r->peak_rss_bytes), "packet_hops_per_s",
                     wall > 0 ? (double)r->packet_hops / wall : 0.0, "stopped_early",
                     r->stopped_early, "interrupted", r->interrupted, "stalled", r->stalled,
                     "stop_reason", bn_stop_reason(r->interrupted, r->stalled, r->stopped_early));
}

/* sim.partitions: the cut and what its windows exchanged (docs/parallel.md). */
static json_t *partition_json(const struct bn_partition_stats *p)
{
    json_t *o = json_pack("{s:i, s:i, s:i, s:i, s:f, s:I, s:f}", "parts", (int)p->parts,
                          "cut_links", (int)p->cut_links, "hosts_max", (int)p->hosts_max,
                          "hosts_min", (int)p->hosts_min, "lookahead_ns", p->lookahead_ns,
                          "windows", (json_int_t)p->windows, "windows_per_us", p->windows_per_us);
    json_object_update_new(
        o, json_pack("{s:I, s:I, s:I, s:f, s:I, s:I, s:f, s:I}", "cut_frames",
                     (json_int_t)p->cut_frames, "cut_signals", (json_int_t)p->cut_signals,
                     "cut_bytes", (json_int_t)p->cut_bytes, "msgs_per_window", p->msgs_per_window,
                     "msgs_window_max", (json_int_t)p->msgs_window_max, "events_part_max",
                     (json_int_t)p->events_part_max, "events_part_mean", p->events_part_mean,
                     "events_unattributed", (json_int_t)p->events_unattributed));
    return o;
}

/* mpirun's ranks: each one's peak resident memory (a machine's figure,
 * left out of reproducible JSON as peak_rss_bytes is zeroed there). */
static json_t *ranks_rss_json(const struct bn_results *r)
{
    json_t *each = json_array();
    for (uint32_t k = 0; k < r->rss_ranks && k < BN_RSS_RANKS; k++)
        json_array_append_new(each, json_integer((json_int_t)r->peak_rss_rank[k]));
    return json_pack("{s:i, s:I, s:I, s:o}", "ranks", (int)r->rss_ranks, "peak_rss_max",
                     (json_int_t)r->peak_rss_rank_max, "peak_rss_min",
                     (json_int_t)r->peak_rss_rank_min, "peak_rss_bytes", each);
}

static json_t *flow_json(const struct bn_flow_result *f)
{
    json_t *o = json_pack("{s:i, s:i, s:I, s:f, s:f, s:f, s:f, s:I, s:I, s:b}", "src",
                          (json_int_t)f->src, "dst", (json_int_t)f->dst, "bytes",
                          (json_int_t)f->bytes, "start_us", f->start_us, "fct_us", f->fct_us,
                          "ack_us", f->ack_us, "throughput_gbps", f->throughput_gbps,
                          "retransmits", (json_int_t)f->retransmits, "timeouts",
                          (json_int_t)f->timeouts, "done", f->done);
    json_object_set_new(o, "duplicates", json_integer((json_int_t)f->duplicates));
    json_object_set_new(o, "paths", json_integer(f->paths));
    json_object_set_new(o, "ideal_us", json_real(f->ideal_us));
    json_object_set_new(o, "slowdown", json_real(f->slowdown));
    if (f->failed_us >= 0) {
        json_object_set_new(o, "failed_us", json_real(f->failed_us));
        json_object_set_new(o, "failed_reason", json_string(f->dep_failed ? "dependency"
                                                         : f->no_path ? "no_path" : "retries"));
    }
    if (f->path_packets) {
        json_t *pp = json_array();
        for (uint32_t k = 0; k < f->paths; k++)
            json_array_append_new(pp, json_integer(f->path_packets[k]));
        json_object_set_new(o, "path_packets", pp);
    }
    return o;
}

static json_t *port_json(const struct bn_port_result *p)
{
    return json_pack("{s:o, s:o, s:f, s:I, s:I, s:I, s:I, s:I, s:f, s:i, s:i}", "name",
                     bn_json_text(p->name), "peer", bn_json_text(p->peer), "utilization",
                     p->utilization, "tx_bytes", (json_int_t)p->tx_bytes, "drops",
                     (json_int_t)p->drops, "ecn_marks", (json_int_t)p->ecn_marks, "pause_sent",
                     (json_int_t)p->pause_sent, "pause_received", (json_int_t)p->pause_received,
                     "paused_fraction", p->paused_fraction, "tier", (json_int_t)p->tier,
                     "peer_tier", (json_int_t)p->peer_tier);
}

/* Column `col` of a [n][stride] row-major matrix, as reals. */
static json_t *column_json(const double *m, uint32_t n, uint32_t stride, uint32_t col)
{
    json_t *a = json_array();
    for (uint32_t k = 0; k < n; k++)
        json_array_append_new(a, json_real(m[(size_t)k * stride + col]));
    return a;
}

/* The same, as integers (queue depths are whole bytes). */
static json_t *int_column_json(const double *m, uint32_t n, uint32_t stride, uint32_t col)
{
    json_t *a = json_array();
    for (uint32_t k = 0; k < n; k++)
        json_array_append_new(a, json_integer((json_int_t)m[(size_t)k * stride + col]));
    return a;
}

static json_t *series_flows_json(const struct bn_results *r)
{
    const struct bn_series *sr = &r->series;
    json_t *a = json_array();
    for (uint32_t i = 0; i < sr->nflows && i < r->nflows; i++)
        json_array_append_new(
            a, json_pack("{s:i, s:i, s:i, s:o, s:o, s:o, s:o}", "flow", (json_int_t)i, "src",
                         (json_int_t)r->flows[i].src, "dst", (json_int_t)r->flows[i].dst,
                         "rate_gbps", column_json(sr->rate_gbps, sr->nsamples, sr->nflows, i),
                         "alpha", column_json(sr->alpha, sr->nsamples, sr->nflows, i),
                         "delivered_bytes",
                         column_json(sr->delivered_bytes, sr->nsamples, sr->nflows, i),
                         "cwnd_bytes", column_json(sr->cwnd_bytes, sr->nsamples, sr->nflows, i)));
    return a;
}

static json_t *series_queues_json(const struct bn_series *sr)
{
    json_t *a = json_array();
    for (uint32_t q = 0; q < sr->nqueues; q++)
        json_array_append_new(
            a, json_pack("{s:o, s:o}", "port", bn_json_text(sr->queue_name[q]), "bytes",
                         int_column_json(sr->queue_bytes, sr->nsamples, sr->nqueues, q)));
    return a;
}

static json_t *series_links_json(const struct bn_series *sr)
{
    json_t *a = json_array();
    for (uint32_t l = 0; l < sr->nlinks; l++) {
        const struct bn_series_link *sl = &sr->links[l];
        json_array_append_new(
            a, json_pack("{s:o, s:o, s:o, s:i, s:o, s:o}", "name", bn_json_text(sl->name),
                         "from", bn_json_text(sl->from), "to", bn_json_text(sl->to), "ports",
                         (json_int_t)sl->ports, "utilization",
                         column_json(sr->link_util, sr->nsamples, sr->nlinks, l),
                         "paused_fraction",
                         column_json(sr->link_paused, sr->nsamples, sr->nlinks, l)));
    }
    return a;
}

static json_t *series_json(const struct bn_results *r)
{
    const struct bn_series *sr = &r->series;
    return json_pack("{s:f, s:i, s:o, s:o, s:o, s:o}", "interval_us", sr->interval_us,
                     "decimations", (json_int_t)sr->decimations, "t_us",
                     column_json(sr->t_us, sr->nsamples, 1, 0), "flows", series_flows_json(r),
                     "queues", series_queues_json(sr), "links", series_links_json(sr));
}

/* Write root to path ("-": stdout), checking every write and the close:
 * a full disk or a closed pipe is an error, not a silent short file. */
int bn_json_dump(json_t *root, const char *path, int flags, struct bn_error *err)
{
    if (!root)
        return bn_fail(err, BN_ENOMEM, "out of memory building JSON");
    struct bn_output *o = bn_output_open(path, "JSON", err);
    if (!o) {
        json_decref(root);
        return err ? err->status : BN_EINPUT;
    }
    FILE *f = bn_output_stream(o);
    bool bad = json_dumpf(root, f, (size_t)flags) != 0;
    bad |= strcmp(path, "-") == 0 && fputc('\n', f) == EOF;
    json_decref(root);
    return bn_output_close(o, bad, err); /* whole, or the old file left as it was */
}

int bn_results_write_json(const struct bn_results *r, const char *path, int flags,
                          struct bn_error *err)
{
    json_t *root = json_object();
    json_object_set_new(root, "bnet_version", json_string(BNET_VERSION));
    bn_json_command(root, &r->prov);
    json_object_set_new(root, "scenario", bn_json_text(r->scenario));
    json_object_set_new(root, "seed", json_integer((json_int_t)r->seed));
    json_object_set_new(root, "workload", json_string(r->workload));
    json_object_set_new(root, "flow_control", json_string(r->flow_control));
    json_object_set_new(root, "congestion_control", json_string(r->congestion_control));
    json_object_set_new(root, "topology", bn_json_topo(&r->topo));
    json_object_set_new(root, "summary", bn_json_summary(r));
    struct bn_seed_report seed;
    bn_seed_of_run(r, &seed);
    json_object_set_new(root, "seed_report", bn_json_seed(&seed));
    if (r->nfaults)
        json_object_set_new(root, "faults", faults_json(r, flags));
    json_object_set_new(root, "sim", sim_json(r, flags));
    if (r->partition.parts)
        json_object_set_new(root, "partition", partition_json(&r->partition));
    const struct bn_hybrid_stats *hy = &r->hybrid;
    if (hy->region_hosts || hy->region_switches)
        json_object_set_new(root, "hybrid",
                            json_pack("{s:i, s:i, s:i, s:i, s:i, s:I}", "region_hosts",
                                      (int)hy->region_hosts, "region_switches",
                                      (int)hy->region_switches, "packet_qps", (int)hy->packet_qps,
                                      "flow_qps", (int)hy->flow_qps, "shared_ports",
                                      (int)hy->shared_ports, "updates", (json_int_t)hy->updates));
    if (r->rss_ranks && !(flags & BN_JSON_REPRODUCIBLE))
        json_object_set_new(json_object_get(root, "sim"), "ranks_rss", ranks_rss_json(r));
    /* the per-flow and per-port arrays go straight to the file, an
     * element at a time (at 8192 hosts the tree doubled the peak memory) */
    struct bn_json_stream js;
    int rc = bn_json_stream_open(&js, path, root, err);
    if (rc != BN_OK)
        return rc;
    bn_json_stream_array(&js, "flows");
    for (uint32_t i = 0; i < r->nflows; i++)
        bn_json_stream_elem(&js, flow_json(&r->flows[i]));
    bn_json_stream_array_end(&js);
    bn_json_stream_array(&js, "ports");
    for (uint32_t i = 0; i < r->nports; i++)
        bn_json_stream_elem(&js, port_json(&r->ports[i]));
    bn_json_stream_array_end(&js);
    bn_json_stream_key(&js, "series", series_json(r));
    if (r->prov.config)
        bn_json_stream_key(&js, "config", config_json(r->prov.config));
    return bn_json_stream_close(&js, err);
}

int bn_keys_write_json(const char *path, struct bn_error *err)
{
    json_t *keys = json_array();
    for (size_t i = 0; keys && i < bn_scenario_key_count(); i++) {
        const struct bn_scenario_key_info *k = bn_scenario_key(i);
        json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "path", k->path, "type", k->type,
                              "unit", k->unit, "default", k->def, "doc", k->doc);
        if (o && k->choice) {
            json_t *c = json_array();
            for (size_t j = 0; k->choice(j); j++)
                json_array_append_new(c, json_string(k->choice(j)));
            json_object_set_new(o, "choices", c);
        }
        json_array_append_new(keys, o);
    }
    json_t *root = json_object();
    json_object_set_new(root, "bnet_version", json_string(BNET_VERSION));
    json_object_set_new(root, "keys", keys);
    return bn_json_dump(root, path, JSON_FLAGS, err);
}

int bn_presets_write_json(const char *path, struct bn_error *err)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < bn_scenario_preset_count(); i++) {
        json_t *sets = json_object();
        const char *a;
        for (size_t k = 0; (a = bn_scenario_preset_set(i, k)); k++) {
            const char *eq = strchr(a, '=');
            char key[BN_NAME_MAX];
            snprintf(key, sizeof key, "%.*s", (int)(eq ? eq - a : 0), a);
            json_object_set_new(sets, key, json_string(eq ? eq + 1 : ""));
        }
        json_array_append_new(list, json_pack("{s:s, s:s, s:o}", "name",
                                              bn_scenario_preset_name(i), "about",
                                              bn_scenario_preset_about(i), "sets", sets));
    }
    json_t *root = json_object();
    json_object_set_new(root, "bnet_version", json_string(BNET_VERSION));
    json_object_set_new(root, "presets", list);
    return bn_json_dump(root, path, JSON_FLAGS, err);
}

int bn_topo_info_write_json(const struct bn_topo_info *t, const char *path, struct bn_error *err)
{
    json_t *root = json_object();
    json_object_set_new(root, "topology", bn_json_topo(t));
    return bn_json_dump(root, path, JSON_FLAGS, err);
}

/* `bnet coll --json`: the table's rows and what they were measured on;
 * no wall-clock figures, so a seed gives byte-identical output. */
int bn_coll_write_json(const struct bn_coll_results *r, const char *path, struct bn_error *err)
{
    json_t *rows = json_array();
    for (uint32_t i = 0; i < r->nrows; i++) {
        const struct bn_coll_row *w = &r->rows[i];
        json_t *o = json_pack("{s:I, s:I, s:s, s:s, s:i, s:f, s:f, s:f, s:I, s:s, s:i, s:f}",
                              "size", (json_int_t)w->size, "count", (json_int_t)w->count,
                              "type", w->type, "redop", w->redop, "root", (int)r->root,
                              "time_us", w->time_us, "algbw_gbs", w->algbw_gbs, "busbw_gbs",
                              w->busbw_gbs, "wrong", (json_int_t)w->wrong, "algo", w->algo,
                              "channels", (int)w->channels, "predicted_us", w->predicted_us);
        json_object_set_new(o, "line_busbw_gbs", json_real(w->line_busbw_gbs));
        json_object_set_new(o, "nic_busbw_gbs", json_real(w->nic_busbw_gbs));
        json_object_set_new(o, "nvlink_busbw_gbs", json_real(w->nvlink_busbw_gbs));
        json_object_set_new(o, "packet_hops", json_integer((json_int_t)w->packet_hops));
        json_object_set_new(o, "events", json_integer((json_int_t)w->events));
        json_object_set_new(o, "pkts_dropped", json_integer((json_int_t)w->pkts_dropped));
        json_object_set_new(o, "retransmits", json_integer((json_int_t)w->retransmits));
        json_object_set_new(o, "pkts_lost", json_integer((json_int_t)w->pkts_lost));
        if (w->partition.parts)
            json_object_set_new(o, "partition", partition_json(&w->partition));
        if (w->proto[0]) /* an NCCL protocol ran (coll.proto) */
            json_object_set_new(o, "proto", json_string(w->proto));
        if (w->nccl_algo[0]) { /* NCCL's tuning model's pick */
            json_t *n = json_pack("{s:s, s:s, s:f}", "algo", w->nccl_algo, "proto", w->nccl_proto,
                                  "predicted_us", w->nccl_predicted_us);
            if (w->nccl_time_us > 0)
                json_object_set_new(n, "time_us", json_real(w->nccl_time_us));
            json_object_set_new(o, "nccl", n);
        }
        if (r->in_place) /* nccl-tests' in-place columns */
            json_object_set_new(o, "in_place",
                                json_pack("{s:f, s:f, s:f, s:I}", "time_us", w->inplace_time_us,
                                          "algbw_gbs", w->inplace_algbw_gbs, "busbw_gbs",
                                          w->inplace_busbw_gbs, "wrong",
                                          (json_int_t)w->inplace_wrong));
        if (w->baseline_us > 0)
            json_object_set_new(o, "baseline_us", json_real(w->baseline_us));
        if (w->failed)
            json_object_set_new(o, "failed", json_pack("{s:f, s:i, s:i, s:i}", "at_us",
                                                       w->failed_us, "rank", (int)w->failed_rank,
                                                       "peer", (int)w->failed_peer, "step",
                                                       (int)w->failed_step));
        json_array_append_new(rows, o);
    }
    json_t *root = json_object();
    json_object_set_new(root, "bnet_version", json_string(BNET_VERSION));
    bn_json_command(root, &r->prov);
    json_object_set_new(
        root, "collective",
        json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:f, s:f}", "op", r->op, "datatype", r->datatype,
                  "redop", r->redop, "root", (int)r->root, "nranks", (int)r->nranks,
                  "gpus_per_server", (int)r->gpus_per_server, "nic_gbps", r->nic_gbps,
                  "nic_goodput_gbps", r->nic_goodput_gbps));
    json_object_set_new(root, "topology", bn_json_topo(&r->topo));
    json_object_set_new(root, "interrupted", json_boolean(r->interrupted));
    json_object_set_new(root, "stop_reason",
                        json_string(bn_stop_reason(r->interrupted, false, false)));
    json_object_set_new(root, "rows", rows);
    struct bn_seed_report seed;
    bn_seed_of_coll(r, &seed);
    json_object_set_new(root, "seed_report", bn_json_seed(&seed));
    bn_json_config(root, &r->prov);
    return bn_json_dump(root, path, JSON_FLAGS, err);
}

const char *bn_stop_reason(bool interrupted, bool stalled, bool stopped_early)
{
    const char *why = bn_interrupt_reason();
    if (interrupted)
        return why ? why : "signal";
    return stalled ? "stalled" : stopped_early ? "max_time" : "completed";
}
