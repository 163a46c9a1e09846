/*
 * A transformer job's plan (pipeline.h) from its shape (model.c's costs):
 * per layer, Megatron-LM's steps. A layer's forward is [CP all-gather of
 * keys and values] f, attention, g, f, [EP all-to-all] MLP [EP
 * all-to-all], g; f and g are the tensor-parallel operators around each
 * block (Shoeybi et al. 2019, fig. 3): forward, f is nothing (with
 * sequence parallelism an all-gather) and g an all-reduce (a
 * reduce-scatter); backward, the other way round (Korthikanti et al.
 * 2022). The backward runs the steps in reverse. The output layer is one
 * more layer on the last stage, its weights' gradients the vocabulary's:
 * untied, its own; tied (Megatron-LM's default), the embedding's, which
 * layer 0 completes on one stage, and which with pp > 1 the last stage
 * holds a copy of, summed with the first stage's after DP (Megatron-LM's
 * embedding group).
 */
#include <stdlib.h>

#include "job/build.h"
#include "job/pipeline.h"

enum part { P_CP, P_F, P_ATTN, P_G, P_EP, P_MLP };

static void add(struct bn_job_layer *l, int bwd, uint8_t kind, uint8_t op, double us,
                uint64_t bytes)
{
    l->step[bwd][l->nsteps[bwd]++] = (struct bn_job_step){.kind = kind, .op = op, .us = us,
                                                          .bytes = bytes};
}

/* A part of the layer as a step, forward or backward (nothing where the
 * degrees make it none). */
static void part(struct bn_job_layer *l, int bwd, enum part pt, const struct bn_scenario_job *j,
                 const struct bn_job_model *m, const struct bn_job_pass *ps)
{
    bool sp = j->sequence_parallel;
    double f = bwd ? m->bwd_factor : 1;
    switch (pt) {
    case P_CP:
        if (m->cp > 1)
            add(l, bwd, BN_STEP_CP, bwd ? BN_COLL_REDUCESCATTER : BN_COLL_ALLGATHER, 0,
                ps->cp_bytes);
        break;
    case P_F:
    case P_G:
        if (m->tp > 1 && ((pt == P_G) != bwd))
            add(l, bwd, BN_STEP_TP, sp ? BN_COLL_REDUCESCATTER : BN_COLL_ALLREDUCE, 0,
                ps->tp_bytes);
        else if (m->tp > 1 && sp)
            add(l, bwd, BN_STEP_TP, BN_COLL_ALLGATHER, 0, ps->tp_bytes);
        break;
    case P_ATTN:
        add(l, bwd, BN_STEP_COMPUTE, 0, ps->attn_us * f, 0);
        break;
    case P_MLP:
        add(l, bwd, BN_STEP_COMPUTE, 0, ps->mlp_us * f, 0);
        break;
    case P_EP:
        if (m->moe && m->ep > 1)
            add(l, bwd, BN_STEP_EP, BN_COLL_ALLTOALL, 0, ps->ep_bytes);
        break;
    }
}

/* layers[0 .. L) the transformer's, layers[L] the output layer. */
static void make_layers(const struct bn_scenario_job *j, const struct bn_job_model *m,
                        const struct bn_job_pass *ps, bool backward, struct bn_job_layer *out)
{
    static const enum part order[] = {P_CP, P_F, P_ATTN, P_G, P_F, P_EP, P_MLP, P_EP, P_G};
    const size_t n = sizeof order / sizeof order[0];
    for (uint32_t k = 0; k < j->layers; k++) {
        struct bn_job_layer *l = &out[k];
        for (size_t s = 0; s < n; s++)
            part(l, 0, order[s], j, m, ps);
        for (size_t s = 0; backward && s < n; s++)
            part(l, 1, order[n - 1 - s], j, m, ps);
        l->grad_op = BN_COLL_ALLREDUCE;
        l->grad_bytes = backward ? m->grad_dense_layer + (k == 0 ? m->grad_embedding : 0) : 0;
        l->expert_grad_bytes = backward ? m->grad_expert_layer : 0;
    }
    struct bn_job_layer *o = &out[j->layers];
    if (ps->logits_us > 0) {
        add(o, 0, BN_STEP_COMPUTE, 0, ps->logits_us, 0);
        if (backward)
            add(o, 1, BN_STEP_COMPUTE, 0, ps->logits_us * m->bwd_factor, 0);
    }
    /* tied on one stage: the output layer's gradient is the embedding's,
     * complete once layer 0's backward (the lookup) is done */
    o->grad_op = BN_COLL_ALLREDUCE;
    o->grad_bytes = backward && (!m->tied || m->pp > 1) ? m->grad_embedding : 0;
}

int bn_job_build_transformer(const struct bn_scenario_job *j, const struct bn_job_model *m,
                             struct bn_job_graph *g, struct bn_error *err)
{
    bool infer = j->kind == BN_SC_JOB_INFERENCE;
    size_t n = (size_t)j->layers + 1;
    struct bn_job_layer *layer = calloc(n, sizeof *layer);
    struct bn_job_layer *decode = infer ? calloc(n, sizeof *decode) : NULL;
    uint32_t *first = malloc(((size_t)m->pp + 1) * sizeof *first);
    if (!layer || !first || (infer && !decode)) {
        free(layer);
        free(decode);
        free(first);
        return bn_fail(err, BN_ENOMEM, "out of memory building a job's layers");
    }
    make_layers(j, m, &m->fwd, !infer, layer);
    if (infer)
        make_layers(j, m, &m->decode, false, decode);
    /* layers split evenly, the first stages taking one more of the rest;
     * the output layer goes to the last */
    uint32_t base = j->layers / m->pp, extra = j->layers % m->pp;
    for (uint32_t p = 0; p <= m->pp; p++)
        first[p] = p * base + (p < extra ? p : extra);
    first[m->pp] = j->layers + 1;
    struct bn_job_plan plan = {
        .tp = m->tp, .cp = m->cp, .pp = m->pp, .dp = m->dp, .ep = m->ep, .micro = m->micro,
        .inference = infer, .layer = layer, .stage_first = first, .pp_bytes = m->fwd.pp_bytes,
        .pp_gather_bytes = m->fwd.pp_gather_bytes,
        .decode = decode, .decode_pp_bytes = m->decode.pp_bytes,
        .decode_pp_gather_bytes = m->decode.pp_gather_bytes,
        .tied_grad_bytes = !infer && m->tied && m->pp > 1 ? m->grad_embedding : 0,
        .bucket_bytes = j->bucket_mb * 1048576, .overlap = j->overlap, /* DDP's MiB */
        .optimizer_us = j->optimizer_us,
    };
    int rc = bn_job_build_pipeline(&plan, g, err);
    free(layer);
    free(decode);
    free(first);
    return rc;
}
