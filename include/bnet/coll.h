/*
 * Collective sweeps (`bnet coll`): one row per message size, in the columns
 * of NVIDIA's nccl-tests, measured on the packet-level fabric.
 */
#ifndef BNET_COLL_H
#define BNET_COLL_H

#include <stdint.h>
#include <stdio.h>

#include "bnet/error.h"
#include "bnet/results.h"
#include "bnet/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

struct bn_coll_row {
    uint64_t size;              /* nccl-tests `size` (bytes) */
    uint64_t count;             /* nccl-tests `count` (elements) */
    double time_us;             /* mean over coll.iters iterations */
    double algbw_gbs, busbw_gbs; /* GB/s, 1 GB = 1e9 B */
    uint64_t wrong;             /* elements not as the collective demands */
    char algo[16];              /* the algorithm that ran (tuner's choice under auto) */
    uint32_t channels;
    double predicted_us;        /* the tuner's estimate for that algorithm */
    uint64_t packet_hops, events;
    uint64_t pkts_dropped, retransmits;
    double wall_s;              /* simulation wall time of the row */
    /* with faults (src/fault): frames lost to them; the same row without
     * them (time_us over it: the slowdown); and whether the collective
     * failed: a queue pair's retries ran out at failed_us, at rank
     * failed_rank's failed_step-th send (to failed_peer) of that iteration */
    uint64_t pkts_lost;
    double baseline_us;
    bool failed;
    double failed_us;
    uint32_t failed_rank, failed_peer, failed_step;
};

struct bn_coll_results {
    struct bn_provenance prov;
    char op[BN_NAME_MAX], datatype[BN_NAME_MAX], redop[BN_NAME_MAX];
    uint32_t type_bytes;
    int32_t root;               /* -1 where the collective has none, as nccl-tests prints */
    uint32_t nranks, gpus_per_server;
    double nic_gbps;            /* backend line rate per GPU */
    double nic_goodput_gbps;    /* line rate x payload / wire bytes of a full packet */
    struct bn_topo_info topo;
    struct bn_coll_row *rows;
    uint32_t nrows;
    double wall_s;
    uint64_t peak_rss_bytes;
    bool interrupted;           /* bn_interrupt stopped the sweep: the rows before it */
};

/* Called after each row (may be NULL): `r` holds the rows so far, the
 * header fields and the topology. */
typedef void (*bn_coll_row_fn)(void *ud, const struct bn_coll_results *r, uint32_t row);

/* Run the sweep the scenario's coll.* keys describe. */
int bn_coll_sweep(const struct bn_scenario *sc, struct bn_coll_results *out,
                  struct bn_error *err);
int bn_coll_sweep_rows(const struct bn_scenario *sc, bn_coll_row_fn on_row, void *ud,
                       struct bn_coll_results *out, struct bn_error *err);
void bn_coll_results_free(struct bn_coll_results *r);

/* Reports (report/coll_table.c, report/json.c). The table whole, or piece
 * by piece as rows arrive. */
void bn_coll_print_table(FILE *out, const struct bn_coll_results *r);
void bn_coll_print_header(FILE *out, const struct bn_coll_results *r);
void bn_coll_print_row(FILE *out, const struct bn_coll_results *r, uint32_t row);
void bn_coll_print_footer(FILE *out, const struct bn_coll_results *r);
/* The seed's figures (bnet/results.h) a sweep measures: its AllReduce's
 * bus bandwidth at the largest size against the line rate. */
void bn_seed_of_coll(const struct bn_coll_results *r, struct bn_seed_report *out);
/* JSON to `path` ("-": stdout). */
int bn_coll_write_json(const struct bn_coll_results *r, const char *path, struct bn_error *err);

#ifdef __cplusplus
}
#endif

#endif
