/*
 * The engine: owns the model (topology, routes) and the runtime (fabric,
 * switches, NICs, flows), advances time by popping events and dispatching
 * them to the layer they belong to. Kept apart from the model so another
 * engine (flow-level, distributed) can drive the same fabric later.
 */
#ifndef BN_SIM_SIM_H
#define BN_SIM_SIM_H

#include "bnet/bnet.h"
#include "link/fabric.h"
#include "nic/nic.h"
#include "switch/switch.h"
#include "topo/routing.h"
#include "topo/topo.h"
#include "workload/workload.h"

struct bn_flow_state {
    uint32_t qp;
    bn_time_t rx_done, tx_done;   /* BN_TIME_NEVER until then */
};

struct bn_sim {
    const struct bn_scenario *sc;
    struct bn_topo topo;
    struct bn_routes routes;
    struct bn_fabric fab;
    struct bn_switches sw;
    struct bn_nics nics;
    uint32_t *host_leaf, *deliver_port, *host_port;
    struct bn_flow_list flows;
    struct bn_flow_state *fstate;
    uint32_t flows_done;
    uint64_t events;
    bool stopped_early;
};

/* build.c: topology, routes, fabric, switches, NICs from the scenario. */
int bn_sim_build(struct bn_sim *s, const struct bn_scenario *sc, struct bn_error *err);
void bn_sim_free(struct bn_sim *s);
/* Describe the built topology (counts, diameter, bisection). */
void bn_sim_topo_info(const struct bn_sim *s, struct bn_topo_info *out);
/* collect.c: results after the run. */
int bn_sim_collect(const struct bn_sim *s, struct bn_results *out, struct bn_error *err);

#endif
