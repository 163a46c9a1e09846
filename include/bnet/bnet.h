/*
 * bnet: a packet-level simulator of the backend network of AI clusters.
 * The library entry points; the `bnet` command is a thin client of these.
 */
#ifndef BNET_BNET_H
#define BNET_BNET_H

#include "bnet/error.h"
#include "bnet/results.h"
#include "bnet/scenario.h"
#include "bnet/version.h"

#ifdef __cplusplus
extern "C" {
#endif

struct bn_progress {
    double simulated_us;
    double wall_s;
    uint64_t events, packet_hops;
    uint32_t flows_done, flows_total;
};

struct bn_run_opts {
    /* Called about every few hundred thousand events (may be NULL). */
    void (*progress)(void *ud, const struct bn_progress *p);
    void *progress_ud;
};

/* Ask the running simulation (bn_run, bn_coll_sweep) to stop at its next
 * check, every few hundred thousand events: it returns what it measured so
 * far, marked interrupted. Async-signal-safe (for a SIGINT handler). */
void bn_interrupt(void);

/* The memory the scenario will need, estimated from its size before
 * anything is built (docs/limits.md): for bnet topo (the topology and its
 * routing tables), for bn_run, or for bnet coll's largest row; and what is
 * available (sim.memory_limit_bytes, else the system's MemAvailable). */
enum bn_est_what { BN_EST_TOPO = 0, BN_EST_RUN = 1, BN_EST_COLL = 2, BN_EST_JOBS = 3 };
struct bn_mem_estimate {
    uint64_t topology_bytes, routes_bytes, fabric_bytes;
    uint64_t flows_bytes, series_bytes;   /* bn_run */
    uint64_t coll_bytes;                  /* bnet coll's largest schedule */
    uint64_t jobs_bytes;                  /* bn_job_run: the jobs' graphs and run state */
    uint64_t total_bytes, available_bytes;
    uint64_t hosts, switches, leaves;
    double route_s;   /* computing the routing tables: a search per leaf over every port */
};
int bn_estimate_memory(const struct bn_scenario *sc, enum bn_est_what what,
                       struct bn_mem_estimate *out, struct bn_error *err);
/* BN_EINPUT, naming the key that drives the largest part, when the
 * estimate passes what is available. bn_run, bn_coll_sweep and
 * bn_plan_topology's caller call it. */
int bn_check_memory(const struct bn_scenario *sc, enum bn_est_what what, struct bn_error *err);

/* Build the scenario's fabric, run its workload, fill `out`. */
int bn_run(const struct bn_scenario *sc, const struct bn_run_opts *opts,
           struct bn_results *out, struct bn_error *err);

/* Build the topology only and describe it. */
int bn_describe_topology(const struct bn_scenario *sc, struct bn_topo_info *out,
                         struct bn_error *err);

/* What `bnet topo` asks of a topology beyond its description. */
struct bn_topo_query {
    bool paths;               /* count minimal paths from host src to host dst */
    uint32_t src, dst;
    const char *dot_path;     /* write the graph as Graphviz DOT here ("-": stdout) */
};

/* Build the topology (no simulator state) and fill `out`, planner figures
 * included: per-tier capacity and oversubscription, links by rate, cables and
 * transceivers, Gb/s per PFLOPS, and what `q` (may be NULL) asks. */
int bn_plan_topology(const struct bn_scenario *sc, const struct bn_topo_query *q,
                     struct bn_topo_info *out, struct bn_error *err);

#ifdef __cplusplus
}
#endif

#endif
