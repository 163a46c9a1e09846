/* Two timing wheels and a 4-ary heap; see evq.h for why this shape. */
#include <stdlib.h>
#include <string.h>

#include "core/bigmem.h"
#include "core/evq.h"

#define NIL UINT32_MAX
#define CMASK (BN_EVQ_SLOTS - 1)
#define FMASK (BN_EVQ_FINE - 1)
#define NONE INT64_MAX /* next_coarse of an empty coarse wheel */

/* Sequence numbers wrap; compare them as a signed distance. */
static inline bool earlier(const struct bn_event *a, const struct bn_event *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    return (int32_t)(a->seq - b->seq) < 0;
}

static inline int64_t slot_of(bn_time_t t) { return t >> BN_EVQ_SHIFT; }
static inline int64_t coarse_of(int64_t slot) { return slot >> BN_EVQ_FINE_BITS; }

static void link_free_blocks(struct bn_evq *q, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++)
        q->block[i].next = i + 1 < to ? i + 1 : q->block_free;
    q->block_free = from;
    q->block_nfree += to - from;
}

static void clear_chains(struct bn_evq_chain *c, size_t n)
{
    memset(c, 0xff, n * sizeof *c);
}

int bn_evq_init(struct bn_evq *q, size_t initial_cap)
{
    memset(q, 0, sizeof *q);
    size_t cap = initial_cap ? initial_cap : 1024;
    q->run_cap = 256;
    q->heap_cap = 256;
    q->block_cap = (uint32_t)(cap / BN_EVQ_BLOCK + 2 * BN_EVQ_FINE);
    q->run = malloc(q->run_cap * sizeof *q->run);
    q->heap = malloc(q->heap_cap * sizeof *q->heap);
    q->block = bn_big_alloc((size_t)q->block_cap * sizeof *q->block);
    q->coarse = malloc(BN_EVQ_SLOTS * sizeof *q->coarse);
    q->coarse_busy = calloc(BN_EVQ_SLOTS / 64, sizeof *q->coarse_busy);
    if (!q->run || !q->heap || !q->block || !q->coarse || !q->coarse_busy)
        return -1;
    clear_chains(q->coarse, BN_EVQ_SLOTS);
    clear_chains(q->fine, BN_EVQ_FINE);
    q->block_free = NIL;
    link_free_blocks(q, 0, q->block_cap);
    return 0;
}

void bn_evq_free(struct bn_evq *q)
{
    free(q->run);
    free(q->heap);
    bn_big_free(q->block);
    free(q->coarse);
    free(q->coarse_busy);
    memset(q, 0, sizeof *q);
}

/* ---- the far future: 4-ary heap ---- */

static int heap_push(struct bn_evq *q, const struct bn_event *ev)
{
    if (q->heap_len == q->heap_cap) {
        struct bn_event *h = realloc(q->heap, 2 * q->heap_cap * sizeof *h);
        if (!h)
            return -1;
        q->heap = h;
        q->heap_cap *= 2;
    }
    size_t i = q->heap_len++;
    while (i > 0) {
        size_t parent = (i - 1) / 4;
        if (!earlier(ev, &q->heap[parent]))
            break;
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = *ev;
    return 0;
}

static void heap_pop(struct bn_evq *q, struct bn_event *out)
{
    *out = q->heap[0];
    struct bn_event last = q->heap[--q->heap_len];
    size_t n = q->heap_len, i = 0;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n)
            break;
        size_t best = c, end = c + 4 < n ? c + 4 : n;
        for (size_t j = c + 1; j < end; j++)
            if (earlier(&q->heap[j], &q->heap[best]))
                best = j;
        if (!earlier(&q->heap[best], &last))
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
    struct bn_event *r = realloc(q->run, cap * sizeof *r);
    if (!r)
        return -1;
    q->run = r;
    q->run_cap = cap;
    return 0;
}

