/*
 * The engine: owns the model (topology, routes) and the runtime (fabric,
 * switches, NICs, flows), advances time by popping events and dispatching
 * them to the layer they belong to. Kept apart from the model so another
 * engine (flow-level, distributed) can drive the same fabric later.
 */
#ifndef BN_SIM_SIM_H
#define BN_SIM_SIM_H

#include "bnet/bnet.h"
#include "bnet/coll.h"
#include "coll/sched.h"
#include "link/fabric.h"
#include "nic/dcqcn.h"
#include "nic/ibcc.h"
#include "nic/nic.h"
#include "switch/switch.h"
#include "topo/routing.h"
#include "topo/topo.h"
#include "workload/workload.h"

#define BN_PATHS_MAX 64
#define BN_PATHS_SLOTS 128 /* a power of two, twice BN_PATHS_MAX: probes stay short */

/* The paths a flow's packets took, by the hash switches stamp on them, in
 * the order first seen. A sprayed flow crosses hundreds of paths on a large
 * fabric; `slot` finds a path's entry without scanning them all (open
 * addressing by id; 1 + its index, 0 = empty). */
struct bn_path_hist {
    uint32_t n, last;   /* read on every delivery: on the line of the first paths */
    struct {
        uint32_t count;
        uint16_t id;
    } path[BN_PATHS_MAX];
    uint8_t slot[BN_PATHS_SLOTS];
};

struct bn_flow_state {
    uint32_t qp;
    bn_time_t rx_done, tx_done;   /* BN_TIME_NEVER until then */
    struct bn_path_hist paths;
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
    struct bn_flow_list flows;
    struct bn_flow_state *fstate;
    uint32_t *qp_flow;          /* queue pair -> flow */
    uint32_t flows_done;
    uint64_t events;
    bool stopped_early;
    struct bn_series series;    /* observe.c; handed to the results */
    struct bn_dcqcn_params dcqcn;   /* congestion-control parameters (build_cc.c) */
    struct bn_ibcc_params ibcc;
    struct bn_nscc_params nscc;
    uint32_t series_cap;
    /* A driver in place of the flow workload (collectives, coll_run.c):
     * done() says when the run may end; on_event handles BN_EV_APP. */
    void *app;
    bool (*app_done)(void *app);
    int (*app_event)(void *app, const struct bn_event *ev, struct bn_error *err);
};

/* build.c: topology, routes, fabric, switches, NICs from the scenario. */
int bn_sim_build(struct bn_sim *s, const struct bn_scenario *sc, struct bn_error *err);
void bn_sim_free(struct bn_sim *s);
/* build_lb.c: load-balancing policies per switch tier. */
int bn_sim_build_lb(struct bn_sim *s, struct bn_error *err);
/* build_agg.c: SHARP aggregation units' ports and routes. */
int bn_sim_build_agg(struct bn_sim *s, struct bn_nic_params *np, struct bn_error *err);
/* build_cc.c: congestion-control parameters for the NICs. */
int bn_sim_build_cc(struct bn_sim *s, struct bn_nic_params *np, struct bn_error *err);
/* observe.c: time series. */
int bn_sim_observe_init(struct bn_sim *s, struct bn_error *err);
int bn_sim_observe_sample(struct bn_sim *s, struct bn_error *err);
void bn_series_free(struct bn_series *sr);

/* Propagation (cable length x delay per metre) plus FEC latency of a link. */
bn_time_t bn_sim_prop_ps(const struct bn_scenario *sc, const struct bn_topo_port *tp);
/* build_fc.c: flow-control module and lossless-mode state and checks. */
int bn_sim_build_fc(struct bn_sim *s, uint32_t max_wire, struct bn_error *err);
/* Describe the built topology (counts, diameter, bisection). */
void bn_sim_topo_info(const struct bn_sim *s, struct bn_topo_info *out);
/* run.c: advance time until the work is done (or sim.max_time_us); then
 * check packet conservation and completion. */
int bn_sim_loop(struct bn_sim *s, const struct bn_run_opts *opts, double t0, struct bn_error *err);
int bn_sim_check_ledger(const struct bn_sim *s, struct bn_error *err);
double bn_wall_now(void);
/* coll_run.c: run a finished schedule on the built fabric, endpoints on
 * hosts ep_host[]; fills the row's time, #wrong and fabric counters. */
int bn_coll_execute(struct bn_sim *s, const struct bn_sched *sched, const uint32_t *ep_host,
                    const struct bn_scenario *sc, struct bn_coll_row *row, struct bn_error *err);
/* collect.c: results after the run. */
int bn_sim_collect(struct bn_sim *s, struct bn_results *out, struct bn_error *err);

#endif
