/*
 * Collective sweeps (`bnet coll`): one row per message size, in the columns
 * of NVIDIA's nccl-tests, measured on the packet-level fabric.
 */
#ifndef BNET_COLL_H
#define BNET_COLL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bnet/error.h"
#include "bnet/results.h"
#include "bnet/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One message size of the sweep; times are simulated. */
struct bn_coll_row {
    uint64_t size;              /* nccl-tests `size` (bytes) */
    uint64_t count;             /* nccl-tests `count` (elements) */
    double time_us;             /* mean over coll.iters iterations */
    double algbw_gbs, busbw_gbs; /* GB/s, 1 GB = 1e9 B */
    uint64_t wrong;             /* elements not as the collective demands */
    char algo[16];              /* the algorithm that ran (tuner's choice under auto) */
    uint32_t channels;          /* channels that ran (count) */
    double predicted_us;        /* the tuner's estimate for that algorithm (0: no model) */
    /* the busbw that algorithm reaches with every link at its line rate
     * and no latency, by the tuner's model (GB/s; 0: no model): what the
     * seed's "AllReduce busbw / line rate" divides by */
    double line_busbw_gbs;
    /* the busbw bound of each side alone, at its goodput, by the same
     * model with no latency (GB/s; 0: no model, or the side carries none
     * of it): the NICs (what NCCL users compare a collective across
     * servers with) and NVLink */
    double nic_busbw_gbs, nvlink_busbw_gbs;
    uint64_t packet_hops, events; /* simulator work for the row, every iteration (counts) */
    uint64_t pkts_dropped, retransmits; /* packets dropped in the fabric; data packets resent */
    double wall_s;              /* simulation wall time of the row */
    /* with faults (src/fault): frames lost to them; the same row without
     * them (time_us over it: the slowdown); and whether the collective
     * failed: a queue pair's retries ran out at failed_us, at rank
     * failed_rank's failed_step-th send (to failed_peer) of that iteration */
    uint64_t pkts_lost;         /* frames lost to faults */
    double baseline_us;         /* time_us without the faults (0: no baseline ran) */
    bool failed;                /* then time_us and the bandwidths are 0 */
    double failed_us;           /* simulated time into the row's run */
    uint32_t failed_rank, failed_peer, failed_step; /* ranks; the send's number, from 1 */
    /* coll.in_place: as many iterations again after the timed ones, in
     * place (nccl-tests' second group of columns); 0 when not run */
    double inplace_time_us, inplace_algbw_gbs, inplace_busbw_gbs;
    uint64_t inplace_wrong;
    char proto[8];              /* the protocol that ran ("ll", "ll128", "simple"), or "" (auto) */
    /* NCCL 2.20.3's tuning model for this row (coll/nccl_model.c): the pair
     * it picks ("Ring", "LL"; "" where it models none) and its time; with
     * coll.tuner both, that pair's measured time (0: not run) */
    char nccl_algo[16], nccl_proto[8];
    double nccl_predicted_us, nccl_time_us;
    /* the row's element type and reduction (nccl-tests -d, -o; "all" runs
     * a row per type and per reduction) */
    char type[16], redop[16];
    uint32_t type_bytes;
    struct bn_partition_stats partition; /* sim.partitions (parts 0: not partitioned) */
};

/* A sweep's results. rows and prov are its own: bn_coll_results_free. */
struct bn_coll_results {
    struct bn_provenance prov;  /* what was simulated */
    /* coll.* names; datatype and redop may be "all": each row has its own */
    char op[BN_NAME_MAX], datatype[BN_NAME_MAX], redop[BN_NAME_MAX];
    bool allreduce;             /* op is AllReduce (the seed report's busbw figure) */
    uint32_t type_bytes;        /* bytes per element of datatype (0: "all") */
    int32_t root;               /* -1 where the collective has none, as nccl-tests prints */
    uint32_t nranks, gpus_per_server; /* GPU ranks (= hosts); topology.gpus_per_server */
    double nic_gbps;            /* backend line rate per GPU */
    double nic_goodput_gbps;    /* line rate x payload / wire bytes of a full packet */
    struct bn_topo_info topo;   /* the fabric as built (no planner figures) */
    struct bn_coll_row *rows;   /* [nrows], smallest size first */
    uint32_t nrows;
    double wall_s;              /* wall-clock seconds of the whole sweep */
    uint64_t peak_rss_bytes;    /* the process's peak resident memory */
    bool interrupted;           /* bn_interrupt stopped the sweep: the rows before it */
    /* nccl-tests' header line: the sweep (coll.*), and the launch the
     * caller describes (nthreads x ngpus GPUs per process; 0: 1 x nranks) */
    uint64_t min_bytes, max_bytes, step_bytes;
    uint32_t step_factor, warmup, iters, check;
    bool in_place;
    uint32_t nthreads, ngpus;
    bool bnet_columns;          /* print bnet's columns (algo, channels) after nccl-tests' */
};

