/*
 * A plan's iteration as a graph (pipeline.h has the rank layout). Training:
 * each stage runs the 1F1B schedule (PipeDream-Flush; Narayanan et al.
 * SC'21, fig. 4): pp - stage - 1 warm-up forwards, then one forward and
 * one backward in turn, then the remaining backwards; each pass runs its
 * stage's layers' steps in order (backward: the layers in reverse).
 * Activations go to the next stage, and gradients back, by point-to-point
 * sends the sender does not wait for (with scatter/gather, slices the
 * receiving stage all-gathers over its TP groups). Gradients are reduced
 * over the data-parallel groups as the last micro-batch's backward
 * completes them (overlap, in buckets of bucket_bytes) or after it; each
 * group's reductions run one after another; weights the first and the
 * last stage share (tied embeddings) are then summed between the two; an
 * optimizer step follows the last.
 * Inference: a prefill through every stage, then a decode step once the
 * last stage has the first token.
 */
#include <stdlib.h>
#include <string.h>

#include "job/pipeline.h"

struct builder {
    const struct bn_job_plan *m;
    struct bn_job_graph *g;
    struct bn_error *err;
    uint32_t units;          /* dp x pp */
    uint32_t fcap;           /* frontier room per unit */
    uint32_t *front, *nfront; /* per unit: the tasks its next one waits for */
    uint32_t *tp_comm;       /* per unit x cp: the TP communicator */
    uint32_t *cp_comm;       /* per unit x tp */
    uint32_t *ep_comm;       /* per (stage, dp block, cp, tp) */
    uint32_t *dp_comm;       /* per (stage, tp): the dp x cp ranks holding a shard */
    uint32_t *edp_comm;      /* per (stage, cp, tp, place in the EP block) */
    uint32_t *dp_last, *edp_last; /* the last gradient reduction of each, per group */
    uint32_t *tie_comm, *tie_last; /* per (replica, cp, tp): tied weights' first and last stage */
    uint32_t *fsend, *bsend; /* per (stage, replica, micro-batch) */
    uint32_t *scratch;
    int rc;
};

static uint32_t rank_of(const struct bn_job_plan *m, uint32_t d, uint32_t p, uint32_t c,
                        uint32_t t)
{
    return t + m->tp * (c + m->cp * (d + m->dp * p));
}

/* The next task of unit u waits for its frontier; it becomes the frontier
 * (add = true: joins it instead). */
static void after_front(struct builder *b, uint32_t u, uint32_t task, bool add)
{
    if (b->rc != BN_OK || task == UINT32_MAX) {
        if (b->rc == BN_OK)
            b->rc = BN_ENOMEM;
        return;
    }
    if (!add) {
        for (uint32_t i = 0; i < b->nfront[u] && b->rc == BN_OK; i++)
            b->rc = bn_jg_dep(b->g, b->front[(size_t)u * b->fcap + i], task, b->err);
        b->nfront[u] = 0;
    }
    if (b->nfront[u] == b->fcap) {
        b->rc = bn_fail(b->err, BN_EINTERNAL, "a job unit waits on more than %u tasks", b->fcap);
        return;
    }
    b->front[(size_t)u * b->fcap + b->nfront[u]++] = task;
}

/* The frontier of u, all to wait for before `task`. */
static void wait_front(struct builder *b, uint32_t u, uint32_t task)
{
    for (uint32_t i = 0; i < b->nfront[u] && b->rc == BN_OK; i++)
        b->rc = bn_jg_dep(b->g, b->front[(size_t)u * b->fcap + i], task, b->err);
}

static struct bn_task comm_task(uint8_t dim, uint8_t op, uint32_t comm, uint64_t bytes,
                                uint32_t unit, uint8_t phase, uint32_t micro, uint16_t layer)
{
    return (struct bn_task){.kind = BN_TASK_COLL, .dim = dim, .op = op, .comm = comm,
                            .bytes = bytes, .unit = unit, .phase = phase, .micro = micro,
                            .layer = layer, .dur_us = -1};
}

