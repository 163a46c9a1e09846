/*
 * Jobs (`bnet job`): training and inference jobs of a model's shape and
 * parallelism, and background traffic, sharing one simulated fabric
 * (docs/jobs.md). Each job's iteration is a graph of compute phases and
 * communications; the results say how long it took, how much of its
 * communication was exposed, per parallel dimension and per collective.
 */
#ifndef BNET_JOB_H
#define BNET_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bnet/bnet.h"
#include "bnet/error.h"
#include "bnet/results.h"
#include "bnet/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A parallel dimension's communication per iteration. */
struct bn_job_dim_row {
    char dim[8];                /* "tp", "cp", "pp", "dp", "ep" */
    uint64_t count;             /* collectives (sends: each stage-to-stage hand-off), count */
    uint64_t bytes;             /* their nccl-tests sizes summed (sends: every pair's bytes) */
    double busy_us;             /* their durations, summed */
    double exposed_us;          /* the iteration minus the iteration with these taking no time */
};

/* Collectives of one kind: a dimension, operation, group size and size. */
struct bn_job_coll_row {
    char dim[8], op[16], algo[16]; /* "dp"; "allreduce"; the algorithm that ran or was modelled */
    uint32_t ranks;             /* group size (sends: pairs) */
    uint64_t bytes;             /* nccl-tests `size` (sends: per pair) */
    uint64_t count;             /* per iteration */
    double mean_us, max_us;     /* each one's duration */
    double busbw_gbs;           /* nccl-tests' bus bandwidth at the mean time */
    bool modelled;              /* timed by the tuner's model (one NVLink domain) */
};

/* One job of the scenario's jobs: list; times are simulated. */
struct bn_job_result {
    char name[BN_NAME_MAX], kind[16]; /* jobs[].name (or "job<index>"); "training", ... */
    bool decodes;               /* inference: the prefill and decode figures below hold */
    bool traffic;               /* background traffic: flows, not iterations (the
                                 * background figures below hold) */
    uint32_t gpus, tp, cp, pp, dp, ep, micro_batches; /* GPUs, degrees; per iteration */
    uint32_t iterations;        /* completed */
    uint32_t first_host;        /* where rank 0 runs */
    uint32_t hosts_span;        /* highest host - lowest host + 1 */
    double start_us, end_us;    /* when it started and finished */
    double iteration_us;        /* mean over its iterations */
    double iteration_min_us, iteration_max_us; /* shortest and longest iteration */
    double compute_us;          /* the busiest unit's compute per iteration */
    double no_comm_us;          /* the iteration with communication taking no time */
    double exposed_comm_us;     /* iteration_us - no_comm_us */
    double bubble_us;           /* no_comm_us - compute_us: pipeline bubbles */
    double alone_us;            /* the same job alone on the fabric (0: not asked) */
    double slowdown;            /* iteration_us / alone_us (0: not asked) */
    /* inference */
    double prefill_us, decode_us;  /* a prefill; a decode step (one token per request) */
    double decode_network_us;      /* of the decode step, what communication adds */
    double tokens_per_s;           /* decode: requests x replicas per decode step */
    /* background: flows completed (count) and their payload bytes */
    uint64_t flows_done, bytes_done;
    double goodput_gbps;        /* over its hosts, while it ran */
    bool failed;                /* a queue pair gave up: the job stopped at failed_us */
    double failed_us;           /* simulated time */
    struct bn_job_dim_row dims[5]; /* [ndims]: tp, cp, pp, dp, ep */
    uint32_t ndims;
    struct bn_job_coll_row *colls; /* [ncolls]: per kind of collective */
    uint32_t ncolls;
    /* timeline rows: unit u holds ranks unit_first[u] .. + unit_ranks[u] */
    uint32_t *unit_first, *unit_ranks;
    uint32_t nunits;
};

