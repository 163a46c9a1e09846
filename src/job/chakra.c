/*
 * A job from Chakra execution traces (jobs[].workload_file naming rank 0's
 * PREFIX.0.et; ranks 0.. read from PREFIX.<rank>.et, as ASTRA-sim names
 * them): one graph of every rank's nodes (chakra_et.c reads them).
 *
 *   COMP_NODE        a compute task of duration_micros on its rank's unit
 *   COMM_COLL_NODE   with the same pg_name on every rank that has one, the
 *                    k-th of each rank is one collective of the group (as
 *                    NCCL issues them in order): one task, after every
 *                    member's dependencies, before every member's dependants
 *   COMM_SEND_NODE   and the COMM_RECV_NODE of its peer with the same tag,
 *                    the k-th pair of that (source, destination, tag): one
 *                    send of comm_size bytes, after both nodes' dependencies
 *
 * A group's members are the ranks whose traces use its pg_name (none
 * given: the ranks with collectives without one). Collectives count under
 * dp, sends under pp in the breakdown: a trace says no parallelism.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/path.h"
#include "core/fail_key.h"
#include "job/build.h"
#include "job/chakra.h"

struct key { uint64_t id; uint32_t idx; };

static int cmp_key(const void *a, const void *b)
{
    const struct key *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Each node's task: compute tasks, then collectives, then sends. */
static int compute_tasks(struct bn_et_trace *t, struct bn_job_graph *g, struct bn_error *err)
{
    for (uint32_t r = 0; r < t->nranks; r++) {
        if (bn_jg_unit(g, &r, 1, err) == UINT32_MAX)
            return err->status;
        for (uint32_t i = 0; i < t->ranks[r].n; i++) {
            struct bn_et_node *e = &t->ranks[r].nodes[i];
            if (e->kind != BN_ET_COMPUTE)
                continue;
            struct bn_task k = {.dur_us = (double)e->dur_us, .unit = r, .layer = UINT16_MAX,
                                .kind = BN_TASK_COMPUTE, .phase = BN_PHASE_FORWARD};
            if ((e->task = bn_jg_task(g, &k, err)) == UINT32_MAX)
                return err->status;
        }
    }
    return BN_OK;
}

/* The next collective of group grp at or after *at in rank r; NULL: none. */
static struct bn_et_node *next_coll(struct bn_et_rank *rk, uint32_t grp, uint32_t *at)
{
    for (; *at < rk->n; (*at)++)
        if (rk->nodes[*at].kind == BN_ET_COLL && rk->nodes[*at].group == grp)
            return &rk->nodes[(*at)++];
    return NULL;
}

static int group_tasks(struct bn_et_trace *t, uint32_t grp, struct bn_job_graph *g,
                       struct bn_error *err)
{
    uint32_t *members = malloc(((size_t)t->nranks + 1) * sizeof *members), n = 0;
    uint32_t *at = calloc((size_t)t->nranks + 1, sizeof *at);
    int rc = members && at ? BN_OK : bn_fail(err, BN_ENOMEM, "out of memory for groups");
    for (uint32_t r = 0; rc == BN_OK && r < t->nranks; r++) {
        uint32_t a = 0;
        if (next_coll(&t->ranks[r], grp, &a))
            members[n++] = r;
    }
    uint32_t comm = rc == BN_OK && n > 1 ? bn_jg_comm(g, members, n, err) : UINT32_MAX;
    if (rc == BN_OK && n > 1 && comm == UINT32_MAX)
        rc = err->status;
    for (uint64_t k = 0; rc == BN_OK; k++) {
        struct bn_et_node *first = NULL;
        uint32_t ended = 0;
        for (uint32_t m = 0; m < n && rc == BN_OK; m++) {
            struct bn_et_rank *rk = &t->ranks[members[m]];
            struct bn_et_node *e = next_coll(rk, grp, &at[members[m]]);
            if (!e) {
                ended++;
                continue;
            }
            if (!first) {
                struct bn_task c = {.dur_us = n > 1 ? -1 : 0, .bytes = e->bytes,
                                    .unit = members[0], .comm = comm, .layer = UINT16_MAX,
                                    .kind = n > 1 ? BN_TASK_COLL : BN_TASK_COMPUTE,
                                    .dim = n > 1 ? BN_DIM_DP : BN_DIM_NONE, .op = e->op,
                                    .phase = BN_PHASE_FORWARD};
                first = e;
                if ((e->task = bn_jg_task(g, &c, err)) == UINT32_MAX)
                    rc = err->status;
            } else if (e->op != first->op || e->bytes != first->bytes) {
                rc = bn_fail(err, BN_EINPUT, "%s: node %llu: collective %llu of process group "
                             "'%s' differs from rank %u's node %llu (its type or comm_size)",
                             rk->path, (unsigned long long)e->id, (unsigned long long)k,
                             t->groups[grp], members[0], (unsigned long long)first->id);
            } else {
                e->task = first->task;
            }
        }
        if (rc == BN_OK && ended && ended < n)
            rc = bn_fail(err, BN_EINPUT, "%s: process group '%s': %llu collectives on one rank, "
                         "more on another (every member issues each)", t->ranks[members[0]].path,
                         t->groups[grp], (unsigned long long)k);
        if (ended)
            break;
    }
    free(members);
    free(at);
    return rc;
}