/* Called after each row (may be NULL): `r` holds the rows so far, the
 * header fields and the topology. */
typedef void (*bn_coll_row_fn)(void *ud, const struct bn_coll_results *r, uint32_t row);

/* The channels a collective of the scenario runs on: coll.channels, or
 * for 0 NCCL's choice (2 per NIC on servers of GPUs with a NIC each). */
uint32_t bn_coll_channels(const struct bn_scenario *sc);

/* Run the sweep the scenario's coll.* keys describe. `out` need not be
 * initialized; on BN_OK the caller frees it with bn_coll_results_free; on
 * an error nothing is left to free. A row whose collective failed (faults)
 * is still BN_OK, marked failed. */
int bn_coll_sweep(const struct bn_scenario *sc, struct bn_coll_results *out,
                  struct bn_error *err);
/* The same, calling on_row(ud, ...) after each row (as above). */
int bn_coll_sweep_rows(const struct bn_scenario *sc, bn_coll_row_fn on_row, void *ud,
                       struct bn_coll_results *out, struct bn_error *err);
/* The same with rows measured in `jobs` worker processes at once (0: as
 * many as the processors, the rows and the memory of the largest row allow;
 * 1: in this process). Rows are reported in order of size, each as soon as
 * those before it are in, and the results are the same for any `jobs`. A
 * count whose rows would not fit in memory together is refused
 * (BN_EINPUT). */
int bn_coll_sweep_jobs(const struct bn_scenario *sc, unsigned jobs, bn_coll_row_fn on_row,
                       void *ud, struct bn_coll_results *out, struct bn_error *err);
/* The rows i with i % nparts == part only (0 <= part < nparts), measured
 * as bn_coll_sweep_jobs measures them: one share of the sweep, for a
 * process among nparts (bnet coll under mpirun gathers the shares on rank
 * 0). out->nrows counts every row; the others keep their size, count,
 * type and reduction, with nothing measured. */
int bn_coll_sweep_part(const struct bn_scenario *sc, unsigned jobs, uint32_t part,
                       uint32_t nparts, struct bn_coll_results *out, struct bn_error *err);
/* The sweep with each row's fabric cut into one part per process of
 * `ranks` (sim.partitions must be their number; docs/parallel.md): every
 * process calls it alike, and rank 0's results are whole (the others'
 * rows hold nothing measured). In this process's turn, row by row. */
struct bn_ranks;
int bn_coll_sweep_ranks(const struct bn_scenario *sc, const struct bn_ranks *ranks,
                        bn_coll_row_fn on_row, void *ud, struct bn_coll_results *out,
                        struct bn_error *err);
/* Free what r owns (rows, prov) and leave it empty. */
void bn_coll_results_free(struct bn_coll_results *r);

/* Reports: nccl-tests' table to `out`, whole or piece by piece as rows
 * arrive (write errors are not reported). */
void bn_coll_print_table(FILE *out, const struct bn_coll_results *r);
void bn_coll_print_header(FILE *out, const struct bn_coll_results *r);
void bn_coll_print_row(FILE *out, const struct bn_coll_results *r, uint32_t row);
void bn_coll_print_footer(FILE *out, const struct bn_coll_results *r);
/* The footer with `flags` (enum bn_print_flags: BN_PRINT_NO_SEED). */
void bn_coll_print_footer_opts(FILE *out, const struct bn_coll_results *r, unsigned flags);
/* The seed's figures (bnet/results.h) a sweep measures: its AllReduce's
 * bus bandwidth at the largest size against the line rate. */
void bn_seed_of_coll(const struct bn_coll_results *r, struct bn_seed_report *out);
/* The rows as CSV to `path` (nccl-tests -F; docs/results.md); BN_OK or
 * BN_EINPUT naming the path. */
int bn_coll_write_csv(const struct bn_coll_results *r, const char *path, struct bn_error *err);
/* JSON to `path` ("-": stdout; docs/results.md). BN_OK, BN_EINPUT if it
 * cannot be written, or BN_ENOMEM. */
int bn_coll_write_json(const struct bn_coll_results *r, const char *path, struct bn_error *err);

#ifdef __cplusplus
}
#endif

#endif
