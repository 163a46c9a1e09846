/*
 * Two-level chains (coll/sched.h): a piece of a hierarchical AllReduce over
 * m groups of g ranks as one record. Its hops, local index k:
 *   [0, mL)            group v's reduce, hop h = k - vL (L = g - 1): from
 *                      member pos + 1 + h to the next, ending at member pos;
 *   [mL, mL + R)       the groups' ring, hop t (R = 2(m - 1)): from group
 *                      start + t's member pos to the next group's, REDUCE
 *                      for t < m - 1, then COPY;
 *   [mL + R, T)        group v's copy, hop h: from member pos + h onward.
 * Each hop follows the one before it in its ring. Hop t < m of the groups'
 * ring leaves group start + t for the first time and also waits for that
 * group's reduce; the group's sum joins what the ring carries then (t = m -
 * 1: the last group's, completing the reduce). A group's copy starts once
 * its member pos holds the final value: the last group once hop m - 1 is
 * ready, the others when a COPY hop reaches them. These are the
 * dependencies of the explicit form (a transfer per hop, a slot per rank
 * and piece), in the same order, held in two hop counts per group.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "coll/hchain.h"
#include "core/grow.h"

struct shape {
    uint32_t g, m, L, R;      /* group size, groups, hops in a group, ring hops */
};

static struct shape shape_of(const struct bn_sched *s)
{
    uint32_t g = s->p.gpus_per_server, m = s->p.nranks / g;
    return (struct shape){g, m, g - 1, 2 * (m - 1)};
}

int bn_sched_hchain(struct bn_sched *s, uint32_t piece, uint32_t pos, uint32_t start,
                    uint32_t channel, struct bn_error *err)
{
    uint32_t g = s->p.gpus_per_server, n = s->p.nranks;
    if (s->succ_off)
        return bn_fail(err, BN_EINPUT, "coll: two-level chain added after the schedule was"
                       " finished");
    /* group hop counts are 8 bits (a run's state: two per group and piece,
     * 1.07 GB at 16,384 GPUs in 8 GPU servers and 16 channels) */
    if (g < 2 || g > 256 || n % g != 0 || n / g < 2 || piece >= s->npieces ||
        pos >= g || start >= n / g || channel >= s->p.channels)
        return bn_fail(err, BN_EINPUT, "coll: two-level chain of piece %" PRIu32 " (member %"
                       PRIu32 ", group %" PRIu32 ", channel %" PRIu32 ") over %" PRIu32
                       " ranks in groups of %" PRIu32 " is not one", piece, pos, start, channel,
                       n, g);
    struct shape sh = shape_of(s);
    uint64_t hops = 2 * (uint64_t)sh.m * sh.L + sh.R;
    if (hops > UINT32_MAX - 1)
        return bn_fail(err, BN_EINPUT, "coll: a two-level chain of %" PRIu64 " hops", hops);
    if (!bn_grow((void **)&s->hchains, s->nhchains, &s->hchains_cap, sizeof *s->hchains))
        return bn_fail(err, BN_ENOMEM, "coll: out of memory for %" PRIu32 " two-level chains",
                       s->nhchains + 1);
    s->hchain_hops = (uint32_t)hops;
    s->hchains[s->nhchains++] = (struct bn_hchain){.piece = piece, .pos = pos, .start = start,
                                                   .channel = channel};
    return BN_OK;
}

int bn_hchain_finish(struct bn_sched *s, uint64_t *next, struct bn_error *err)
{
    struct shape sh = s->nhchains ? shape_of(s) : (struct shape){0};
    s->hchain_first = (uint32_t)*next;
    for (uint32_t c = 0; c < s->nhchains; c++) {
        struct bn_hchain *h = &s->hchains[c];
        if (s->piece_chain[h->piece] != UINT32_MAX)
            return bn_fail(err, BN_EINPUT, "coll: piece %" PRIu32 " is carried by two chains",
                           h->piece);
        s->piece_chain[h->piece] = s->nchains + c;
        h->first = (uint32_t)*next;
        *next += s->hchain_hops;
        if (*next > UINT32_MAX - 1)
            return bn_fail(err, BN_EINPUT, "coll: schedule has more than %" PRIu32 " transfers;"
                           " raise the slice size or use fewer channels", UINT32_MAX - 1);
    }
    uint64_t ready = (uint64_t)s->nexplicit + s->nchains + (uint64_t)s->nhchains * (sh.m + 1);
    if (ready > UINT32_MAX - 1)
        return bn_fail(err, BN_EINPUT, "coll: %" PRIu64 " transfers could be ready at once;"
                       " raise the slice size or use fewer channels", ready);
    return BN_OK;
}

