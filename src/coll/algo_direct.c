/*
 * Direct: every rank exchanges with its peers point to point, all transfers
 * posted at once as NCCL's grouped send/recv does (ncclGroupStart/End around
 * ncclSend/ncclRecv; nccl-tests' alltoall and sendrecv). AllToAll goes
 * pairwise: at step k = 1..n-1 rank r sends block (r, r+k) to rank r+k, so
 * each rank moves (n-1)/n of its buffer. SendRecv: r sends to r+1. AllGather:
 * each rank sends its block to every other rank; ReduceScatter: each rank
 * REDUCEs its copy of block d straight into rank d (the n-1 contributions are
 * disjoint, so they may land in any order). Nothing waits for anything, so
 * there are no dependencies; blocks are still cut into channel parts and
 * slices so that the pipe stays full and the executor's queue pairs see
 * bounded messages.
 */
#include <stddef.h>

#include "coll/algo.h"

/* Not Broadcast or Reduce: a star would push (n-1) x S through the root's
 * NIC, which no one would choose; the chain and the tree do those. */
static bool direct_supports(const struct bn_coll_params *p)
{
    return p->nranks >= 1 && (p->kind == BN_COLL_ALLTOALL || p->kind == BN_COLL_SENDRECV ||
                              p->kind == BN_COLL_ALLGATHER || p->kind == BN_COLL_REDUCESCATTER);
}

/* Pieces of [lo,hi) by channel part and slice, each COPYed src -> dst; with
 * src == dst (the block a rank keeps) only the pieces are made, so that the
 * whole array is covered. */
static int send_range(struct bn_sched *s, uint64_t lo, uint64_t hi, uint32_t src, uint32_t dst,
                      struct bn_error *err)
{
    uint64_t parts = bn_coll_nparts(hi - lo, s->p.channels);
    int rc = BN_OK;
    for (uint64_t c = 0; rc == BN_OK && c < parts; c++) {
        uint32_t first, count;
        rc = bn_coll_part_slices(s, lo, hi, parts, c, &first, &count, err);
        for (uint32_t q = first; rc == BN_OK && src != dst && q < first + count; q++)
            rc = bn_sched_xfer(s, src, dst, q, BN_XFER_COPY, (uint32_t)c, NULL, err);
    }
    return rc;
}

/* A star around `center` over the pieces of [lo,hi): inbound, every other
 * rank REDUCEs its copy into the center (ReduceScatter); outbound, the
 * center COPYs its copy to every other rank (AllGather). The peers are taken
 * in the pairwise order center+1, center+2 ... */
static int star(struct bn_sched *s, uint64_t lo, uint64_t hi, uint32_t center, bool inbound,
                struct bn_error *err)
{
    uint32_t n = s->p.nranks;
    uint64_t parts = bn_coll_nparts(hi - lo, s->p.channels);
    int rc = BN_OK;
    for (uint64_t c = 0; rc == BN_OK && c < parts; c++) {
        uint32_t first, count;
        rc = bn_coll_part_slices(s, lo, hi, parts, c, &first, &count, err);
        for (uint32_t k = 1; k < n; k++) {
            uint32_t peer = (center + k) % n;
            uint32_t src = inbound ? peer : center, dst = inbound ? center : peer;
            enum bn_xfer_op op = inbound ? BN_XFER_REDUCE : BN_XFER_COPY;
            for (uint32_t q = first; rc == BN_OK && q < first + count; q++)
                rc = bn_sched_xfer(s, src, dst, q, op, (uint32_t)c, NULL, err);
        }
    }
    return rc;
}

static int direct_build(struct bn_sched *s, struct bn_error *err)
{
    if (!direct_supports(&s->p))
        return bn_coll_unsupported(s, "direct", err);
    uint32_t n = s->p.nranks;
    uint64_t bsz = bn_coll_block_elems(&s->p);
    int rc = BN_OK;
    switch (s->p.kind) {
    case BN_COLL_ALLTOALL:
        /* Step 0 is the block a rank keeps; block (r, d) starts at (r*n + d)*B. */
        for (uint32_t k = 0; rc == BN_OK && k < n; k++)
            for (uint32_t r = 0; rc == BN_OK && r < n; r++) {
                uint32_t d = (r + k) % n;
                uint64_t blk = (uint64_t)r * n + d;
                rc = send_range(s, blk * bsz, (blk + 1) * bsz, r, d, err);
            }
        return rc;
    case BN_COLL_SENDRECV:
        for (uint32_t r = 0; rc == BN_OK && r < n; r++)
            rc = send_range(s, r * bsz, (r + 1) * bsz, r, (r + 1) % n, err);
        return rc;
    case BN_COLL_REDUCESCATTER:
    case BN_COLL_ALLGATHER: /* block r gathers at r, or starts at r */
        for (uint32_t r = 0; rc == BN_OK && r < n; r++)
            rc = star(s, r * bsz, (r + 1) * bsz, r, s->p.kind == BN_COLL_REDUCESCATTER, err);
        return rc;
    default:
        return bn_coll_unsupported(s, "direct", err);
    }
}

const struct bn_coll_algo_ops bn_coll_algo_direct = {
    .name = "direct",
    .summary = "every rank to each peer at once, no dependencies",
    .supports = direct_supports,
    .build = direct_build,
};
