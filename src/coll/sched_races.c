/*
 * Static race check of a schedule: bn_sched_verify runs one delivery order
 * (FIFO), while a network delivers in whatever order the fabric produces.
 * A result is independent of that order when every two accesses to a slot
 * that do not commute are ordered by a chain of dependencies (the first
 * delivered before the second is posted): a read and a write, or a COPY and
 * any other write. Two REDUCEs into one slot commute and may race.
 *
 * This is Lamport's happened-before relation; as the whole graph is known
 * in advance it is computed outright, as the transitive closure of the
 * dependencies: per piece, a bitset of ancestors for each of the piece's
 * transfers, filled in topological order. Chains (sched.h) are left out:
 * each of their hops reads what only the hop before wrote, after it, and
 * no other transfer touches their pieces (bn_sched_finish checks), so they
 * cannot race. Two-level chains are left out too: a rail hop also reads
 * its server's sum, after that server's reduce; their explicit form is
 * checked race-free in tests/coll/test_hchain.c. Only chains through the
 * piece's own transfers are followed: every algorithm here keeps its
 * dependencies per piece, and a chain through other pieces would only make
 * this check report a race that is not there, never miss one.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coll/sched.h"

struct access {
    uint32_t slot, xfer;
    bool write;
};

struct races {
    const struct bn_sched *s;
    uint32_t *order;           /* xfer ids in a topological order */
    uint32_t *by_piece;        /* the same grouped by piece, still in that order */
    uint32_t *piece_off;       /* piece q's: by_piece[piece_off[q] .. piece_off[q+1]) */
    uint32_t *local;           /* per xfer: scratch, then its index within its piece */
    uint64_t *anc;             /* per local xfer: its ancestors and itself, words each */
    struct access *acc;        /* the piece's reads and writes, sorted by slot */
    uint32_t words;
};

static void races_free(struct races *r)
{
    free(r->order);
    free(r->by_piece);
    free(r->piece_off);
    free(r->local);
    free(r->anc);
    free(r->acc);
}

static uint32_t piece_of(const struct bn_sched *s, uint32_t x)
{
    return s->slots[s->xfers[x].src_slot].piece;
}

/* Kahn's algorithm into r->order; false on a cycle. */
static bool topo_order(struct races *r)
{
    const struct bn_sched *s = r->s;
    uint32_t *wait = r->local, tail = 0;
    for (uint32_t i = 0; i < s->nexplicit; i++)
        if ((wait[i] = s->xfers[i].ndeps) == 0)
            r->order[tail++] = i;
    for (uint32_t h = 0; h < tail; h++) {
        uint32_t x = r->order[h];
        for (uint32_t k = s->succ_off[x]; k < s->succ_off[x + 1]; k++)
            if (--wait[s->succ[k]] == 0)
                r->order[tail++] = s->succ[k];
    }
    return tail == s->nexplicit;
}

/* Stable counting sort of the order by piece; returns the most transfers
 * any piece has. */
static uint32_t group(struct races *r)
{
    const struct bn_sched *s = r->s;
    uint32_t most = 0, *cursor = r->local; /* sized for pieces too */
    memset(r->piece_off, 0, ((size_t)s->npieces + 1) * sizeof *r->piece_off);
    for (uint32_t i = 0; i < s->nexplicit; i++)
        r->piece_off[piece_of(s, i) + 1]++;
    for (uint32_t q = 0; q < s->npieces; q++) {
        uint32_t c = r->piece_off[q + 1];
        most = c > most ? c : most;
        r->piece_off[q + 1] += r->piece_off[q];
        cursor[q] = r->piece_off[q];
    }
    for (uint32_t h = 0; h < s->nexplicit; h++) {
        uint32_t x = r->order[h];
        r->by_piece[cursor[piece_of(s, x)]++] = x;
    }
    return most;
}

static bool before(const struct races *r, uint32_t a, uint32_t b)
{
    uint32_t la = r->local[a];
    return r->anc[(size_t)r->local[b] * r->words + la / 64] >> (la % 64) & 1;
}

static int by_slot(const void *a, const void *b)
{
    const struct access *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return x->xfer < y->xfer ? -1 : (x->xfer > y->xfer);
}

