/* Timing wheel + 4-ary heap event queue; see evq.h for why this shape. */
#include <stdlib.h>
#include <string.h>

#include "core/bigmem.h"
#include "core/evq.h"

#define NIL UINT32_MAX
#define MASK (BN_EVQ_SLOTS - 1)

/* A near event's place in the keyed order (evq.h), ties left in push
 * order: within a slot, at << 48 | kind << 32 | obj. */
static inline uint64_t key_of(const struct bn_evq_entry *e)
{
    return (uint64_t)e->at << 48 | (uint64_t)e->kind << 32 | e->obj;
}

/* The heap's order. Sequence numbers wrap; compare them as a signed
 * distance. */
static inline bool earlier(const struct bn_evq *q, const struct bn_evq_far *a,
                           const struct bn_evq_far *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    if (q->keyed && a->kind != b->kind)
        return a->kind < b->kind;
    if (q->keyed && a->obj != b->obj)
        return a->obj < b->obj;
    return (int32_t)(a->seq - b->seq) < 0;
}

static inline int64_t slot_of(const struct bn_evq *q, bn_time_t t) { return t >> q->shift; }

static inline struct bn_evq_entry entry_of(const struct bn_evq *q, bn_time_t t, uint16_t kind,
                                           uint32_t obj, uint32_t arg)
{
    return (struct bn_evq_entry){.obj = obj, .arg = arg, .kind = kind,
                                 .at = (uint16_t)(t & ((1 << q->shift) - 1))};
}

static void link_free_blocks(struct bn_evq *q, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++)
        q->block[i].next = i + 1 < to ? i + 1 : q->block_free;
    q->block_free = from;
}

int bn_evq_init(struct bn_evq *q, size_t initial_cap)
{
    memset(q, 0, sizeof *q);
    q->shift = BN_EVQ_SHIFT_MIN;
    size_t cap = initial_cap ? initial_cap : 1024;
    q->run_cap = 256;
    q->heap_cap = 256;
    q->block_cap = (uint32_t)(cap / BN_EVQ_BLOCK + 64);
    q->run = malloc(q->run_cap * sizeof *q->run);
    q->sorted = malloc(q->run_cap * sizeof *q->sorted);
    q->heap = malloc(q->heap_cap * sizeof *q->heap);
    q->block = bn_big_alloc((size_t)q->block_cap * sizeof *q->block);
    q->slot_head = malloc(BN_EVQ_SLOTS * sizeof *q->slot_head);
    q->slot_end = malloc(BN_EVQ_SLOTS * sizeof *q->slot_end);
    q->nonempty = calloc(BN_EVQ_SLOTS / 64, sizeof *q->nonempty);
    if (!q->run || !q->sorted || !q->heap || !q->block || !q->slot_head || !q->slot_end ||
        !q->nonempty)
        return -1;
    memset(q->slot_head, 0xff, BN_EVQ_SLOTS * sizeof *q->slot_head);
    for (uint32_t i = 0; i < BN_EVQ_SLOTS; i++)
        q->slot_end[i] = (struct bn_evq_slot_end){.tail = NIL, .n = 0};
    q->block_free = NIL;
    link_free_blocks(q, 0, q->block_cap);
    return 0;
}

int bn_evq_set_slot_width(struct bn_evq *q, unsigned shift)
{
    if (shift < BN_EVQ_SHIFT_MIN || shift > BN_EVQ_SHIFT_MAX || q->len || q->cur)
        return -1; /* slots already numbered at the old width */
    q->shift = shift;
    return 0;
}

int bn_evq_set_keyed(struct bn_evq *q, bool keyed)
{
    if (q->len || q->cur)
        return -1; /* events already in push order */
    q->keyed = keyed;
    return 0;
}

void bn_evq_free(struct bn_evq *q)
{
    free(q->run);
    free(q->sorted);
    free(q->heap);
    bn_big_free(q->block);
    free(q->slot_head);
    free(q->slot_end);
    free(q->nonempty);
    memset(q, 0, sizeof *q);
}

/* ---- the far future: 4-ary heap ---- */

