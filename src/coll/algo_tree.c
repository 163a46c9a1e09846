/*
 * Double binary tree (NCCL 2.4; construction as in NCCL's src/graph/trees.cc,
 * in the NVIDIA/nccl repository). Tree 1 is built on bit patterns: the parent
 * of a label with lowest set bit b is (label ^ b) | 2b, or label ^ b when
 * that is out of range. The lowest set bit grows at every step up, so this
 * is a tree rooted at label 0; odd labels are leaves, even labels interior,
 * and label 0 has a single child (the largest power of two below n). Tree 2
 * is the mirror (rank n-1-label) for even n, or the shift by one for odd n,
 * so each rank is interior in at most one tree (for odd n, rank 0 is
 * interior in both): the forwarding work, and the bandwidth it needs, is
 * spread over all ranks instead of falling on half of them.
 *
 * AllReduce: each tree carries half the data (even channels run tree 1,
 * odd ones tree 2, as NCCL gives each tree half of its channels). Per slice a node
 * REDUCEs into its parent once all its children's REDUCEs of that slice
 * have arrived; the root then COPYs the result down and each node forwards
 * down once it has it.
 * Broadcast and Reduce use tree 1 relabelled so that `root` is label 0, one
 * tree per channel, pipelined by slices the same way.
 *
 * An AllReduce over whole servers of GPUs is NCCL's tree as NCCL builds it
 * there: a chain inside each server, the double binary tree between the
 * servers, on each channel's NIC (algo_htree.c, which this builds).
 */
#include <stdlib.h>

#include "coll/algo.h"

/* One tree over n ranks: parent and up to two children, by rank, and an
 * order from the root down (parents before children). */
struct tree {
    uint32_t n, root;
    uint32_t *parent, *kids, *nkids, *order; /* kids: 2 per rank */
};

/* rank_of(label): 0 identity, 1 mirror/shift (AllReduce's second tree),
 * 2 rotated so label 0 is p->root. */
static uint32_t rank_of(uint32_t label, uint32_t n, int variant, uint32_t root)
{
    if (variant == 0)
        return label;
    if (variant == 1)
        return n % 2 == 0 ? n - 1 - label : (label + 1) % n;
    return (label + root) % n;
}

static void tree_free(struct tree *t)
{
    free(t->parent);
    free(t->kids);
    free(t->nkids);
    free(t->order);
    t->parent = t->kids = t->nkids = t->order = NULL;
}

static int tree_make(struct tree *t, uint32_t n, int variant, uint32_t root,
                     struct bn_error *err)
{
    t->n = n;
    t->parent = malloc(n * sizeof *t->parent);
    t->kids = malloc(2 * (size_t)n * sizeof *t->kids);
    t->nkids = malloc(n * sizeof *t->nkids);
    t->order = malloc(n * sizeof *t->order);
    if (!t->parent || !t->kids || !t->nkids || !t->order) {
        tree_free(t);
        return bn_fail(err, BN_ENOMEM, "coll: out of memory for a tree of %u ranks", n);
    }
    t->root = rank_of(0, n, variant, root);
    t->parent[t->root] = UINT32_MAX;
    for (uint32_t l = 0; l < n; l++) {
        uint32_t kid[2], r = rank_of(l, n, variant, root);
        t->nkids[r] = bn_coll_btree_kids(l, n, kid);
        for (uint32_t i = 0; i < t->nkids[r]; i++) {
            uint32_t kr = rank_of(kid[i], n, variant, root);
            t->kids[2 * r + i] = kr;
            t->parent[kr] = r;
        }
    }
    /* Breadth-first from the root: parents come before their children. */
    uint32_t len = 1;
    t->order[0] = t->root;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t r = t->order[i];
        for (uint32_t k = 0; k < t->nkids[r]; k++)
            t->order[len++] = t->kids[2 * r + k];
    }
    if (len != n) { /* every label is reached: a broken construction is a bug */
        tree_free(t);
        return bn_fail(err, BN_EINTERNAL, "coll: tree over %u ranks reaches only %u", n, len);
    }
    return BN_OK;
}

/* Per slice q: REDUCE up the tree (up[] gets each rank's send to its parent),
 * then, if `down`, COPY down from the root; `up_too` false for Broadcast. */
