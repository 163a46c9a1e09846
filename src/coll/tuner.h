/*
 * The tuner: like NCCL's (src/graph/tuning.cc), it predicts each algorithm's
 * time from a latency term per step and a bandwidth term per byte, both
 * read off the topology, and picks the fastest per message size.
 */
#ifndef BN_COLL_TUNER_H
#define BN_COLL_TUNER_H

#include "coll/proto.h"
#include "coll/sched.h"

struct bn_coll_cost {
    double net_alpha_us;     /* one transfer across the backend fabric, end to end */
    double rail_alpha_us;    /* the same through one switch (a rail's leaf) */
    double nv_alpha_us;      /* one transfer inside an NVLink domain */
    double nic_gbps;         /* backend goodput per GPU (payload bits) */
    double nv_gbps;          /* NVLink goodput per GPU; 0 without NVLink domains */
    uint32_t domain_gpus;    /* GPUs per NVLink domain (0: none) */
    uint32_t agg_levels;     /* CollNet: aggregation tree height (0: no SHARP) */
    double agg_alpha_us;     /* CollNet: one level up or down, aggregation included */
    double nvls_eff;         /* NVLS: the NVSwitch engine's share of its ports' rate (0: none) */
    double nic_line_gbps, nv_line_gbps; /* the line rates under those goodputs */
    /* per algorithm family, when set: the alphas with that family's
     * software step latencies in place of the plain ones, and its launch
     * latency, once per collective (driver/coll/coll.h, bn_coll_steps) */
    struct bn_coll_family_cost {
        bool set;
        double net_alpha_us, nv_alpha_us, launch_us;
    } family[BN_FAMILIES];
};

/* The costs as NCCL protocol `proto` sees them: its wire bytes (the
 * goodputs times its efficiency) and its step latency (proto_step_us in
 * place of step_latency_us, which the alphas hold). */
void bn_coll_cost_proto(struct bn_coll_cost *c, const struct bn_coll_proto *proto,
                        double step_latency_us, double proto_step_us);
/* Predicted time of `algo` (NULL if it cannot run this collective). */
bool bn_coll_predict(const struct bn_coll_algo_ops *algo, const struct bn_coll_params *p,
                     const struct bn_coll_cost *c, double *us);
/* The bus bandwidth (GB/s) `algo` would reach on p with every link at its
 * line rate and no latency, by the same model: the line rate the
 * collective is measured against (0: no model). */
double bn_coll_line_busbw(const struct bn_coll_algo_ops *algo, const struct bn_coll_params *p,
                          const struct bn_coll_cost *c);
/* The busbw (GB/s) `algo` reaches on p with no latency when one side
 * alone bounds it, at its goodput: the NICs (`nics`, NVLink free) or
 * NVLink (NICs free). 0: no model, or that side carries none of it. */
double bn_coll_side_busbw(const struct bn_coll_algo_ops *algo, const struct bn_coll_params *p,
                          const struct bn_coll_cost *c, bool nics);
/* The fastest algorithm the registry has for p, and its prediction. */
const struct bn_coll_algo_ops *bn_coll_tune(const struct bn_coll_params *p,
                                            const struct bn_coll_cost *c, double *us);
/* The same among the algorithms that have an aggregate (ops' bulk). */
const struct bn_coll_algo_ops *bn_coll_tune_bulk(const struct bn_coll_params *p,
                                                 const struct bn_coll_cost *c, double *us);

#endif
