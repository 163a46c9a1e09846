/*
 * The engine: the assembled model (topology, routes, fabric, switches,
 * NICs) and a loop that pops events and dispatches each to the layer that
 * owns its object, until the driver's work is done (or sim.max_time_us).
 * It knows no workload: drivers (src/driver: flows, collectives) inject
 * work through struct bn_driver_ops and hear completions back. Another
 * engine (flow-level, distributed) can drive the same model and drivers.
 *
 *   build.c      the assembly: a simulation from a scenario, each layer
 *                setting itself up from its keys
 *   build_agg.c  SHARP units' ports and fixed routes
 *   loop.c       the event loop, dispatch, prefetch hints, packet ledger
 *   plan.c       bnet topo's figures (no simulation)
 *   partition.c  sim.partitions: the cut, its lookahead, the windows' messages
 */
#ifndef BN_SIM_SIM_H
#define BN_SIM_SIM_H

#include "bnet/bnet.h"
#include "fault/fault.h"
#include "flow/flow.h"
#include "link/fabric.h"
#include "nic/nic.h"
#include "switch/switch.h"
#include "topo/routing.h"
#include "topo/topo.h"

struct bn_sim;

/*
 * What injects work: flows, a collective, later a training job or a fault
 * schedule. `self` is the driver's own state. start schedules its first
 * events; event handles its own (BN_EV_APP: obj and arg are its); complete
 * and arrival are the NICs' message completions and data arrivals (arrival
 * may be NULL); done says when the run may end; progress (may be NULL)
 * counts units for the progress line; prefetch (may be NULL) is a hint:
 * start loading what arrival will touch for `pk`, changing nothing.
 */
struct bn_driver_ops {
    const char *name;
    int (*start)(struct bn_sim *s, void *self, struct bn_error *err);
    int (*event)(struct bn_sim *s, void *self, const struct bn_event *ev, struct bn_error *err);
    void (*complete)(void *self, uint32_t cookie, enum bn_completion_side side, bn_time_t when);
    void (*arrival)(void *self, uint32_t qpid, const struct bn_packet *pk);
    bool (*done)(const void *self);
    void (*progress)(const void *self, uint32_t *done, uint32_t *total);
    void (*prefetch)(const void *self, const struct bn_packet *pk);
    /* A queue pair went to the error state (retries exhausted; may be NULL). */
    void (*qp_error)(void *self, uint32_t qpid, bn_time_t when);
    /* A count that grows whenever the work moves on (in-order data taken,
     * a flow done), for the livelock watchdog (may be NULL: no watchdog). */
    uint64_t (*work_mark)(const void *self);
};

struct bn_driver {
    const struct bn_driver_ops *ops;
    void *self;
};

struct bn_sim {
    const struct bn_scenario *sc;
    struct bn_topo topo;
    struct bn_routes routes;
    struct bn_fabric fab;
    struct bn_switches sw;
    struct bn_nics nics;
    struct bn_host_route *host_route;
    uint32_t *host_port;
    uint32_t *scaleup_port;     /* host -> NVSwitch port facing it (NVLink domains only) */
    uint32_t *host_nvlink;      /* host -> its own NVLink port (BN_NONE: none) */
    uint32_t *agg_port;         /* SHARP unit -> its port (build_agg.c) */
    uint32_t *agg_next;         /* [unit * nswitches + switch] -> next hop port */
    struct bn_faults *faults;   /* the scenario's fault schedule (NULL: none) */
    struct bn_flow_engine *flow; /* sim.fidelity: flow (NULL: packets) */
    struct bn_partition *part;  /* sim.partitions (NULL: one loop) */
    struct bn_driver drv;
    uint64_t events;
    bool stopped_early;
    bool interrupted;           /* bn_interrupt stopped it (stopped_early too) */
    bool stalled;               /* the livelock watchdog stopped it (stopped_early too) */
    uint64_t stall_mark, stall_delivered; /* work mark and frames delivered when... */
    bn_time_t stall_since;                /* ...the work last moved on */
};

/* build.c: the model from the scenario; bn_sim_free releases it. */
int bn_sim_build(struct bn_sim *s, const struct bn_scenario *sc, struct bn_error *err);
void bn_sim_free(struct bn_sim *s);
/* build_agg.c: SHARP aggregation units' ports and routes. */
int bn_sim_build_agg(struct bn_sim *s, struct bn_nic_params *np, struct bn_error *err);
/* Describe the built topology (counts, diameter, bisection). */
void bn_sim_topo_info(const struct bn_sim *s, struct bn_topo_info *out);

/* loop.c: attach a driver (its completions and arrivals) and start it. */
int bn_sim_attach(struct bn_sim *s, const struct bn_driver_ops *ops, void *self,
                  struct bn_error *err);
/* Advance time until the driver is done (or sim.max_time_us). */
int bn_sim_loop(struct bn_sim *s, const struct bn_run_opts *opts, double t0, struct bn_error *err);
/* Packet conservation, no loss in a lossless fabric, nothing left in
 * flight unless the run was cut short. */
int bn_sim_check_ledger(const struct bn_sim *s, struct bn_error *err);
double bn_wall_now(void);

/* partition.c: the fabric cut into sim.partitions parts (docs/parallel.md). */
struct bn_partition {
    uint32_t parts;
    uint32_t *owner;            /* per node: its part */
    uint32_t cut_links;
    bn_time_t lookahead;        /* the least propagation over a cut link */
    uint64_t *events;           /* per part: events of its ports and queue pairs */
    uint64_t unattributed;
    uint64_t windows, msgs, msgs_max;
    struct bn_cut cut;
};
/* Cut the built fabric (build.c calls it when sim.partitions is set). */
int bn_partition_init(struct bn_sim *s, struct bn_error *err);
void bn_partition_free(struct bn_sim *s);
/* The window from `next` (the earliest event): its end. */
bn_time_t bn_partition_window(struct bn_sim *s, bn_time_t next);
/* Deliver what crossed a cut in the window just run; -1 if out of memory. */
int bn_partition_deliver(struct bn_sim *s);
/* Count an event for its part. */
void bn_partition_count(struct bn_sim *s, const struct bn_event *ev);
void bn_partition_report(const struct bn_sim *s, struct bn_partition_stats *out);

#endif