/* A send or receive, by (source, destination, tag) and its place among
 * those: sorted, each send meets the receive with the same key. */
struct p2p { int64_t src, dst, tag; uint32_t seq, rank, idx; };

static int cmp_p2p(const void *a, const void *b)
{
    const struct p2p *x = a, *y = b;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
    if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The sends (want == BN_ET_SEND) or receives of every rank, in key order. */
static struct p2p *collect(struct bn_et_trace *t, uint8_t want, uint32_t *count)
{
    uint32_t n = 0, k = 0;
    for (uint32_t r = 0; r < t->nranks; r++)
        for (uint32_t i = 0; i < t->ranks[r].n; i++)
            n += t->ranks[r].nodes[i].kind == want;
    struct p2p *v = malloc(((size_t)n + 1) * sizeof *v);
    if (!v)
        return NULL;
    for (uint32_t r = 0; r < t->nranks; r++)
        for (uint32_t i = 0; i < t->ranks[r].n; i++) {
            const struct bn_et_node *e = &t->ranks[r].nodes[i];
            if (e->kind != want)
                continue;
            struct p2p p = {want == BN_ET_SEND ? r : e->peer, want == BN_ET_SEND ? e->peer : r,
                            e->tag, 0, r, i};
            for (uint32_t j = 0; j < k; j++) /* its place among its key's, in file order */
                p.seq += v[j].src == p.src && v[j].dst == p.dst && v[j].tag == p.tag;
            v[k++] = p;
        }
    qsort(v, n, sizeof *v, cmp_p2p);
    *count = n;
    return v;
}

static int send_tasks(struct bn_et_trace *t, struct bn_job_graph *g, struct bn_error *err)
{
    uint32_t ns = 0, nr = 0;
    struct p2p *s = collect(t, BN_ET_SEND, &ns), *rv = collect(t, BN_ET_RECV, &nr);
    int rc = s && rv ? BN_OK : bn_fail(err, BN_ENOMEM, "out of memory for sends");
    for (uint32_t i = 0, j = 0; rc == BN_OK && (i < ns || j < nr); i++, j++) {
        int c = i < ns && j < nr ? cmp_p2p(&s[i], &rv[j]) : i < ns ? -1 : 1;
        const struct p2p *lone = c < 0 ? &s[i] : &rv[j];
        struct bn_et_rank *rk = &t->ranks[lone->rank];
        struct bn_et_node *e = &rk->nodes[lone->idx];
        if (c != 0 || lone->src == lone->dst || lone->src >= t->nranks || lone->dst >= t->nranks) {
            rc = bn_fail(err, BN_EINPUT, "%s: node %llu (%s %s rank %lld, tag %lld): %s",
                         rk->path, (unsigned long long)e->id, c < 0 ? "COMM_SEND_NODE" :
                         "COMM_RECV_NODE", c < 0 ? "to" : "from", (long long)e->peer,
                         (long long)e->tag,
                         lone->src == lone->dst ? "a rank cannot send to itself"
                         : e->peer >= t->nranks ? "no such rank in the trace"
                         : c < 0 ? "no matching COMM_RECV_NODE in the peer's trace"
                                 : "no matching COMM_SEND_NODE in the peer's trace");
            break;
        }
        e = &t->ranks[s[i].rank].nodes[s[i].idx]; /* the send, then its receive */
        struct bn_et_node *re = &t->ranks[rv[j].rank].nodes[rv[j].idx];
        if (re->bytes != e->bytes) {
            rc = bn_fail(err, BN_EINPUT, "%s: node %llu: comm_size %llu, but its COMM_RECV_NODE "
                         "(%s, node %llu) says %llu", t->ranks[s[i].rank].path, (unsigned long long)e->id,
                         (unsigned long long)e->bytes, t->ranks[rv[j].rank].path,
                         (unsigned long long)re->id, (unsigned long long)re->bytes);
            break;
        }
        const uint32_t pair[1][2] = {{(uint32_t)s[i].src, (uint32_t)s[i].dst}};
        struct bn_task k = {.dur_us = -1, .bytes = e->bytes, .unit = (uint32_t)s[i].src,
                            .layer = UINT16_MAX, .dim = BN_DIM_PP, .phase = BN_PHASE_FORWARD};
        e->task = re->task = bn_jg_send(g, k, pair, 1, err);
        if (e->task == UINT32_MAX)
            rc = err->status;
    }
    free(s);
    free(rv);
    return rc;
}

/* Every node's dependencies as edges between the tasks they became. */
static int edges(struct bn_et_trace *t, struct bn_job_graph *g, struct bn_error *err)
{
    int rc = BN_OK;
    for (uint32_t r = 0; rc == BN_OK && r < t->nranks; r++) {
        struct bn_et_rank *rk = &t->ranks[r];
        struct key *keys = malloc(((size_t)rk->n + 1) * sizeof *keys);
        if (!keys)
            return bn_fail(err, BN_ENOMEM, "out of memory for dependencies");
        for (uint32_t i = 0; i < rk->n; i++)
            keys[i] = (struct key){rk->nodes[i].id, i};
        qsort(keys, rk->n, sizeof *keys, cmp_key);
        for (uint32_t i = 1; rc == BN_OK && i < rk->n; i++)
            if (keys[i].id == keys[i - 1].id)
                rc = bn_fail(err, BN_EINPUT, "%s: node id %llu is used twice", rk->path,
                             (unsigned long long)keys[i].id);
        for (uint32_t i = 0; rc == BN_OK && i < rk->n; i++) {
            const struct bn_et_node *e = &rk->nodes[i];
            for (uint32_t d = 0; rc == BN_OK && d < e->ndeps; d++) {
                struct key want = {rk->deps[e->dep_first + d], 0};
                const struct key *k = bsearch(&want, keys, rk->n, sizeof *keys, cmp_key);
                if (!k)
                    rc = bn_fail(err, BN_EINPUT, "%s: node %llu depends on node %llu, which the "
                                 "trace does not have", rk->path, (unsigned long long)e->id,
                                 (unsigned long long)want.id);
                else if (rk->nodes[k->idx].task != e->task)
                    rc = bn_jg_dep(g, rk->nodes[k->idx].task, e->task, err);
            }
        }
        free(keys);
    }
    return rc;
}

/* PREFIX from "PREFIX.0.et"; false if the name is not rank 0's. */
static bool prefix_of(const char *path, char *out, size_t cap)
{
    size_t n = strlen(path);
    if (n < 5 || strcmp(path + n - 5, ".0.et") != 0 || n - 4 >= cap)
        return false;
    memcpy(out, path, n - 4);
    out[n - 4] = '\0'; /* keeps the dot: "PREFIX." */
    return true;
}

bool bn_job_is_chakra(const char *workload_file)
{
    size_t n = strlen(workload_file);
    return n >= 3 && strcmp(workload_file + n - 3, ".et") == 0;
}

int bn_job_build_chakra(const struct bn_scenario *sc, uint32_t index, uint32_t hosts,
                        struct bn_job_graph *g, struct bn_job_model *m, struct bn_error *err)
{
    const struct bn_scenario_job *j = &sc->jobs[index];
    char path[2 * BN_PATH_MAX], prefix[2 * BN_PATH_MAX], rank_path[2 * BN_PATH_MAX + 16];
    bn_path_beside(sc->source, j->workload_file, path, sizeof path);
    if (!prefix_of(path, prefix, sizeof prefix))
        return bn_fail_item(err, BN_EINPUT, "jobs", index, "workload_file", "'%s': name rank 0's "
                            "Chakra trace, PREFIX.0.et (ranks are read from PREFIX.<rank>.et)",
                            j->workload_file);
    /* the ranks: jobs[].gpus of them, or as many files as follow on */
    uint32_t n = j->gpus;
    for (FILE *f; !j->gpus && n <= hosts; n++) {
        snprintf(rank_path, sizeof rank_path, "%s%u.et", prefix, n);
        if (!(f = fopen(rank_path, "rb")))
            break;
        fclose(f);
    }
    if (n > hosts)
        return bn_fail_item(err, BN_EINPUT, "jobs", index, "workload_file",
                            "%s ranks' traces, more than the cluster's %u GPUs",
                            j->gpus ? "jobs[].gpus" : "more", hosts);
    struct bn_et_trace t = {.nranks = n, .ranks = calloc((size_t)n + 1, sizeof *t.ranks)};
    int rc = t.ranks ? BN_OK : bn_fail(err, BN_ENOMEM, "out of memory for %u ranks", n);
    for (uint32_t r = 0; rc == BN_OK && r < n; r++) {
        snprintf(rank_path, sizeof rank_path, "%s%u.et", prefix, r);
        rc = bn_et_read(&t, r, rank_path, err);
    }
    g->nranks = n;
    if (rc == BN_OK)
        rc = compute_tasks(&t, g, err);
    for (uint32_t grp = 0; rc == BN_OK && grp < t.ngroups; grp++)
        rc = group_tasks(&t, grp, g, err);
    if (rc == BN_OK)
        rc = send_tasks(&t, g, err);
    if (rc == BN_OK)
        rc = edges(&t, g, err);
    if (rc == BN_OK)
        *m = (struct bn_job_model){.tp = 1, .cp = 1, .pp = 1, .dp = n, .ep = 1, .gpus = n,
                                   .micro = 1};
    bn_et_free(&t);
    return rc;
}
