/*
 * A job's figures as its tasks finish: per dimension and per kind of
 * collective (sums here, means in job_run.c), the busiest unit's compute,
 * and per iteration the replays of its graph with its measured durations
 * (graph.h): with all communication taking no time (the compute-only
 * iteration), and with one dimension's at a time (what it exposed).
 */
#include <stdlib.h>
#include <string.h>

#include "driver/job/job.h"

/* The row of collectives like task t (appended on first sight). */
static struct bn_job_coll_row *coll_row(struct bn_jobs_exec *x, struct bn_job_rt *jr,
                                        const struct bn_task *t, uint32_t ranks, bool modelled)
{
    struct bn_job_result *r = jr->res;
    const char *op = t->kind == BN_TASK_SEND ? "send" : bn_job_span_op(t->op);
    const char *dim = bn_job_dim_name((enum bn_job_dim)t->dim);
    for (uint32_t i = 0; i < r->ncolls; i++) {
        struct bn_job_coll_row *c = &r->colls[i];
        if (c->ranks == ranks && c->bytes == t->bytes && c->modelled == modelled &&
            strcmp(c->op, op) == 0 && strcmp(c->dim, dim) == 0)
            return c;
    }
    if ((r->ncolls & (r->ncolls - 1)) == 0) { /* a power of two: full */
        struct bn_job_coll_row *n = realloc(r->colls, (r->ncolls ? 2 * r->ncolls : 8) * sizeof *n);
        if (!n)
            return NULL;
        r->colls = n;
    }
    struct bn_job_coll_row *c = &r->colls[r->ncolls++];
    memset(c, 0, sizeof *c);
    snprintf(c->op, sizeof c->op, "%s", op);
    snprintf(c->dim, sizeof c->dim, "%s", dim);
    snprintf(c->algo, sizeof c->algo, "%s", bn_jobs_algo(x, jr, t));
    c->ranks = ranks;
    c->bytes = t->bytes;
    c->modelled = modelled;
    return c;
}

static int add_span(struct bn_jobs_exec *x, struct bn_job_rt *jr, uint32_t t, uint32_t ranks,
                    bool modelled)
{
    struct bn_job_results *out = x->out;
    const struct bn_task *tk = &jr->g.tasks[t];
    if ((out->nspans & (out->nspans - 1)) == 0) {
        struct bn_job_span *n = realloc(out->spans, (out->nspans ? 2 * out->nspans : 1024) *
                                                        sizeof *n);
        if (!n)
            return bn_fail(x->err, BN_ENOMEM, "out of memory for the trace's spans");
        out->spans = n;
    }
    double start = bn_time_to_us(jr->t_start[t]);
    out->spans[out->nspans++] = (struct bn_job_span){
        .start_us = start, .end_us = start + jr->dur[t], .bytes = tk->bytes,
        .job = (uint32_t)(jr - x->jobs), .unit = tk->unit, .iteration = jr->iter,
        .micro = tk->micro, .ranks = ranks, .layer = tk->layer, .kind = tk->kind,
        .dim = tk->dim, .op = tk->op, .phase = tk->phase, .modelled = modelled,
    };
    return BN_OK;
}

int bn_jobs_task_stats(struct bn_jobs_exec *x, struct bn_job_rt *jr, uint32_t t)
{
    const struct bn_task *tk = &jr->g.tasks[t];
    double us = jr->dur[t];
    uint32_t ranks = tk->kind == BN_TASK_COLL ? jr->g.comm_off[tk->comm + 1] - jr->g.comm_off[tk->comm]
                     : tk->kind == BN_TASK_SEND ? tk->npairs : 0;
    bool modelled = tk->kind == BN_TASK_COLL && jr->comm_modelled[tk->comm];
    if (tk->kind == BN_TASK_COMPUTE) {
        jr->unit_compute[tk->unit] += us;
    } else {
        struct bn_job_dim_row *d = &jr->res->dims[tk->dim - 1];
        d->count++;
        /* a send moves its bytes on every pair: what crosses the boundary */
        d->bytes += tk->kind == BN_TASK_SEND ? tk->bytes * tk->npairs : tk->bytes;
        d->busy_us += us;
        struct bn_job_coll_row *c = coll_row(x, jr, tk, ranks, modelled);
        if (!c)
            return bn_fail(x->err, BN_ENOMEM, "out of memory for a job's collectives");
        c->count++;
        c->mean_us += us; /* a sum until job_run.c divides */
        if (us > c->max_us)
            c->max_us = us;
    }
    return x->trace ? add_span(x, jr, t, ranks, modelled) : BN_OK;
}

/* The latest finish among tasks of `phase` (fin from a replay). */
static double phase_end(const struct bn_job_graph *g, const double *fin, uint8_t phase)
{
    double end = 0;
    for (uint32_t t = 0; t < g->ntasks; t++)
        if (g->tasks[t].phase == phase && fin[t] > end)
            end = fin[t];
    return end;
}

int bn_jobs_iteration_stats(struct bn_jobs_exec *x, struct bn_job_rt *jr, double iter_us)
{
    struct bn_job_result *r = jr->res;
    const struct bn_job_graph *g = &jr->g;
    double *fin = malloc(((size_t)g->ntasks + 1) * sizeof *fin);
    if (!fin)
        return bn_fail(x->err, BN_ENOMEM, "out of memory replaying a job's iteration");
    r->iterations++;
    r->iteration_us += iter_us; /* sums until job_run.c divides */
    if (r->iterations == 1 || iter_us < r->iteration_min_us)
        r->iteration_min_us = iter_us;
    if (iter_us > r->iteration_max_us)
        r->iteration_max_us = iter_us;
    double busiest = 0;
    for (uint32_t u = 0; u < g->nunits; u++)
        if (jr->unit_compute[u] > busiest)
            busiest = jr->unit_compute[u];
    r->compute_us += busiest;
    bn_jg_replay(g, jr->dur, 0, fin);
    double prefill = phase_end(g, fin, BN_PHASE_PREFILL);
    double quiet = bn_jg_replay(g, jr->dur, BN_JG_ZERO_COMM, fin);
    r->no_comm_us += quiet;
    if (jr->j->kind == BN_SC_JOB_INFERENCE) {
        double quiet_prefill = phase_end(g, fin, BN_PHASE_PREFILL);
        r->prefill_us += prefill;
        r->decode_us += iter_us - prefill;
        r->decode_network_us += (iter_us - prefill) - (quiet - quiet_prefill);
    }
    for (uint32_t d = 1; d < BN_DIM_NDIMS; d++)
        r->dims[d - 1].exposed_us += iter_us - bn_jg_replay(g, jr->dur, 1u << d, fin);
    free(fin);
    return BN_OK;
}
