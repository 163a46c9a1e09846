/*
 * Running a schedule on symbolic data (see sched.h): every slot holds the set
 * of ranks whose contributions it contains, so a run proves what a real run
 * on buffers would compute without any arithmetic. The same state serves the
 * network executor, which posts and delivers in simulated time, and
 * bn_sched_verify below, which runs the dependency graph in FIFO order.
 *
 * A transfer is checked twice: a REDUCE whose sets intersect would count a
 * contribution twice, and a source slot whose version moved between posting
 * and delivery was being written while the NIC read it (a missing
 * dependency: the real result would depend on timing). Both count as wrong
 * elements, as do output elements that no piece covers.
 *
 * A chain (sched.h) keeps one set, what its piece carries: a REDUCE hop adds
 * the receiving rank's contribution (checked not to be in it already), and
 * when the chain leaves a rank for the last time, the rank's output for the
 * piece is what the chain carried there. A ring's hops gather ranks in ring
 * order, so what a chain carries is an interval of the ring (first rank,
 * count): 9 bytes per chain whatever n is, where an n-bit set per chain
 * would take 4.3 GB for a 131,072-rank ring. A two-level chain's groups'
 * ring carries such an interval too (sched_hchain.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coll/hchain.h"

/* malloc that never returns NULL for an empty request, so NULL means failure. */
static void *alloc(size_t n, size_t size, bool zero)
{
    if (n == 0)
        n = 1;
    return zero ? calloc(n, size) : malloc(n * size);
}

struct range_id {
    uint64_t lo, hi;
    uint32_t id;
};

static int by_lo_cmp(const void *a, const void *b)
{
    const struct range_id *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi)
        return x->hi < y->hi ? -1 : 1;
    return x->id < y->id ? -1 : (x->id > y->id);
}

static int sort_pieces(struct bn_sched_run *r, struct bn_error *err)
{
    const struct bn_sched *s = r->s;
    struct range_id *tmp = alloc(s->npieces, sizeof *tmp, false);
    if (!tmp)
        return bn_fail(err, BN_ENOMEM, "coll: out of memory sorting %" PRIu32 " pieces",
                       s->npieces);
    for (uint32_t i = 0; i < s->npieces; i++)
        tmp[i] = (struct range_id){s->pieces[i].lo, s->pieces[i].hi, i};
    qsort(tmp, s->npieces, sizeof *tmp, by_lo_cmp);
    for (uint32_t i = 0; i < s->npieces; i++)
        r->by_lo[i] = tmp[i].id;
    free(tmp);
    return BN_OK;
}

/* Add contributions `a` to a chain's interval; false if one was in it
 * already (it would count twice). */
bool bn_chain_set_add(struct bn_chain_set *set, struct bn_coll_answer a, uint32_t n)
{
    if (a.kind == BN_ANS_EMPTY || a.kind == BN_ANS_NONE)
        return true;
    if (a.kind == BN_ANS_ALL || set->count == 0) {
        bool clash = set->count > 0;
        *set = a.kind == BN_ANS_ALL ? (struct bn_chain_set){0, n, set->broken}
                                    : (struct bn_chain_set){a.rank, 1, set->broken};
        return !clash;
    }
    uint32_t after = (a.rank + n - set->first) % n; /* a.rank's place from first */
    if (after < set->count)
        return false;
    if (after == set->count) { /* extends the run past its end */
        set->count++;
    } else if (after == n - 1) { /* or before its first rank */
        set->first = a.rank;
        set->count++;
    } else {
        set->broken = true; /* not an interval: not what a ring gathers */
    }
    return true;
}

/* Whether the chain's interval is exactly the contributions `want`. */
bool bn_chain_set_is(const struct bn_chain_set *set, struct bn_coll_answer want, uint32_t n)
{
    if (set->broken)
        return false;
    switch (want.kind) {
    case BN_ANS_ALL:
        return set->count == n;
    case BN_ANS_ONE:
        return set->count == 1 && set->first == want.rank;
    default:
        return set->count == 0;
    }
}

/* What the rank at ring position `pos` of chain ch holds before (initial)
 * or must hold after, with a single contributor given as its position on
 * the chain's ring: the interval a chain carries is one of positions. */
