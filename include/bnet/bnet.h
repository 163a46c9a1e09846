/*
 * bnet: a packet-level simulator of the backend network of AI clusters.
 * The library entry points; the `bnet` command is a thin client of these.
 */
#ifndef BNET_BNET_H
#define BNET_BNET_H

#include <stdbool.h>
#include <stdint.h>

#include "bnet/error.h"
#include "bnet/results.h"
#include "bnet/scenario.h"
#include "bnet/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A running simulation's state, as handed to bn_run_opts.progress. */
struct bn_progress {
    double simulated_us;      /* simulated time reached */
    double wall_s;            /* wall-clock seconds since the call started (setup included) */
    uint64_t events, packet_hops; /* counts so far: events processed, packets sent on a port */
    uint32_t flows_done, flows_total; /* flows finished (completed or failed) of all flows */
};

/* The processes a partitioned run is spread over (docs/parallel.md), one
 * part each: what they exchange, through the caller's transport (the
 * bnet command's is MPI: src/cli/dist.c). Every process calls bn_run with
 * the same scenario; part `rank` of `size` runs here. Both calls are
 * collective and return 0, or nonzero after a failure of the transport.
 * alltoall: `blk` bytes from send + r * blk go to rank r, recv + r * blk
 * receives rank r's. alltoallv: send_len[r] bytes, consecutive from
 * `send`, go to rank r; rank r's recv_len[r] bytes (known from an
 * alltoall before) arrive consecutive in `recv`. abort ends every process
 * after a failure on this one, saying why (status: the exit status). */
struct bn_ranks {
    int rank, size;
    void *ud;
    int (*alltoall)(void *ud, const void *send, void *recv, size_t blk);
    int (*alltoallv)(void *ud, const void *send, const size_t *send_len, void *recv,
                     const size_t *recv_len);
    void (*abort)(void *ud, int status, const char *why);
    int local;      /* ranks on this machine, sharing its memory (0: taken as size) */
};

/* What the progress watcher (bn_progress_watch) hears of any run of the
 * process, a few times a second of wall time. */
struct bn_run_progress {
    double simulated_us;      /* simulated time of the run going on (-1: none here) */
    double wall_s;            /* wall-clock seconds since the run started (setup included) */
    uint64_t events, packet_hops; /* the run's counts so far */
    uint32_t done, total;     /* the driver's units: flows (bn_run), transfers of every
                               * iteration (a collective), tasks of every iteration (jobs) */
    double share;             /* of the call's whole work done, 0 to 1 (-1: not known) */
    uint32_t parts_done, parts; /* the call's runs (coll: rows, p2p: sizes, compare:
                                 * fabrics, sweep: points) over, of all (0: one run) */
};
typedef void (*bn_run_progress_fn)(void *ud, const struct bn_run_progress *p);
/* Every later run of the process (bn_run, bn_coll_sweep*, bn_job_run,
 * bn_p2p_run, bn_compare_run*, bn_sweep_run*) reports to fn (NULL: none
 * does); worker processes report nothing, their parent as each task ends.
 * Not for a signal handler; the command sets it once. */
void bn_progress_watch(bn_run_progress_fn fn, void *ud);

/* Options of bn_run; the whole struct may be NULL. */
struct bn_run_opts {
    /* Called a few times a second of wall time (may be NULL). */
    void (*progress)(void *ud, const struct bn_progress *p);
    void *progress_ud;        /* passed back as `ud` */
    /* The run's parts on separate processes (NULL: all in this one). Only
     * rank 0's results are whole; the others return theirs empty. */
    const struct bn_ranks *ranks;
};

/* Ask the running simulation (bn_run, bn_coll_sweep, bn_job_run, bn_p2p_run)
 * to stop at its next check, a fraction of a second of wall time apart: it returns
 * BN_OK with what it measured so far, marked interrupted. Async-signal-safe
 * (for a SIGINT handler). The request stays until bn_interrupt_clear: later
 * runs in the same process stop at their first check too. */
void bn_interrupt(void);
/* The same, for a wall-time limit (--max-wall): the JSON's stop_reason says
 * "max_wall" instead of "signal". Async-signal-safe. */
void bn_interrupt_max_wall(void);
/* Why a stop was requested: "max_wall", "signal" (bn_interrupt), or NULL
 * for none (the JSON's stop_reason, docs/results.md). */
const char *bn_interrupt_reason(void);
/* Withdraw a bn_interrupt request, before starting another run in the same
 * process (a library user's; the command runs once). Async-signal-safe. */
