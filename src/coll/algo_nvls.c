/*
 * NVLS: collectives reduced and multicast by the NVSwitch of one NVLink
 * domain (NVLink SHARP, third-generation NVSwitch; NVIDIA Hopper
 * architecture whitepaper), as NCCL's NVLS algorithm runs them in one
 * domain. Rank p owns part p of the data:
 *   AllReduce: the switch reads part p from every rank and reduces it
 *     (multimem.ld_reduce: n REDUCEs into the unit), returns the sum to
 *     rank p, which stores it to the multicast address (multimem.st: one
 *     COPY up), and the switch writes it to every other rank;
 *   ReduceScatter: the reduction and its return only;
 *   AllGather: rank p's store and the switch's multicast only.
 * An AllReduce so moves S (1 + 1/n) up and S down each GPU's NVLink, and
 * (n + 1) S through the switch's engine (the NVLS unit, topo/aggregation.c),
 * whose throughput scale_up.nvls_efficiency bounds. Parts are cut per
 * channel and into NCCL's NVLS chunks, each chunk's steps depending on its
 * own only.
 */
#include <stdlib.h>

#include "coll/algo.h"

/* NCCL's NVLS chunk (NCCL_NVLS_CHUNKSIZE's default, NVIDIA/nccl
 * src/transport/nvls.cc): the pipelining unit of its loop */
#define NVLS_CHUNK_BYTES (128u * 1024u)

static bool nvls_supports(const struct bn_coll_params *p)
{
    bool kind = p->kind == BN_COLL_ALLREDUCE || p->kind == BN_COLL_REDUCESCATTER ||
                p->kind == BN_COLL_ALLGATHER;
    return kind && p->nranks >= 2 && p->nvls_domain >= p->nranks;
}

/* One chunk q of the part rank `own` owns on channel ch, through the unit
 * `u`. Every rank's operands are one stream to the switch (connection 0):
 * the switch reads each GPU's memory in the order the owners ask for it. */
static int nvls_piece(struct bn_sched *s, uint32_t q, uint32_t own, uint32_t u, uint32_t ch,
                      struct bn_error *err)
{
    uint32_t n = s->p.nranks, x = UINT32_MAX;
    enum bn_coll_kind k = s->p.kind;
    int rc = BN_OK;
    if (k != BN_COLL_ALLGATHER) { /* ld_reduce: every rank's operand, then the sum to own */
        uint32_t red = 0;
        rc = bn_sched_xfer(s, own, u, q, BN_XFER_REDUCE, 0, &red, err);
        uint32_t first = red;
        for (uint32_t i = 0; rc == BN_OK && i < n; i++)
            if (i != own)
                rc = bn_sched_xfer(s, i, u, q, BN_XFER_REDUCE, 0, &red, err);
        if (rc == BN_OK)
            rc = bn_sched_xfer(s, u, own, q, BN_XFER_COPY, ch, &x, err);
        for (uint32_t r = first; rc == BN_OK && r <= red; r++) /* ids in a row */
            rc = bn_sched_dep(s, r, x, err);
    }
    if (rc != BN_OK || k == BN_COLL_REDUCESCATTER)
        return rc;
    /* multimem.st: own's value up once, the switch writes it to the rest,
     * on the channel's second connection (NCCL's NVLS keeps its reduce
     * and broadcast sides apart, so a store never queues behind operands) */
    uint32_t st, down = ch + s->p.channels;
    rc = bn_coll_xfer_after(s, own, u, q, BN_XFER_COPY, down, &x, 1, &st, err);
    for (uint32_t j = 0; rc == BN_OK && j < n; j++)
        if (j != own)
            rc = bn_coll_xfer_after(s, u, j, q, BN_XFER_COPY, down, &st, 1, NULL, err);
    return rc;
}

static int nvls_build(struct bn_sched *s, struct bn_error *err)
{
    if (!nvls_supports(&s->p))
        return bn_coll_unsupported(s, "nvls", err);
    uint32_t n = s->p.nranks, u = n + s->p.nagg; /* one domain: its unit */
    bool whole = s->p.kind == BN_COLL_ALLREDUCE;
    uint64_t len = whole ? s->elems : bn_coll_block_elems(&s->p);
    uint32_t parts = (uint32_t)bn_coll_nparts(len, s->p.channels), streams = parts * n;
    /* per (channel, owner) stream: its first chunk and chunk count */
    uint32_t *first = malloc(2 * (size_t)streams * sizeof *first);
    uint32_t *count = first + streams, most = 0;
    int rc = first ? BN_OK : bn_fail(err, BN_ENOMEM, "coll: out of memory (nvls)");
    s->lanes = 2;
    if (s->p.slice_bytes > NVLS_CHUNK_BYTES)
        s->p.slice_bytes = NVLS_CHUNK_BYTES;
    for (uint32_t i = 0; rc == BN_OK && i < streams; i++) {
        uint32_t c = i / n, own = i % n;
        uint64_t a, b;
        /* AllReduce: part own of channel c's share; RS/AG: channel c's
         * share of block own, the collective's own layout */
        if (whole) {
            uint64_t ca, cb;
            bn_coll_split(0, s->elems, parts, c, &ca, &cb);
            bn_coll_split(ca, cb, n, own, &a, &b);
        } else {
            bn_coll_split(own * len, (own + 1) * len, parts, c, &a, &b);
        }
        rc = bn_coll_slices(s, a, b, &first[i], &count[i], err);
        most = count[i] > most ? count[i] : most;
    }
    /* every stream's k-th chunk before any (k+1)-th: the owners and their
     * channels work at once, so each rank's operands take turns among them */
    for (uint32_t k = 0; rc == BN_OK && k < most; k++)
        for (uint32_t i = 0; rc == BN_OK && i < streams; i++)
            if (k < count[i])
                rc = nvls_piece(s, first[i] + k, i % n, u, i / n, err);
    free(first);
    return rc;
}

const struct bn_coll_algo_ops bn_coll_algo_nvls = {
    .name = "nvls",
    .summary = "reduced and multicast by the NVSwitch, with scale_up.nvls",
    .family = BN_FAMILY_NVLS,
    .needs_nvls = true,
    .supports = nvls_supports,
    .build = nvls_build,
};