static bool chain_answer(const struct bn_sched *s, const struct bn_chain *ch, uint32_t pos,
                         const struct bn_piece *pc, bool initial, struct bn_coll_answer *a)
{
    uint32_t g = s->p.gpus_per_server;
    if (!bn_coll_answer_of(s, bn_ring_rank(g, ch->rot, pos), pc->lo, pc->hi, initial, a))
        return false;
    if (a->kind == BN_ANS_ONE)
        a->rank = bn_ring_pos(g, ch->rot, a->rank);
    return true;
}

int bn_sched_run_start(struct bn_sched_run *r, const struct bn_sched *s, struct bn_error *err)
{
    memset(r, 0, sizeof *r);
    if (!s->succ_off)
        return bn_fail(err, BN_EINPUT, "coll: schedule run before bn_sched_finish");
    r->s = s;
    r->content = alloc(s->bulk ? 0 : (size_t)s->nslots * s->words, sizeof *r->content, true);
    r->version = alloc(s->nslots, sizeof *r->version, true);
    r->posted_version = alloc(s->nexplicit, sizeof *r->posted_version, true);
    r->waiting = alloc(s->nexplicit, sizeof *r->waiting, false);
    r->by_lo = alloc(s->npieces, sizeof *r->by_lo, false);
    r->carried = alloc(s->nchains, sizeof *r->carried, true);
    r->hops_done = alloc(s->nchains, sizeof *r->hops_done, true);
    if (!r->content || !r->version || !r->posted_version || !r->waiting || !r->by_lo ||
        !r->carried || !r->hops_done) {
        bn_sched_run_free(r);
        return bn_fail(err, BN_ENOMEM, "coll: out of memory for a run of %" PRIu32 " slots",
                       s->nslots);
    }
    if (bn_hchain_run_start(r, err) != BN_OK) {
        bn_sched_run_free(r);
        return BN_ENOMEM;
    }
    for (uint32_t i = 0; !s->bulk && i < s->nslots; i++) {
        const struct bn_slot *sl = &s->slots[i];
        const struct bn_piece *pc = &s->pieces[sl->piece];
        if (!bn_coll_initial(s, sl->endpoint, pc->lo, pc->hi, r->content + (size_t)i * s->words)) {
            bn_sched_run_free(r);
            return bn_fail(err, BN_EINPUT,
                           "coll: piece %" PRIu32 " [%" PRIu64 ", %" PRIu64 ") at endpoint %" PRIu32
                           " straddles blocks of the %s layout", sl->piece, pc->lo, pc->hi,
                           sl->endpoint, bn_coll_kind_name(s->p.kind));
        }
    }
    for (uint32_t i = 0; i < s->nexplicit; i++)
        r->waiting[i] = s->xfers[i].ndeps;
    for (uint32_t c = 0; c < s->nchains; c++) {
        const struct bn_chain *ch = &s->chains[c];
        const struct bn_piece *pc = &s->pieces[ch->piece];
        struct bn_coll_answer a;
        if (!chain_answer(s, ch, ch->start, pc, true, &a)) {
            bn_sched_run_free(r);
            return bn_fail(err, BN_EINPUT, "coll: chain of piece %" PRIu32 " straddles blocks"
                           " of the %s layout", ch->piece, bn_coll_kind_name(s->p.kind));
        }
        r->carried[c] = (struct bn_chain_set){0, 0, false};
        bn_chain_set_add(&r->carried[c], a, s->p.nranks);
    }
    int rc = sort_pieces(r, err);
    if (rc != BN_OK)
        bn_sched_run_free(r);
    return rc;
}

void bn_sched_run_free(struct bn_sched_run *r)
{
    free(r->content);
    free(r->version);
    free(r->posted_version);
    free(r->waiting);
    free(r->by_lo);
    free(r->carried);
    free(r->hops_done);
    bn_hchain_run_free(r);
    memset(r, 0, sizeof *r);
}

uint32_t bn_sched_run_initial(const struct bn_sched_run *r, uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->s->nexplicit; i++)
        if (r->s->xfers[i].ndeps == 0)
            out[n++] = i;
    for (uint32_t c = 0; c < r->s->nchains; c++)
        out[n++] = r->s->chains[c].first;
    return n + bn_hchain_run_initial(r, out + n);
}

