/*
 * NCCL's tree as it runs on servers of G GPUs (NVIDIA/nccl src/graph/
 * trees.cc and the tree graph of src/graph/search.cc): inside a server the
 * GPUs form a chain (over NVLink), and the servers form NCCL's double
 * binary tree (algo_tree.c's construction over server labels, the second
 * tree mirrored), a server's chain head joined to its parent server's head
 * and to its child servers' heads. AllReduce only, as NCCL's Tree: each
 * channel's part is reduced up its tree and copied back down, per slice;
 * channel pairs run the two trees on one NIC, and the pairs' chains start
 * on different GPUs, so their network traffic leaves through different
 * NICs (rails), as NCCL's channels do.
 */
#include <stdlib.h>

#include "coll/algo.h"

enum { MAX_KIDS = 3 }; /* the next GPU of the chain, two child servers */

struct htree {
    uint32_t n, root;
    uint32_t *parent, *kids, *nkids, *order;
};

static void htree_free(struct htree *t)
{
    free(t->parent);
    free(t->kids);
    free(t->nkids);
    free(t->order);
}

static void add_kid(struct htree *t, uint32_t parent, uint32_t kid)
{
    t->kids[MAX_KIDS * parent + t->nkids[parent]++] = kid;
    t->parent[kid] = parent;
}

/* Part j's tree: servers labelled (mirrored for odd j), chains headed at
 * local GPU (j / 2) mod G: channels 2c and 2c+1 share search channel c's
 * chain and NIC, one per tree, as NCCL's channels c and c + nChannels do
 * (src/graph/connect.cc, connectTrees). */
static int htree_make(struct htree *t, const struct bn_coll_params *p, uint64_t j,
                      struct bn_error *err)
{
    uint32_t n = p->nranks, g = p->gpus_per_server, servers = n / g;
    uint32_t h = (uint32_t)(j / 2 % g);
    t->n = n;
    t->parent = malloc(n * sizeof *t->parent);
    t->kids = malloc(MAX_KIDS * (size_t)n * sizeof *t->kids);
    t->nkids = calloc(n, sizeof *t->nkids);
    t->order = malloc(n * sizeof *t->order);
    if (!t->parent || !t->kids || !t->nkids || !t->order)
        return bn_fail(err, BN_ENOMEM, "coll: out of memory for a tree of %u ranks", n);
    bool mirror = j % 2 == 1;
#define SERVER(label) (!mirror ? (label) : servers % 2 == 0 ? servers - 1 - (label) \
                                                            : ((label) + 1) % servers)
#define RANK(server, i) ((server) * g + (h + (i)) % g)
    t->root = RANK(SERVER(0), 0);
    t->parent[t->root] = UINT32_MAX;
    for (uint32_t l = 0; l < servers; l++) {
        uint32_t s = SERVER(l), kid[2], nk = bn_coll_btree_kids(l, servers, kid);
        for (uint32_t i = 1; i < g; i++) /* the chain down the server */
            add_kid(t, RANK(s, i - 1), RANK(s, i));
        for (uint32_t k = 0; k < nk; k++)
            add_kid(t, RANK(s, 0), RANK(SERVER(kid[k]), 0));
    }
#undef RANK
#undef SERVER
    uint32_t len = 1; /* breadth first: parents before children */
    t->order[0] = t->root;
    for (uint32_t i = 0; i < len; i++)
        for (uint32_t k = 0; k < t->nkids[t->order[i]]; k++)
            t->order[len++] = t->kids[MAX_KIDS * t->order[i] + k];
    if (len != n)
        return bn_fail(err, BN_EINTERNAL, "coll: tree over %u ranks reaches only %u", n, len);
    return BN_OK;
}

/* Slice q: REDUCE up (leaves first), then COPY down from the root. */
static int htree_slice(struct bn_sched *s, const struct htree *t, uint32_t q, uint32_t ch,
                       uint32_t *up, uint32_t *dn, struct bn_error *err)
{
    int rc = BN_OK;
    up[t->root] = dn[t->root] = UINT32_MAX;
    for (uint32_t i = t->n; rc == BN_OK && i-- > 1;) {
        uint32_t r = t->order[i], deps[MAX_KIDS] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
        for (uint32_t k = 0; k < t->nkids[r]; k++)
            deps[k] = up[t->kids[MAX_KIDS * r + k]];
        dn[r] = UINT32_MAX;
        rc = bn_coll_xfer_after(s, r, t->parent[r], q, BN_XFER_REDUCE, ch, deps, MAX_KIDS,
                                &up[r], err);
    }
    for (uint32_t i = 0; rc == BN_OK && i < t->n; i++) {
        uint32_t r = t->order[i];
        for (uint32_t k = 0; rc == BN_OK && k < t->nkids[r]; k++) {
            /* the root waits for the whole sum; the others for their copy */
            uint32_t deps[MAX_KIDS] = {dn[r], UINT32_MAX, UINT32_MAX};
            if (r == t->root)
                for (uint32_t m = 0; m < t->nkids[r]; m++)
                    deps[m] = up[t->kids[MAX_KIDS * r + m]];
            uint32_t kid = t->kids[MAX_KIDS * r + k];
            rc = bn_coll_xfer_after(s, r, kid, q, BN_XFER_COPY, ch, deps, MAX_KIDS, &dn[kid],
                                    err);
        }
    }
    return rc;
}

/* AllReduce over whole servers of G >= 2 GPUs, two servers or more. */
static bool htree_supports(const struct bn_coll_params *p)
{
    uint32_t g = p->gpus_per_server;
    return p->kind == BN_COLL_ALLREDUCE && g >= 2 && p->nranks % g == 0 && p->nranks / g >= 2;
}

static int htree_build(struct bn_sched *s, struct bn_error *err)
{
    if (!htree_supports(&s->p))
        return bn_coll_unsupported(s, "htree", err);
    uint32_t n = s->p.nranks;
    uint32_t *scratch = malloc(2 * (size_t)n * sizeof *scratch);
    int rc = scratch ? BN_OK : bn_fail(err, BN_ENOMEM, "coll: out of memory for a tree");
    uint64_t parts = bn_coll_nparts(s->elems, s->p.channels); /* one per channel */
    s->in_order = true;
    for (uint64_t j = 0; rc == BN_OK && j < parts; j++) {
        struct htree t = {0};
        uint32_t first = 0, count = 0;
        rc = htree_make(&t, &s->p, j, err);
        if (rc == BN_OK)
            rc = bn_coll_part_slices(s, 0, s->elems, parts, j, &first, &count, err);
        for (uint32_t q = first; rc == BN_OK && q < first + count; q++)
            rc = htree_slice(s, &t, q, (uint32_t)j, scratch, scratch + n, err);
        htree_free(&t);
    }
    free(scratch);
    return rc;
}

static uint64_t htree_transfers(const struct bn_coll_params *p)
{
    return bn_coll_tree_transfers(p, p->channels, true);
}

/* `tree` builds it across servers (algo_tree.c); by this name only when
 * coll.algo asks for it. */
const struct bn_coll_algo_ops bn_coll_algo_htree = {
    .name = "htree",
    .summary = "NCCL's tree on servers: a chain in each, a tree across",
    .family = BN_FAMILY_TREE,
    .forced_only = true,
    .supports = htree_supports,
    .build = htree_build,
    .transfers = htree_transfers,
};
