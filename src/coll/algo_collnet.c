/*
 * CollNet: AllReduce reduced inside the network by aggregation units in the
 * switches, as NCCL's CollNet does over NVIDIA SHARP (NVIDIA SHARP docs;
 * HPC-X NCCL-RDMA-SHARP plugin doc). Every rank REDUCEs each slice into its
 * unit (rank_agg[r]); a
 * unit REDUCEs the slice on to its parent (agg_parent) once every child,
 * rank or unit, has delivered it; the root unit then COPYs the sum down
 * the same tree, each unit forwarding to its child units and its ranks. A
 * rank so sends S and receives S whatever n is: half of what ring moves.
 *
 * Only units with ranks somewhere below them take part. A switch holds a
 * limited number of aggregation trees at once (agg_max_trees; two streaming
 * flows on NVIDIA switches), so the data goes over min(channels,
 * agg_max_trees) trees, tree t on channel t.
 */
#include <stdlib.h>

#include "coll/algo.h"

/* The unit tree restricted to the units that serve some rank. */
struct units {
    uint32_t root;
    uint32_t *order;           /* used units, deepest first */
    uint32_t nused;
    uint32_t *koff, *kids;     /* children of unit a (endpoint ids): kids[koff[a]..koff[a+1]) */
    uint32_t *scratch;         /* up, dn, deps: nendpoints each */
};

/* Steps from unit a to the root, or UINT32_MAX if its chain is broken or
 * loops (a chain longer than nagg must revisit a unit). */
static uint32_t depth_of(const struct bn_coll_params *p, uint32_t a, uint32_t *root)
{
    for (uint32_t d = 0; d <= p->nagg; d++) {
        if (a >= p->nagg)
            return UINT32_MAX;
        if (p->agg_parent[a] == UINT32_MAX) {
            *root = a;
            return d;
        }
        a = p->agg_parent[a];
    }
    return UINT32_MAX;
}

static bool collnet_supports(const struct bn_coll_params *p)
{
    if (p->kind != BN_COLL_ALLREDUCE || p->nranks < 1 || p->nagg == 0 || !p->agg_parent ||
        !p->rank_agg || p->agg_max_trees < 1)
        return false;
    uint32_t root0 = UINT32_MAX;
    for (uint32_t r = 0; r < p->nranks; r++) {
        uint32_t root;
        if (depth_of(p, p->rank_agg[r], &root) == UINT32_MAX)
            return false;
        if (r > 0 && root != root0)
            return false; /* a forest: the ranks would not all meet */
        root0 = root;
    }
    return true;
}

static void units_free(struct units *u)
{
    free(u->order);
    free(u->koff);
    free(u->kids);
    free(u->scratch);
}

static int units_make(const struct bn_sched *s, struct units *u, struct bn_error *err)
{
    const struct bn_coll_params *p = &s->p;
    uint32_t n = p->nranks, na = p->nagg;
    uint32_t *depth = malloc(na * sizeof *depth);
    u->order = malloc(na * sizeof *u->order);
    u->koff = calloc((size_t)na + 2, sizeof *u->koff);
    u->kids = malloc(((size_t)n + na) * sizeof *u->kids);
    u->scratch = malloc(3 * (size_t)s->nendpoints * sizeof *u->scratch);
    if (!depth || !u->order || !u->koff || !u->kids || !u->scratch) {
        free(depth);
        return bn_fail(err, BN_ENOMEM, "coll: out of memory for %u aggregation units", na);
    }
    /* Mark the units on some rank's path (depth known), count their children. */
    for (uint32_t a = 0; a < na; a++)
        depth[a] = UINT32_MAX;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t a = p->rank_agg[r];
        u->koff[a + 2]++;
        for (; a != UINT32_MAX && depth[a] == UINT32_MAX; a = p->agg_parent[a]) {
            depth[a] = depth_of(p, a, &u->root);
            if (p->agg_parent[a] != UINT32_MAX)
                u->koff[p->agg_parent[a] + 2]++;
        }
    }
    /* Children in CSR: ranks first, then child units. */
    for (uint32_t a = 0; a < na; a++)
        u->koff[a + 2] += u->koff[a + 1];
    for (uint32_t r = 0; r < n; r++)
        u->kids[u->koff[p->rank_agg[r] + 1]++] = r;
    uint32_t maxd = 0;
    u->nused = 0;
    for (uint32_t a = 0; a < na; a++)
        if (depth[a] != UINT32_MAX) {
            if (p->agg_parent[a] != UINT32_MAX)
                u->kids[u->koff[p->agg_parent[a] + 1]++] = n + a;
            maxd = depth[a] > maxd ? depth[a] : maxd;
            u->nused++;
        }
    /* Deepest first, so a unit comes after all its child units. */
    uint32_t k = 0;
    for (uint32_t d = maxd + 1; d-- > 0;)
        for (uint32_t a = 0; a < na; a++)
            if (depth[a] == d)
                u->order[k++] = a;
    free(depth);
    return BN_OK;
}