void bn_sched_hchain_view(const struct bn_sched *s, uint32_t x, struct bn_xfer_view *v)
{
    struct shape sh = shape_of(s);
    uint32_t c = (x - s->hchain_first) / s->hchain_hops, k = (x - s->hchain_first) % s->hchain_hops;
    const struct bn_hchain *h = &s->hchains[c];
    const struct bn_piece *pc = &s->pieces[h->piece];
    uint32_t src, dst, ml = sh.m * sh.L;
    uint8_t op = BN_XFER_COPY;
    if (k < ml) { /* a group's reduce */
        uint32_t grp = k / sh.L, a = (h->pos + 1 + k % sh.L) % sh.g;
        src = grp * sh.g + a;
        dst = grp * sh.g + (a + 1) % sh.g;
        op = BN_XFER_REDUCE;
    } else if (k < ml + sh.R) { /* the groups' ring */
        uint32_t t = k - ml, from = (h->start + t) % sh.m;
        src = from * sh.g + h->pos;
        dst = (from + 1) % sh.m * sh.g + h->pos;
        op = t + 1 < sh.m ? BN_XFER_REDUCE : BN_XFER_COPY;
    } else { /* a group's copy */
        uint32_t grp = (k - ml - sh.R) / sh.L, a = (h->pos + (k - ml - sh.R) % sh.L) % sh.g;
        src = grp * sh.g + a;
        dst = grp * sh.g + (a + 1) % sh.g;
    }
    *v = (struct bn_xfer_view){.src = src, .dst = dst, .piece = h->piece, .channel = h->channel,
                               .bytes = (pc->hi - pc->lo) * s->p.type_bytes, .op = op};
}

int bn_hchain_run_start(struct bn_sched_run *r, struct bn_error *err)
{
    const struct bn_sched *s = r->s;
    size_t groups = s->nhchains ? shape_of(s).m : 0, nh = s->nhchains ? s->nhchains : 1;
    r->group_done = calloc(nh * 2 * (groups ? groups : 1), sizeof *r->group_done);
    r->ring_done = calloc(nh, sizeof *r->ring_done);
    r->ring_set = calloc(nh, sizeof *r->ring_set);
    if (r->group_done && r->ring_done && r->ring_set)
        return BN_OK;
    return bn_fail(err, BN_ENOMEM, "coll: out of memory for a run of %" PRIu32 " two-level"
                   " chains", s->nhchains);
}

void bn_hchain_run_free(struct bn_sched_run *r)
{
    free(r->group_done);
    free(r->ring_done);
    free(r->ring_set);
}

uint32_t bn_hchain_run_initial(const struct bn_sched_run *r, uint32_t *out)
{
    const struct bn_sched *s = r->s;
    uint32_t n = 0;
    struct shape sh = s->nhchains ? shape_of(s) : (struct shape){0};
    for (uint32_t c = 0; c < s->nhchains; c++) {
        for (uint32_t grp = 0; grp < sh.m; grp++)
            out[n++] = s->hchains[c].first + grp * sh.L;
    }
    return n;
}

/* Rank `rank`'s output for chain c's piece is what the groups' ring carries
 * (it holds the final value there); count the elements if it is not. */
static void check_output(struct bn_sched_run *r, uint32_t c, uint32_t rank)
{
    const struct bn_sched *s = r->s;
    const struct bn_piece *pc = &s->pieces[s->hchains[c].piece];
    struct bn_coll_answer a;
    if (bn_coll_answer_of(s, rank, pc->lo, pc->hi, false, &a) && a.kind != BN_ANS_NONE &&
        !bn_chain_set_is(&r->ring_set[c], a, s->p.nranks))
        r->chain_wrong += pc->hi - pc->lo;
}

/* Group grp's member pos holds chain c's final value: check it and start
 * the group's copy. */
static uint32_t group_copy(struct bn_sched_run *r, uint32_t c, uint32_t grp, uint32_t *out)
{
    const struct bn_sched *s = r->s;
    struct shape sh = shape_of(s);
    const struct bn_hchain *h = &s->hchains[c];
    check_output(r, c, grp * sh.g + h->pos);
    out[0] = h->first + sh.m * sh.L + sh.R + grp * sh.L;
    return 1;
}

