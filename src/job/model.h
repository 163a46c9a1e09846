/*
 * A transformer's per-GPU costs from its shape and parallelism: the time
 * of each compute phase and the size of each communication, per layer and
 * micro-batch. FLOPs as Narayanan et al., "Efficient Large-Scale Language
 * Model Training on GPU Clusters Using Megatron-LM" (SC'21), eq. 2-3: a
 * layer's forward is 2 FLOPs per parameter per token plus 4 b s^2 h for
 * attention, its backward twice that. Communication sizes as Megatron-LM
 * moves them (Shoeybi et al. 2019; Korthikanti et al. 2022 for sequence
 * parallelism); between pipeline stages as Narayanan et al. sec. 4.1
 * describe, without or with their scatter/gather.
 */
#ifndef BN_JOB_MODEL_H
#define BN_JOB_MODEL_H

#include <stdint.h>

#include "bnet/error.h"
#include "bnet/scenario.h"

/* One forward pass of a layer over a micro-batch (or a decode step), per
 * rank: compute times (us) and communication sizes (nccl-tests `size`). */
struct bn_job_pass {
    double attn_us, mlp_us;  /* attention block, MLP (or experts) block */
    double logits_us;        /* the output layer, on the last stage */
    uint64_t tp_bytes;       /* the activation a TP all-reduce sums */
    uint64_t cp_bytes;       /* keys and values a CP all-gather collects */
    uint64_t pp_bytes;       /* one rank's activation to the next stage */
    uint64_t pp_gather_bytes; /* scatter/gather: the receiving stage's TP all-gather (0: none) */
    uint64_t ep_bytes;       /* one rank's tokens out in an EP all-to-all */
};

struct bn_job_model {
    uint32_t tp, cp, pp, dp, ep, gpus;
    uint32_t micro;          /* micro-batches per iteration */
    bool moe;
    struct bn_job_pass fwd;  /* training's forward; inference's prefill */
    struct bn_job_pass decode; /* inference: one token per request */
    double bwd_factor;       /* backward time over forward's */
    /* embedding and output layer one weight (Megatron-LM's default; Press
     * and Wolf 2017): its gradient counted once, on the first stage; with
     * pp > 1 the last stage keeps a copy, the two summed after DP */
    bool tied;
    /* gradients per rank (bytes at grad_dtype) */
    uint64_t grad_dense_layer, grad_expert_layer, grad_embedding;
};

/* Degrees and sizes of job `j` (scenario item `index`, for messages):
 * BN_EINPUT naming the key when they do not fit together. */
int bn_job_model(const struct bn_scenario *sc, uint32_t index, struct bn_job_model *m,
                 struct bn_error *err);

/* About how many tasks job j's graph will hold, from its keys alone (for
 * the memory estimate, before anything is built). */
uint64_t bn_job_task_estimate(const struct bn_scenario_job *j);

#endif
