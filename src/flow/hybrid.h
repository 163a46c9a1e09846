/*
 * Hybrid fidelity (sim.fidelity: hybrid, docs/hybrid.md): packets inside a
 * region of the fabric (sim.region), flows outside it, in one event loop.
 * A queue pair whose path (data or ACKs) enters a region node runs at
 * packet level from end to end; every other one is a flow-level flow. On
 * the links outside the region that both kinds cross, each sees the other
 * as follows:
 * - flows see packets as flows: a packet queue pair with data competes in
 *   the max-min solve as a flow over the shared links alone (inside the
 *   region the packets decide its pace; its rate there is not used), so
 *   the flows' shares leave room for it;
 * - packets see flows as capacity: every sim.hybrid_update_us, such a
 *   link's packet rate is its rate less the flows' load on it.
 */
#ifndef BN_FLOW_HYBRID_H
#define BN_FLOW_HYBRID_H

#include <stdbool.h>
#include <stdint.h>

#include "bnet/error.h"
#include "bnet/results.h"
#include "bnet/scenario.h"
#include "flow/flow.h"
#include "topo/topo.h"

/* Most hops of a "fault:I:N" region. */
#define BN_HYBRID_HOPS_MAX 8
/* The highest load of a shared port's M/D/1 backlog: 49 frames. */
#define BN_HYBRID_RHO_MAX 0.99

/* Over an initialised flow engine: the region of sc's sim.region on t
 * (refused naming the key if it is malformed or empty); the NICs keep
 * the scenario's congestion control for the packet queue pairs. A
 * "job:NAME" region is set by bn_hybrid_place_job once the job is placed;
 * "fault:I:N" is the nodes within N hops of faults[I]'s target. */
int bn_hybrid_init(struct bn_flow_engine *e, const struct bn_topo *t, const struct bn_scenario *sc,
                   struct bn_error *err);
void bn_hybrid_free(struct bn_flow_engine *e);
/* The job a "job:" region names, or UINT32_MAX. */
uint32_t bn_hybrid_job(const struct bn_flow_engine *e);
/* The region is known (true if e is not hybrid). */
bool bn_hybrid_ready(const struct bn_flow_engine *e);
/* A "job:" region: the job's hosts, closed as "hosts:" closes them. */
void bn_hybrid_place_job(struct bn_flow_engine *e, const struct bn_topo *t, const uint32_t *host,
                         uint32_t n);
/* After qpid's walk (e->walk's uses, before they are given to the
 * solver): true if they enter the region; then only the uses outside it
 * are kept, and the links they name become shared. */
bool bn_hybrid_classify(struct bn_flow_engine *e, uint32_t qpid);
/* bn_nics.carry in hybrid: true if packets carry qpid (sent on to the
 * NIC's packet path), false if it is a flow. */
bool bn_hybrid_carry(struct bn_flow_engine *e, uint32_t qpid);
/* Does the link of port p touch the region (an end is a region node)? */
bool bn_hybrid_touches(const struct bn_flow_engine *e, uint32_t p);
/* BN_EV_FLOW_HYBRID. */
int bn_hybrid_update(struct bn_flow_engine *e, struct bn_error *err);
void bn_hybrid_get_stats(const struct bn_flow_engine *e, struct bn_hybrid_stats *out);

#endif