void bn_interrupt_clear(void);

/* The memory the scenario will need, estimated from its size before
 * anything is built (docs/limits.md): for bnet topo (the topology and its
 * routing tables), for bn_run, or for bnet coll's largest row; and what is
 * available (sim.memory_limit_bytes, else the system's MemAvailable). */
enum bn_est_what {
    BN_EST_TOPO = 0,          /* the topology and its routing tables (bnet topo, bn_p2p_run) */
    BN_EST_RUN = 1,           /* bn_run: the fabric, flows and time series too */
    BN_EST_COLL = 2,          /* bn_coll_sweep: the fabric and its largest row's schedule */
    BN_EST_JOBS = 3           /* bn_job_run: the fabric and the jobs' graphs */
};
struct bn_mem_estimate {
    uint64_t topology_bytes, routes_bytes, fabric_bytes; /* graph; routing tables; ports, NICs */
    uint64_t flows_bytes, series_bytes;   /* bn_run */
    uint64_t coll_bytes;                  /* bnet coll's largest schedule */
    uint64_t jobs_bytes;                  /* bn_job_run: the jobs' graphs and run state */
    uint64_t total_bytes, available_bytes; /* the sum of the parts; the limit it is held to */
    uint64_t hosts, switches, leaves;     /* counts: the topology's size (leaves: leaf switches) */
    double route_s;   /* computing the routing tables: a search per leaf over every port */
};
/* Fill `out` (nothing to free). BN_OK, or the topology's error (BN_EINPUT:
 * a bad topology or topology file). */
int bn_estimate_memory(const struct bn_scenario *sc, enum bn_est_what what,
                       struct bn_mem_estimate *out, struct bn_error *err);
/* BN_EINPUT, naming the key that drives the largest part, when the
 * estimate passes what is available; else BN_OK. bn_run, bn_coll_sweep,
 * bn_job_run, bn_p2p_run and bn_plan_topology's caller call it. */
int bn_check_memory(const struct bn_scenario *sc, enum bn_est_what what, struct bn_error *err);

/* The work a run will take and its wall time, estimated before anything is
 * built (docs/limits.md, "Time"): at packet level its events, from the
 * data packets it moves and the events a packet costs (measured); at flow
 * level its rate recomputations (a flow or transfer starting or ending);
 * the wall time at the per-event and per-recomputation costs of
 * docs/performance.md, the routing tables' computation included. For
 * BN_EST_RUN and BN_EST_COLL (a sweep's rows in one process, one after
 * another); the other kinds get the routes' time only. */
struct bn_time_estimate {
    double events;            /* packet level (0 at flow level, or not known: a flow file) */
    double recomputations;    /* flow level (0 at packet level) */
    double wall_s;            /* all of it, route_s included */
    double route_s;           /* computing the routing tables */
};
/* Fill `out`. BN_OK, or the topology's error (as bn_estimate_memory). */
int bn_estimate_time(const struct bn_scenario *sc, enum bn_est_what what,
                     struct bn_time_estimate *out, struct bn_error *err);

/* Build the scenario's fabric, run its workload, fill `out` (opts may be
 * NULL). `out` need not be initialized; on BN_OK the caller frees it with
 * bn_results_free; on an error nothing is left to free. */
int bn_run(const struct bn_scenario *sc, const struct bn_run_opts *opts,
           struct bn_results *out, struct bn_error *err);

/* Build the scenario's fabric (no workload) and describe its topology:
 * `out` without the planner's figures (planned false). Nothing to free. */
int bn_describe_topology(const struct bn_scenario *sc, struct bn_topo_info *out,
                         struct bn_error *err);

/* What `bnet topo` asks of a topology beyond its description. */
struct bn_topo_query {
    bool paths;               /* count minimal paths from host src to host dst */
    uint32_t src, dst;        /* host indices */
    const char *dot_path;     /* write the graph as Graphviz DOT here ("-": stdout; NULL: no) */
};

/* Build the topology (no simulator state) and fill `out`, planner figures
 * included: per-tier capacity and oversubscription, links by rate, cables and
 * transceivers, Gb/s per PFLOPS, and what `q` (may be NULL) asks. Nothing
 * to free. BN_OK, or the error (BN_EINPUT: bad topology, host index or
 * DOT file). */
int bn_plan_topology(const struct bn_scenario *sc, const struct bn_topo_query *q,
                     struct bn_topo_info *out, struct bn_error *err);

#ifdef __cplusplus
}
#endif

#endif