static int heap_push(struct bn_evq *q, const struct bn_evq_far *ev)
{
    if (q->heap_len == q->heap_cap) {
        struct bn_evq_far *h = realloc(q->heap, 2 * q->heap_cap * sizeof *h);
        if (!h)
            return -1;
        q->heap = h;
        q->heap_cap *= 2;
    }
    size_t i = q->heap_len++;
    while (i > 0) {
        size_t parent = (i - 1) / 4;
        if (!earlier(q, ev, &q->heap[parent]))
            break;
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = *ev;
    return 0;
}

static void heap_pop(struct bn_evq *q, struct bn_evq_far *out)
{
    *out = q->heap[0];
    struct bn_evq_far last = q->heap[--q->heap_len];
    size_t n = q->heap_len, i = 0;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t best = c, end = c + 4 < n ? c + 4 : n;
        for (size_t j = c + 1; j < end; j++)
            if (earlier(q, &q->heap[j], &q->heap[best]))
                best = j;
        if (!earlier(q, &q->heap[best], &last))
            break;
        q->heap[i] = q->heap[best];
        i = best;
    }
    if (n > 0)
        q->heap[i] = last;
}

/* ---- the slot being served ---- */

static int run_reserve(struct bn_evq *q, size_t n)
{
    if (n <= q->run_cap)
        return 0;
    size_t cap = q->run_cap;
    while (cap < n)
        cap *= 2;
    struct bn_evq_entry *r = realloc(q->run, cap * sizeof *r);
    if (!r)
        return -1;
    q->run = r;
    r = realloc(q->sorted, cap * sizeof *r);
    if (!r)
        return -1; /* run_cap unchanged: the larger run is simply not used */
    q->sorted = r;
    q->run_cap = cap;
    return 0;
}

/* An event for the slot being served goes in order after the cursor:
 * after every event of its time (keyed: its key) or earlier, since it is
 * the newest. */
static int run_insert(struct bn_evq *q, const struct bn_evq_entry *ev)
{
    if (q->run_pos == q->run_len)
        q->run_pos = q->run_len = 0;
    if (run_reserve(q, q->run_len + 1) != 0)
        return -1;
    size_t lo = q->run_pos, hi = q->run_len;
    uint64_t key = q->keyed ? key_of(ev) : 0;
    while (lo < hi) { /* first entry later than ev */
        size_t mid = (lo + hi) / 2;
        if (q->keyed ? key < key_of(&q->run[mid]) : ev->at < q->run[mid].at)
            hi = mid;
        else
            lo = mid + 1;
    }
    memmove(&q->run[lo + 1], &q->run[lo], (q->run_len - lo) * sizeof *q->run);
    q->run[lo] = *ev;
    q->run_len++;
    return 0;
}

/* Sort a[0 .. n) by key, stably, with tmp (n entries) to merge through:
 * insertion into runs of 8, then merging. A large fabric's dense slots
 * hold hundreds of simultaneous events (frames reaching many ports at the
 * same picosecond), pushed in an order far from their keys'. */