/* Communicators, made once: every ranks list of each dimension. */
static int make_comms(struct builder *b)
{
    const struct bn_job_plan *m = b->m;
    struct bn_job_graph *g = b->g;
    uint32_t *r = b->scratch, n;
    for (uint32_t p = 0; p < m->pp; p++)
        for (uint32_t d = 0; d < m->dp; d++) {
            uint32_t u = d + m->dp * p;
            for (uint32_t c = 0; c < m->cp; c++) {
                for (n = 0; n < m->tp; n++)
                    r[n] = rank_of(m, d, p, c, n);
                b->tp_comm[u * m->cp + c] = bn_jg_comm(g, r, n, b->err);
            }
            for (uint32_t t = 0; t < m->tp; t++) {
                for (n = 0; n < m->cp; n++)
                    r[n] = rank_of(m, d, p, n, t);
                b->cp_comm[u * m->tp + t] = bn_jg_comm(g, r, n, b->err);
            }
            for (n = 0; n < m->tp * m->cp; n++)
                r[n] = rank_of(m, d, p, 0, 0) + n;
            if (bn_jg_unit(g, r, n, b->err) == UINT32_MAX)
                return BN_ENOMEM;
        }
    for (uint32_t p = 0; p < m->pp; p++)
        for (uint32_t t = 0; t < m->tp; t++) {
            n = 0;
            for (uint32_t d = 0; d < m->dp; d++)
                for (uint32_t c = 0; c < m->cp; c++)
                    r[n++] = rank_of(m, d, p, c, t);
            b->dp_comm[p * m->tp + t] = bn_jg_comm(g, r, n, b->err);
            for (uint32_t c = 0; c < m->cp; c++) {
                for (uint32_t blk = 0; blk < m->dp / m->ep; blk++) {
                    for (n = 0; n < m->ep; n++)
                        r[n] = rank_of(m, blk * m->ep + n, p, c, t);
                    b->ep_comm[((p * (m->dp / m->ep) + blk) * m->cp + c) * m->tp + t] =
                        bn_jg_comm(g, r, n, b->err);
                }
                for (uint32_t e = 0; e < m->ep; e++) {
                    for (n = 0; n < m->dp / m->ep; n++)
                        r[n] = rank_of(m, n * m->ep + e, p, c, t);
                    b->edp_comm[((p * m->cp + c) * m->tp + t) * m->ep + e] =
                        bn_jg_comm(g, r, n, b->err);
                }
            }
        }
    for (uint32_t k = 0; m->tied_grad_bytes && m->pp > 1 && k < m->dp * m->cp * m->tp; k++) {
        uint32_t t = k % m->tp, c = k / m->tp % m->cp, d = k / (m->tp * m->cp);
        r[0] = rank_of(m, d, 0, c, t);
        r[1] = rank_of(m, d, m->pp - 1, c, t);
        b->tie_comm[k] = bn_jg_comm(g, r, 2, b->err);
    }
    return g->ncomms && g->comm_off ? BN_OK : BN_ENOMEM;
}

/* The sends between stages, made before the schedules that use them. */
static int make_sends(struct builder *b, uint8_t phase, bool backward)
{
    const struct bn_job_plan *m = b->m;
    uint32_t (*pr)[2] = (uint32_t (*)[2])b->scratch;
    uint32_t micro = phase == BN_PHASE_FORWARD || phase == BN_PHASE_BACKWARD ? m->micro : 1;
    uint64_t bytes = phase == BN_PHASE_DECODE ? m->decode_pp_bytes : m->pp_bytes;
    for (uint32_t p = 0; p + 1 < m->pp; p++)
        for (uint32_t d = 0; d < m->dp; d++)
            for (uint32_t i = 0; i < micro; i++) {
                uint32_t from = backward ? p + 1 : p, to = backward ? p : p + 1, n = 0;
                for (uint32_t c = 0; c < m->cp; c++)
                    for (uint32_t t = 0; t < m->tp; t++) {
                        pr[n][0] = rank_of(m, d, from, c, t);
                        pr[n][1] = rank_of(m, d, to, c, t);
                        n++;
                    }
                struct bn_task t = {.dim = BN_DIM_PP, .bytes = bytes, .phase = phase,
                                    .unit = d + m->dp * from, .micro = i, .layer = UINT16_MAX,
                                    .dur_us = -1};
                uint32_t id = bn_jg_send(b->g, t, (const uint32_t (*)[2])pr, n, b->err);
                if (id == UINT32_MAX)
                    return BN_ENOMEM;
                (backward ? b->bsend : b->fsend)[((size_t)p * m->dp + d) * micro + i] = id;
            }
    return BN_OK;
}

/* Unit u's collectives `like`, one on each of its n communicators comm[],
 * at once: each waits for the unit's frontier, and they become it. */
