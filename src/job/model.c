/*
 * A transformer job's degrees, compute times and communication sizes
 * (model.h has the sources).
 */
#include <math.h>
#include <stdio.h>

#include "core/fail_key.h"
#include "job/graph.h"
#include "job/model.h"

#define BAD(key, fmt, ...) bn_fail_item(err, BN_EINPUT, "jobs", index, key, fmt, __VA_ARGS__)

/* Degrees: dp from gpus when not given, and the products checked. */
static int degrees(const struct bn_scenario *sc, uint32_t index, struct bn_job_model *m,
                   struct bn_error *err)
{
    const struct bn_scenario_job *j = &sc->jobs[index];
    uint64_t mp = (uint64_t)j->tp * j->cp * j->pp;
    m->tp = j->tp;
    m->cp = j->cp;
    m->pp = j->pp;
    m->ep = j->ep;
    if (j->dp)
        m->dp = j->dp;
    else if (j->gpus && j->gpus % mp == 0)
        m->dp = (uint32_t)(j->gpus / mp);
    else if (j->gpus)
        return BAD("gpus", "%u GPUs do not split into tp x cp x pp = %llu", j->gpus,
                   (unsigned long long)mp);
    else
        m->dp = 1;
    uint64_t gpus = mp * m->dp;
    if (gpus > (1u << 24))
        return BAD("dp", "tp x cp x pp x dp = %llu GPUs (at most 16777216)",
                   (unsigned long long)gpus);
    if (j->gpus && j->gpus != gpus)
        return BAD("gpus", "%u GPUs, but tp x cp x pp x dp = %llu", j->gpus,
                   (unsigned long long)gpus);
    m->gpus = (uint32_t)gpus;
    if (j->layers < j->pp)
        return BAD("pp", "%u stages for %u layers (a stage needs a layer)", j->pp, j->layers);
    if (j->ep > 1 && !j->experts)
        return BAD("ep", "expert parallelism without experts (set jobs[%u].experts)", index);
    if (j->ep > 1 && (m->dp % j->ep || j->experts % j->ep))
        return BAD("ep", "%u does not divide dp = %u and experts = %u", j->ep, m->dp,
                   j->experts);
    if (j->experts && j->top_k > j->experts)
        return BAD("top_k", "%u of %u experts", j->top_k, j->experts);
    if (j->heads % j->tp || (j->kv_heads && j->kv_heads > j->heads))
        return BAD("tp", "%u heads (%u key/value heads) do not split over tp = %u", j->heads,
                   j->kv_heads ? j->kv_heads : j->heads, j->tp);
    if (j->seq_len % j->cp)
        return BAD("cp", "a sequence of %u tokens does not split over cp = %u", j->seq_len,
                   j->cp);
    uint64_t per_iter = (uint64_t)j->micro_batch * m->dp;
    uint64_t global = j->global_batch ? j->global_batch : per_iter * m->pp;
    if (global % per_iter)
        return BAD("global_batch", "%llu sequences are not a multiple of micro_batch x dp = "
                   "%llu", (unsigned long long)global, (unsigned long long)per_iter);
    if (global / per_iter > 1000000)
        return BAD("global_batch", "%llu micro-batches per iteration (at most 1000000)",
                   (unsigned long long)(global / per_iter));
    m->micro = sc->jobs[index].kind == BN_SC_JOB_INFERENCE ? 1 : (uint32_t)(global / per_iter);
    return BN_OK;
}

/* FLOPs to microseconds at the job's sustained rate. */
static double flop_us(const struct bn_scenario_job *j, double flops)
{
    return flops / (j->gpu_tflops * 1e12 * j->utilization) * 1e6;
}

/* A pass over `tokens` tokens per unit, each attending to `ctx` tokens;
 * with hbm > 0 no faster than reading the weights (and `kv_bytes` of KV
 * cache) at that bandwidth: the roofline of a memory-bound decode. */
struct pass_in {
    double tokens, ctx, kv_bytes;
    bool from_flops;
};

