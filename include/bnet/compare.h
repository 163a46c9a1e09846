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

#define BN_COMPARE_FABRICS_MAX 8
#define BN_COMPARE_SIZES 3

/* One fabric's column: plain data (it crosses a pipe from a worker). */
struct bn_compare_col {
    char fabric[BN_NAME_MAX];
    /* what the preset makes of the cluster (its keys as they ran) */
    char link_layer[16], flow_control[16], congestion_control[16], load_balancing[32],
        transport[24];
    double port_gbps, switch_ns;
    /* bnet p2p write_lat, 2 B, between hosts lat_src and lat_dst */
    uint32_t lat_src, lat_dst;
    double lat_p50_us, lat_p999_us;
    /* bn_run permutation: mean flow throughput over line rate, ECMP and the
     * fabric's own load balancing */
    double perm_ecmp_pct, perm_own_pct;
    /* bn_run incast of incast_senders senders to host 0 */
    uint32_t incast_senders;
    uint64_t incast_drops, incast_pauses;
    double incast_slowdown;      /* last completion over the receiver's line-rate time */
    /* bnet coll AllReduce at 1 MiB, 64 MiB, 1 GiB */
    uint64_t ar_bytes[BN_COMPARE_SIZES];
    double ar_busbw_gbs[BN_COMPARE_SIZES], ar_eff_pct[BN_COMPARE_SIZES];
    char ar_algo[BN_COMPARE_SIZES][16];
    /* the scenario's faults: the slowest convergence (has_faults false: none) */
    bool has_faults, converge_never;
    double converge_ms;
    double gbps_per_pflops;      /* 0: topology.gpu_tflops not stated */
    /* the planner's price and power table (cost.*, the preset's estimates) */
    bool cost_stated;
    double cost_per_gpu_usd, power_per_gpu_w;
    double wall_s;
};

struct bn_compare_results {
    struct bn_provenance prov;
    char scenario[BN_PATH_MAX];
    char topology[BN_NAME_MAX];
    uint32_t hosts;
    uint32_t ncols;
    struct bn_compare_col cols[BN_COMPARE_FABRICS_MAX];
    double wall_s;
};

/* Measure the scenario over each of compare.fabrics: each column is the
 * scenario with `fabric` set to the preset, then `sets` (the caller's
 * overrides, NULL-terminated; may be NULL) applied again on top. Up to
 * `jobs` fabrics run at once, each in a worker process; the results do not
 * depend on it. */
int bn_compare_run(const struct bn_scenario *sc, const char *const *sets, unsigned jobs,
                   struct bn_compare_results *out, struct bn_error *err);
void bn_compare_results_free(struct bn_compare_results *r);

void bn_compare_print(FILE *out, const struct bn_compare_results *r);
int bn_compare_write_json(const struct bn_compare_results *r, const char *path,
                          struct bn_error *err);
/* PATH (one row per figure, a column per fabric, RFC 4180). */
int bn_compare_write_csv(const struct bn_compare_results *r, const char *path,
                         struct bn_error *err);

#ifdef __cplusplus
}
#endif

#endif
