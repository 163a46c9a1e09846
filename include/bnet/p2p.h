/*
 * `bnet p2p`: perftest-style point-to-point tests (ib_write_bw,
 * ib_write_lat, ib_send_*, ib_read_*, ib_atomic_*) between hosts of the
 * simulated fabric, with perftest's columns (docs/endpoints.md).
 */
#ifndef BNET_P2P_H
#define BNET_P2P_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bnet/error.h"
#include "bnet/results.h"
#include "bnet/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One message size. Bandwidth tests fill the bw_ and msg_rate fields,
 * latency tests the t_ ones (from every message's own sample). */
struct bn_p2p_row {
    uint64_t bytes;              /* message size */
    uint32_t iterations;         /* messages per queue pair */
    double bw_peak_gbps;         /* best window of an eighth of the completions (>= qps x tx_depth) */
    double bw_avg_gbps;          /* all bytes over first post to last completion */
    double msg_rate_mpps;        /* messages over the same time, millions per second */
    /* a sample: WRITE and SEND half a ping-pong, READ and atomics the whole
     * operation; min, max, median (perftest's typical), mean, standard
     * deviation, nearest-rank P99 and P99.9 */
    double t_min_us, t_max_us, t_typical_us, t_avg_us, t_stdev_us, t_p99_us, t_p999_us;
};

/* One requester -> responder pair and its rows. */
struct bn_p2p_pair {
    uint32_t src, dst;           /* host indices */
    char src_name[BN_NAME_MAX], dst_name[BN_NAME_MAX]; /* their node names */
    uint32_t nrows;
    struct bn_p2p_row *rows;     /* [nrows], smallest size first */
};

/* A bn_p2p_run's results; the arrays are its own: bn_p2p_results_free. */
struct bn_p2p_results {
    struct bn_provenance prov;   /* what was simulated */
    char scenario[BN_PATH_MAX];  /* the scenario's source */
    char test[16];               /* "write_lat", ... (p2p.test) */
    bool latency;                /* a latency test (else bandwidth) */
    uint32_t qps, tx_depth;      /* queue pairs; messages outstanding per QP (1, 1: latency) */
    double line_gbps;            /* the requester's port */
    double goodput_gbps;         /* line rate less headers at the MTU: the large-message bound */
    double pcie_gbps;            /* the NIC's PCIe goodput (0: not modelled) */
    double msg_rate_mpps;        /* the NIC's message-rate ceiling (0: none) */
    uint32_t npairs;
    struct bn_p2p_pair *pairs;   /* [npairs]: each pair of p2p.hosts */
    bool interrupted;            /* bn_interrupt stopped it: the rows so far */
};

/* Run the scenario's p2p test (p2p.*) on its fabric: each pair of
 * p2p.hosts, each size. Row callback (may be NULL) as each is measured.
 * `out` need not be initialized; on BN_OK free it with
 * bn_p2p_results_free; on an error nothing is left to free. */
int bn_p2p_run(const struct bn_scenario *sc,
               void (*on_row)(void *ud, const struct bn_p2p_results *r, uint32_t pair,
                              uint32_t row),
               void *ud, struct bn_p2p_results *out, struct bn_error *err);
/* Free what r owns (pairs, their rows, prov) and leave it empty. */
void bn_p2p_results_free(struct bn_p2p_results *r);

/* perftest's table: a pair's header, a row, the closing line (write errors
 * are not reported). */
void bn_p2p_print_header(FILE *out, const struct bn_p2p_results *r, uint32_t pair);
void bn_p2p_print_row(FILE *out, const struct bn_p2p_results *r, uint32_t pair, uint32_t row);
void bn_p2p_print_footer(FILE *out, const struct bn_p2p_results *r);
/* The same with `flags` (enum bn_print_flags): BN_PRINT_GBITS for Gb/sec
 * (the functions above print it), else perftest's default MB/sec, 2^20
 * bytes per second; BN_PRINT_NO_SEED: no seed's figures after the table. */
void bn_p2p_print_header_opts(FILE *out, const struct bn_p2p_results *r, uint32_t pair,
                              unsigned flags);
void bn_p2p_print_row_opts(FILE *out, const struct bn_p2p_results *r, uint32_t pair,
                           uint32_t row, unsigned flags);
void bn_p2p_print_footer_opts(FILE *out, const struct bn_p2p_results *r, unsigned flags);
/* JSON to `path` ("-": stdout; docs/results.md). BN_OK, BN_EINPUT if it
 * cannot be written, or BN_ENOMEM. */
int bn_p2p_write_json(const struct bn_p2p_results *r, const char *path, struct bn_error *err);
/* The seed's figures (bnet/results.h) a test measures: the smallest
 * size's latency (latency tests), the best message rate (bandwidth). */
void bn_seed_of_p2p(const struct bn_p2p_results *r, struct bn_seed_report *out);

#ifdef __cplusplus
}
#endif

#endif