static void unit_colls(struct builder *b, uint32_t u, struct bn_task like, const uint32_t *comm,
                       uint32_t n)
{
    uint32_t first = b->g->ntasks;
    for (uint32_t i = 0; i < n && b->rc == BN_OK; i++) {
        struct bn_task t = like;
        t.comm = comm[i];
        uint32_t id = bn_jg_task(b->g, &t, b->err);
        if (id == UINT32_MAX)
            b->rc = BN_ENOMEM;
        wait_front(b, u, id);
    }
    b->nfront[u] = 0;
    for (uint32_t id = first; id < b->g->ntasks; id++)
        after_front(b, u, id, true);
}

static const uint8_t step_dim[] = {BN_DIM_NONE, BN_DIM_TP, BN_DIM_CP, BN_DIM_EP};

/* One step of a layer on every replica of stage p. */
static void step(struct builder *b, const struct bn_job_step *st, uint32_t p, uint8_t phase,
                 uint32_t micro, uint16_t layer)
{
    const struct bn_job_plan *m = b->m;
    struct bn_task like = comm_task(step_dim[st->kind], st->op, 0, st->bytes, 0, phase, micro,
                                    layer);
    for (uint32_t d = 0; d < m->dp && b->rc == BN_OK && st->kind != BN_STEP_EP; d++) {
        uint32_t u = d + m->dp * p;
        like.unit = u;
        if (st->kind == BN_STEP_COMPUTE) {
            struct bn_task t = {.kind = BN_TASK_COMPUTE, .unit = u, .phase = phase,
                                .micro = micro, .layer = layer, .dur_us = st->us};
            after_front(b, u, bn_jg_task(b->g, &t, b->err), false);
        } else if (st->kind == BN_STEP_TP && m->tp > 1) {
            unit_colls(b, u, like, &b->tp_comm[u * m->cp], m->cp);
        } else if (st->kind == BN_STEP_CP && m->cp > 1) {
            unit_colls(b, u, like, &b->cp_comm[u * m->tp], m->tp);
        }
    }
    if (st->kind != BN_STEP_EP || m->ep == 1 || b->rc != BN_OK)
        return;
    /* an all-to-all joins the ep replicas of a block: each waits for all */
    uint32_t blocks = m->dp / m->ep;
    for (uint32_t blk = 0; blk < blocks; blk++) {
        uint32_t first = b->g->ntasks;
        like.unit = blk * m->ep + m->dp * p;
        for (uint32_t c = 0; c < m->cp; c++)
            for (uint32_t tt = 0; tt < m->tp; tt++) {
                like.comm = b->ep_comm[((p * blocks + blk) * m->cp + c) * m->tp + tt];
                uint32_t id = bn_jg_task(b->g, &like, b->err);
                if (id == UINT32_MAX) {
                    b->rc = BN_ENOMEM;
                    return;
                }
                for (uint32_t e = 0; e < m->ep; e++)
                    wait_front(b, blk * m->ep + e + m->dp * p, id);
            }
        for (uint32_t e = 0; e < m->ep; e++) {
            uint32_t u = blk * m->ep + e + m->dp * p;
            b->nfront[u] = 0;
            for (uint32_t id = first; id < b->g->ntasks; id++)
                after_front(b, u, id, true);
        }
    }
}

struct grads {
    uint64_t dense, expert;
    uint8_t op;
};

/* Gradients of stage p reduced: on each DP (and expert-DP) group, after
 * the frontiers of the group's replicas, in order after the group's
 * previous reduction. */
static void reduce_grads(struct builder *b, uint32_t p, struct grads *gr)
{
    const struct bn_job_plan *m = b->m;
    for (uint32_t t = 0; t < m->tp && gr->dense && m->dp * m->cp > 1 && b->rc == BN_OK; t++) {
        uint32_t gi = p * m->tp + t;
        struct bn_task task = comm_task(BN_DIM_DP, gr->op, b->dp_comm[gi], gr->dense, m->dp * p,
                                        BN_PHASE_BACKWARD, m->micro - 1, UINT16_MAX);
        uint32_t id = bn_jg_task(b->g, &task, b->err);
        for (uint32_t d = 0; d < m->dp; d++)
            wait_front(b, d + m->dp * p, id);
        if (b->rc == BN_OK)
            b->rc = bn_jg_dep(b->g, b->dp_last[gi], id, b->err);
        b->dp_last[gi] = id;
    }
    uint32_t groups = m->cp * m->tp * m->ep;
    for (uint32_t gi = 0; gi < groups && gr->expert && m->dp / m->ep > 1 && b->rc == BN_OK; gi++) {
        uint32_t e = gi % m->ep, at = p * groups + gi;
        struct bn_task task = comm_task(BN_DIM_DP, gr->op, b->edp_comm[at], gr->expert,
                                        e + m->dp * p, BN_PHASE_BACKWARD, m->micro - 1,
                                        UINT16_MAX);
        uint32_t id = bn_jg_task(b->g, &task, b->err);
        for (uint32_t k = 0; k < m->dp / m->ep; k++)
            wait_front(b, k * m->ep + e + m->dp * p, id);
        if (b->rc == BN_OK)
            b->rc = bn_jg_dep(b->g, b->edp_last[at], id, b->err);
        b->edp_last[at] = id;
    }
    gr->dense = gr->expert = 0;
}