/* An event for the slot being served goes in order after the cursor. */
static int run_insert(struct bn_evq *q, const struct bn_event *ev)
{
    if (q->run_pos == q->run_len)
        q->run_pos = q->run_len = 0;
    if (run_reserve(q, q->run_len + 1) != 0)
        return -1;
    size_t lo = q->run_pos, hi = q->run_len;
    while (lo < hi) { /* first entry later than ev */
        size_t mid = (lo + hi) / 2;
        if (earlier(ev, &q->run[mid]))
            hi = mid;
        else
            lo = mid + 1;
    }
    memmove(&q->run[lo + 1], &q->run[lo], (q->run_len - lo) * sizeof *q->run);
    q->run[lo] = *ev;
    q->run_len++;
    return 0;
}

/* Sort the slot's events in place, without allocating: insertion sort
 * (slots hold a few dozen events at most, each a short way from its place;
 * a burst of simultaneous ones, such as every flow starting at t = 0,
 * arrives already in sequence order, which insertion sort takes in one
 * pass). */
static void sort_run(struct bn_evq *q)
{
    struct bn_event *r = q->run;
    size_t n = q->run_len;
    for (size_t i = 1; i < n; i++) {
        if (!earlier(&r[i], &r[i - 1]))
            continue;
        struct bn_event e = r[i];
        size_t j = i;
        do {
            r[j] = r[j - 1];
            j--;
        } while (j > 0 && earlier(&e, &r[j - 1]));
        r[j] = e;
    }
}

/* ---- chains of blocks ---- */

/* At least n free blocks (growing by doubling); -1 without memory. */
static int reserve_blocks(struct bn_evq *q, uint32_t n)
{
    while (q->block_nfree < n) {
        uint32_t old = q->block_cap, cap = 2 * old;
        struct bn_evq_block *b = bn_big_realloc(q->block, (size_t)old * sizeof *b,
                                                (size_t)cap * sizeof *b);
        if (!b)
            return -1;
        q->block = b;
        q->block_cap = cap;
        link_free_blocks(q, old, cap);
    }
    return 0;
}

static inline void give_back(struct bn_evq *q, uint32_t b)
{
    q->block[b].next = q->block_free;
    q->block_free = b;
    q->block_nfree++;
}

/* Append to a chain, in push order. */
static inline int chain_push(struct bn_evq *q, struct bn_evq_chain *c, const struct bn_event *ev)
{
    uint32_t b = c->tail;
    if (c->head == NIL || q->block[b].n == BN_EVQ_BLOCK) {
        if (reserve_blocks(q, 1) != 0)
            return -1;
        uint32_t nb = q->block_free; /* the last given back: likely in cache */
        q->block_free = q->block[nb].next;
        q->block_nfree--;
        q->block[nb].next = NIL;
        q->block[nb].n = 0;
        if (c->head == NIL)
            c->head = nb;
        else
            q->block[b].next = nb;
        c->tail = nb;
        b = nb;
    }
    q->block[b].ev[q->block[b].n++] = *ev;
    return 0;
}

static inline void prefetch_block(const struct bn_evq *q, uint32_t b)
{
    for (int line = 0; line < BN_EVQ_BLOCK_LINES; line++)
        __builtin_prefetch((const char *)&q->block[b] + 64 * line);
}

/* ---- the wheels ---- */

/* Into the fine slot `slot` of the coarse slot being served, or a later
 * coarse slot within the window. */
static int wheel_push(struct bn_evq *q, int64_t slot, const struct bn_event *ev)
{
    int64_t c = coarse_of(slot);
    if (c == coarse_of(q->cur)) {
        uint32_t f = (uint32_t)(slot & FMASK);
        if (chain_push(q, &q->fine[f], ev) != 0)
            return -1;
        q->fine_busy |= 1ull << f;
        return 0;
    }
    if (q->next_known && c < q->next_coarse) {
        q->next_coarse = c;
        q->ahead_block = NIL; /* load_ahead starts over, at its head */
    }
    uint32_t i = (uint32_t)(c & CMASK);
    if (chain_push(q, &q->coarse[i], ev) != 0)
        return -1;
    q->coarse_busy[i / 64] |= 1ull << (i % 64);
    return 0;
}

/* The first busy coarse slot after the one being served, as a distance
 * 1 .. SLOTS-1; 0 if the coarse wheel is empty. */