static int tree_slice(struct bn_sched *s, const struct tree *t, uint32_t q, uint32_t ch,
                      bool up_too, bool down_too, uint32_t *up, uint32_t *dn,
                      struct bn_error *err)
{
    int rc = BN_OK;
    up[t->root] = dn[t->root] = UINT32_MAX;
    for (uint32_t i = t->n; rc == BN_OK && i-- > 1;) { /* leaves first */
        uint32_t r = t->order[i];
        up[r] = dn[r] = UINT32_MAX;
        if (!up_too)
            continue;
        uint32_t deps[2] = {UINT32_MAX, UINT32_MAX};
        for (uint32_t k = 0; k < t->nkids[r]; k++)
            deps[k] = up[t->kids[2 * r + k]];
        rc = bn_coll_xfer_after(s, r, t->parent[r], q, BN_XFER_REDUCE, ch, deps, 2, &up[r], err);
    }
    if (!down_too)
        return rc;
    for (uint32_t i = 0; rc == BN_OK && i < t->n; i++) {
        uint32_t r = t->order[i];
        for (uint32_t k = 0; rc == BN_OK && k < t->nkids[r]; k++) {
            uint32_t kid = t->kids[2 * r + k];
            /* The root waits for the whole sum; others for their own copy. */
            uint32_t deps[2] = {dn[r], UINT32_MAX};
            if (r == t->root)
                for (uint32_t j = 0; j < t->nkids[r]; j++)
                    deps[j] = up[t->kids[2 * r + j]];
            rc = bn_coll_xfer_after(s, r, kid, q, BN_XFER_COPY, ch, deps, 2, &dn[kid], err);
        }
    }
    return rc;
}

static bool tree_supports(const struct bn_coll_params *p)
{
    return p->nranks >= 1 && (p->kind == BN_COLL_ALLREDUCE || p->kind == BN_COLL_BROADCAST ||
                              p->kind == BN_COLL_REDUCE);
}

static int tree_build(struct bn_sched *s, struct bn_error *err)
{
    if (!tree_supports(&s->p))
        return bn_coll_unsupported(s, "tree", err);
    if (bn_coll_algo_htree.supports(&s->p))
        return bn_coll_algo_htree.build(s, err);
    uint32_t n = s->p.nranks;
    bool ar = s->p.kind == BN_COLL_ALLREDUCE;
    struct tree t[2] = {{0}, {0}};
    uint32_t *scratch = malloc(2 * (size_t)n * sizeof *scratch);
    int rc = scratch ? BN_OK : bn_fail(err, BN_ENOMEM, "coll: out of memory for a tree");
    if (rc == BN_OK)
        rc = tree_make(&t[0], n, ar ? 0 : 2, s->p.root, err);
    if (rc == BN_OK && ar)
        rc = tree_make(&t[1], n, 1, 0, err);
    /* One part per channel; AllReduce alternates the trees, so channels
     * 2c and 2c+1 run tree 0 and tree 1 on the same NIC, as NCCL's
     * channels c and c + nChannels do (src/graph/connect.cc). */
    uint64_t ways = s->p.channels;
    s->in_order = true;
    uint64_t parts = bn_coll_nparts(s->elems, ways);
    for (uint64_t j = 0; rc == BN_OK && j < parts; j++) {
        uint32_t first, count;
        rc = bn_coll_part_slices(s, 0, s->elems, parts, j, &first, &count, err);
        const struct tree *tr = ar ? &t[j % 2] : &t[0];
        uint32_t ch = (uint32_t)j;
        bool up = s->p.kind != BN_COLL_BROADCAST, down = s->p.kind != BN_COLL_REDUCE;
        for (uint32_t q = first; rc == BN_OK && q < first + count; q++)
            rc = tree_slice(s, tr, q, ch, up, down, scratch, scratch + n, err);
    }
    free(scratch);
    tree_free(&t[0]);
    tree_free(&t[1]);
    return rc;
}

static uint64_t tree_transfers(const struct bn_coll_params *p)
{
    bool ar = p->kind == BN_COLL_ALLREDUCE;
    return bn_coll_tree_transfers(p, p->channels, ar);
}

const struct bn_coll_algo_ops bn_coll_algo_tree = {
    .name = "tree",
    .summary = "NCCL's double binary tree: reduce up, copy down",
    .family = BN_FAMILY_TREE,
    .supports = tree_supports,
    .build = tree_build,
    .transfers = tree_transfers,
};
