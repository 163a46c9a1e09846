/*
 * Hierarchical AllReduce for ranks packed g = gpus_per_server to a server,
 * the shape of NCCL's intra-node/inter-node split and of Horovod's
 * hierarchical allreduce (Sergeev & Del Balso, 2018), and the traffic a
 * rail-optimized fabric is built for: GPU i of every server talks only to
 * GPU i of the other servers.
 *   1. intra-server ring reduce-scatter over the server's g GPUs: GPU i ends
 *      with part i reduced over its server;
 *   2. inter-server ring AllReduce of part i among the GPUs i of all servers
 *      (one rail), reduce-scatter then allgather as in algo_ring.c;
 *   3. intra-server ring allgather of every part.
 * The pieces are the finest cut any phase needs: each channel part into g
 * server parts, each of those into one chunk per server, each into slices,
 * and the phases chain per piece. Servers must be full and there must be at
 * least two of them with two GPUs each; otherwise plain ring is the answer.
 */
#include <stdlib.h>

#include "coll/algo.h"

static bool hier_supports(const struct bn_coll_params *p)
{
    uint32_t g = p->gpus_per_server;
    return p->kind == BN_COLL_ALLREDUCE && g >= 2 && p->nranks % g == 0 && p->nranks / g >= 2;
}

/* Phases for one piece q of server part i and chunk j. last[sv]: the REDUCE
 * completing phase 1 on server sv; fin[2sv..2sv+1]: what GPU i of sv waits for
 * before it holds the final value. */
static int hier_piece(struct bn_sched *s, uint32_t i, uint32_t j, uint32_t q, uint32_t ch,
                      uint32_t *last, uint32_t *fin, struct bn_error *err)
{
    uint32_t g = s->p.gpus_per_server, m = s->p.nranks / g;
    int rc = BN_OK;
    /* 1: ring reduce-scatter in each server, from GPU i+1 round to GPU i. */
    for (uint32_t sv = 0; rc == BN_OK && sv < m; sv++) {
        uint32_t prev = UINT32_MAX;
        for (uint32_t h = 0; rc == BN_OK && h + 1 < g; h++) {
            uint32_t a = (i + 1 + h) % g, b = (a + 1) % g;
            rc = bn_coll_xfer_after(s, sv * g + a, sv * g + b, q, BN_XFER_REDUCE, ch, &prev, 1,
                                    &prev, err);
        }
        last[sv] = prev;
    }
    /* 2: ring AllReduce of chunk j over the rail of GPUs i: 2(m-1) hops from
     * server j. A sender in the reduce-scatter (and the first allgather
     * sender, which completed it) must also have its own server's sum. */
    uint32_t prev = UINT32_MAX, sv = j;
    for (uint32_t h = 0; rc == BN_OK && h < 2 * (m - 1); h++) {
        uint32_t to = (sv + 1) % m;
        uint32_t deps[2] = {prev, h < m ? last[sv] : UINT32_MAX};
        if (h == m - 1) { /* sv completed the reduce-scatter */
            fin[2 * sv] = prev;
            fin[2 * sv + 1] = last[sv];
        }
        enum bn_xfer_op op = h + 1 < m ? BN_XFER_REDUCE : BN_XFER_COPY;
        rc = bn_coll_xfer_after(s, sv * g + i, to * g + i, q, op, ch, deps, 2, &prev, err);
        if (op == BN_XFER_COPY) {
            fin[2 * to] = prev;
            fin[2 * to + 1] = UINT32_MAX;
        }
        sv = to;
    }
    /* 3: ring allgather in each server, from GPU i round to GPU i-1. */
    for (uint32_t v = 0; rc == BN_OK && v < m; v++) {
        const uint32_t *deps = fin + 2 * v;
        uint32_t ndeps = 2;
        for (uint32_t h = 0; rc == BN_OK && h + 1 < g; h++) {
            uint32_t a = (i + h) % g, b = (a + 1) % g;
            rc = bn_coll_xfer_after(s, v * g + a, v * g + b, q, BN_XFER_COPY, ch, deps, ndeps,
                                    &prev, err);
            deps = &prev;
            ndeps = 1;
        }
    }
    return rc;
}

static int hier_build(struct bn_sched *s, struct bn_error *err)
{
    if (!hier_supports(&s->p))
        return bn_coll_unsupported(s, "hier", err);
    uint32_t g = s->p.gpus_per_server, m = s->p.nranks / g;
    uint32_t *last = malloc(3 * (size_t)m * sizeof *last), *fin = last + m;
    int rc = last ? BN_OK : bn_fail(err, BN_ENOMEM, "coll: out of memory (hier)");
    uint64_t parts = bn_coll_nparts(s->elems, s->p.channels);
    for (uint64_t c = 0; rc == BN_OK && c < parts; c++) {
        uint64_t ca, cb;
        bn_coll_split(0, s->elems, parts, c, &ca, &cb);
        for (uint32_t i = 0; rc == BN_OK && i < g; i++) {
            uint64_t ia, ib;
            bn_coll_split(ca, cb, g, i, &ia, &ib);
            for (uint32_t j = 0; rc == BN_OK && j < m; j++) {
                uint32_t first, count;
                rc = bn_coll_part_slices(s, ia, ib, m, j, &first, &count, err);
                for (uint32_t q = first; rc == BN_OK && q < first + count; q++)
                    rc = hier_piece(s, i, j, q, (uint32_t)c, last, fin, err);
            }
        }
    }
    free(last);
    return rc;
}

const struct bn_coll_algo_ops bn_coll_algo_hier = {
    .name = "hier",
    .supports = hier_supports,
    .build = hier_build,
};
