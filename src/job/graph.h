/*
 * A job's iteration as a dependency graph: compute phases, collectives on
 * communicators and point-to-point sends, each starting once the tasks it
 * depends on have finished. Plain data, like a collective schedule: the
 * network executor (driver/job/job_exec.c) runs it on the fabric, and
 * bn_jg_replay recomputes an iteration's time from per-task durations
 * (with some set to zero: what that communication exposed).
 *
 * Ranks are the job's (0 .. nranks-1), placed on hosts by the driver. A
 * *unit* is a set of ranks that compute in lockstep (a tensor-parallel
 * group of one pipeline stage and one data-parallel replica): the row of
 * the timeline a compute phase is drawn on. Builders (build.h):
 * transformer.c (a model's training iteration, or inference's prefill and
 * decode step) and aicb.c (a SimAI/AICB workload file).
 */
#ifndef BN_JOB_GRAPH_H
#define BN_JOB_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "bnet/error.h"
#include "coll/sched.h"

enum bn_task_kind { BN_TASK_COMPUTE = 0, BN_TASK_COLL, BN_TASK_SEND };

/* What a communication belongs to, for the breakdown (compute: none). */
enum bn_job_dim {
    BN_DIM_NONE = 0, BN_DIM_TP, BN_DIM_CP, BN_DIM_PP, BN_DIM_DP, BN_DIM_EP, BN_DIM_NDIMS
};

/* Where in the iteration a task sits (trace names, inference's steps). */
enum bn_job_phase {
    BN_PHASE_FORWARD = 0, BN_PHASE_BACKWARD, BN_PHASE_OPTIMIZER, BN_PHASE_PREFILL,
    BN_PHASE_DECODE, BN_PHASE_NPHASES
};

struct bn_task {
    double dur_us;        /* compute: its time; communication: fixed time if >= 0 */
    uint64_t bytes;       /* collective: nccl-tests size; send: per pair */
    uint32_t unit;        /* compute: its unit; communication: the unit that issues it */
    uint32_t comm;        /* collective: its communicator; send: first pair */
    uint32_t npairs;      /* send: pairs pair[comm .. comm + npairs) */
    uint32_t micro;       /* micro-batch (or inference step) */
    uint16_t layer;       /* UINT16_MAX: none */
    uint8_t kind;         /* enum bn_task_kind */
    uint8_t dim;          /* enum bn_job_dim */
    uint8_t op;           /* collective: enum bn_coll_kind */
    uint8_t phase;        /* enum bn_job_phase */
};

struct bn_job_graph {
    uint32_t nranks;
    struct bn_task *tasks;
    uint32_t ntasks, tasks_cap;
    /* communicators: ranks comm_rank[comm_off[c] .. comm_off[c+1]) */
    uint32_t *comm_off, *comm_rank;
    uint32_t ncomms, comms_cap, nmembers, members_cap;
    /* units: ranks unit_rank[unit_off[u] .. unit_off[u+1]) */
    uint32_t *unit_off, *unit_rank;
    uint32_t nunits, units_cap, nunit_ranks, unit_ranks_cap;
    uint32_t (*pair)[2];  /* sends: (source rank, destination rank) */
    uint32_t npairs, pairs_cap;
    uint32_t (*edges)[2]; /* (before, after) until finish */
    uint32_t nedges, edges_cap;
    uint32_t *succ_off, *succ, *ndeps; /* after finish */
    uint32_t *order;      /* after finish: a topological order */
};

void bn_jg_free(struct bn_job_graph *g);
/* A communicator or unit of n ranks; returns its index (UINT32_MAX: out of
 * memory, err filled). */
uint32_t bn_jg_comm(struct bn_job_graph *g, const uint32_t *ranks, uint32_t n,
                    struct bn_error *err);
uint32_t bn_jg_unit(struct bn_job_graph *g, const uint32_t *ranks, uint32_t n,
                    struct bn_error *err);
/* Append a task (t->kind etc. filled by the caller); returns its index
 * or UINT32_MAX. */
uint32_t bn_jg_task(struct bn_job_graph *g, const struct bn_task *t, struct bn_error *err);
/* A send task of its pairs (each moving `bytes`); returns its index. */
uint32_t bn_jg_send(struct bn_job_graph *g, struct bn_task t, const uint32_t (*pairs)[2],
                    uint32_t n, struct bn_error *err);
/* `after` starts once `before` is done (UINT32_MAX on either side: none). */
int bn_jg_dep(struct bn_job_graph *g, uint32_t before, uint32_t after, struct bn_error *err);
/* Successor lists, dependency counts, a topological order; BN_EINPUT on a
 * cycle. No more building after this. */
int bn_jg_finish(struct bn_job_graph *g, struct bn_error *err);

/* The iteration's time if each task i took dur[i] (us) and started as soon
 * as its dependencies finished; fin (may be NULL) gets each finish time.
 * Tasks whose dimension bit is set in `zero` (1 << dim) count as taking no
 * time; zero = 1 << BN_DIM_NDIMS zeroes every communication. */
double bn_jg_replay(const struct bn_job_graph *g, const double *dur, unsigned zero, double *fin);
#define BN_JG_ZERO_COMM (1u << BN_DIM_NDIMS)

const char *bn_job_dim_name(enum bn_job_dim d);      /* "tp", ... "compute" */
const char *bn_job_phase_name(enum bn_job_phase p);  /* "forward", ... */
uint32_t bn_job_dtype_bytes(unsigned dtype);         /* enum bn_sc_dtype */

#endif
