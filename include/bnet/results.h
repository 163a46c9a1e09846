/*
 * What a run measured. Filled by bn_run, rendered by bn_results_print
 * (aligned text) and bn_results_write_json (schema: docs/results.md).
 */
#ifndef BNET_RESULTS_H
#define BNET_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bnet/error.h"
#include "bnet/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A topology as built (bn_describe_topology), plus the planner's figures
 * (bn_plan_topology). Plain data: nothing to free. */
struct bn_topo_info {
    char kind[BN_NAME_MAX];          /* topology.kind: "fat_tree", "leaf_spine", ... */
    uint32_t k;                      /* topology.k (ports); 0 for a fabric read from a file */
    uint32_t hosts, switches, links; /* counts; links: backend cables, host links included
                                      * (NVLink and SHARP units' links not counted) */
    uint32_t tiers;                  /* switch tiers */
    uint32_t switches_per_tier[5];   /* [1] leaves/ToR, [2] agg/spine, [3] core; [0] unused */
    char tier_name[5][16];           /* names of tiers [1 .. tiers] ("tor", "leaf", ...) */
    uint32_t radix;                  /* ports per switch */
    uint32_t diameter_hops;          /* links on the longest minimal host-to-host path */
    uint32_t diameter_switches;      /* switches on that path */
    double bisection_gbps;           /* across the worst cut into two halves, one direction */
    double host_rate_gbps, fabric_rate_gbps; /* fastest host / switch-to-switch link (0: none) */
    /* NVLink scale-up domains (scale_up.*): 0 domains = none. */
    uint32_t scaleup_domains, scaleup_gpus_per_domain; /* counts */
    double scaleup_rate_gbps;        /* per GPU, each direction */
    /* Planner figures, filled by bn_plan_topology (`bnet topo`) only. */
    bool planned;                    /* the figures below are filled */
    struct bn_tier_info {
        uint32_t nodes;              /* [0]: hosts; [1..]: switches of the tier */
        uint32_t ports_max;          /* most ports in use on one node of the tier */
        uint32_t down_links, up_links; /* the tier's links to the tier below / above */
        double down_gbps, up_gbps;   /* their capacity, one direction: towards the hosts / up */
        double oversubscription;     /* down / up; 0 on the top tier */
    } tier[5];
    uint32_t nrates;                 /* links by rate, fastest first */
    struct { double gbps; uint32_t links; } rates[8]; /* [nrates]: a line rate, its link count */
    uint32_t host_copper, host_fiber, fabric_copper, fabric_fiber; /* links by medium */
    uint32_t transceivers;           /* 2 per fiber link, none on copper (DAC) */
    uint32_t gpus_per_server;        /* rail_optimized: hosts are GPUs, this many a server */
    double gpu_tflops;               /* topology.gpu_tflops; 0 = not stated */
    double gbps_per_pflops;          /* hosts' injection (Gb/s) / their PFLOPS; 0: not stated */
    /* the price and power table (cost.*) over the devices counted here:
     * switches, a NIC per host, transceivers, cables; stated: some cost.*
     * key is not 0. Estimates (docs/topologies.md). */
    bool cost_stated;
    char cost_unstated[160];         /* classes left at 0 that it has: "NIC power, DAC price" */
    double cost_usd, power_w;        /* the whole backend network, USD and W */
    double cost_per_gpu_usd, power_per_gpu_w; /* the same per host (GPU) */
    double bisection_gbps_per_pflops; /* bisection_gbps / the hosts' PFLOPS; 0: not stated */
    /* The memory estimate (bn_estimate_memory), when the caller asked: a run
     * and bnet coll's largest row, against what is available (0: not asked).
     * Filled by the caller, not the library. */
    uint64_t memory_run_bytes, memory_coll_bytes, memory_available_bytes;
    bool paths_asked;                /* --paths SRC,DST */
    uint32_t path_src, path_dst, path_hops; /* host indices; links on a minimal path */
    uint64_t minimal_paths;          /* how many (parallel links count apart; saturates) */
    uint64_t memory_jobs_bytes;      /* the estimate of bnet job's run (0: no jobs, or not asked) */
};