/* A layer's gradients join the bucket; a full bucket (or the stage's last
 * layer, or any layer without buckets) is reduced. */
static void layer_grads(struct builder *b, uint32_t p, struct grads *gr,
                        const struct bn_job_layer *l, bool closes)
{
    double bucket = b->m->bucket_bytes;
    if (!bucket || (gr->op != l->grad_op && (gr->dense || gr->expert)))
        reduce_grads(b, p, gr); /* what came before goes on its own */
    gr->op = l->grad_op;
    gr->dense += l->grad_bytes;
    gr->expert += l->expert_grad_bytes;
    if (!bucket || gr->dense >= bucket || gr->expert >= bucket || closes)
        reduce_grads(b, p, gr);
}

/* One forward or backward of micro-batch i on stage p (all replicas). */
static void pass_of(struct builder *b, uint32_t p, uint32_t i, bool bwd, uint8_t phase,
                    const struct bn_job_layer *layers)
{
    const struct bn_job_plan *m = b->m;
    uint32_t micro = phase == BN_PHASE_FORWARD || phase == BN_PHASE_BACKWARD ? m->micro : 1;
    uint32_t lo = m->stage_first ? m->stage_first[p] : 0;
    uint32_t hi = m->stage_first ? m->stage_first[p + 1] : m->nlayers;
    bool last = p + 1 == m->pp;
    /* what it receives: the previous stage's activations, or the next
     * stage's gradients */
    if (!bwd && p > 0)
        for (uint32_t d = 0; d < m->dp; d++)
            after_front(b, d + m->dp * p, b->fsend[((size_t)(p - 1) * m->dp + d) * micro + i],
                        true);
    if (bwd && !last)
        for (uint32_t d = 0; d < m->dp; d++)
            after_front(b, d + m->dp * p, b->bsend[((size_t)p * m->dp + d) * micro + i], true);
    /* scatter/gather: the slices received, the whole tensor rebuilt over
     * each TP group before the pass uses it */
    uint64_t gather = phase == BN_PHASE_DECODE ? m->decode_pp_gather_bytes : m->pp_gather_bytes;
    bool received = bwd ? !last : p > 0;
    for (uint32_t d = 0; received && gather && m->tp > 1 && d < m->dp && b->rc == BN_OK; d++) {
        uint32_t u = d + m->dp * p;
        unit_colls(b, u, comm_task(BN_DIM_PP, BN_COLL_ALLGATHER, 0, gather, u, phase, i,
                                   UINT16_MAX), &b->tp_comm[u * m->cp], m->cp);
    }
    bool grads = bwd && i + 1 == m->micro && b->rc == BN_OK;
    struct grads gr = {0};
    for (uint32_t k = 0; k < hi - lo && b->rc == BN_OK; k++) {
        uint32_t li = bwd ? hi - 1 - k : lo + k;
        const struct bn_job_layer *l = &layers[li];
        for (uint32_t s = 0; s < l->nsteps[bwd]; s++)
            step(b, &l->step[bwd][s], p, phase, i, (uint16_t)(li < UINT16_MAX ? li : UINT16_MAX));
        if (grads && m->overlap)
            layer_grads(b, p, &gr, l, k + 1 == hi - lo);
    }
    for (uint32_t k = 0; grads && !m->overlap && k < hi - lo; k++) /* after the backward */
        layer_grads(b, p, &gr, &layers[hi - 1 - k], k + 1 == hi - lo);
    /* what it sends on: its sender does not wait for the send */
    for (uint32_t d = 0; d < m->dp && b->rc == BN_OK; d++) {
        uint32_t u = d + m->dp * p;
        if (!bwd && !last)
            wait_front(b, u, b->fsend[((size_t)p * m->dp + d) * micro + i]);
        if (bwd && p > 0)
            wait_front(b, u, b->bsend[((size_t)(p - 1) * m->dp + d) * micro + i]);
    }
}

