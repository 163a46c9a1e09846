/*
 * Ring, as NCCL runs it (NCCL's ring kernels; nccl-tests doc/PERFORMANCE.md
 * for the 2(n-1) steps): ranks form the cycle r -> r+1 mod n, and every
 * chunk of data travels along it hop by hop. AllReduce is a reduce-scatter
 * (n-1 REDUCE hops: at step s rank r sends chunk r-s on) followed by an
 * allgather (n-1 COPY hops), 2(n-1) steps in all, so each rank sends
 * 2(n-1)/n of the buffer. ReduceScatter and AllGather are either half, on
 * the collective's own blocks; Broadcast is a chain from the root and Reduce
 * a chain into it.
 *
 * Each chunk is cut into slices and every slice's hops depend only on that
 * slice's previous hop, which is what pipelines the ring: a slice crosses
 * NVLink while the one ahead of it crosses the network, so the ring runs at
 * its slowest link, not the sum of its stages. Channels take disjoint
 * parts of the array.
 *
 * Across servers of g GPUs, each with its own NIC (rail-optimized, as
 * DGX/HGX servers are built), the rings are NCCL's (NVIDIA/nccl 2.20+,
 * src/graph/search.cc, rings.cc, and transport/net.cc's PXN): one ring per
 * channel that crosses every server once, entering on the NIC of GPU
 * c mod g and leaving on that same NIC (NCCL_CROSS_NIC's default prefers
 * the same NIC, so traffic stays on its rail), the same order inside every
 * server: GPUs c, c+1, ..., c-1 (mod g). The last GPU reaches the NIC over
 * NVLink through GPU c (PXN, coll.pxn). So channel c uses rail c mod g and
 * 2g channels put two rings on every NIC, as NCCL does on H100 servers.
 */
#include <stdlib.h>

#include "coll/algo.h"

static bool ring_supports(const struct bn_coll_params *p)
{
    if (p->nranks < 1)
        return false;
    switch (p->kind) {
    case BN_COLL_ALLREDUCE:
    case BN_COLL_REDUCESCATTER:
    case BN_COLL_ALLGATHER:
    case BN_COLL_BROADCAST:
    case BN_COLL_REDUCE:
        return true;
    default:
        return false;
    }
}

/* Channel c's ring turn inside each server (sched.h, bn_ring_rank): GPU
 * c mod g first, when the ranks fill servers of g > 1; else ranks in order. */
static uint32_t ring_rot(const struct bn_coll_params *p, uint32_t channel)
{
    uint32_t g = p->gpus_per_server;
    return g > 1 && p->nranks > g && p->nranks % g == 0 ? channel % g : 0;
}

/* A rank's place on channel c's ring. */
static uint32_t pos_of(const struct bn_sched *s, uint32_t channel, uint32_t rank)
{
    return bn_ring_pos(s->p.gpus_per_server, ring_rot(&s->p, channel), rank);
}

/* One chain per slice of [lo,hi): from ring position `start`, `nred`
 * REDUCE hops then `ncopy` COPY hops around the ring, each hop after the
 * previous one (in the schedule's compact form, coll/sched.h: O(slices),
 * not O(slices x n)). */
static int chain(struct bn_sched *s, uint64_t lo, uint64_t hi, uint32_t start, uint32_t nred,
                 uint32_t ncopy, uint32_t channel, struct bn_error *err)
{
    uint32_t first, count;
    int rc = bn_coll_slices(s, lo, hi, &first, &count, err);
    for (uint32_t q = first; rc == BN_OK && nred + ncopy && q < first + count; q++)
        rc = bn_sched_chain(s, q, start % s->p.nranks, nred, ncopy, channel,
                            ring_rot(&s->p, channel), err);
    return rc;
}

/* AllReduce, Broadcast, Reduce: channel parts of the whole array. */
static int build_whole(struct bn_sched *s, struct bn_error *err)
{
    uint32_t n = s->p.nranks, root = s->p.root;
    uint64_t parts = bn_coll_nparts(s->elems, s->p.channels);
    int rc = BN_OK;
    for (uint64_t c = 0; rc == BN_OK && c < parts; c++) {
        uint64_t a, b;
        bn_coll_split(0, s->elems, parts, c, &a, &b);
        uint32_t at = pos_of(s, (uint32_t)c, root);
        if (s->p.kind == BN_COLL_BROADCAST) {
            rc = chain(s, a, b, at, 0, n - 1, (uint32_t)c, err);
        } else if (s->p.kind == BN_COLL_REDUCE) {
            rc = chain(s, a, b, at + 1, n - 1, 0, (uint32_t)c, err); /* ends at root */
        } else {
            /* Chunk k starts at position k; the reduce-scatter completes it
             * at k-1, which starts the allgather. */
            for (uint32_t k = 0; rc == BN_OK && k < n; k++) {
                uint64_t ca, cb;
                bn_coll_split(a, b, n, k, &ca, &cb);
                rc = chain(s, ca, cb, k, n - 1, n - 1, (uint32_t)c, err);
            }
        }
    }
    return rc;
}