/* One flow of a bn_run; times are simulated. */
struct bn_flow_result {
    uint32_t src, dst;      /* sending and receiving host indices */
    uint64_t bytes;         /* message size: payload bytes, no headers */
    double start_us;        /* when it was posted to the sender's NIC */
    double fct_us;          /* post -> last byte delivered at the receiver (0: never) */
    double failed_us;       /* its queue pair went to the error state then (-1: it did not) */
    bool no_path;           /* ...because no path served it once faults were over
                             * (routing.stuck_us), not because its retries ran out */
    bool dep_failed;        /* ...never started: a flow it waited for failed */
    double ack_us;          /* post -> sender's completion (last ACK) (0: never) */
    double throughput_gbps; /* bytes * 8 / fct (0: the receiver did not finish) */
    double ideal_us;        /* its FCT alone on the idle fabric, computed (docs/traffic.md) */
    double slowdown;        /* fct / ideal (0: the receiver did not finish) */
    uint64_t retransmits;   /* data packets sent again */
    uint64_t timeouts;      /* retransmission timer expirations */
    uint64_t duplicates;    /* packets the receiver already had: spurious retransmissions */
    uint32_t paths;         /* distinct paths its data packets took (counted up to 64) */
    uint32_t *path_packets; /* packets per path, [paths]; only for followed flows, else NULL */
    bool done;              /* both the receiver and the sender finished */
};

/* Order statistics over the completed flows, in the unit of the field
 * holding them; percentiles interpolate linearly (docs/results.md). */
struct bn_summary_stats { double mean, min, p1, p50, p99, max; };

/* FCT slowdown (FCT over ideal FCT) of a set of completed flows. */
struct bn_slowdown_stats {
    uint32_t flows;
    double mean, p50, p95, p99, max;
};

/* The flows of one size bucket (observe.slowdown_step_pct or _edges):
 * the smallest and largest of them, and their slowdown. */
struct bn_slowdown_bucket {
    uint64_t min_bytes, max_bytes;
    struct bn_slowdown_stats s;
};

/* A port (one direction of a link): every one with observe.ports all, only
 * those that saw pauses, marks or drops with observe.ports active. */
struct bn_port_result {
    uint32_t port;            /* global port id */
    char name[80];            /* "tor3/1": node name / port index on it (never cut) */
    char peer[64];            /* the node at the other end */
    double utilization;       /* busy time / simulated time, 0..1 */
    uint64_t tx_bytes, drops, ecn_marks; /* frame bytes sent; packets dropped, marked CE here */
    uint64_t pause_sent;      /* PFC pauses this port sent upstream */
    uint64_t pause_received;  /* pauses that stopped this port */
    double paused_fraction;   /* of simulated time this port was paused, 0..1 */
    int32_t tier, peer_tier;  /* the two nodes' tiers (0 hosts, 1 leaves, ...); -1: outside
                               * the backend fabric (NVSwitch, SHARP unit) */
};

/* One fault of the scenario's faults: list, as it went (src/fault). */
struct bn_fault_result {
    char kind[24];            /* "link_down", ... */
    char target[BN_NAME_MAX]; /* as the scenario named it; random_links: the links drawn */
    double at_us, until_us;   /* as the scenario gave them; until 0: for good */
    uint32_t links;           /* links it took down, slowed or corrupted */
    uint32_t flaps;           /* link_flap: times the link went down */
    uint32_t switches_changed; /* switches whose tables its first change rerouted */
    double converged_us;      /* from the fault to the last of those installing; -1: never
                               * (static routes), 0: nothing to reroute */
    double rate_before_gbps;  /* delivered over the window before it */
    double restored_us;       /* from the fault to the traffic it hit (queue pairs that
                               * lost frames to it) running at routing.restore_fraction of
                               * their rate before it, or finished; -1: not within the run */
    bool restore_measured;    /* false for link_degrade (it loses nothing to tell its
                               * traffic by: the slowdown shows its cost) and for a fault
                               * before the first measuring window ended */
    uint64_t pkts_lost;       /* frames lost on its links (both directions) */
};

/* A row of the link series: one fabric port (link direction), or a run of
 * ports that all lead from one tier to another when the fabric has more
 * ports than observe.link_rows. */
struct bn_series_link {
    char name[80];                 /* the port's name, or "FIRST..LAST" of the run */
    char from[BN_NAME_MAX];        /* tier of the sending node: "host", "tor", ... */
    char to[BN_NAME_MAX];          /* tier of the receiving node */
    uint32_t ports;                /* ports in the row (1: a single link direction) */
};

/* Time series sampled every `interval_us` while flows run. A [nsamples][n]
 * array is flat, row by row: sample k of item i at [k * n + i]. Past
 * observe.max_samples every other sample goes and the interval doubles, so
 * a long run's series stays within a fixed size. */