void bn_sched_run_posted(struct bn_sched_run *r, uint32_t xfer)
{
    if (xfer < r->s->nexplicit) /* a chain's hop reads what only its last hop wrote */
        r->posted_version[xfer] = r->version[r->s->xfers[xfer].src_slot];
}

/* Hop `xfer` of a chain delivered: the set it carries changes as the hop
 * does, and the rank it reached is checked if the chain will not come back
 * to it. Its next hop is ready. */
static uint32_t chain_deliver(struct bn_sched_run *r, uint32_t xfer, uint32_t *out)
{
    const struct bn_sched *s = r->s;
    uint32_t c = bn_sched_chain_of(s, xfer);
    const struct bn_chain *ch = &s->chains[c];
    const struct bn_piece *pc = &s->pieces[ch->piece];
    uint64_t elems = pc->hi - pc->lo;
    struct bn_chain_set *set = &r->carried[c];
    uint32_t h = xfer - ch->first, n = s->p.nranks, total = ch->nred + ch->ncopy;
    uint32_t dst = (uint32_t)((ch->start + (uint64_t)h + 1) % n);
    struct bn_coll_answer a;
    if (h != r->hops_done[c])
        r->conflicts += elems; /* delivered out of its order */
    r->hops_done[c]++;
    if (h < ch->nred && chain_answer(s, ch, dst, pc, true, &a) && !bn_chain_set_add(set, a, n))
        r->conflicts += elems;
    if ((uint64_t)h + n >= total && chain_answer(s, ch, dst, pc, false, &a) &&
        a.kind != BN_ANS_NONE && !bn_chain_set_is(set, a, n))
        r->chain_wrong += elems; /* its last visit: what the rank keeps */
    r->delivered++;
    if (h + 1 == total)
        return 0;
    out[0] = xfer + 1;
    return 1;
}

uint32_t bn_sched_run_deliver(struct bn_sched_run *r, uint32_t xfer, uint32_t *out)
{
    const struct bn_sched *s = r->s;
    if (xfer >= s->hchain_first)
        return bn_hchain_deliver(r, xfer, out);
    if (xfer >= s->nexplicit)
        return chain_deliver(r, xfer, out);
    const struct bn_xfer *x = &s->xfers[xfer];
    const struct bn_piece *pc = &s->pieces[s->slots[x->src_slot].piece];
    uint64_t elems = pc->hi - pc->lo;
    if (!s->bulk) { /* an aggregate schedule carries bytes, not contributions */
        const uint64_t *src = r->content + (size_t)x->src_slot * s->words;
        uint64_t *dst = r->content + (size_t)x->dst_slot * s->words;
        if (r->version[x->src_slot] != r->posted_version[xfer])
            r->conflicts += elems; /* the source changed under the read */
        if (x->op == BN_XFER_REDUCE) {
            uint64_t overlap = 0;
            for (uint32_t w = 0; w < s->words; w++) {
                overlap |= dst[w] & src[w];
                dst[w] |= src[w];
            }
            if (overlap)
                r->conflicts += elems; /* some contribution would be added twice */
        } else {
            memcpy(dst, src, (size_t)s->words * sizeof *dst);
        }
    }
    r->version[x->dst_slot]++;
    r->delivered++;

    uint32_t n = 0;
    for (uint32_t k = s->succ_off[xfer]; k < s->succ_off[xfer + 1]; k++) {
        uint32_t nx = s->succ[k];
        if (--r->waiting[nx] == 0)
            out[n++] = nx;
    }
    return n;
}

/* Does chain c's piece reach rank rr (as some hop's receiver)? A
 * two-level chain's reaches every rank. */
static bool chain_reaches(const struct bn_sched *s, uint32_t c, uint32_t rr)
{
    if (c >= s->nchains)
        return true;
    const struct bn_chain *ch = &s->chains[c];
    uint32_t n = s->p.nranks, pos = bn_ring_pos(s->p.gpus_per_server, ch->rot, rr);
    uint64_t total = (uint64_t)ch->nred + ch->ncopy, after = (pos + n - ch->start - 1) % n;
    return total >= n || after < total;
}

/* Wrong elements of rank rr's output; want and tmp are scratch sets. A
 * chain's piece at a rank it reaches was checked as the chain left it. */
