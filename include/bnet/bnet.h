/*
 * bnet: a packet-level simulator of the backend network of AI clusters.
 * The library entry points; the `bnet` command is a thin client of these.
 */
#ifndef BNET_BNET_H
#define BNET_BNET_H

#include "bnet/error.h"
#include "bnet/results.h"
#include "bnet/scenario.h"

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

#define BNET_VERSION "0.1.0"

#endif