struct bn_series {
    double interval_us;       /* observe.sample_us x 2^decimations; 0: no series */
    uint32_t nsamples;        /* samples taken */
    double *t_us;             /* [nsamples]: simulated time of each sample */
    uint32_t nflows;          /* flows sampled: the first observe.max_flows */
    double *rate_gbps;        /* [nsamples][nflows]: the sender's current rate */
    double *alpha;            /* [nsamples][nflows]: DCQCN's or DCTCP's alpha, 0..1 (0 for others) */
    double *delivered_bytes;  /* [nsamples][nflows]: payload delivered in order so far */
    uint32_t nqueues;         /* observed ports */
    uint32_t *queue_port;     /* [nqueues] global port ids */
    char (*queue_name)[80];   /* [nqueues]: port names, as `name` above */
    double *queue_bytes;      /* [nsamples][nqueues] output queue depth, frame bytes */
    uint32_t decimations;     /* times the series was halved to stay in observe.max_samples */
    uint32_t nlinks;          /* link rows (observe.link_rows; 0: none) */
    struct bn_series_link *links;  /* [nlinks], grouped by tier pair */
    double *link_util;        /* [nsamples][nlinks]: busy fraction over the interval ending
                               * at t_us[k] (0 at k = 0), mean of the row's ports */
    double *link_paused;      /* [nsamples][nlinks]: fraction of that interval PFC held
                               * the row's ports (0 under other flow control) */
    double *cwnd_bytes;       /* [nsamples][nflows]: a window module's congestion window
                               * (DCTCP, HPCC, Swift, NSCC, EQDS), bytes; 0 for rate
                               * modules and at flow level */
};

/* What was simulated (docs/results.md, "What was simulated"): the
 * scenario as it ran, presets and overrides applied, and the command that
 * ran it. Results own both; the JSON writes them as `config` and
 * `command`. */
struct bn_provenance {
    struct bn_scenario *config;   /* a copy of the scenario (NULL: not kept) */
    char *command;                /* set by the caller, e.g. the bnet command line
                                   * without its output options (NULL: none) */
};
/* Keep a copy of sc in p->config, replacing one kept before (p zeroed or
 * kept before); BN_OK, or BN_ENOMEM. bn_provenance_free frees it. */
int bn_provenance_keep(struct bn_provenance *p, const struct bn_scenario *sc,
                       struct bn_error *err);
/* Record a copy of `command` (NULL: none), replacing any before; BN_OK, or
 * BN_ENOMEM if out of memory. */
int bn_provenance_command(struct bn_provenance *p, const char *command, struct bn_error *err);
/* Free what p holds and set its pointers to NULL (the results' *_free
 * functions call it). */
void bn_provenance_free(struct bn_provenance *p);

/* A bn_run's results. The arrays are the results' own: bn_results_free. */
/* A partitioned run (sim.partitions, docs/parallel.md): how the fabric
 * was cut, and what the synchronous windows cost: what separate processes
 * would have exchanged. Events are counted for the part owning their port
 * or queue pair; the driver's own and delayed completions are not
 * attributed to a part. */
struct bn_partition_stats {
    uint32_t parts, cut_links;
    uint32_t hosts_max, hosts_min;   /* hosts in the largest and smallest part */
    double lookahead_ns;             /* the least propagation over a cut link */
    uint64_t windows;
    double windows_per_us;           /* windows per simulated microsecond */
    uint64_t cut_frames, cut_signals, cut_bytes; /* held at a cut, over the run */
    double msgs_per_window;          /* frames and signals per window, mean */
    uint64_t msgs_window_max;
    uint64_t events_part_max;        /* attributed events of the busiest part */
    double events_part_mean;
    uint64_t events_unattributed;
};

/* sim.fidelity hybrid (docs/hybrid.md): the region and what crossed it. */
struct bn_hybrid_stats {
    uint32_t region_hosts, region_switches; /* the region's nodes (0: not hybrid) */
    uint32_t packet_qps, flow_qps;          /* queue pairs carried by packets, as flows */
    uint32_t shared_ports;                  /* link directions both levels cross */
    uint64_t updates;                       /* times the shared links were re-rated */
};

enum { BN_RSS_RANKS = 64 };   /* ranks whose peak memory a run lists */