static uint64_t rank_wrong(const struct bn_sched_run *r, uint32_t rr, uint64_t *want,
                           uint64_t *tmp)
{
    const struct bn_sched *s = r->s;
    size_t wbytes = (size_t)s->words * sizeof *want;
    uint64_t wrong = 0, covered = 0, cur_lo = 0, cur_hi = 0;
    for (uint32_t k = 0; k < s->npieces; k++) {
        uint32_t q = r->by_lo[k];
        uint64_t lo = s->pieces[q].lo, hi = s->pieces[q].hi;
        if (!bn_coll_wanted(s, rr, lo, hi, want))
            continue;
        uint32_t c = s->piece_chain ? s->piece_chain[q] : UINT32_MAX;
        if (c == UINT32_MAX || !chain_reaches(s, c, rr)) {
            uint32_t slot = bn_sched_find_slot(s, rr, q);
            const uint64_t *have = NULL;
            if (slot != UINT32_MAX)
                have = r->content + (size_t)slot * s->words;
            else if (bn_coll_initial(s, rr, lo, hi, tmp))
                have = tmp; /* no transfer touched it: it still holds its input */
            if (!have || memcmp(have, want, wbytes) != 0)
                wrong += hi - lo;
        }
        /* Union of the checked ranges, merged in order of lo. */
        if (lo > cur_hi) {
            covered += cur_hi - cur_lo;
            cur_lo = lo;
            cur_hi = hi;
        } else if (hi > cur_hi) {
            cur_hi = hi;
        }
    }
    covered += cur_hi - cur_lo;
    uint64_t need = bn_coll_wanted_elems(s, rr);
    if (covered < need)
        wrong += need - covered; /* output elements no piece delivers */
    return wrong;
}

uint64_t bn_sched_run_wrong(const struct bn_sched_run *r)
{
    const struct bn_sched *s = r->s;
    if (s->bulk) /* nothing was carried to check */
        return 0;
    uint64_t *scratch = alloc((size_t)s->words * 2, sizeof *scratch, false);
    if (!scratch)
        return UINT64_MAX; /* cannot check: report everything as wrong, never as right */
    uint64_t wrong = r->conflicts + r->chain_wrong;
    for (uint32_t rr = 0; rr < s->p.nranks; rr++)
        wrong += rank_wrong(r, rr, scratch, scratch + s->words);
    free(scratch);
    return wrong;
}

int bn_sched_verify(const struct bn_sched *s, uint64_t *wrong, struct bn_error *err)
{
    struct bn_sched_run r;
    int rc = bn_sched_run_start(&r, s, err);
    if (rc != BN_OK)
        return rc;
    /* A FIFO of the ready transfers, a ring: at most every explicit
     * transfer, a hop per chain and groups + 1 per two-level chain wait
     * at once (bn_sched_ready_max). */
    uint32_t cap = bn_sched_ready_max(s) + 1;
    uint32_t *queue = alloc(cap, sizeof *queue, false), *got = alloc(cap, sizeof *got, false);
    if (!queue || !got) {
        free(queue);
        free(got);
        bn_sched_run_free(&r);
        return bn_fail(err, BN_ENOMEM, "coll: out of memory verifying %" PRIu32 " transfers",
                       s->nxfers);
    }
    uint64_t head = 0, tail = bn_sched_run_initial(&r, queue);
    for (uint64_t i = 0; i < tail; i++)
        bn_sched_run_posted(&r, queue[i]);
    while (head < tail) {
        uint32_t n = bn_sched_run_deliver(&r, queue[head++ % cap], got);
        for (uint32_t i = 0; i < n; i++) {
            bn_sched_run_posted(&r, got[i]);
            queue[tail++ % cap] = got[i];
        }
    }
    free(got);
    if (r.delivered < s->nxfers) {
        rc = bn_fail(err, BN_EINPUT,
                     "coll: %" PRIu32 " of %" PRIu32 " transfers never ran: their dependencies"
                     " form a cycle", s->nxfers - r.delivered, s->nxfers);
    } else if (wrong) {
        *wrong = bn_sched_run_wrong(&r);
    }
    free(queue);
    bn_sched_run_free(&r);
    return rc;
}
