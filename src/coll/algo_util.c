/*
 * Cutting helpers shared by the collective algorithms (see algo.h). Every
 * algorithm splits data the way NCCL does: first across channels, then into
 * the chunks its pattern moves, then into slices no bigger than the
 * pipelining unit, so that the piece is what flows and what dependencies
 * are kept per.
 */
#include <inttypes.h>
#include <stddef.h>

#include "coll/algo.h"

uint64_t bn_coll_nparts(uint64_t elems, uint64_t ways)
{
    return elems < ways ? elems : ways;
}

void bn_coll_split(uint64_t lo, uint64_t hi, uint64_t parts, uint64_t i, uint64_t *a,
                   uint64_t *b)
{
    /* Written without len * i so huge arrays cannot overflow. */
    uint64_t len = hi - lo, base = len / parts, extra = len % parts;
    *a = lo + base * i + (i < extra ? i : extra);
    *b = *a + base + (i < extra ? 1 : 0);
}

int bn_coll_slices(struct bn_sched *s, uint64_t lo, uint64_t hi, uint32_t *first,
                   uint32_t *count, struct bn_error *err)
{
    *first = s->npieces;
    *count = 0;
    if (lo >= hi)
        return BN_OK;
    uint64_t len = hi - lo;
    uint64_t per = s->p.slice_bytes / s->p.type_bytes; /* >= 1: bn_sched_init checks */
    uint64_t n = (len + per - 1) / per;
    if (n > UINT32_MAX - s->npieces)
        return bn_fail(err, BN_EINPUT,
                       "coll: %" PRIu64 " slices of %" PRIu64 " bytes are too many pieces;"
                       " raise the slice size", n, s->p.slice_bytes);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a, b;
        bn_coll_split(lo, hi, n, i, &a, &b);
        int rc = bn_sched_piece(s, a, b, NULL, err);
        if (rc != BN_OK)
            return rc;
    }
    *count = (uint32_t)n;
    return BN_OK;
}

void bn_coll_cycle_load(const uint64_t *bytes, uint32_t m, uint32_t off, uint64_t hops,
                        uint64_t *edge)
{
    /* chunk k crosses edge e (hops / m) times, once more if e lies within
     * the first hops % m edges from its start: a window of chunks
     * e - off, e - off - 1, ... slid round the cycle */
    uint64_t total = 0, full = hops / m, rem = hops % m, window = 0;
    for (uint32_t k = 0; k < m; k++)
        total += bytes[k];
    uint32_t at = (uint32_t)((2 * (uint64_t)m - off % m) % m); /* e - off for e = 0 */
    for (uint64_t j = 0; j < rem; j++)
        window += bytes[(at + m - j) % m];
    for (uint32_t e = 0; e < m; e++) {
        edge[e] = full * total + window;
        /* slide: chunk e + 1 - off enters, e + 1 - off - rem leaves (the
         * same one when rem is 0); unsigned, so it wraps back exactly */
        uint32_t in = (at + e + 1) % m, out = (uint32_t)((at + e + 1 + m - rem) % m);
        window += bytes[in] - bytes[out];
    }
}

uint64_t bn_coll_slice_of(const struct bn_sched *s, uint64_t elems)
{
    uint64_t per = s->p.slice_bytes / s->p.type_bytes;
    uint64_t n = elems ? (elems + per - 1) / per : 1;
    return (elems + n - 1) / n * s->p.type_bytes;
}

int bn_coll_part_slices(struct bn_sched *s, uint64_t lo, uint64_t hi, uint64_t parts, uint64_t i,
                        uint32_t *first, uint32_t *count, struct bn_error *err)
{
    uint64_t a, b;
    bn_coll_split(lo, hi, parts, i, &a, &b);
    return bn_coll_slices(s, a, b, first, count, err);
}

int bn_coll_xfer_after(struct bn_sched *s, uint32_t src, uint32_t dst, uint32_t piece,
                       enum bn_xfer_op op, uint32_t channel, const uint32_t *deps,
                       uint32_t ndeps, uint32_t *id, struct bn_error *err)
{
    uint32_t x;
    int rc = bn_sched_xfer(s, src, dst, piece, op, channel, &x, err);
    for (uint32_t i = 0; rc == BN_OK && i < ndeps; i++)
        if (deps[i] != UINT32_MAX)
            rc = bn_sched_dep(s, deps[i], x, err);
    if (rc == BN_OK && id)
        *id = x;
    return rc;
}

int bn_coll_unsupported(const struct bn_sched *s, const char *algo, struct bn_error *err)
{
    return bn_fail(err, BN_EINPUT,
                   "coll: algorithm %s cannot lower %s over %" PRIu32 " ranks with these"
                   " parameters", algo, bn_coll_kind_name(s->p.kind), s->p.nranks);
}

static uint32_t lowbit(uint32_t x) { return x & (~x + 1); }

uint32_t bn_coll_btree_kids(uint32_t label, uint32_t n, uint32_t kid[2])
{
    uint32_t k = 0;
    if (label == 0) {
        if (n > 1) {
            uint32_t top = 1;
            while (top <= (n - 1) / 2)
                top *= 2; /* the largest power of two below n */
            kid[k++] = top;
        }
        return k;
    }
    uint32_t b = lowbit(label);
    if (b == 1)
        return 0;
    kid[k++] = label - b / 2;
    /* The right child is label + b/2, or, past the end, the largest label + h
     * still in range (h < b/2): its parent formula overflows back to label. */
    for (uint32_t h = b / 2; h >= 1; h /= 2)
        if (label + h < n) {
            kid[k++] = label + h;
            break;
        }
    return k;
}

uint64_t bn_coll_tree_transfers(const struct bn_coll_params *p, uint64_t parts, bool both_ways)
{
    /* each part is cut into slices of whole elements on its own: at most
     * one more than its share of the elements in whole slices */
    uint64_t type = p->type_bytes ? p->type_bytes : 1, per = p->slice_bytes / type;
    uint64_t slices = p->bytes / type / (per ? per : 1) + parts;
    return slices * (p->nranks ? p->nranks - 1 : 0) * (both_ways ? 2 : 1);
}