struct bn_results {
    struct bn_provenance prov;       /* what was simulated */
    uint64_t seed;                   /* the seed the run used */
    char scenario[BN_PATH_MAX];      /* the scenario's source: its path as given, or "<default>" */
    char workload[BN_NAME_MAX];      /* workload.kind: "permutation", ... */
    struct bn_topo_info topo;        /* the fabric as built (no planner figures) */
    struct bn_flow_result *flows;    /* [nflows], in workload order */
    uint32_t nflows, flows_completed; /* flows; those done */
    struct bn_summary_stats throughput_gbps; /* per-flow throughput over completed flows */
    double fct_p50_us, fct_p99_us, fct_p999_us; /* flow completion time percentiles */
    struct bn_slowdown_stats fct_slowdown;      /* over the completed flows */
    struct bn_slowdown_bucket *slowdown_buckets; /* [nslowdown_buckets], smallest flows first */
    uint32_t nslowdown_buckets;
    /* poisson: the load asked for, and the one its flows offer (bytes over
     * the hosts' link capacity in the arrival window); 0: another workload */
    double load_target, load_offered;
    /* messages (workload.messages per flow): post to the receiver's
     * completion, each its own sample (docs/endpoints.md) */
    uint64_t messages;               /* messages measured (count) */
    double msg_lat_p50_us, msg_lat_p99_us, msg_lat_p999_us, msg_lat_max_us;
    bool msg_lat_over_target;        /* its P99.9 above the seed's 10 us */
    /* messages a NIC sent over the run (first start to last completion),
     * millions per second: the mean over sending NICs, and the highest */
    double msg_rate_mean_mpps, msg_rate_max_mpps;
    /* packets (data, ACKs, NAKs, notifications): injected = delivered +
     * dropped + lost + in_flight (checked); bytes: the same ledger in frame
     * bytes (headers included, no preamble or inter-frame gap) */
    uint64_t pkts_injected, pkts_delivered, pkts_dropped, pkts_in_flight;
    uint64_t bytes_injected, bytes_delivered, bytes_dropped, bytes_in_flight;
    /* packets: data ones dropped, sent again, marked CE, arrived ahead of
     * the expected PSN; timeouts: retransmission timer expirations */
    uint64_t data_pkts_dropped, retransmits, timeouts, ecn_marks, out_of_order;
    uint64_t spurious_retransmits;        /* retransmitted packets the receiver already had */
    uint64_t trimmed;                     /* data packets whose payload a switch cut */
    uint32_t reorder_depth_max;           /* PSNs ahead of the expected one, at arrival */
    double reorder_depth_p99;             /* over out-of-order arrivals */
    double link_util_max, link_util_mean; /* busy time / simulated time over all ports, 0..1
                                           * (backend ports: NVLink and SHARP apart) */
    /* how long received data packets waited for their host NIC's receive
     * DMA (the endpoint model's PCIe rate; 0 without it): mean and max, us */
    double host_wait_mean_us, host_wait_max_us;
    char flow_control[BN_NAME_MAX], congestion_control[BN_NAME_MAX]; /* module names */
    char notifications[16];   /* what the congestion control's receivers send ("CNPs",
                               * "BECNs"; "": none): `cnps` counts them */
    bool fc_pauses;           /* the flow control sends pause frames (PFC) */
    bool cc_passive;          /* the congestion control never slows a sender ("none") */
    /* PFC pause (XOFF) and resume (XON) frames all ports sent; congestion
     * notifications that reached senders (packets) */
    uint64_t pause_frames, resume_frames, cnps;
    struct bn_port_result *ports;   /* [nports]: every port, or those with any pause, mark
                                     * or drop (observe.ports) */
    uint32_t nports;
    struct bn_series series;
    /* the run itself: events processed and packets sent on a port (counts);
     * simulated time; wall-clock seconds of the event loop and of building
     * the fabric and workload; the process's peak resident memory */
    uint64_t events, packet_hops;
    double simulated_us, wall_s, setup_s;
    uint64_t peak_rss_bytes;
    /* on mpirun's ranks (docs/parallel.md): each rank's peak resident
     * memory (the first BN_RSS_RANKS of them), and the most and least */
    uint32_t rss_ranks;
    uint64_t peak_rss_rank[BN_RSS_RANKS];
    uint64_t peak_rss_rank_max, peak_rss_rank_min;
    bool stopped_early;   /* sim.max_time_us reached (or interrupted) before all flows finished */
    bool interrupted;     /* bn_interrupt stopped it: results so far */
    bool stalled;         /* the livelock watchdog stopped it (sim.stall_us): results so far */
    /* failures (src/fault): frames lost to them (and their frame bytes; of
     * those frames, the ones a bit error took), flows whose queue pair
     * failed, and each fault as it went */
    uint64_t pkts_lost, bytes_lost, pkts_corrupted;
    uint32_t flows_failed;
    char control_plane[BN_NAME_MAX];   /* "" without faults */
    struct bn_fault_result *faults;    /* [nfaults], in the scenario's order */
    uint32_t nfaults;
    /* the same run without its faults (only when there are some and
     * routing.baseline): the last flow's completion, and this run's over it
     * (slowdown -1: a flow failed; 0: no baseline ran) */
    double baseline_makespan_us, makespan_us, slowdown;
    double reroute_wall_s;    /* wall time spent computing new routes */
    struct bn_partition_stats partition; /* parts 0: not partitioned */
    struct bn_hybrid_stats hybrid;       /* region_hosts and _switches 0: not hybrid */
};