static int64_t next_busy(const struct bn_evq *q)
{
    const uint32_t words = BN_EVQ_SLOTS / 64;
    uint32_t cur = (uint32_t)(coarse_of(q->cur) & CMASK);
    uint32_t start = (cur + 1) & CMASK, w0 = start / 64;
    for (uint32_t i = 0; i <= words; i++) {
        uint32_t w = (w0 + i) % words;
        uint64_t word = q->coarse_busy[w];
        if (i == 0)
            word &= ~0ull << (start % 64);          /* from start on */
        else if (i == words)
            word &= (1ull << (start % 64)) - 1;     /* wrapped: before start */
        if (word) {
            uint32_t s = w * 64 + (uint32_t)__builtin_ctzll(word);
            return (int64_t)((s - cur) & CMASK);
        }
    }
    return 0;
}

/* Learn the next busy coarse slot (NONE: the coarse wheel is empty). */
static void find_next_coarse(struct bn_evq *q)
{
    int64_t d = next_busy(q);
    q->next_coarse = d ? coarse_of(q->cur) + d : NONE;
    q->next_known = true;
    q->ahead_block = NIL;
}

/* Load one more block of the next busy coarse slot's chain: it will be
 * dealt soon, and its events were written a simulated microsecond ago,
 * long out of cache on a large fabric. Called once per fine slot served,
 * which on a large fabric outpaces the blocks a coarse slot fills; not
 * while the slots are small (a small fabric's, all in cache). */
static void load_ahead(struct bn_evq *q)
{
    if (!q->dense)
        return;
    if (!q->next_known)
        find_next_coarse(q);
    if (q->next_coarse == NONE)
        return;
    uint32_t b = q->ahead_block == NIL ? q->coarse[q->next_coarse & CMASK].head
                                       : q->block[q->ahead_block].next;
    if (b != NIL) {
        q->ahead_block = b;
        prefetch_block(q, b);
    }
}

static size_t chain_len(const struct bn_evq *q, const struct bn_evq_chain *ch)
{
    size_t n = 0;
    for (uint32_t b = ch->head; b != NIL; b = q->block[b].next)
        n += q->block[b].n;
    return n;
}

/* Append a chain's `n` events to the run, give its blocks back and sort. */
static int take_chain(struct bn_evq *q, struct bn_evq_chain *ch, size_t n)
{
    if (run_reserve(q, q->run_len + n) != 0) /* before any block is given back */
        return -1;
    for (uint32_t b = ch->head; b != NIL;) {
        struct bn_evq_block *blk = &q->block[b];
        memcpy(q->run + q->run_len, blk->ev, blk->n * sizeof *blk->ev);
        q->run_len += blk->n;
        uint32_t next = blk->next;
        give_back(q, b);
        b = next;
    }
    clear_chains(ch, 1);
    sort_run(q);
    return 0;
}

/* Deal a coarse chain, in push order, into the fine slots. */
static int deal(struct bn_evq *q, struct bn_evq_chain *ch)
{
    /* a fine chain takes at most one block more than the events dealt to
     * it fill, and each dealt block is given back at once */
    if (reserve_blocks(q, BN_EVQ_FINE + 1) != 0)
        return -1;
    for (uint32_t b = ch->head; b != NIL;) {
        const struct bn_evq_block *blk = &q->block[b];
        uint32_t next = blk->next, n = blk->n;
        if (next != NIL)
            prefetch_block(q, next);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t f = (uint32_t)(slot_of(blk->ev[i].time) & FMASK);
            chain_push(q, &q->fine[f], &blk->ev[i]); /* cannot fail: reserved */
            q->fine_busy |= 1ull << f;
        }
        give_back(q, b);
        b = next;
    }
    clear_chains(ch, 1);
    return 0;
}

/* Serve the next busy coarse slot: move the heap's events now inside the
 * window (its slot .. + SLOTS - 1) to the wheels, then take the slot. A
 * slot of a few events (a small fabric's) becomes the run whole, sorted,
 * and is served as one fine slot; a larger one is dealt into the fine
 * slots, each sorted when time reaches it. */
