/*
 * The jobs driver: the scenario's jobs (job/ graphs) placed on hosts
 * (job_place.c) and run together on one fabric (job_exec.c); each
 * collective lowered by the collective algorithms and the tuner, or timed
 * by the tuner's model inside an NVLink domain (job_colls.c); bn_job_run
 * and the results (job_run.c).
 */
#ifndef BN_DRIVER_JOB_H
#define BN_DRIVER_JOB_H

#include "bnet/job.h"
#include "coll/tuner.h"
#include "job/build.h"
#include "sim/sim.h"

/* A communicator's collective of one size, lowered once. */
struct bn_job_sched {
    uint8_t op;
    uint32_t nranks, type_bytes, gps;  /* gps: group's ranks per server */
    uint64_t bytes;
    struct bn_sched sched;
    char algo[16];
};

/* A job in the run. */
struct bn_job_rt {
    const struct bn_scenario_job *j;
    uint32_t index;             /* its scenario item */
    char name[BN_NAME_MAX];
    struct bn_job_graph g;
    struct bn_job_model m;
    uint32_t *host;             /* rank -> host */
    uint32_t *comm_host;        /* each communicator member's host (as g.comm_rank) */
    uint32_t *comm_gps;         /* per communicator: its members per server (1: spread) */
    bool *comm_modelled;        /* per communicator: inside one NVLink domain, timed by
                                 * the tuner's model (scaleup: model) */
    uint32_t base;              /* its first task's global id */
    uint32_t *waiting;          /* per task: dependencies not yet done */
    bn_time_t *t_start;         /* per task: when it started this iteration */
    double *dur;                /* per task: how long it took this iteration (us) */
    uint32_t *left;             /* per task: transfers or sends still to land */
    double *unit_compute;       /* per unit: its compute this iteration (us) */
    uint32_t tasks_left, iter;
    bn_time_t iter_start;
    bool started, finished, failed;
    double failed_us;
    struct bn_job_result *res;  /* where its figures accumulate */
    /* background: its flows (src, dst host), each reposted on completion */
    uint32_t (*flow)[2];
    uint32_t nflows, flows_out;
};

struct bn_jobs_exec {
    struct bn_sim *s;
    struct bn_job_rt *jobs;
    uint32_t njobs, fg_left;    /* foreground jobs not finished */
    /* schedules, shared by every communicator of the same shape */
    struct bn_job_sched **scheds;
    uint32_t nscheds, scheds_cap;
    struct bn_coll_cost cost;   /* the tuner's figures of the fabric */
    /* running collectives: their state, and posted transfers by cookie */
    struct bn_job_inst *inst;
    uint32_t ninst, inst_cap, inst_free;
    struct bn_job_post *post;
    uint32_t npost, post_cap, post_free;
    uint32_t *ready;            /* scratch: transfers that became ready */
    uint32_t ready_cap;
    uint64_t *todo;             /* tasks ready to start: job << 32 | task */
    uint32_t ntodo, todo_cap;
    /* queue pairs by (src host, dst host, channel, communicator) */
    uint64_t *qp_key;
    uint32_t *qp_val, qp_cap, qp_n;
    bn_time_t step_ps;
    struct bn_job_results *out;
    bool trace;                 /* keep every task's span */
    struct bn_error *err;
    int rc;
    /* On ranks (job_ranks.c, docs/parallel.md): every part runs the whole
     * driver, and a delivery, which only its receiver's part sees, reaches
     * the driver as its own event coll.step_latency_us later; the others
     * schedule it from a note at the window's end. */
    const struct bn_ranks *ranks;   /* on mpirun's ranks (NULL: one process) */
    struct bn_job_note *notes;      /* this part's deliveries since the last exchange */
    uint32_t nnotes, notes_cap;
};

/* A delivery heard on the other parts: when it landed, and its post. */
struct bn_job_note {
    bn_time_t when;
    uint32_t cookie, pad;
};

/* job_place.c: hosts for each job's ranks, in scenario order (each
 * placement takes from the hosts the earlier jobs left free). */
int bn_jobs_place(const struct bn_sim *s, struct bn_job_rt *jobs, uint32_t njobs,
                  struct bn_error *err);

/* job_colls.c: a collective task's schedule (lowered on first use);
 * whether a communicator is modelled, and its time. */
int bn_jobs_prepare_comms(struct bn_jobs_exec *x, struct bn_job_rt *jr, struct bn_error *err);
const struct bn_job_sched *bn_jobs_sched(struct bn_jobs_exec *x, const struct bn_job_rt *jr,
                                         const struct bn_task *t, struct bn_error *err);
/* The modelled time of task t (a collective inside one NVLink domain with
 * scaleup: model, or any communication with network: false); < 0: run it
 * on the fabric. */
double bn_jobs_model_us(const struct bn_jobs_exec *x, const struct bn_job_rt *jr,
                        const struct bn_task *t);
/* The algorithm a collective task runs (or is modelled as); "" for none. */
const char *bn_jobs_algo(struct bn_jobs_exec *x, const struct bn_job_rt *jr,
                         const struct bn_task *t);
void bn_jobs_scheds_free(struct bn_jobs_exec *x);

/* job_exec.c: run every job to its last iteration. */
int bn_jobs_execute(struct bn_jobs_exec *x, struct bn_error *err);
/* job_exec.c: schedule the driver's event for the delivery of post
 * `cookie`, which landed at `when` (it runs coll.step_latency_us later). */
void bn_jobs_hear(struct bn_jobs_exec *x, uint32_t cookie, bn_time_t when);

/* job_ranks.c: whether the ranks may hear of a delivery at the window's
 * end (coll.step_latency_us at least the lookahead: BN_OK), or why not
 * (BN_EINPUT, naming the key); the notes' ops. */
int bn_jobs_lookahead_check(struct bn_jobs_exec *x, struct bn_error *err);
extern const struct bn_driver_ranks_ops bn_jobs_ranks_ops;

/* job_stats.c: a task's figures, as it finishes; an iteration's, as the
 * last of its tasks does (its replays: what each dimension exposed). */
int bn_jobs_task_stats(struct bn_jobs_exec *x, struct bn_job_rt *jr, uint32_t t);
int bn_jobs_iteration_stats(struct bn_jobs_exec *x, struct bn_job_rt *jr, double iter_us);

#endif