/* Free what r owns (flows, ports, faults, series, prov) and leave it empty;
 * a second call does nothing. */
void bn_results_free(struct bn_results *r);

/*
 * The seed's figures of merit, as one run measures them (docs/results.md,
 * "The seed's report"): each with its value, the seed's target where it
 * gives one and whether the run meets it, or what would measure it.
 */
enum bn_seed_verdict {
    BN_SEED_MET = 0,         /* measured, and within the target */
    BN_SEED_MISSED,          /* measured, and not */
    BN_SEED_NO_TARGET,       /* measured; the seed sets no number */
    BN_SEED_UNMEASURED,      /* this run cannot measure it: see `measure` */
};
/* The strings are static: nothing to free. */
struct bn_seed_figure {
    const char *key;         /* its JSON key: "latency_p999_us" */
    const char *name;        /* "end-to-end latency P99.9" */
    const char *unit;        /* "us" */
    const char *target;      /* "<= 10" in unit; "" when the seed gives none */
    double value;            /* in `unit`; 0 when unmeasured */
    uint8_t verdict;         /* enum bn_seed_verdict */
    const char *measure;     /* unmeasured: the command or key that would measure it; else "" */
};
#define BN_SEED_FIGURES 8
struct bn_seed_report {
    struct bn_seed_figure fig[BN_SEED_FIGURES]; /* in the order docs/results.md lists them */
};
/* What a flows run (bn_run) measures of them. */
void bn_seed_of_run(const struct bn_results *r, struct bn_seed_report *out);
/* The same from a topology alone: what the fabric's shape gives. */
void bn_seed_of_topo(const struct bn_topo_info *t, struct bn_seed_report *out);
/* A table, one line per figure, each line after `prefix` ("# " in the
 * nccl-tests table, where parsers skip comment lines). */
void bn_seed_print(FILE *out, const char *prefix, const struct bn_seed_report *s);
/* How the drop-in tables print (bn_coll_print_footer_opts,
 * bn_p2p_print_*_opts): flags or'ed. */
enum bn_print_flags {
    BN_PRINT_NO_SEED = 1u << 0, /* no seed's figures after the tool's table */
    BN_PRINT_GBITS = 1u << 1,   /* perftest's --report_gbits: Gb/sec; else MB/sec (2^20 B/s) */
};
/* "met", "missed", "no target", "not measured": as the JSON writes them
 * ("" for another value). Static. */
const char *bn_seed_verdict_name(uint8_t verdict);

/* Aligned human-readable summary (its layout may change; write errors are
 * not reported). */
void bn_results_print(FILE *out, const struct bn_results *r);
void bn_topo_info_print(FILE *out, const struct bn_topo_info *t);

enum bn_json_flags {
    BN_JSON_REPRODUCIBLE = 1 << 0, /* zero wall-clock and memory figures */
};
/* The JSON of docs/results.md to `path` ("-": stdout); flags: enum
 * bn_json_flags. BN_OK, BN_EINPUT if it cannot be written, or BN_ENOMEM. */
int bn_results_write_json(const struct bn_results *r, const char *path, int flags,
                          struct bn_error *err);
/* PREFIX-flows.csv, -ports.csv, -rates.csv, -queues.csv (docs/results.md);
 * the folders must exist. BN_OK, BN_EINPUT if a file cannot be written, or
 * BN_ENOMEM. */
int bn_results_write_csv(const struct bn_results *r, const char *prefix, struct bn_error *err);
/* {"topology": ...} to `path` ("-": stdout); errors as bn_results_write_json. */
int bn_topo_info_write_json(const struct bn_topo_info *t, const char *path,
                            struct bn_error *err);
/* `bnet keys --json` and `bnet presets --json`: the key registry (path,
 * type, unit, default, doc, choices) and the presets (name, about, the
 * keys each sets), as JSON; errors as bn_results_write_json. */
int bn_keys_write_json(const char *path, struct bn_error *err);
int bn_presets_write_json(const char *path, struct bn_error *err);

#ifdef __cplusplus
}
#endif

#endif
