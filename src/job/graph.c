/*
 * The job graph's building, its finishing (successor lists and a
 * topological order by Kahn's algorithm) and its replay.
 */
#include <stdlib.h>
#include <string.h>

#include "bnet/scenario.h"
#include "core/grow.h"
#include "job/graph.h"

/* Room for element n of *arr (capacity *cap), or the error. */
static int grow(void **arr, uint32_t n, uint32_t *cap, size_t size, struct bn_error *err)
{
    return bn_grow(arr, n, cap, size) ? BN_OK
                                      : bn_fail(err, BN_ENOMEM, "out of memory building a job's "
                                                "graph");
}

void bn_jg_free(struct bn_job_graph *g)
{
    free(g->tasks);
    free(g->comm_off);
    free(g->comm_rank);
    free(g->unit_off);
    free(g->unit_rank);
    free(g->pair);
    free(g->edges);
    free(g->succ_off);
    free(g->succ);
    free(g->ndeps);
    free(g->order);
    memset(g, 0, sizeof *g);
}

/* A set of ranks appended to (off, rank): the communicators and the units
 * are both such lists. */
static uint32_t add_set(uint32_t **off, uint32_t *nsets, uint32_t *sets_cap, uint32_t **rank,
                        uint32_t *nrank, uint32_t *rank_cap, const uint32_t *ranks, uint32_t n,
                        struct bn_error *err)
{
    if (grow((void **)off, *nsets + 1, sets_cap, sizeof **off, err) != BN_OK)
        return UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        if (grow((void **)rank, *nrank, rank_cap, sizeof **rank, err) != BN_OK)
            return UINT32_MAX;
        (*rank)[(*nrank)++] = ranks[i];
    }
    if (*nsets == 0)
        (*off)[0] = 0;
    (*off)[*nsets + 1] = *nrank;
    return (*nsets)++;
}

uint32_t bn_jg_comm(struct bn_job_graph *g, const uint32_t *ranks, uint32_t n,
                    struct bn_error *err)
{
    return add_set(&g->comm_off, &g->ncomms, &g->comms_cap, &g->comm_rank, &g->nmembers,
                   &g->members_cap, ranks, n, err);
}

uint32_t bn_jg_unit(struct bn_job_graph *g, const uint32_t *ranks, uint32_t n,
                    struct bn_error *err)
{
    return add_set(&g->unit_off, &g->nunits, &g->units_cap, &g->unit_rank, &g->nunit_ranks,
                   &g->unit_ranks_cap, ranks, n, err);
}

uint32_t bn_jg_task(struct bn_job_graph *g, const struct bn_task *t, struct bn_error *err)
{
    if (grow((void **)&g->tasks, g->ntasks, &g->tasks_cap, sizeof *g->tasks, err) != BN_OK)
        return UINT32_MAX;
    g->tasks[g->ntasks] = *t;
    return g->ntasks++;
}

uint32_t bn_jg_send(struct bn_job_graph *g, struct bn_task t, const uint32_t (*pairs)[2],
                    uint32_t n, struct bn_error *err)
{
    t.kind = BN_TASK_SEND;
    t.comm = g->npairs;
    t.npairs = n;
    for (uint32_t i = 0; i < n; i++) {
        if (grow((void **)&g->pair, g->npairs, &g->pairs_cap, sizeof *g->pair, err) != BN_OK)
            return UINT32_MAX;
        g->pair[g->npairs][0] = pairs[i][0];
        g->pair[g->npairs][1] = pairs[i][1];
        g->npairs++;
    }
    return bn_jg_task(g, &t, err);
}

int bn_jg_dep(struct bn_job_graph *g, uint32_t before, uint32_t after, struct bn_error *err)
{
    if (before == UINT32_MAX || after == UINT32_MAX)
        return BN_OK;
    int rc = grow((void **)&g->edges, g->nedges, &g->edges_cap, sizeof *g->edges, err);
    if (rc != BN_OK)
        return rc;
    g->edges[g->nedges][0] = before;
    g->edges[g->nedges][1] = after;
    g->nedges++;
    return BN_OK;
}