/* Do accesses a and b of one slot fail to commute? */
static bool clash(const struct bn_sched *s, const struct access *a, const struct access *b)
{
    if (a->xfer == b->xfer || (!a->write && !b->write))
        return false;
    if (a->write && b->write) /* two REDUCEs commute */
        return s->xfers[a->xfer].op == BN_XFER_COPY || s->xfers[b->xfer].op == BN_XFER_COPY;
    return true; /* a read against a write */
}

/* Racing pairs among the transfers of piece q. */
static uint64_t piece_races(struct races *r, uint32_t q)
{
    const struct bn_sched *s = r->s;
    const uint32_t *xs = r->by_piece + r->piece_off[q];
    uint32_t t = r->piece_off[q + 1] - r->piece_off[q];
    r->words = (t + 63) / 64;
    memset(r->anc, 0, (size_t)t * r->words * sizeof *r->anc);
    for (uint32_t i = 0; i < t; i++)
        r->local[xs[i]] = i;
    /* In topological order a transfer's ancestors are complete when it is
     * reached; it hands them on to its successors. */
    for (uint32_t i = 0; i < t; i++) {
        uint64_t *mine = r->anc + (size_t)i * r->words;
        mine[i / 64] |= UINT64_C(1) << (i % 64);
        for (uint32_t k = s->succ_off[xs[i]]; k < s->succ_off[xs[i] + 1]; k++) {
            uint32_t y = s->succ[k];
            if (piece_of(s, y) != q)
                continue;
            uint64_t *theirs = r->anc + (size_t)r->local[y] * r->words;
            for (uint32_t w = 0; w < r->words; w++)
                theirs[w] |= mine[w];
        }
    }
    for (uint32_t i = 0; i < t; i++) {
        r->acc[2 * i] = (struct access){s->xfers[xs[i]].src_slot, xs[i], false};
        r->acc[2 * i + 1] = (struct access){s->xfers[xs[i]].dst_slot, xs[i], true};
    }
    qsort(r->acc, 2 * (size_t)t, sizeof *r->acc, by_slot);
    uint64_t n = 0;
    for (uint32_t i = 0; i < 2 * t; i++)
        for (uint32_t j = i + 1; j < 2 * t && r->acc[j].slot == r->acc[i].slot; j++) {
            uint32_t a = r->acc[i].xfer, b = r->acc[j].xfer;
            if (clash(s, &r->acc[i], &r->acc[j]) && !before(r, a, b) && !before(r, b, a))
                n++;
        }
    return n;
}

int bn_sched_races(const struct bn_sched *s, uint64_t *races, struct bn_error *err)
{
    if (!s->succ_off)
        return bn_fail(err, BN_EINPUT, "coll: schedule checked before bn_sched_finish");
    if (s->bulk) /* an aggregate schedule's transfers stand for bytes, not data */
        return bn_fail(err, BN_EINPUT, "coll: an aggregate schedule has no data to race on");
    struct races r = {.s = s};
    size_t nx = (size_t)s->nexplicit + 1, np = (size_t)s->npieces + 1;
    r.order = malloc(nx * sizeof *r.order);
    r.by_piece = malloc(nx * sizeof *r.by_piece);
    r.piece_off = malloc(np * sizeof *r.piece_off);
    r.local = malloc((nx > np ? nx : np) * sizeof *r.local);
    int rc = BN_OK;
    if (!r.order || !r.by_piece || !r.piece_off || !r.local)
        rc = bn_fail(err, BN_ENOMEM, "coll: out of memory checking %" PRIu32 " transfers",
                     s->nexplicit);
    else if (!topo_order(&r))
        rc = bn_fail(err, BN_EINPUT, "coll: the dependencies of %" PRIu32 " transfers form a cycle",
                     s->nexplicit);
    uint32_t most = rc == BN_OK ? group(&r) : 0;
    if (rc == BN_OK) {
        size_t words = (most + 63) / 64;
        r.anc = malloc(((size_t)most * words + 1) * sizeof *r.anc);
        r.acc = malloc((2 * (size_t)most + 1) * sizeof *r.acc);
        if (!r.anc || !r.acc)
            rc = bn_fail(err, BN_ENOMEM, "coll: out of memory checking a piece of %" PRIu32
                         " transfers", most);
    }
    uint64_t n = 0;
    for (uint32_t q = 0; rc == BN_OK && q < s->npieces; q++)
        n += piece_races(&r, q);
    races_free(&r);
    if (rc == BN_OK)
        *races = n;
    return rc;
}