/* ReduceScatter, AllGather: the chunks are the collective's blocks, each
 * cut into channel parts. */
static int build_blocks(struct bn_sched *s, struct bn_error *err)
{
    uint32_t n = s->p.nranks;
    uint64_t bsz = bn_coll_block_elems(&s->p);
    uint64_t parts = bn_coll_nparts(bsz, s->p.channels);
    bool rs = s->p.kind == BN_COLL_REDUCESCATTER;
    int rc = BN_OK;
    for (uint64_t c = 0; rc == BN_OK && c < parts; c++) {
        for (uint32_t k = 0; rc == BN_OK && k < n; k++) {
            uint64_t a, b;
            bn_coll_split(k * bsz, (k + 1) * bsz, parts, c, &a, &b);
            /* RS: start one past k so the n-1 hops end at rank k, which owns
             * block k. AG: block k starts where it lives, at rank k. */
            uint32_t at = pos_of(s, (uint32_t)c, k);
            if (rs)
                rc = chain(s, a, b, at + 1, n - 1, 0, (uint32_t)c, err);
            else
                rc = chain(s, a, b, at, 0, n - 1, (uint32_t)c, err);
        }
    }
    return rc;
}

static int ring_build(struct bn_sched *s, struct bn_error *err)
{
    if (!ring_supports(&s->p))
        return bn_coll_unsupported(s, "ring", err);
    if (s->p.kind == BN_COLL_REDUCESCATTER || s->p.kind == BN_COLL_ALLGATHER)
        return build_blocks(s, err);
    return build_whole(s, err);
}

/* The aggregate (sched.h): per channel part, the chains' bytes summed per
 * ring edge; the longest chain is chunk 0's of channel 0. */
static int ring_bulk(struct bn_sched *s, struct bn_error *err)
{
    if (!ring_supports(&s->p))
        return bn_coll_unsupported(s, "ring", err);
    uint32_t n = s->p.nranks, root = s->p.root;
    enum bn_coll_kind kind = s->p.kind;
    bool blocks = kind == BN_COLL_REDUCESCATTER || kind == BN_COLL_ALLGATHER;
    uint64_t whole = blocks ? bn_coll_block_elems(&s->p) : s->elems;
    uint64_t parts = bn_coll_nparts(whole, s->p.channels);
    /* chunk k's chain: from position k + off, `hops` hops (build_whole,
     * build_blocks; the one chunk of a Broadcast or Reduce is the root's) */
    uint32_t off = kind == BN_COLL_REDUCESCATTER ? 1 : 0, g = s->p.gpus_per_server;
    uint64_t hops = kind == BN_COLL_ALLREDUCE ? 2 * ((uint64_t)n - 1) : n - 1;
    bool one_chunk = kind == BN_COLL_BROADCAST || kind == BN_COLL_REDUCE;
    uint64_t *chunk = calloc(n, sizeof *chunk), *edge = malloc((size_t)n * sizeof *edge);
    int rc = chunk && edge ? BN_OK : bn_fail(err, BN_ENOMEM, "coll: out of memory (ring)");
    uint64_t biggest = 0;
    for (uint64_t c = 0; rc == BN_OK && n > 1 && c < parts; c++) {
        uint64_t part = bn_coll_split_len(whole, parts, c);
        uint32_t rot = ring_rot(&s->p, (uint32_t)c);
        if (one_chunk)
            off = bn_ring_pos(g, rot, root) + (kind == BN_COLL_REDUCE);
        for (uint32_t k = 0; k < n; k++) {
            uint64_t elems = one_chunk ? (k == 0 ? part : 0)
                             : blocks ? part : bn_coll_split_len(part, n, k);
            chunk[k] = elems * s->p.type_bytes;
            if (elems > biggest)
                biggest = elems;
        }
        bn_coll_cycle_load(chunk, n, off % n, hops, edge);
        for (uint32_t e = 0; rc == BN_OK && e < n; e++) {
            uint32_t x, from = (e + n - off % n) % n; /* hops from the chain's start */
            rc = bn_sched_bulk(s, bn_ring_rank(g, rot, e), bn_ring_rank(g, rot, (e + 1) % n),
                               (uint32_t)c, edge[e], &x, err);
            if (rc == BN_OK && c == 0)
                rc = bn_sched_crit(s, x, (uint32_t)(hops / n + (from < hops % n)), err);
        }
    }
    s->crit_piece_bytes = bn_coll_slice_of(s, biggest);
    free(chunk);
    free(edge);
    return rc;
}

const struct bn_coll_algo_ops bn_coll_algo_ring = {
    .name = "ring",
    .summary = "each rank sends to the next, 2(n-1) steps",
    .family = BN_FAMILY_RING,
    .compact = BN_COMPACT_CHAINS,
    .supports = ring_supports,
    .build = ring_build,
    .bulk = ring_bulk,
};
