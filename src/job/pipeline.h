/*
 * The parallel training (or inference) iteration of any layered model, as
 * Megatron-LM runs it, from a plan: the parallel degrees and, per layer,
 * the steps of its forward and backward (compute, or a collective on the
 * layer's tensor-, context- or expert-parallel group) and the gradients
 * its backward completes. The transformer builder (transformer.c) and the
 * workload-file reader (aicb.c) both make a plan; pipeline.c turns it
 * into a graph (graph.h).
 *
 * Ranks are numbered tensor-parallel fastest, then context, data and
 * pipeline parallel (Megatron's default order tp-cp-dp-pp), so a TP group
 * is consecutive ranks (inside a server when it fits) and a DP group the
 * same GPU of each replica (one rail). A unit is the tp x cp ranks of one
 * pipeline stage of one replica. Expert-parallel groups are ep
 * consecutive replicas; the expert-data-parallel groups the replicas at
 * the same place in each such block.
 */
#ifndef BN_JOB_PIPELINE_H
#define BN_JOB_PIPELINE_H

#include "job/graph.h"

enum bn_step_kind {
    BN_STEP_COMPUTE = 0, /* the unit computes for `us` */
    BN_STEP_TP,          /* a collective on each of the unit's TP groups */
    BN_STEP_CP,          /* on each of its CP groups */
    BN_STEP_EP,          /* on the EP groups of its block of replicas (all wait) */
};

#define BN_JOB_STEPS_MAX 16

struct bn_job_step {
    double us;           /* compute */
    uint64_t bytes;      /* collective: nccl-tests size */
    uint8_t kind;        /* enum bn_step_kind */
    uint8_t op;          /* collective: enum bn_coll_kind */
};

struct bn_job_layer {
    struct bn_job_step step[2][BN_JOB_STEPS_MAX]; /* [0] forward, [1] backward, in order */
    uint8_t nsteps[2];
    /* per rank, what its backward of the last micro-batch completes: reduced
     * over the DP group (dense) and the expert-DP group (expert) */
    uint64_t grad_bytes, expert_grad_bytes;
    uint8_t grad_op;     /* how (enum bn_coll_kind; buckets are all-reduced) */
};

struct bn_job_plan {
    uint32_t tp, cp, pp, dp, ep, micro;
    bool inference;      /* a prefill (layer), then a decode step (decode) */
    const struct bn_job_layer *layer;
    /* stage p: layer[stage_first[p] .. stage_first[p + 1]); NULL: every
     * stage runs layer[0 .. nlayers) */
    const uint32_t *stage_first;
    uint32_t nlayers;
    uint64_t pp_bytes;   /* a rank's activations to the next stage, per micro-batch */
    /* what the receiving stage all-gathers over each TP group after the
     * send (scatter/gather: the whole activation); 0: nothing */
    uint64_t pp_gather_bytes;
    const struct bn_job_layer *decode;
    uint64_t decode_pp_bytes, decode_pp_gather_bytes;
    /* per rank, a shared weight's gradient that the first and the last
     * stage both hold (tied embeddings): all-reduced between the two after
     * their DP reductions, before their optimizer steps; 0: none */
    uint64_t tied_grad_bytes;
    double bucket_bytes; /* gradients gathered in buckets this big; 0: a layer's alone */
    bool overlap;        /* reduced during the last backward (false: after it) */
    double optimizer_us;
};

int bn_job_build_pipeline(const struct bn_job_plan *plan, struct bn_job_graph *g,
                          struct bn_error *err);

#endif