static void sort_by_key(struct bn_evq_entry *a, size_t n, struct bn_evq_entry *tmp)
{
    enum { RUN = 8 };
    for (size_t s = 0; s < n; s += RUN) {
        size_t end = s + RUN < n ? s + RUN : n;
        for (size_t i = s + 1; i < end; i++) {
            struct bn_evq_entry e = a[i];
            uint64_t k = key_of(&e);
            size_t j = i;
            for (; j > s && key_of(&a[j - 1]) > k; j--)
                a[j] = a[j - 1];
            a[j] = e;
        }
    }
    struct bn_evq_entry *src = a, *dst = tmp;
    for (size_t width = RUN; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) { /* the left one on a tie: stable; no branch
                                         * on the comparison, which is a coin toss */
                bool right = key_of(&src[j]) < key_of(&src[i]);
                const struct bn_evq_entry *from = right ? &src[j] : &src[i];
                dst[k++] = *from;
                j += right;
                i += !right;
            }
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        struct bn_evq_entry *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

/* The same for many events (a fabric in lockstep has hundreds at one
 * picosecond): least significant digit first, 8 bits at a time, only the
 * digits on which the keys differ; stable, so push order stays among
 * equal keys, and no comparison to mispredict. */
static void radix_by_key(struct bn_evq_entry *a, size_t n, struct bn_evq_entry *tmp)
{
    uint64_t any = 0, all = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        any |= key_of(&a[i]);
        all &= key_of(&a[i]);
    }
    struct bn_evq_entry *src = a, *dst = tmp;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        if (!(((any ^ all) >> shift) & 0xff))
            continue; /* every key has this digit */
        uint32_t at[256] = {0};
        for (size_t i = 0; i < n; i++)
            at[(key_of(&src[i]) >> shift) & 0xff]++;
        for (uint32_t d = 0, sum = 0; d < 256; d++) {
            uint32_t c = at[d];
            at[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[at[(key_of(&src[i]) >> shift) & 0xff]++] = src[i];
        struct bn_evq_entry *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

/* A dense slot (a large fabric's: at 8192 hosts about a hundred events)
 * sorted by counting: one bucket per picosecond of the slot, filled in the
 * run's order, which is sequence order among events of the same time (the
 * heap's events, pushed before the slot entered the window, come first,
 * then the slot's chain, in push order). Binary insertion there costs a
 * hundred compares and a shift of a quarter of the run per event. */
/* From 64 events, at every slot width. Scaled with the width (256 at
 * 2^10 ps: a wider slot has more buckets to pass) it took fewer
 * instructions on dense cuts, but the whole 8192-host ECMP run then spent
 * 17 % of its samples in insertion sorts of 64-255 events (mispredicted
 * halvings and moves); at 64, with branchless halving, 13 %. Lower (32)
 * costs the 400G fabrics' sweep 14 % more instructions. */
enum { SORT_COUNTING_MIN = 64 };
enum { RADIX_MIN = 48 }; /* simultaneous events counted, not merged (docs/performance.md) */
static void sort_run_counting(struct bn_evq *q)
{
    uint32_t start[1u << BN_EVQ_SHIFT_MAX] = {0};
    const struct bn_evq_entry *r = q->run;
    size_t n = q->run_len;
    for (size_t i = 0; i < n; i++)
        start[r[i].at]++;
    uint32_t at = 0;
    for (uint32_t k = 0; k < (1u << q->shift); k++) {
        uint32_t c = start[k];
        start[k] = at;
        at += c;
    }
    for (size_t i = 0; i < n; i++)
        q->sorted[start[r[i].at]++] = r[i];
    struct bn_evq_entry *was = q->run;
    q->run = q->sorted;
    q->sorted = was;
    if (!q->keyed)
        return;
    /* in time order now; equal times by kind and object, stably */
    struct bn_evq_entry *w = q->run;
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        bool ordered = true;
        for (hi = lo + 1; hi < n && w[hi].at == w[lo].at; hi++)
            ordered = ordered && key_of(&w[hi]) >= key_of(&w[hi - 1]);
        if (!ordered && hi - lo >= RADIX_MIN)
            radix_by_key(w + lo, hi - lo, q->sorted);
        else if (!ordered)
            sort_by_key(w + lo, hi - lo, q->sorted);
    }
}

/* Sort the slot's events by time (keyed: by key), stably, without
 * allocating: binary insertion (slots hold a handful of events; a burst of
 * simultaneous ones, such as every flow starting at t = 0, arrives already
 * in push order, which insertion sort takes in one pass). */
static void sort_run(struct bn_evq *q)
{
    if (q->run_len >= SORT_COUNTING_MIN) {
        sort_run_counting(q);
        return;
    }
    struct bn_evq_entry *r = q->run;
    size_t n = q->run_len;
    if (q->keyed) {
        sort_by_key(r, n, q->sorted); /* fewer than SORT_COUNTING_MIN */
        return;
    }
    for (size_t i = 1; i < n; i++) {
        if (r[i].at >= r[i - 1].at)
            continue;
        struct bn_evq_entry e = r[i];
        /* the first of r[0 .. i) later than e (after its equals: stable),
         * halving without branches: a slot's times are in no order, so a
         * branch per halving mispredicts half the time */
        size_t lo = 0, len = i;
        while (len > 1) {
            size_t half = len / 2;
            lo = r[lo + half - 1].at <= e.at ? lo + half : lo;
            len -= half;
        }
        lo += r[lo].at <= e.at;
        memmove(&r[lo + 1], &r[lo], (i - lo) * sizeof *r);
        r[lo] = e;
    }
}

/* ---- the wheel ---- */

static __attribute__((noinline)) int grow_blocks(struct bn_evq *q)
{
    uint32_t old = q->block_cap, cap = 2 * old;
    struct bn_evq_block *n = bn_big_realloc(q->block, (size_t)old * sizeof *n,
                                            (size_t)cap * sizeof *n);
    if (!n)
        return -1;
    q->block = n;
    q->block_cap = cap;
    link_free_blocks(q, old, cap);
    return 0;
}

/* Start a block after block b, the last of slot s's chain (NIL: an empty
 * slot); returns it, or NIL if memory ran out. Inlined: on a small fabric
 * almost every push starts a block. */
static inline __attribute__((always_inline)) uint32_t append_block(struct bn_evq *q, uint32_t s,
                                                                   uint32_t b)
{
    if (q->block_free == NIL && grow_blocks(q) != 0)
        return NIL;
    uint32_t nb = q->block_free;
    q->block_free = q->block[nb].next;
    q->block[nb].next = NIL;
    q->block[nb].n = 0;
    if (b == NIL) {
        q->slot_head[s] = nb;
        q->nonempty[s / 64] |= 1ull << (s % 64);
    } else {
        q->block[b].next = nb;
    }
    q->slot_end[s].tail = nb;
    return nb;
}

static inline void write_pending(struct bn_evq *q, const struct bn_evq_pending *p)
{
    struct bn_evq_block *blk = &q->block[p->b];
    blk->ev[p->i] = p->ev;
    blk->n = p->i + 1; /* a block's pushes are written in order */
}

/* Write every push still behind, oldest first: before anything reads the
 * blocks. */
static inline void settle(struct bn_evq *q)
{
    uint32_t oldest = q->behind_next + BN_EVQ_BEHIND - q->behind_n;
    for (uint32_t k = 0; k < q->behind_n; k++)
        write_pending(q, &q->behind[(oldest + k) % BN_EVQ_BEHIND]);
    q->behind_next = q->behind_n = 0;
}

/* Writing behind: a new block for slot s, its claims counted from 0. Not
 * inlined: one push in BN_EVQ_BLOCK starts a block, and the others run
 * leaner without it. */
static __attribute__((noinline)) uint32_t start_block_behind(struct bn_evq *q, uint32_t s)
{
    uint32_t b = append_block(q, s, q->slot_end[s].tail);
    if (b != NIL)
        q->slot_end[s].n = 0;
    return b;
}

/* Writing behind (bn_evq_hide_latency). A block's count `n` covers only
 * the events written, so whatever reads blocks sees only those. */
static inline __attribute__((always_inline)) int
wheel_push_behind(struct bn_evq *q, uint32_t s, const struct bn_evq_entry *ev)
{
    struct bn_evq_slot_end *end = &q->slot_end[s];
    uint32_t b = end->tail;
    if ((b == NIL || end->n == BN_EVQ_BLOCK) && (b = start_block_behind(q, s)) == NIL)
        return -1;
    uint32_t i = end->n++;
    /* only the event's line: fetching the block's header too (whose count
     * the write updates) was slower, 0.92-0.97 of the time without it */
    __builtin_prefetch(&q->block[b].ev[i], 1);
    /* full, as it is but after a settle, the ring's next place holds the
     * oldest push, which has waited long enough */
    struct bn_evq_pending *p = &q->behind[q->behind_next];
    if (__builtin_expect(q->behind_n == BN_EVQ_BEHIND, 1))
        write_pending(q, p);
    else
        q->behind_n++;
    *p = (struct bn_evq_pending){.b = b, .i = i, .ev = *ev};
    q->behind_next = (q->behind_next + 1) % BN_EVQ_BEHIND;
    return 0;
}

/* Into absolute slot `abs`, within the window past the slot served. */
static inline __attribute__((always_inline)) int
wheel_push(struct bn_evq *q, int64_t abs, const struct bn_evq_entry *ev)
{
    if (q->peek_known && abs < q->peek_slot)
        q->peek_slot = abs;
    uint32_t s = (uint32_t)(abs & MASK);
    if (q->write_behind)
        return wheel_push_behind(q, s, ev);
    uint32_t b = q->slot_end[s].tail;
    if ((b == NIL || q->block[b].n == BN_EVQ_BLOCK) && (b = append_block(q, s, b)) == NIL)
        return -1;
    q->block[b].ev[q->block[b].n++] = *ev;
    return 0;
}

void bn_evq_hide_latency(struct bn_evq *q, bool on)
{
    settle(q);
    if (on && !q->write_behind) /* the claims start from what is written */
        for (uint32_t s = 0; s < BN_EVQ_SLOTS; s++)
            if (q->slot_end[s].tail != NIL)
                q->slot_end[s].n = q->block[q->slot_end[s].tail].n;
    q->write_behind = on;
}

/* The first slot after cur with events, as a distance 1 .. SLOTS-1; 0 if
 * the wheel is empty. */
static int64_t next_busy(const struct bn_evq *q)
{
    const uint32_t words = BN_EVQ_SLOTS / 64;
    uint32_t start = (uint32_t)((q->cur + 1) & MASK), w0 = start / 64;
    for (uint32_t i = 0; i <= words; i++) {
        uint32_t w = (w0 + i) % words;
        uint64_t word = q->nonempty[w];
        if (i == 0)
            word &= ~0ull << (start % 64);          /* from start on */
        else if (i == words)
            word &= (1ull << (start % 64)) - 1;     /* wrapped: before start */
        if (word) {
            uint32_t s = w * 64 + (uint32_t)__builtin_ctzll(word);
            return (int64_t)((s - (uint32_t)(q->cur & MASK)) & MASK);
        }
    }
    return 0;
}

/* Move slot cur's list (and heap events now inside the window) into place:
 * the window is cur .. cur + SLOTS - 1. */
static int enter_slot(struct bn_evq *q)
{
    while (q->heap_len && slot_of(q, q->heap[0].time) < q->cur + (int64_t)BN_EVQ_SLOTS) {
        /* make room first, so a failure loses nothing */
        if (run_reserve(q, q->run_len + 1) != 0)
            return -1;
        struct bn_evq_far ev;
        heap_pop(q, &ev);
        struct bn_evq_entry e = entry_of(q, ev.time, ev.kind, ev.obj, ev.arg);
        if (slot_of(q, ev.time) <= q->cur)
            q->run[q->run_len++] = e;
        else if (wheel_push(q, slot_of(q, ev.time), &e) != 0) {
            heap_push(q, &ev); /* back where it was: the heap just had room for it */
            return -1;
        }
    }
    settle(q);
    uint32_t s = (uint32_t)(q->cur & MASK);
    size_t n = 0;
    for (uint32_t b = q->slot_head[s]; b != NIL; b = q->block[b].next)
        n += q->block[b].n;
    if (run_reserve(q, q->run_len + n) != 0) /* before any block is given back */
        return -1;
    for (uint32_t b = q->slot_head[s]; b != NIL;) {
        struct bn_evq_block *blk = &q->block[b];
        memcpy(q->run + q->run_len, blk->ev, blk->n * sizeof *blk->ev);
        q->run_len += blk->n;
        uint32_t next = blk->next;
        blk->next = q->block_free;
        q->block_free = b;
        b = next;
    }
    q->slot_head[s] = NIL;
    q->slot_end[s].tail = NIL;
    q->nonempty[s / 64] &= ~(1ull << (s % 64));
    sort_run(q);
    return 0;
}

static bool look_past_run(struct bn_evq *q);

/* A push off the wheel: into the slot being served, beyond the window
 * (the heap), or into the past (refused). */
static __attribute__((noinline)) int push_off_wheel(struct bn_evq *q, bn_time_t time, uint16_t kind,
                                                    uint32_t obj, uint32_t arg)
{
    int64_t s = slot_of(q, time);
    int rc;
    if (s < q->cur) {
        q->past = true;
        return -1;
    }
    if (s == q->cur) {
        struct bn_evq_entry e = entry_of(q, time, kind, obj, arg);
        rc = run_insert(q, &e);
    } else {
        struct bn_evq_far ev = {.time = time, .seq = q->next_seq++, .kind = kind, .obj = obj,
                                .arg = arg};
        rc = heap_push(q, &ev);
    }
    if (rc == 0)
        q->len++;
    return rc;
}

int bn_evq_push(struct bn_evq *q, bn_time_t time, uint16_t kind, uint32_t obj, uint32_t arg)
{
    int64_t abs = slot_of(q, time);
    /* the wheel: slots cur + 1 .. cur + SLOTS - 1 */
    if ((uint64_t)(abs - q->cur - 1) >= BN_EVQ_SLOTS - 1)
        return push_off_wheel(q, time, kind, obj, arg);
    struct bn_evq_entry e = entry_of(q, time, kind, obj, arg);
    int rc = wheel_push(q, abs, &e);
    if (rc == 0)
        q->len++;
    return rc;
}

/* Enter the next busy slot: the slot being served is done. False if the
 * queue is empty or memory ran out (`failed`). */
static bool enter_next(struct bn_evq *q)
{
    while (q->run_pos == q->run_len) {
        if (q->len == 0)
            return false;
        q->run_pos = q->run_len = 0;
        /* every heap event lies beyond every wheel slot (it went to the
         * heap because it was past the window), so the wheel comes first */
        int64_t d = q->peek_known ? q->peek_slot - q->cur : next_busy(q);
        q->peek_known = false;
        if (d == 0 && q->heap_len == 0) { /* cannot be: len counts an event nowhere */
            q->failed = true;
            return false;
        }
        q->cur = d ? q->cur + d : slot_of(q, q->heap[0].time);
        if (enter_slot(q) != 0) {
            q->failed = true; /* out of memory: the caller must check */
            return false;
        }
        /* a whole slot before its events are wanted (prefetch hints
         * reach into it half a slot ahead on large fabrics) */
        if (!q->peek_known)
            look_past_run(q);
    }
    return true;
}

bool bn_evq_pop_entering(struct bn_evq *q, struct bn_event *out)
{
    if (q->failed || !enter_next(q)) /* after running out of memory the order is not kept */
        return false;
    bn_evq_take(q, out);
    return true;
}

bool bn_evq_next_time(struct bn_evq *q, bn_time_t *t)
{
    if (q->failed || q->len == 0)
        return false;
    if (q->run_pos < q->run_len) {
        *t = (q->cur << q->shift) | q->run[q->run_pos].at;
        return true;
    }
    int64_t d = q->peek_known ? q->peek_slot - q->cur : next_busy(q);
    if (d == 0) {
        *t = q->heap[0].time;
        return true;
    }
    settle(q); /* the slot's blocks, every push written */
    uint32_t at = UINT32_MAX;
    for (uint32_t b = q->slot_head[(q->cur + d) & MASK]; b != NIL; b = q->block[b].next)
        for (uint32_t i = 0; i < q->block[b].n; i++)
            at = q->block[b].ev[i].at < at ? q->block[b].ev[i].at : at;
    *t = ((q->cur + d) << q->shift) | at;
    return true;
}

bool bn_evq_next_before_entering(struct bn_evq *q, bn_time_t end)
{
    if (q->failed)
        return false;
    if (q->run_pos == q->run_len) {
        if (q->len == 0)
            return false;
        /* the next busy slot starts at or past `end`: leave it unentered,
         * so that events may still be pushed before it */
        int64_t d = q->peek_known ? q->peek_slot - q->cur : next_busy(q);
        int64_t next = d ? q->cur + d : slot_of(q, q->heap[0].time);
        if ((next << q->shift) >= end || !enter_next(q))
            return false;
    }
    return ((q->cur << q->shift) | q->run[q->run_pos].at) < end;
}

bool bn_evq_next_upto(struct bn_evq *q, bn_time_t time, uint16_t kind, uint32_t obj)
{
    if (!q->keyed || !bn_evq_next_before(q, time + 1))
        return false;
    const struct bn_evq_entry *e = &q->run[q->run_pos];
    bn_time_t t = (q->cur << q->shift) | e->at;
    if (t != time)
        return true;
    return e->kind != kind ? e->kind < kind : e->obj <= obj;
}

/* Find the next busy slot (not yet known) and start loading its first
 * block: it will be entered soon, and its events were written a simulated
 * microsecond ago, long out of cache on a large fabric. False if the wheel
 * is empty. */
static bool look_past_run(struct bn_evq *q)
{
    int64_t d = next_busy(q);
    if (d == 0)
        return false;
    q->peek_slot = q->cur + d;
    q->peek_known = true;
    uint32_t first = q->slot_head[q->peek_slot & MASK];
    for (size_t line = 0; line < sizeof(struct bn_evq_block) / 64; line++)
        __builtin_prefetch((const char *)&q->block[first] + 64 * line);
    return true;
}

const struct bn_evq_entry *bn_evq_peek_beyond(struct bn_evq *q, size_t ahead)
{
    if (!q->peek_known && !look_past_run(q))
        return NULL; /* the wheel is empty: the heap's events are far off */
    uint32_t b = q->slot_head[q->peek_slot & MASK];
    while (b != NIL && ahead >= q->block[b].n) {
        ahead -= q->block[b].n;
        b = q->block[b].next;
    }
    if (b == NIL)
        return NULL;
    /* the hints will walk on into the slot's next block: its header first */
    uint32_t next = q->block[b].next;
    if (next != NIL)
        __builtin_prefetch(&q->block[next]);
    return &q->block[b].ev[ahead];
}