int bn_jg_finish(struct bn_job_graph *g, struct bn_error *err)
{
    uint32_t n = g->ntasks;
    g->succ_off = calloc((size_t)n + 1, sizeof *g->succ_off);
    g->succ = malloc(((size_t)g->nedges + 1) * sizeof *g->succ);
    g->ndeps = calloc((size_t)n + 1, sizeof *g->ndeps);
    g->order = malloc(((size_t)n + 1) * sizeof *g->order);
    uint32_t *left = malloc(((size_t)n + 1) * sizeof *left);
    if (!g->succ_off || !g->succ || !g->ndeps || !g->order || !left) {
        free(left);
        return bn_fail(err, BN_ENOMEM, "out of memory finishing a job's graph");
    }
    for (uint32_t e = 0; e < g->nedges; e++) {
        g->succ_off[g->edges[e][0] + 1]++;
        g->ndeps[g->edges[e][1]]++;
    }
    for (uint32_t i = 0; i < n; i++)
        g->succ_off[i + 1] += g->succ_off[i];
    uint32_t *fill = left; /* reused: next free successor slot per task */
    memcpy(fill, g->succ_off, (size_t)n * sizeof *fill);
    for (uint32_t e = 0; e < g->nedges; e++)
        g->succ[fill[g->edges[e][0]]++] = g->edges[e][1];
    free(g->edges);
    g->edges = NULL;
    /* Kahn: the ready tasks in index order, then what they release */
    memcpy(left, g->ndeps, (size_t)n * sizeof *left);
    uint32_t head = 0, tail = 0;
    for (uint32_t i = 0; i < n; i++)
        if (left[i] == 0)
            g->order[tail++] = i;
    while (head < tail) {
        uint32_t t = g->order[head++];
        for (uint32_t k = g->succ_off[t]; k < g->succ_off[t + 1]; k++)
            if (--left[g->succ[k]] == 0)
                g->order[tail++] = g->succ[k];
    }
    free(left);
    if (tail != n)
        return bn_fail(err, BN_EINPUT, "a job's tasks depend on each other in a cycle "
                       "(%u of %u can never start)", n - tail, n);
    return BN_OK;
}

double bn_jg_replay(const struct bn_job_graph *g, const double *dur, unsigned zero, double *fin)
{
    double end = 0;
    double *f = fin ? fin : malloc(((size_t)g->ntasks + 1) * sizeof *f);
    if (!f)
        return -1;
    for (uint32_t i = 0; i < g->ntasks; i++)
        f[i] = 0; /* latest finish of a dependency so far: the start */
    for (uint32_t k = 0; k < g->ntasks; k++) {
        uint32_t t = g->order[k];
        const struct bn_task *tk = &g->tasks[t];
        bool comm = tk->kind != BN_TASK_COMPUTE;
        bool off = (zero & (1u << tk->dim)) || (comm && (zero & BN_JG_ZERO_COMM));
        double fin_t = f[t] + (off ? 0 : dur[t]);
        for (uint32_t s = g->succ_off[t]; s < g->succ_off[t + 1]; s++)
            if (f[g->succ[s]] < fin_t)
                f[g->succ[s]] = fin_t;
        f[t] = fin_t;
        if (fin_t > end)
            end = fin_t;
    }
    if (!fin)
        free(f);
    return end;
}

const char *bn_job_dim_name(enum bn_job_dim d)
{
    static const char *const v[] = {"compute", "tp", "cp", "pp", "dp", "ep"};
    return (unsigned)d < BN_DIM_NDIMS ? v[d] : "?";
}

const char *bn_job_phase_name(enum bn_job_phase p)
{
    static const char *const v[] = {"forward", "backward", "optimizer", "prefill", "decode"};
    return (unsigned)p < BN_PHASE_NPHASES ? v[p] : "?";
}

uint32_t bn_job_dtype_bytes(unsigned dtype)
{
    switch (dtype) {
    case BN_SC_FP32: return 4;
    case BN_SC_FP8: return 1;
    default: return 2;
    }
}
