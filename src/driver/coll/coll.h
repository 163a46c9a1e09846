/*
 * The collective driver (coll_exec.c): a finished schedule's transfers
 * posted as RDMA WRITEs as their dependencies are delivered; and the
 * nccl-tests sweep built on it (coll_sweep.c, bn_coll_sweep).
 */
#ifndef BN_DRIVER_COLL_H
#define BN_DRIVER_COLL_H

#include "bnet/coll.h"
#include "coll/nccl_model.h"
#include "coll/proto.h"
#include "coll/sched.h"
#include "coll/tuner.h"
#include "sim/sim.h"

/* The software latencies a collective's run adds to what the fabric
 * simulates (coll_nccl.c): once per iteration (NCCL's launch and set-up)
 * and before each step, on the network or inside an NVLink domain. */
struct bn_coll_steps {
    double launch_us, net_us, nv_us;
};

/* Run a finished schedule on the built fabric, endpoints on hosts
 * ep_host[], under NCCL protocol `proto` (NULL: none, coll.proto auto)
 * with the software latencies `steps`; fills the row's time, #wrong and
 * fabric counters. */
int bn_coll_execute(struct bn_sim *s, const struct bn_sched *sched, const uint32_t *ep_host,
                    const struct bn_scenario *sc, const struct bn_coll_proto *proto,
                    const struct bn_coll_steps *steps, const struct bn_ranks *ranks,
                    struct bn_coll_row *row, struct bn_error *err);

/* coll_chain.c: an aggregate's longest chain (coll/sched.h) as run, from
 * each transfer's post and delivery times at[2x], at[2x + 1]; leg_of
 * names a hop's queue pair (and its relay's, or UINT32_MAX) and its step
 * latency. The row takes at least this long; *head_us, its head. */
struct bn_chain_leg { uint32_t qp, relay_qp; bn_time_t step_ps; };
typedef void (*bn_chain_leg_fn)(void *ctx, const struct bn_xfer_view *t, struct bn_chain_leg *leg);
double bn_coll_chain_us(const struct bn_sim *s, const struct bn_sched *sc, const bn_time_t *at,
                        bn_chain_leg_fn leg_of, void *ctx, double *head_us);

/* The tuner's inputs, from the fabric as built (coll_sweep.c). */
void bn_coll_cost_of(const struct bn_sim *s, struct bn_coll_cost *c);

/* What NCCL's tuning model sees of this system (coll_nccl.c). */
void bn_coll_nccl_system(const struct bn_scenario *sc, const struct bn_coll_params *p,
                         const struct bn_coll_cost *c, struct bn_nccl_system *sys);
/* The software latencies of algorithm family f under `proto`, or under
 * coll.proto auto the protocol NCCL's model would pick for f at `bytes`
 * (its latencies only: the data moves as without a protocol). hw: the
 * fabric's costs before any protocol, whose alphas hold coll.step_latency_us. */
void bn_coll_steps_of(const struct bn_scenario *sc, const struct bn_nccl_system *sys,
                      const struct bn_coll_cost *hw, enum bn_coll_family f,
                      const struct bn_coll_proto *proto, enum bn_coll_kind kind, uint64_t bytes,
                      struct bn_coll_steps *out);
/* A ring's network step under `proto` as the tuner's alphas take it in
 * place of coll.step_latency_us (LL, LL128: their key less the fabric's
 * hop; Simple: coll.step_latency_us). */
double bn_coll_proto_step_us(const struct bn_scenario *sc, const struct bn_coll_proto *proto,
                             const struct bn_coll_cost *hw);
/* The pair NCCL's model picks for the row, within coll.algo and
 * coll.proto when they force one; false if it models none. */
bool bn_coll_nccl_choice(const struct bn_scenario *sc, const struct bn_nccl_system *sys,
                         enum bn_coll_kind kind, uint64_t bytes, struct bn_nccl_pick *out);

#endif