/* Stage p's optimizer step, after its frontier and its groups' last
 * gradient reductions. */
static void optimizer(struct builder *b, uint32_t p)
{
    const struct bn_job_plan *m = b->m;
    for (uint32_t d = 0; d < m->dp && b->rc == BN_OK; d++) {
        uint32_t u = d + m->dp * p;
        struct bn_task t = {.kind = BN_TASK_COMPUTE, .unit = u, .phase = BN_PHASE_OPTIMIZER,
                            .layer = UINT16_MAX, .dur_us = m->optimizer_us};
        uint32_t id = bn_jg_task(b->g, &t, b->err);
        for (uint32_t k = 0; k < m->tp && b->rc == BN_OK; k++)
            b->rc = bn_jg_dep(b->g, b->dp_last[p * m->tp + k], id, b->err);
        uint32_t groups = m->cp * m->tp * m->ep;
        for (uint32_t gi = 0; gi < groups && b->rc == BN_OK; gi++)
            if (gi % m->ep == d % m->ep)
                b->rc = bn_jg_dep(b->g, b->edp_last[p * groups + gi], id, b->err);
        bool tied = m->tied_grad_bytes && m->pp > 1 && (p == 0 || p + 1 == m->pp);
        for (uint32_t k = 0; tied && k < m->cp * m->tp && b->rc == BN_OK; k++)
            b->rc = bn_jg_dep(b->g, b->tie_last[(size_t)d * m->cp * m->tp + k], id, b->err);
        after_front(b, u, id, false);
    }
}

/* Tied weights over a pipeline (Megatron-LM's embedding group): the
 * gradients of the first and the last stage's copies summed, per replica
 * and rank of the stage, once both stages' backward and DP reductions are
 * done (Megatron-LM reduces over DP first); their optimizers wait for it. */
static void tied_grads(struct builder *b)
{
    const struct bn_job_plan *m = b->m;
    uint32_t last = m->pp - 1;
    for (uint32_t k = 0; k < m->dp * m->cp * m->tp && b->rc == BN_OK; k++) {
        uint32_t t = k % m->tp, d = k / (m->tp * m->cp);
        struct bn_task task = comm_task(BN_DIM_DP, BN_COLL_ALLREDUCE, b->tie_comm[k],
                                        m->tied_grad_bytes, d, BN_PHASE_BACKWARD, m->micro - 1,
                                        UINT16_MAX);
        uint32_t id = bn_jg_task(b->g, &task, b->err);
        if (id == UINT32_MAX) {
            b->rc = BN_ENOMEM;
            return;
        }
        wait_front(b, d, id);
        wait_front(b, d + m->dp * last, id);
        if (b->rc == BN_OK)
            b->rc = bn_jg_dep(b->g, b->dp_last[t], id, b->err);
        if (b->rc == BN_OK)
            b->rc = bn_jg_dep(b->g, b->dp_last[last * m->tp + t], id, b->err);
        b->tie_last[k] = id;
    }
}

/* Training: each stage's 1F1B program. */
static void training(struct builder *b)
{
    const struct bn_job_plan *m = b->m;
    bool tied = m->tied_grad_bytes && m->pp > 1; /* first and last optimizers wait */
    b->rc = make_sends(b, BN_PHASE_FORWARD, false);
    if (b->rc == BN_OK)
        b->rc = make_sends(b, BN_PHASE_BACKWARD, true);
    for (uint32_t p = 0; p < m->pp && b->rc == BN_OK; p++) {
        uint32_t warm = m->pp - p - 1 < m->micro ? m->pp - p - 1 : m->micro;
        for (uint32_t i = 0; i < warm; i++)
            pass_of(b, p, i, false, BN_PHASE_FORWARD, m->layer);
        for (uint32_t k = 0; k + warm < m->micro; k++) {
            pass_of(b, p, warm + k, false, BN_PHASE_FORWARD, m->layer);
            pass_of(b, p, k, true, BN_PHASE_BACKWARD, m->layer);
        }
        for (uint32_t i = m->micro - warm; i < m->micro; i++)
            pass_of(b, p, i, true, BN_PHASE_BACKWARD, m->layer);
        if (!tied || (p != 0 && p + 1 != m->pp))
            optimizer(b, p);
    }
    if (tied && b->rc == BN_OK) {
        tied_grads(b);
        optimizer(b, 0);
        optimizer(b, m->pp - 1);
    }
}

/* Inference: the prefill through every stage, then a decode step once the
 * last stage has the first token. */