static int enter_coarse(struct bn_evq *q)
{
    if (!q->next_known)
        find_next_coarse(q);
    q->next_known = false;
    int64_t c = q->next_coarse != NONE ? q->next_coarse : coarse_of(slot_of(q->heap[0].time));
    q->cur = c << BN_EVQ_FINE_BITS;
    while (q->heap_len && coarse_of(slot_of(q->heap[0].time)) < c + (int64_t)BN_EVQ_SLOTS) {
        struct bn_event ev;
        heap_pop(q, &ev);
        if (wheel_push(q, slot_of(ev.time), &ev) != 0) {
            heap_push(q, &ev); /* back where it was: the heap just had room for it */
            return -1;
        }
    }
    uint32_t i = (uint32_t)(c & CMASK);
    struct bn_evq_chain *ch = &q->coarse[i];
    size_t n = chain_len(q, ch);
    q->dense = n > BN_EVQ_WHOLE;
    int rc;
    if (!q->fine_busy && n <= BN_EVQ_WHOLE) {
        rc = take_chain(q, ch, n);
        q->cur |= FMASK; /* pushes into this coarse slot now join the run */
    } else {
        rc = deal(q, ch);
        q->cur += __builtin_ctzll(q->fine_busy);
    }
    if (rc == 0)
        q->coarse_busy[i / 64] &= ~(1ull << (i % 64));
    return rc;
}

/* Take fine slot cur into the run. */
static int enter_fine(struct bn_evq *q)
{
    struct bn_evq_chain *ch = &q->fine[q->cur & FMASK];
    if (take_chain(q, ch, chain_len(q, ch)) != 0)
        return -1;
    q->fine_busy &= ~(1ull << (q->cur & FMASK));
    return 0;
}

int bn_evq_push(struct bn_evq *q, bn_time_t time, uint16_t kind, uint32_t obj, uint32_t arg)
{
    struct bn_event ev = {.time = time, .seq = q->next_seq++, .kind = kind, .obj = obj, .arg = arg};
    int64_t s = slot_of(time);
    int rc = s <= q->cur ? run_insert(q, &ev)
             : coarse_of(s) < coarse_of(q->cur) + (int64_t)BN_EVQ_SLOTS ? wheel_push(q, s, &ev)
                                                                       : heap_push(q, &ev);
    if (rc == 0)
        q->len++;
    return rc;
}

bool bn_evq_pop(struct bn_evq *q, struct bn_event *out)
{
    if (q->failed) /* after running out of memory the order is not kept */
        return false;
    while (q->run_pos == q->run_len) {
        if (q->len == 0)
            return false;
        q->run_pos = q->run_len = 0;
        /* fine slots hold only what lies after cur in its coarse slot, the
         * coarse wheel only later coarse slots, the heap only events past
         * the coarse wheel's window */
        int rc;
        if (q->fine_busy) {
            q->cur = (q->cur & ~(int64_t)FMASK) + __builtin_ctzll(q->fine_busy);
            rc = enter_fine(q);
        } else {
            rc = enter_coarse(q);
            if (rc == 0 && q->run_len == 0) /* dealt */
                rc = enter_fine(q);
        }
        if (rc != 0) {
            q->failed = true; /* out of memory: the caller must check */
            return false;
        }
        load_ahead(q);
    }
    *out = q->run[q->run_pos++];
    q->len--;
    return true;
}

const struct bn_event *bn_evq_peek_beyond(struct bn_evq *q, size_t ahead)
{
    uint32_t b;
    if (q->fine_busy)
        b = q->fine[__builtin_ctzll(q->fine_busy)].head;
    else {
        if (!q->next_known)
            find_next_coarse(q);
        if (q->next_coarse == NONE)
            return NULL; /* the wheels are empty: the heap's events are far off */
        b = q->coarse[q->next_coarse & CMASK].head;
    }
    while (b != NIL && ahead >= q->block[b].n) {
        ahead -= q->block[b].n;
        b = q->block[b].next;
    }
    if (b == NIL)
        return NULL;
    /* the hints will walk on into the chain's next block: its header first */
    uint32_t next = q->block[b].next;
    if (next != NIL)
        __builtin_prefetch(&q->block[next]);
    return &q->block[b].ev[ahead];
}
