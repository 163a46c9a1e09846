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
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coll/sched.h"

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

int bn_sched_run_start(struct bn_sched_run *r, const struct bn_sched *s, struct bn_error *err)
{
    memset(r, 0, sizeof *r);
    if (!s->succ_off)
        return bn_fail(err, BN_EINPUT, "coll: schedule run before bn_sched_finish");
    r->s = s;
    r->content = alloc((size_t)s->nslots * s->words, sizeof *r->content, true);
    r->version = alloc(s->nslots, sizeof *r->version, true);
    r->posted_version = alloc(s->nxfers, sizeof *r->posted_version, true);
    r->waiting = alloc(s->nxfers, sizeof *r->waiting, false);
    r->by_lo = alloc(s->npieces, sizeof *r->by_lo, false);
    if (!r->content || !r->version || !r->posted_version || !r->waiting || !r->by_lo) {
        bn_sched_run_free(r);
        return bn_fail(err, BN_ENOMEM, "coll: out of memory for a run of %" PRIu32 " slots",
                       s->nslots);
    }
    for (uint32_t i = 0; i < s->nslots; i++) {
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
    for (uint32_t i = 0; i < s->nxfers; i++)
        r->waiting[i] = s->xfers[i].ndeps;
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
    memset(r, 0, sizeof *r);
}

uint32_t bn_sched_run_initial(const struct bn_sched_run *r, uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->s->nxfers; i++)
        if (r->s->xfers[i].ndeps == 0)
            out[n++] = i;
    return n;
}

void bn_sched_run_posted(struct bn_sched_run *r, uint32_t xfer)
{
    r->posted_version[xfer] = r->version[r->s->xfers[xfer].src_slot];
}

uint32_t bn_sched_run_deliver(struct bn_sched_run *r, uint32_t xfer, uint32_t *out)
{
    const struct bn_sched *s = r->s;
    const struct bn_xfer *x = &s->xfers[xfer];
    const struct bn_piece *pc = &s->pieces[s->slots[x->src_slot].piece];
    uint64_t elems = pc->hi - pc->lo;
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

/* Wrong elements of rank rr's output; want and tmp are scratch sets. */
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
        uint32_t slot = bn_sched_find_slot(s, rr, q);
        const uint64_t *have = NULL;
        if (slot != UINT32_MAX)
            have = r->content + (size_t)slot * s->words;
        else if (bn_coll_initial(s, rr, lo, hi, tmp))
            have = tmp; /* no transfer touched it: it still holds its input */
        if (!have || memcmp(have, want, wbytes) != 0)
            wrong += hi - lo;
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
    uint64_t *scratch = alloc((size_t)s->words * 2, sizeof *scratch, false);
    if (!scratch)
        return UINT64_MAX; /* cannot check: report everything as wrong, never as right */
    uint64_t wrong = r->conflicts;
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
    /* Every transfer enters the queue once, when it becomes ready. */
    uint32_t *queue = alloc(s->nxfers, sizeof *queue, false);
    if (!queue) {
        bn_sched_run_free(&r);
        return bn_fail(err, BN_ENOMEM, "coll: out of memory verifying %" PRIu32 " transfers",
                       s->nxfers);
    }
    uint32_t tail = bn_sched_run_initial(&r, queue);
    for (uint32_t i = 0; i < tail; i++)
        bn_sched_run_posted(&r, queue[i]);
    for (uint32_t head = 0; head < tail; head++) {
        uint32_t n = bn_sched_run_deliver(&r, queue[head], queue + tail);
        for (uint32_t i = 0; i < n; i++)
            bn_sched_run_posted(&r, queue[tail + i]);
        tail += n;
    }
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
