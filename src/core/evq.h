/*
 * The event queue, ordered by (time, insertion sequence) so that
 * simultaneous events run in the order they were scheduled,
 * deterministically.
 *
 * Shape: two timing wheels in front of a 4-ary heap (the idea of calendar
 * queues, Brown 1988, and of the hierarchical timer wheels of Varghese &
 * Lauck 1987). Almost every event a packet simulation schedules lands
 * within a few microseconds (a frame's serialization, a link's
 * propagation, a credit's return). A push goes to a coarse slot of 2^14 ps
 * (16.4 ns; 4096 of them cover 67 us): an O(1) append to the slot's chain
 * of blocks. A simulation's pushes land within a microsecond or so, so the
 * few dozen chain tails they append to stay in cache, however large the
 * fabric: with one slot per 256 ps the tails were thousands of lines and a
 * push was a cache miss at 8192 hosts. When time reaches a coarse slot its
 * events are dealt, in push order, into 64 fine slots of 2^8 ps (reading
 * the chain in order, loaded ahead of time), and each fine slot is sorted
 * once, in cache, when time reaches it (its events arrive in sequence
 * order, so only different times move). Only events further out than the
 * coarse wheel (timers, pacing gaps) go to the heap, and move to the wheel
 * when its window reaches them. A binary or 4-ary heap of the ~65 k
 * pending events of 8192 hosts costs a cache miss per level on every pop
 * (bench/evq_bench.c, docs/performance.md).
 *
 * Events carry no pointers: `kind` selects the handler and `obj`/`arg` are
 * integer ids into the simulator's flat arrays. Storage grows by doubling,
 * so the steady state allocates nothing.
 */
#ifndef BN_CORE_EVQ_H
#define BN_CORE_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/time.h"

struct bn_event {
    bn_time_t time;
    uint32_t seq;
    uint16_t kind;
    uint16_t aux;
    uint32_t obj;
    uint32_t arg;
};

#define BN_EVQ_SHIFT 8          /* fine slot width 2^8 ps */
#define BN_EVQ_FINE_BITS 3      /* 8 fine slots to a coarse one (2^11 ps) */
#define BN_EVQ_FINE (1u << BN_EVQ_FINE_BITS)
#define BN_EVQ_SLOTS 4096u      /* coarse wheel size, a power of two */
#define BN_EVQ_WHOLE 16         /* a coarse slot of at most this many events is served whole */

/* A slot's events live in blocks of BN_EVQ_BLOCK, in push order (hence
 * sequence order), so dealing or entering a slot reads cache lines in a
 * row, loaded ahead a block at a time, instead of chasing one pointer per
 * event. (A coarse slot of 8192 hosts holds thousands of events.) */
#define BN_EVQ_BLOCK 42
#define BN_EVQ_BLOCK_LINES 16
struct bn_evq_block {
    uint32_t next;                /* the slot's next block, or the free list's */
    uint32_t n;
    uint64_t pad_;                /* blocks are whole cache lines */
    struct bn_event ev[BN_EVQ_BLOCK];
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct bn_evq_block) == 64 * BN_EVQ_BLOCK_LINES, "an event block is 16 cache lines");

/* A slot's chain of blocks. */
struct bn_evq_chain {
    uint32_t head, tail;
};

struct bn_evq {
    /* the fine slot being served, sorted: run[run_pos .. run_len) */
    struct bn_event *run;
    size_t run_pos, run_len, run_cap;
    int64_t cur;                  /* its number (time >> BN_EVQ_SHIFT) */
    /* the fine wheel: the rest of the coarse slot being served
     * (cur >> BN_EVQ_FINE_BITS), by cur's low bits */
    struct bn_evq_chain fine[BN_EVQ_FINE];
    uint64_t fine_busy;           /* one bit per fine slot */
    /* the coarse wheel: coarse slots after the one being served, up to
     * BN_EVQ_SLOTS - 1 ahead */
    struct bn_evq_chain *coarse;
    uint64_t *coarse_busy;        /* one bit per coarse slot */
    struct bn_evq_block *block;
    uint32_t block_cap, block_free, block_nfree;
    /* the far future: a 4-ary heap */
    struct bn_event *heap;
    size_t heap_len, heap_cap;
    size_t len;
    uint32_t next_seq;
    /* the next busy coarse slot, when known (kept up to date by pushes
     * before it), and how far into its chain loading ahead has reached */
    int64_t next_coarse;
    bool next_known;
    uint32_t ahead_block;
    bool dense;                   /* the coarse slot being served was dealt */
    bool failed;                  /* a pop ran out of memory (it returned false) */
};

int bn_evq_init(struct bn_evq *q, size_t initial_cap);
void bn_evq_free(struct bn_evq *q);
/* Returns 0, or -1 if growing storage failed. */
int bn_evq_push(struct bn_evq *q, bn_time_t time, uint16_t kind, uint32_t obj, uint32_t arg);
/* Remove the earliest event into *out; false if empty. */
bool bn_evq_pop(struct bn_evq *q, struct bn_event *out);
static inline size_t bn_evq_len(const struct bn_evq *q) { return q->len; }
const struct bn_event *bn_evq_peek_beyond(struct bn_evq *q, size_t ahead);
/* About the event `ahead` places after the next one, or NULL: a hint for
 * prefetching, valid until the next push or pop. Within the fine slot
 * being served it is exact; past it, it is an event of the next busy fine
 * slot or, past the coarse slot, of the next busy coarse slot (in push
 * order, not yet sorted), so prefetching does not stall at every slot
 * boundary. */
static inline const struct bn_event *bn_evq_peek_ahead(struct bn_evq *q, size_t ahead)
{
    size_t i = q->run_pos + ahead;
    return i < q->run_len ? &q->run[i] : bn_evq_peek_beyond(q, i - q->run_len);
}
static inline const struct bn_event *bn_evq_peek(struct bn_evq *q)
{
    return bn_evq_peek_ahead(q, 0);
}

#endif