static void inference(struct builder *b)
{
    const struct bn_job_plan *m = b->m;
    uint32_t *pre_send = b->fsend;
    b->rc = make_sends(b, BN_PHASE_PREFILL, false);
    for (uint32_t p = 0; p < m->pp && b->rc == BN_OK; p++)
        pass_of(b, p, 0, false, BN_PHASE_PREFILL, m->layer);
    /* the first token, back at stage 0 (no send: a few bytes) */
    for (uint32_t d = 0; d < m->dp && m->pp > 1 && b->rc == BN_OK; d++) {
        uint32_t last = d + m->dp * (m->pp - 1);
        for (uint32_t i = 0; i < b->nfront[last]; i++)
            after_front(b, d, b->front[(size_t)last * b->fcap + i], true);
    }
    b->fsend = b->bsend; /* room for the decode step's sends */
    if (b->rc == BN_OK)
        b->rc = make_sends(b, BN_PHASE_DECODE, false);
    for (uint32_t p = 0; p < m->pp && b->rc == BN_OK; p++)
        pass_of(b, p, 0, false, BN_PHASE_DECODE, m->decode);
    b->fsend = pre_send;
}

int bn_job_build_pipeline(const struct bn_job_plan *m, struct bn_job_graph *g,
                          struct bn_error *err)
{
    struct builder b = {.m = m, .g = g, .err = err, .units = m->dp * m->pp};
    size_t units = b.units, micro = m->micro ? m->micro : 1;
    size_t sends = (size_t)m->pp * m->dp * micro + 1;
    size_t ranks = (size_t)m->tp * m->cp * m->pp * m->dp + 1;
    b.fcap = 2 * m->tp * m->cp + 2;
    b.front = malloc(units * b.fcap * sizeof *b.front);
    b.nfront = calloc(units, sizeof *b.nfront);
    b.tp_comm = malloc(units * m->cp * sizeof *b.tp_comm);
    b.cp_comm = malloc(units * m->tp * sizeof *b.cp_comm);
    b.ep_comm = malloc((size_t)m->pp * m->dp * m->cp * m->tp * sizeof *b.ep_comm + 1);
    b.dp_comm = malloc((size_t)m->pp * m->tp * sizeof *b.dp_comm);
    b.edp_comm = malloc((size_t)m->pp * m->cp * m->tp * m->ep * sizeof *b.edp_comm);
    b.dp_last = malloc((size_t)m->pp * m->tp * sizeof *b.dp_last);
    b.edp_last = malloc((size_t)m->pp * m->cp * m->tp * m->ep * sizeof *b.edp_last);
    size_t ties = (size_t)m->dp * m->cp * m->tp + 1;
    b.tie_comm = malloc(ties * sizeof *b.tie_comm);
    b.tie_last = malloc(ties * sizeof *b.tie_last);
    b.fsend = malloc(sends * sizeof *b.fsend);
    b.bsend = malloc(sends * sizeof *b.bsend);
    b.scratch = malloc(2 * ranks * sizeof *b.scratch);
    int rc = b.front && b.nfront && b.tp_comm && b.cp_comm && b.ep_comm && b.dp_comm &&
             b.edp_comm && b.dp_last && b.edp_last && b.tie_comm && b.tie_last && b.fsend &&
             b.bsend && b.scratch
             ? BN_OK : bn_fail(err, BN_ENOMEM, "out of memory building a job's graph");
    g->nranks = (uint32_t)(ranks - 1);
    if (rc == BN_OK) {
        memset(b.dp_last, 0xff, (size_t)m->pp * m->tp * sizeof *b.dp_last);
        memset(b.edp_last, 0xff, (size_t)m->pp * m->cp * m->tp * m->ep * sizeof *b.edp_last);
        rc = make_comms(&b);
    }
    if (rc == BN_OK) {
        if (m->inference)
            inference(&b);
        else
            training(&b);
        rc = b.rc;
    }
    if (rc == BN_ENOMEM && !err->msg[0])
        rc = bn_fail(err, BN_ENOMEM, "out of memory building a job's graph");
    free(b.front);
    free(b.nfront);
    free(b.tp_comm);
    free(b.cp_comm);
    free(b.ep_comm);
    free(b.dp_comm);
    free(b.edp_comm);
    free(b.dp_last);
    free(b.edp_last);
    free(b.tie_comm);
    free(b.tie_last);
    free(b.fsend);
    free(b.bsend);
    free(b.scratch);
    return rc;
}