/* Up and down the unit tree for one slice q on channel ch. */
static int collnet_slice(struct bn_sched *s, const struct units *u, uint32_t q, uint32_t ch,
                         struct bn_error *err)
{
    uint32_t n = s->p.nranks, ne = s->nendpoints;
    uint32_t *up = u->scratch, *dn = up + ne, *deps = dn + ne;
    int rc = BN_OK;
    for (uint32_t r = 0; rc == BN_OK && r < n; r++)
        rc = bn_sched_xfer(s, r, n + s->p.rank_agg[r], q, BN_XFER_REDUCE, ch, &up[r], err);
    /* A unit's sum is complete once every child's REDUCE is in. */
    for (uint32_t i = 0; rc == BN_OK && i < u->nused; i++) {
        uint32_t a = u->order[i], nk = 0;
        for (uint32_t k = u->koff[a]; k < u->koff[a + 1]; k++)
            deps[nk++] = up[u->kids[k]];
        if (a == u->root)
            break; /* deps now holds what the root waits for */
        rc = bn_coll_xfer_after(s, n + a, n + s->p.agg_parent[a], q, BN_XFER_REDUCE, ch, deps,
                                nk, &up[n + a], err);
    }
    /* Down from the root, shallowest first. */
    uint32_t nroot = u->koff[u->root + 1] - u->koff[u->root];
    for (uint32_t i = u->nused; rc == BN_OK && i-- > 0;) {
        uint32_t a = u->order[i];
        const uint32_t *wait = a == u->root ? deps : &dn[n + a];
        uint32_t nwait = a == u->root ? nroot : 1;
        for (uint32_t k = u->koff[a]; rc == BN_OK && k < u->koff[a + 1]; k++)
            rc = bn_coll_xfer_after(s, n + a, u->kids[k], q, BN_XFER_COPY, ch, wait, nwait,
                                    &dn[u->kids[k]], err);
    }
    return rc;
}

static int collnet_build(struct bn_sched *s, struct bn_error *err)
{
    if (!collnet_supports(&s->p))
        return bn_coll_unsupported(s, "collnet", err);
    struct units u = {0};
    int rc = units_make(s, &u, err);
    uint32_t trees = s->p.channels < s->p.agg_max_trees ? s->p.channels : s->p.agg_max_trees;
    uint64_t parts = bn_coll_nparts(s->elems, trees);
    for (uint64_t t = 0; rc == BN_OK && t < parts; t++) {
        uint32_t first, count;
        rc = bn_coll_part_slices(s, 0, s->elems, parts, t, &first, &count, err);
        for (uint32_t q = first; rc == BN_OK && q < first + count; q++)
            rc = collnet_slice(s, &u, q, (uint32_t)t, err);
    }
    units_free(&u);
    return rc;
}

const struct bn_coll_algo_ops bn_coll_algo_collnet = {
    .name = "collnet",
    .summary = "reduced in the switches' SHARP aggregation units",
    .family = BN_FAMILY_COLLNET,
    .needs_aggregation = true,
    .supports = collnet_supports,
    .build = collnet_build,
};