/* Hop t of chain c's groups' ring can go: a first departure from a group
 * adds the group's sum (its reduce is done) to what the ring carries. */
static uint32_t ring_ready(struct bn_sched_run *r, uint32_t c, uint32_t t, uint32_t *out)
{
    const struct bn_sched *s = r->s;
    struct shape sh = shape_of(s);
    const struct bn_hchain *h = &s->hchains[c];
    const struct bn_piece *pc = &s->pieces[h->piece];
    uint32_t n = 0;
    if (t < sh.m) {
        uint32_t grp = (h->start + t) % sh.m;
        bool clash = r->group_done[(size_t)c * 2 * sh.m + grp] != sh.L; /* reduce not done */
        for (uint32_t a = 0; a < sh.g; a++) { /* in rank order: the ring goes up the groups */
            struct bn_coll_answer ans;
            if (bn_coll_answer_of(s, grp * sh.g + a, pc->lo, pc->hi, true, &ans) &&
                !bn_chain_set_add(&r->ring_set[c], ans, s->p.nranks))
                clash = true; /* a contribution would count twice */
        }
        if (clash)
            r->conflicts += pc->hi - pc->lo;
    }
    out[n++] = h->first + sh.m * sh.L + t;
    if (t + 1 == sh.m) /* the last group's sum joined: the reduce is complete there */
        n += group_copy(r, c, (h->start + t) % sh.m, out + n);
    return n;
}

uint32_t bn_hchain_deliver(struct bn_sched_run *r, uint32_t xfer, uint32_t *out)
{
    const struct bn_sched *s = r->s;
    struct shape sh = shape_of(s);
    uint32_t c = (xfer - s->hchain_first) / s->hchain_hops;
    uint32_t k = (xfer - s->hchain_first) % s->hchain_hops, ml = sh.m * sh.L;
    const struct bn_hchain *h = &s->hchains[c];
    const struct bn_piece *pc = &s->pieces[h->piece];
    uint8_t *reduce = r->group_done + (size_t)c * 2 * sh.m, *copy = reduce + sh.m;
    r->delivered++;
    if (k < ml) { /* a group's reduce: the ring may leave the group when it is done */
        uint32_t grp = k / sh.L, hop = k % sh.L;
        if (hop != reduce[grp])
            r->conflicts += pc->hi - pc->lo; /* delivered out of its order */
        reduce[grp]++;
        if (hop + 1 < sh.L) {
            out[0] = xfer + 1;
            return 1;
        }
        uint32_t t = (grp + sh.m - h->start) % sh.m; /* the ring's hop leaving grp */
        return r->ring_done[c] == t ? ring_ready(r, c, t, out) : 0;
    }
    if (k < ml + sh.R) { /* the groups' ring: its next hop, the receiver's copy */
        uint32_t t = k - ml, n = 0;
        if (t != r->ring_done[c] || (t < sh.m && reduce[(h->start + t) % sh.m] != sh.L))
            r->conflicts += pc->hi - pc->lo; /* out of order, or its server's sum not there */
        r->ring_done[c]++;
        if (t + 1 < sh.R && (t + 1 >= sh.m || reduce[(h->start + t + 1) % sh.m] == sh.L))
            n += ring_ready(r, c, t + 1, out);
        if (t + 1 >= sh.m) /* a COPY hop: the receiver holds the final value */
            n += group_copy(r, c, (h->start + t + 1) % sh.m, out + n);
        return n;
    }
    uint32_t grp = (k - ml - sh.R) / sh.L, hop = (k - ml - sh.R) % sh.L;
    uint32_t d = (grp + sh.m - h->start) % sh.m; /* the rail's last hop into grp: m - 1 + d */
    bool early = hop == 0 && (d + 1 == sh.m ? r->ring_done[c] + 1 < sh.m || reduce[grp] != sh.L
                                            : r->ring_done[c] < sh.m + d);
    if (hop != copy[grp] || early)
        r->conflicts += pc->hi - pc->lo; /* out of order, or before the final value */
    copy[grp]++;
    check_output(r, c, grp * sh.g + (h->pos + hop + 1) % sh.g);
    if (hop + 1 == sh.L)
        return 0;
    out[0] = xfer + 1;
    return 1;
}
