/*
 * `bnet compare`: one cluster over several fabrics (technology presets),
 * the seed's comparison table measured (docs/compare.md).
 */
#ifndef BNET_COMPARE_H
#define BNET_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bnet/error.h"
#include "bnet/results.h"
#include "bnet/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BN_COMPARE_FABRICS_MAX 8  /* most fabrics (columns) */
#define BN_COMPARE_SIZES 3         /* AllReduce sizes measured */

/* One fabric's column: plain data (it crosses a pipe from a worker). */
struct bn_compare_col {
    char fabric[BN_NAME_MAX];    /* the preset's name */
    bool scale_up;               /* a scale-up preset (nvlink5): the rows run over its domain */
    /* what the preset makes of the cluster (its keys as they ran) */
    char link_layer[16], flow_control[16], congestion_control[16], load_balancing[32],
        transport[24];
    double port_gbps, switch_ns; /* the hosts' port line rate; switch latency */
    /* bnet p2p write_lat, 2 B, between hosts lat_src and lat_dst */
    uint32_t lat_src, lat_dst;
    double lat_p50_us, lat_p999_us; /* median and P99.9 */
    /* bn_run permutation: mean flow throughput over line rate, ECMP and the
     * fabric's own load balancing */
    double perm_ecmp_pct, perm_own_pct; /* percent */
    /* bn_run incast of incast_senders senders to host 0, with a victim flow
     * victim_src -> victim_dst (UINT32_MAX: none, too few hosts) */
    uint32_t incast_senders;
    uint64_t incast_drops, incast_pauses; /* data packets dropped; PFC pauses sent */
    double incast_slowdown;      /* last completion over the receiver's line-rate time */
    uint32_t victim_src, victim_dst;
    double victim_pct;           /* the victim's throughput, percent of its line rate */
    /* bnet coll AllReduce at 1 MiB, 64 MiB, 1 GiB */
    uint64_t ar_bytes[BN_COMPARE_SIZES];
    /* bus bandwidth (GB/s, 1e9 B/s); busbw x 8 over the line rate (percent) */
    double ar_busbw_gbs[BN_COMPARE_SIZES], ar_eff_pct[BN_COMPARE_SIZES];
    char ar_algo[BN_COMPARE_SIZES][16];  /* the algorithm that ran */
    /* the scenario's faults: the slowest convergence (has_faults false: none;
     * converge_never: some fault's routes never converged) */
    bool has_faults, converge_never;
    double converge_ms;          /* milliseconds */
    double gbps_per_pflops;      /* 0: topology.gpu_tflops not stated */
    /* the planner's price and power table (cost.*, the preset's estimates) */
    bool cost_stated;            /* some cost.* key is not 0 */
    char cost_unstated[160];     /* what the sums leave out (bn_topo_info's) */
    double cost_per_gpu_usd, power_per_gpu_w; /* USD, W */
    double wall_s;               /* wall-clock seconds measuring this column */
    /* bn_interrupt cut this column short, or came before it started: the
     * figures measured before it stand, the rest are 0 */
    bool interrupted;
};

/* The comparison; only prov is allocated: bn_compare_results_free. */
struct bn_compare_results {
    struct bn_provenance prov;   /* the scenario as given (before each column's preset) */
    char scenario[BN_PATH_MAX];  /* the scenario's source */
    char topology[BN_NAME_MAX];  /* topology.kind as built */
    uint32_t hosts;              /* hosts of the cluster (count) */
    uint32_t ncols;              /* columns: cols[0 .. ncols), in compare.fabrics' order */
    struct bn_compare_col cols[BN_COMPARE_FABRICS_MAX];
    double wall_s;               /* wall-clock seconds of the whole comparison */
    bool interrupted;            /* bn_interrupt stopped it: some column is cut short */
};

/* Measure the scenario over each of compare.fabrics: each column is the
 * scenario with `fabric` set to the preset, then `sets` (the caller's
 * overrides, NULL-terminated; may be NULL) applied again on top. Up to
 * `jobs` fabrics run at once, each in a worker process; the results do not
 * depend on it. After bn_interrupt no column starts, a column that sees
 * it measures nothing more, and the comparison returns BN_OK marked
 * interrupted (the columns cut short marked too). */
/* `out` need not be initialized; on BN_OK free it with
 * bn_compare_results_free; on an error (the first failure's) nothing
 * is left to free. Workers are forked processes. */
int bn_compare_run(const struct bn_scenario *sc, const char *const *sets, unsigned jobs,
                   struct bn_compare_results *out, struct bn_error *err);
/* The columns c with c % nparts == part only (0 <= part < nparts): one
 * share, for a process among nparts (bnet compare under mpirun gathers the
 * shares on rank 0); the other columns keep only their fabric's name. */
int bn_compare_run_part(const struct bn_scenario *sc, const char *const *sets, unsigned jobs,
                        uint32_t part, uint32_t nparts, struct bn_compare_results *out,
                        struct bn_error *err);
/* Free what r owns (prov); the columns are plain data. */
void bn_compare_results_free(struct bn_compare_results *r);

/* The comparison table to `out` (write errors are not reported). */
void bn_compare_print(FILE *out, const struct bn_compare_results *r);
/* JSON to `path` ("-": stdout; docs/compare.md). BN_OK, BN_EINPUT if it
 * cannot be written, or BN_ENOMEM. */
int bn_compare_write_json(const struct bn_compare_results *r, const char *path,
                          struct bn_error *err);
/* PATH (one row per figure, a column per fabric, RFC 4180); BN_OK, or
 * BN_EINPUT if it cannot be written. */
int bn_compare_write_csv(const struct bn_compare_results *r, const char *path,
                         struct bn_error *err);

#ifdef __cplusplus
}
#endif

#endif
