/*
 * Jobs (`bnet job`): training and inference jobs of a model's shape and
 * parallelism, and background traffic, sharing one simulated fabric
 * (docs/jobs.md). Each job's iteration is a graph of compute phases and
 * communications; the results say how long it took, how much of its
 * communication was exposed, per parallel dimension and per collective.
 */
#ifndef BNET_JOB_H
#define BNET_JOB_H

#include <stdint.h>
#include <stdio.h>

#include "bnet/bnet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A parallel dimension's communication per iteration. */
struct bn_job_dim_row {
    char dim[8];                /* "tp", "cp", "pp", "dp", "ep" */
    uint64_t count;             /* collectives (sends: each stage-to-stage hand-off) */
    uint64_t bytes;             /* their nccl-tests sizes, summed */
    double busy_us;             /* their durations, summed */
    double exposed_us;          /* the iteration minus the iteration with these taking no time */
};

/* Collectives of one kind: a dimension, operation, group size and size. */
struct bn_job_coll_row {
    char dim[8], op[16], algo[16];
    uint32_t ranks;
    uint64_t bytes;             /* nccl-tests `size` */
    uint64_t count;             /* per iteration */
    double mean_us, max_us;
    double busbw_gbs;           /* nccl-tests' bus bandwidth at the mean time */
    bool modelled;              /* timed by the tuner's model (one NVLink domain) */
};

struct bn_job_result {
    char name[BN_NAME_MAX], kind[16];
    uint32_t gpus, tp, cp, pp, dp, ep, micro_batches;
    uint32_t iterations;        /* completed */
    uint32_t first_host;        /* where rank 0 runs */
    uint32_t hosts_span;        /* highest host - lowest host + 1 */
    double start_us, end_us;
    double iteration_us;        /* mean over its iterations */
    double iteration_min_us, iteration_max_us;
    double compute_us;          /* the busiest unit's compute per iteration */
    double no_comm_us;          /* the iteration with communication taking no time */
    double exposed_comm_us;     /* iteration_us - no_comm_us */
    double bubble_us;           /* no_comm_us - compute_us: pipeline bubbles */
    double alone_us;            /* the same job alone on the fabric (0: not asked) */
    double slowdown;            /* iteration_us / alone_us */
    /* inference */
    double prefill_us, decode_us;  /* a prefill; a decode step (one token per request) */
    double decode_network_us;      /* of the decode step, what communication adds */
    double tokens_per_s;           /* decode: requests x replicas per decode step */
    /* background */
    uint64_t flows_done, bytes_done;
    double goodput_gbps;        /* over its hosts, while it ran */
    bool failed;                /* a queue pair gave up: the job stopped at failed_us */
    double failed_us;
    struct bn_job_dim_row dims[5];
    uint32_t ndims;
    struct bn_job_coll_row *colls;
    uint32_t ncolls;
    /* timeline rows: unit u holds ranks unit_first[u] .. + unit_ranks[u] */
    uint32_t *unit_first, *unit_ranks;
    uint32_t nunits;
};

/* One task's span, kept for the timeline (--trace). */
struct bn_job_span {
    double start_us, end_us;
    uint64_t bytes;
    uint32_t job, unit, iteration, micro, ranks;
    uint16_t layer;             /* UINT16_MAX: none */
    uint8_t kind;               /* 0 compute, 1 collective, 2 send */
    uint8_t dim, op, phase;
    bool modelled;
};

/* One transfer of a collective on the fabric (a step of its channel),
 * kept for the timeline; at most BN_JOB_STEPS_MAX of them. */
struct bn_job_step {
    double start_us, end_us;    /* posted; delivered */
    uint64_t bytes;
    uint32_t job, rank, peer, channel;
};
#define BN_JOB_STEPS_MAX 2000000u

struct bn_job_results {
    struct bn_provenance prov;
    char scenario[BN_PATH_MAX];
    struct bn_topo_info topo;
    struct bn_job_result *jobs;
    uint32_t njobs;
    uint64_t events, packet_hops, pkts_dropped, retransmits;
    uint64_t backend_tx_bytes;  /* sent on the backend fabric's ports */
    uint64_t nvlink_tx_bytes;   /* sent on NVLink ports */
    double simulated_us, wall_s;
    uint64_t peak_rss_bytes;
    bool interrupted;
    struct bn_job_span *spans;  /* with trace: every task of every iteration */
    uint64_t nspans;
    struct bn_job_step *steps;  /* with trace: collectives' transfers */
    uint64_t nsteps;
    bool steps_truncated;       /* more than BN_JOB_STEPS_MAX: the rest not kept */
};

struct bn_job_opts {
    bool trace;                 /* keep the spans */
};

/* Run the scenario's jobs: list (at least one). */
int bn_job_run(const struct bn_scenario *sc, const struct bn_job_opts *opts,
               struct bn_job_results *out, struct bn_error *err);
void bn_job_results_free(struct bn_job_results *r);

/* Reports: the table, JSON ("-": stdout), and the Chrome trace-event
 * timeline that Perfetto and chrome://tracing open. */
void bn_job_print(FILE *out, const struct bn_job_results *r);
int bn_job_write_json(const struct bn_job_results *r, const char *path, struct bn_error *err);
int bn_job_write_trace(const struct bn_job_results *r, const char *path, struct bn_error *err);
/* Names for span fields: dimension, collective op, phase. */
const char *bn_job_span_dim(uint8_t dim);
const char *bn_job_span_op(uint8_t op);
const char *bn_job_span_phase(uint8_t phase);

#ifdef __cplusplus
}
#endif

#endif
