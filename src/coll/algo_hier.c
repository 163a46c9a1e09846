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
 * and the phases chain per piece: a piece is one two-level chain
 * (coll/sched.h), the servers its groups and GPU i its ring's member.
 * Servers must be full and there must be at least two of them with two
 * GPUs each; otherwise plain ring is the answer.
 */
#include <stdlib.h>

#include "coll/algo.h"

static bool hier_supports(const struct bn_coll_params *p)
{
    uint32_t g = p->gpus_per_server;
    return p->kind == BN_COLL_ALLREDUCE && g >= 2 && p->nranks % g == 0 && p->nranks / g >= 2;
}

static int hier_build(struct bn_sched *s, struct bn_error *err)
{
    if (!hier_supports(&s->p))
        return bn_coll_unsupported(s, "hier", err);
    uint32_t g = s->p.gpus_per_server, m = s->p.nranks / g;
    int rc = BN_OK;
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
                    rc = bn_sched_hchain(s, q, i, j, (uint32_t)c, err);
            }
        }
    }
    return rc;
}

/* The aggregate (sched.h), per channel part: phases 1 and 3's bytes per
 * edge of a server's ring (the same in every server) and phase 2's per
 * edge of each rail's ring. Phases 1 and 2 pipeline into each other; a
 * rail ring completes its chunks only at its end, so a server's phase 3
 * waits for the rails into it. The longest chain is part 0's, chunk 0's,
 * from server 0; its phase 1 is the pipeline's head. */
static int hier_bulk(struct bn_sched *s, struct bn_error *err)
{
    if (!hier_supports(&s->p))
        return bn_coll_unsupported(s, "hier", err);
    uint32_t g = s->p.gpus_per_server, m = s->p.nranks / g;
    uint64_t *part = malloc(3 * (size_t)g * sizeof *part), *intra = part + g, *back = intra + g;
    uint64_t *chunk = malloc(2 * (size_t)m * sizeof *chunk), *rail = chunk + m;
    uint32_t *into = malloc((size_t)s->p.nranks * sizeof *into); /* rail transfer into a rank */
    int rc = part && chunk && into ? BN_OK : bn_fail(err, BN_ENOMEM, "coll: out of memory (hier)");
    uint64_t parts = bn_coll_nparts(s->elems, s->p.channels), biggest = 0;
    for (uint64_t c = 0; rc == BN_OK && c < parts; c++) {
        uint32_t ch = (uint32_t)c, x;
        uint64_t pc = bn_coll_split_len(s->elems, parts, c);
        for (uint32_t i = 0; i < g; i++)
            part[i] = bn_coll_split_bytes(s, pc, g, i);
        /* 1: part i from GPU i + 1, g - 1 hops (the longest chain: part 0's) */
        bn_coll_cycle_load(part, g, 1, g - 1, intra);
        for (uint32_t sv = 0; rc == BN_OK && sv < m; sv++)
            for (uint32_t a = 0; rc == BN_OK && a < g; a++) {
                rc = bn_sched_bulk(s, sv * g + a, sv * g + (a + 1) % g, ch, intra[a], &x, err);
                if (rc == BN_OK && c == 0 && sv == 0 && a != 0)
                    rc = bn_sched_crit(s, x, 1, err);
            }
        if (c == 0) /* the rails wait for phase 1's first pieces */
            s->crit_head = s->ncrit;
        /* 2: chunk j of part i from server j, 2 (m - 1) hops on rail i */
        for (uint32_t i = 0; rc == BN_OK && i < g; i++) {
            uint64_t pi = part[i] / s->p.type_bytes, hops = 2 * ((uint64_t)m - 1);
            for (uint32_t j = 0; j < m; j++)
                chunk[j] = bn_coll_split_bytes(s, pi, m, j);
            if (bn_coll_split_len(pi, m, 0) > biggest) /* the first chunk is the biggest */
                biggest = bn_coll_split_len(pi, m, 0);
            bn_coll_cycle_load(chunk, m, 0, hops, rail);
            for (uint32_t sv = 0; rc == BN_OK && sv < m; sv++) {
                uint32_t to = (sv + 1) % m * g + i;
                rc = bn_sched_bulk(s, sv * g + i, to, ch, rail[sv], &into[to], err);
                if (rc == BN_OK && c == 0 && i == 0)
                    rc = bn_sched_crit(s, into[to], (uint32_t)(hops / m + (sv < hops % m)), err);
            }
        }
        /* 3: part i from GPU i, g - 1 hops, after the rails into the server */
        bn_coll_cycle_load(part, g, 0, g - 1, back);
        for (uint32_t sv = 0; rc == BN_OK && sv < m; sv++)
            for (uint32_t a = 0; rc == BN_OK && a < g; a++) {
                rc = bn_sched_bulk(s, sv * g + a, sv * g + (a + 1) % g, ch, back[a], &x, err);
                for (uint32_t i = 0; rc == BN_OK && x != UINT32_MAX && i < g; i++)
                    if (into[sv * g + i] != UINT32_MAX)
                        rc = bn_sched_dep(s, into[sv * g + i], x, err);
                if (rc == BN_OK && c == 0 && sv == 0 && a + 1 != g)
                    rc = bn_sched_crit(s, x, 1, err);
            }
    }
    s->crit_piece_bytes = bn_coll_slice_of(s, biggest);
    free(part);
    free(chunk);
    free(into);
    return rc;
}

const struct bn_coll_algo_ops bn_coll_algo_hier = {
    .name = "hier",
    .summary = "ring in each server, then across servers per rail",
    .family = BN_FAMILY_RING,
    .forced_only = true, /* an alternative to NCCL's rings, not NCCL's: coll.algo names it */
    .compact = BN_COMPACT_TWO_LEVEL,
    .supports = hier_supports,
    .build = hier_build,
    .bulk = hier_bulk,
};
