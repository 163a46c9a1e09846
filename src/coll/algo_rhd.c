/*
 * Rabenseifner's AllReduce (Rabenseifner, "Optimization of collective
 * reduction operations", ICCS 2004; Thakur, Rabenseifner & Gropp, "Optimization
 * of collective communication operations in MPICH", IJHPCA 2005): a
 * recursive-halving reduce-scatter followed by a recursive-doubling
 * allgather among the largest power of two p <= n, in log2(p) rounds each.
 * The r = n - p extra ranks (p .. n-1) first fold: rank p+i REDUCEs its whole
 * buffer into rank i, and gets the result back from it at the end (COPY).
 *
 * Each channel part is cut into p chunks. In the halving round with mask m
 * (p/2 down to 1) rank v, still responsible for the chunks that agree with it
 * on the bits above m, REDUCEs the half whose bit m differs from its own to
 * v ^ m; afterwards chunk c is complete at rank c. Doubling runs the masks
 * back up with COPYs. ReduceScatter (chunk = block) and AllGather are the
 * two halves on their own, offered when n is a power of two.
 *
 * Dependencies are per slice: a send waits for every REDUCE the sender has
 * received of that slice so far (they come from different ranks and
 * commute), a COPY's successors wait for that COPY alone.
 */
#include <stdlib.h>

#include "coll/algo.h"

static bool pow2(uint32_t n) { return n && (n & (n - 1)) == 0; }

static bool rhd_supports(const struct bn_coll_params *p)
{
    if (p->nranks < 1)
        return false;
    if (p->kind == BN_COLL_ALLREDUCE)
        return true;
    return (p->kind == BN_COLL_REDUCESCATTER || p->kind == BN_COLL_ALLGATHER) && pow2(p->nranks);
}

/* Per-slice bookkeeping: what each rank received of the slice and has yet
 * to be waited on; at most one fold plus one receive per halving round. */
struct track {
    uint32_t cap;              /* entries per rank */
    uint32_t *got, *ngot;
};

static void got_add(struct track *t, uint32_t r, uint32_t x)
{
    t->got[r * t->cap + t->ngot[r]++] = x;
}

static void got_set(struct track *t, uint32_t r, uint32_t x)
{
    t->ngot[r] = 0;
    got_add(t, r, x);
}

/* rank v sends slice q to w; the send waits for all v has received. */
static int send(struct bn_sched *s, struct track *t, uint32_t v, uint32_t w, uint32_t q,
                enum bn_xfer_op op, uint32_t ch, struct bn_error *err)
{
    uint32_t x;
    int rc = bn_coll_xfer_after(s, v, w, q, op, ch, t->got + v * t->cap, t->ngot[v], &x, err);
    if (rc == BN_OK) {
        if (op == BN_XFER_REDUCE)
            got_add(t, w, x);
        else
            got_set(t, w, x); /* a COPY replaces whatever w had */
    }
    return rc;
}

/* All phases for slice q of chunk c (c < p). */
static int rhd_slice(struct bn_sched *s, struct track *t, uint32_t p, uint32_t c, uint32_t q,
                     uint32_t ch, struct bn_error *err)
{
    uint32_t n = s->p.nranks, extra = n - p;
    enum bn_coll_kind kind = s->p.kind;
    bool ar = kind == BN_COLL_ALLREDUCE;
    int rc = BN_OK;
    for (uint32_t v = 0; v < n; v++)
        t->ngot[v] = 0;
    for (uint32_t i = 0; ar && rc == BN_OK && i < extra; i++)
        rc = send(s, t, p + i, i, q, BN_XFER_REDUCE, ch, err);
    /* Halving: senders agree with c above bit m and differ at it. */
    for (uint32_t m = p / 2; kind != BN_COLL_ALLGATHER && m >= 1; m /= 2) {
        uint32_t high = c & ~(2 * m - 1), flip = (c & m) ^ m;
        for (uint32_t low = 0; rc == BN_OK && low < m; low++) {
            uint32_t v = high | flip | low;
            rc = send(s, t, v, v ^ m, q, BN_XFER_REDUCE, ch, err);
        }
    }
    /* Doubling: the ranks agreeing with c from bit m up hold it. */
    for (uint32_t m = 1; kind != BN_COLL_REDUCESCATTER && m < p; m *= 2) {
        uint32_t high = c & ~(m - 1);
        for (uint32_t low = 0; rc == BN_OK && low < m; low++) {
            uint32_t v = high | low;
            rc = send(s, t, v, v ^ m, q, BN_XFER_COPY, ch, err);
        }
    }
    for (uint32_t i = 0; ar && rc == BN_OK && i < extra; i++)
        rc = send(s, t, i, p + i, q, BN_XFER_COPY, ch, err);
    return rc;
}

/* Chunk c of channel part `part`: AllReduce cuts the part itself into p
 * chunks; RS and AG use block c (p == n) cut into the same parts. */
static void chunk_range(const struct bn_sched *s, uint32_t p, uint64_t parts, uint64_t part,
                        uint32_t c, uint64_t *a, uint64_t *b)
{
    if (s->p.kind == BN_COLL_ALLREDUCE) {
        uint64_t pa, pb;
        bn_coll_split(0, s->elems, parts, part, &pa, &pb);
        bn_coll_split(pa, pb, p, c, a, b);
    } else {
        uint64_t bsz = bn_coll_block_elems(&s->p);
        bn_coll_split(c * bsz, (c + 1) * bsz, parts, part, a, b);
    }
}

static int rhd_build(struct bn_sched *s, struct bn_error *err)
{
    if (!rhd_supports(&s->p))
        return bn_coll_unsupported(s, "rhd", err);
    uint32_t n = s->p.nranks, p = 1, logp = 0;
    while (p <= n / 2) {
        p *= 2;
        logp++;
    }
    struct track t = {.cap = logp + 1};
    t.got = malloc((size_t)n * t.cap * sizeof *t.got);
    t.ngot = malloc((size_t)n * sizeof *t.ngot);
    int rc = t.got && t.ngot ? BN_OK : bn_fail(err, BN_ENOMEM, "coll: out of memory (rhd)");
    uint64_t span = s->p.kind == BN_COLL_ALLREDUCE ? s->elems : bn_coll_block_elems(&s->p);
    uint64_t parts = bn_coll_nparts(span, s->p.channels);
    for (uint64_t part = 0; rc == BN_OK && part < parts; part++) {
        for (uint32_t c = 0; rc == BN_OK && c < p; c++) {
            uint64_t a, b;
            uint32_t first, count;
            chunk_range(s, p, parts, part, c, &a, &b);
            rc = bn_coll_slices(s, a, b, &first, &count, err);
            for (uint32_t q = first; rc == BN_OK && q < first + count; q++)
                rc = rhd_slice(s, &t, p, c, q, (uint32_t)part, err);
        }
    }
    free(t.got);
    free(t.ngot);
    return rc;
}

const struct bn_coll_algo_ops bn_coll_algo_rhd = {
    .name = "rhd",
    .summary = "Rabenseifner: recursive halving, then doubling",
    .forced_only = true, /* its ECMP collisions elude the alpha-beta model (tuner.c) */
    .supports = rhd_supports,
    .build = rhd_build,
};