/* One task's span, kept for the timeline (--trace). */
struct bn_job_span {
    double start_us, end_us;    /* simulated */
    uint64_t bytes;             /* collective: nccl-tests size; send: per pair; compute: 0 */
    /* index in jobs[]; timeline row (the issuing unit); iteration (from 0)
     * and micro-batch (or inference step) indices; ranks of the collective,
     * pairs of a send, 0 for compute */
    uint32_t job, unit, iteration, micro, ranks;
    uint16_t layer;             /* UINT16_MAX: none */
    uint8_t kind;               /* 0 compute, 1 collective, 2 send */
    uint8_t dim, op, phase;     /* named by bn_job_span_dim / _op / _phase */
    bool modelled;              /* timed by the tuner's model (one NVLink domain) */
};

/* One transfer of a collective on the fabric (a step of its channel),
 * kept for the timeline; at most BN_JOB_STEPS_MAX of them. */
struct bn_job_step {
    double start_us, end_us;    /* posted; delivered */
    uint64_t bytes;             /* the transfer's payload */
    uint32_t job, rank, peer, channel; /* index in jobs[]; sending and receiving job ranks */
};
#define BN_JOB_STEPS_MAX 2000000u

/* A bn_job_run's results; the arrays are its own: bn_job_results_free. */
struct bn_job_results {
    struct bn_provenance prov;  /* what was simulated */
    char scenario[BN_PATH_MAX]; /* the scenario's source */
    struct bn_topo_info topo;   /* the fabric as built (no planner figures) */
    struct bn_job_result *jobs; /* [njobs], in the scenario's order */
    uint32_t njobs;
    /* counts: events, packets sent on a port, packets dropped, data packets resent */
    uint64_t events, packet_hops, pkts_dropped, retransmits;
    uint64_t backend_tx_bytes;  /* sent on the backend fabric's ports */
    uint64_t nvlink_tx_bytes;   /* sent on NVLink ports */
    double simulated_us, wall_s; /* simulated time; wall-clock seconds of the whole call */
    uint64_t peak_rss_bytes;    /* the process's peak resident memory */
    bool interrupted;           /* bn_interrupt stopped it: the figures so far */
    struct bn_job_span *spans;  /* with trace: every task of every iteration */
    uint64_t nspans;
    struct bn_job_step *steps;  /* with trace: collectives' transfers */
    uint64_t nsteps;
    bool steps_truncated;       /* more than BN_JOB_STEPS_MAX: the rest not kept */
};

/* Options of bn_job_run; the whole struct may be NULL. */
struct bn_job_opts {
    bool trace;                 /* keep the spans */
    /* mpirun's ranks, one part of sim.partitions each (NULL: one process;
     * docs/parallel.md): rank 0's results are the whole run's */
    const struct bn_ranks *ranks;
};

/* Run the scenario's jobs: list (at least one). `out` need not be
 * initialized; on BN_OK free it with bn_job_results_free; on an error
 * nothing is left to free. A job a fault stopped is still BN_OK, marked
 * failed. */
int bn_job_run(const struct bn_scenario *sc, const struct bn_job_opts *opts,
               struct bn_job_results *out, struct bn_error *err);
/* Free what r owns (jobs and their arrays, spans, steps, prov). */
void bn_job_results_free(struct bn_job_results *r);

/* Reports: the table (write errors not reported), JSON ("-": stdout), and
 * the Chrome trace-event timeline that Perfetto and chrome://tracing open.
 * The writers return BN_OK, BN_EINPUT if it cannot be written, or BN_ENOMEM. */
void bn_job_print(FILE *out, const struct bn_job_results *r);
int bn_job_write_json(const struct bn_job_results *r, const char *path, struct bn_error *err);
int bn_job_write_trace(const struct bn_job_results *r, const char *path, struct bn_error *err);
/* Names for span fields: dimension ("compute", "tp", ...), collective op,
 * phase ("forward", ...). Static strings; "?" or "unknown" out of range. */
const char *bn_job_span_dim(uint8_t dim);
const char *bn_job_span_op(uint8_t op);
const char *bn_job_span_phase(uint8_t phase);

#ifdef __cplusplus
}
#endif

#endif