static void pass(const struct bn_scenario_job *j, const struct bn_job_model *m,
                 const struct pass_in *in, struct bn_job_pass *out)
{
    double h = j->hidden, s = in->ctx, t = in->tokens;
    double ffn = j->ffn_hidden ? j->ffn_hidden : 4.0 * h;
    double kv = h * (j->kv_heads ? j->kv_heads : j->heads) / j->heads;
    double mats = j->gated_mlp ? 3 : 2, e = bn_job_dtype_bytes(j->dtype);
    double attn_params = 2 * h * h + 2 * h * kv; /* Q, O; K, V (grouped-query) */
    double mlp_params = mats * h * ffn;
    double attn_fl = 2 * t * attn_params + 4 * t * s * h;
    double mlp_fl = 2 * t * mlp_params * (m->moe ? j->top_k : 1) +
                    (m->moe ? 2 * t * h * j->experts : 0);
    /* bytes of weights a rank reads: its shard, all its local experts */
    double attn_w = attn_params * e / m->tp + in->kv_bytes;
    double mlp_w = mlp_params * e / m->tp * (m->moe ? (double)j->experts / m->ep : 1);
    double hbm = j->gpu_hbm_gbs * 1e3; /* bytes per us */
    if (!in->from_flops) { /* given per layer: split as the FLOPs split */
        out->attn_us = j->forward_us * attn_fl / (attn_fl + mlp_fl);
        out->mlp_us = j->forward_us - out->attn_us;
    } else {
        out->attn_us = fmax(flop_us(j, attn_fl / m->tp), attn_w / hbm);
        out->mlp_us = fmax(flop_us(j, mlp_fl / m->tp), mlp_w / hbm);
        out->logits_us = fmax(flop_us(j, 2 * t * h * j->vocab / m->tp),
                              (double)j->vocab * h * e / m->tp / hbm);
    }
    out->tp_bytes = (uint64_t)(t * h * e);
    /* A stage's output is replicated over its TP group (after g), and each
     * TP rank sends all of it to its peer in the next stage: tp copies
     * cross the boundary (Narayanan et al. SC'21, sec. 4.1). Their
     * scatter/gather sends a 1/tp slice each and all-gathers it in the
     * receiving stage. With sequence parallelism a rank holds only its
     * 1/tp of the tokens and sends that, with nothing to gather. */
    double act = t * h * e;
    bool sliced = m->tp > 1 && (j->sequence_parallel || j->pp_scatter_gather);
    out->pp_bytes = (uint64_t)ceil(sliced ? act / m->tp : act);
    out->pp_gather_bytes = sliced && !j->sequence_parallel ? (uint64_t)ceil(act) : 0;
    out->cp_bytes = m->cp > 1 ? (uint64_t)(m->cp * 2 * (t * kv / m->tp) * e) : 0;
    double ep_tokens = j->sequence_parallel ? t / m->tp : t;
    out->ep_bytes = m->moe ? (uint64_t)(ep_tokens * j->top_k * h * e) : 0;
}

int bn_job_model(const struct bn_scenario *sc, uint32_t index, struct bn_job_model *m,
                 struct bn_error *err)
{
    const struct bn_scenario_job *j = &sc->jobs[index];
    *m = (struct bn_job_model){0};
    int rc = degrees(sc, index, m, err);
    if (rc != BN_OK)
        return rc;
    if (j->kind == BN_SC_JOB_INFERENCE && m->cp > 1)
        return BAD("cp", "%u: context parallelism is modelled for training only", m->cp);
    m->moe = j->experts > 0;
    m->tied = !j->untie_embeddings;
    double h = j->hidden, s = j->seq_len, b = j->micro_batch;
    double kv = h * (j->kv_heads ? j->kv_heads : j->heads) / j->heads;
    double e = bn_job_dtype_bytes(j->dtype), g = bn_job_dtype_bytes(j->grad_dtype);
    bool flops = !(j->forward_us > 0);
    pass(j, m, &(struct pass_in){.tokens = b * s / m->cp, .ctx = s, .from_flops = flops},
         &m->fwd);
    /* a decode step: one new token per request, attending to the prompt
     * held in the KV cache (2 b s kv bytes per layer, split over TP) */
    pass(j, m, &(struct pass_in){.tokens = b, .ctx = s, .kv_bytes = 2 * b * s * kv * e / m->tp,
                                 .from_flops = flops}, &m->decode);
    double fwd = m->fwd.attn_us + m->fwd.mlp_us;
    m->bwd_factor = j->backward_us > 0 && fwd > 0 ? j->backward_us / fwd : 2;
    double ffn = j->ffn_hidden ? j->ffn_hidden : 4.0 * h;
    double mlp_params = (j->gated_mlp ? 3 : 2) * h * ffn;
    double dense = 2 * h * h + 2 * h * kv + (m->moe ? h * j->experts : mlp_params);
    m->grad_dense_layer = (uint64_t)(dense / m->tp * g);
    m->grad_expert_layer = m->moe ? (uint64_t)((double)j->experts / m->ep * mlp_params / m->tp * g)
                                  : 0;
    m->grad_embedding = (uint64_t)((double)j->vocab * h / m->tp * g);
    return BN_OK;
}

uint64_t bn_job_task_estimate(const struct bn_scenario_job *j)
{
    if (j->kind == BN_SC_JOB_BACKGROUND)
        return 0;
    double mp = (double)j->tp * j->cp * j->pp;
    double dp = j->dp ? j->dp : j->gpus ? fmax(1, j->gpus / mp) : 1;
    double micro = j->global_batch ? fmax(1, j->global_batch / (j->micro_batch * dp)) : j->pp;
    if (j->kind == BN_SC_JOB_INFERENCE)
        micro = 1;
    /* per layer and pass: two compute phases, TP collectives per cp, CP's
     * per tp, EP's per tp x cp */
    double steps = 2 + (j->tp > 1 ? 4.0 * j->cp : 0) + (j->cp > 1 ? j->tp : 0) +
                   (j->experts && j->ep > 1 ? 2.0 * j->tp * j->cp : 0);
    return (uint64_t)(dp * j->pp * micro * 2 * ((double)j->layers / j->pp) * steps + dp * j->pp *
                      micro * 4);
}
