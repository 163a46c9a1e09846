/*
 * The event queue. Simultaneous events run in the order they were pushed
 * (time, push order), deterministically; or, keyed (bn_evq_set_keyed), by
 * (time, kind, object, push order): by kind, then by the object they are
 * for (a port, a queue pair), and only those of one kind for one object in
 * push order. The keyed order does not depend on how the fabric is split
 * among processes (docs/parallel.md): the events of one kind for one
 * object all come from one place (a port's arrivals from its peer, its
 * wake-ups from itself), which pushes them in the same order however the
 * rest of the fabric is run. In push order alone, two frames reaching a
 * switch at the same picosecond from two processes would queue in the
 * order their messages came in. It is not the default because it costs:
 * a fabric in lockstep (every frame the same size, every link the same
 * rate) has hundreds of events per picosecond, pushed in no order of
 * object, which must then be sorted (docs/performance.md).
 *
 * Shape: a timing wheel for the near future in front of a 4-ary heap for
 * the far future (the idea of calendar queues, Brown 1988, and of the
 * timer wheels in operating-system kernels). Almost every event a packet
 * simulation schedules lands within a few microseconds (a frame's
 * serialization, a link's propagation, a credit's return), so the wheel
 * holds 16384 slots of 2^8 to 2^10 ps (0.256 to 1.024 ns; a window of 4.2
 * to 16.8 µs): a push there is an O(1) append to its slot's block chain,
 * and the slot being served is sorted once, in cache, when time reaches
 * it (its events arrive in push order, so only different times move, or
 * keyed, different keys: binary insertion for a few, counting by
 * picosecond for a dense slot).
 * The width, set per fabric, trades the cost of entering a slot, which a
 * sparse fabric pays for nearly every event, against sorting, which a
 * dense slot pays per event (measured: docs/performance.md). Only events
 * further out (timers, pacing gaps) go to the heap, and move to the wheel
 * when its window reaches them. At 8192 hosts a binary or 4-ary heap of the
 * ~65 k pending events costs a cache miss per level on every pop; the wheel
 * costs about one (bench/evq_bench.c, docs/performance.md).
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

/* What a pop gives. */
struct bn_event {
    bn_time_t time;
    uint16_t kind;
    uint32_t obj;
    uint32_t arg;
};

#define BN_EVQ_SLOTS 16384u    /* wheel size, a power of two */
/* slot width 2^shift ps, chosen per fabric before the first push
 * (bn_evq_set_slot_width) */
#define BN_EVQ_SHIFT_MIN 8
#define BN_EVQ_SHIFT_MAX 10

/* An event of the near future (the wheel, the slot being served) as it is
 * stored: its slot tells its time but for the picoseconds past the slot's
 * start, and its place in the slot its order among equal keys, so it
 * takes 12 bytes where a whole time and sequence number take 24. On a
 * large fabric the wheel outgrows the caches, and each of its bytes
 * crosses from memory twice, written when pushed and read when served. */
struct bn_evq_entry {
    uint32_t obj;
    uint32_t arg;
    uint16_t kind;
    uint16_t at;                  /* picoseconds past the start of its slot */
};
_Static_assert(sizeof(struct bn_evq_entry) == 12, "a near event is 12 bytes");
_Static_assert(BN_EVQ_SHIFT_MAX <= 16, "an entry's `at` holds a slot's picoseconds");

/* An event of the far future (the heap): the whole time, and the sequence
 * number that orders equal keys. */
struct bn_evq_far {
    bn_time_t time;
    uint32_t seq;
    uint16_t kind;
    uint32_t obj;
    uint32_t arg;
};

/* A slot's events live in blocks of BN_EVQ_BLOCK, in push order (hence
 * sequence order), so entering a slot reads a few cache lines in a row
 * instead of chasing one pointer per event. */
#define BN_EVQ_BLOCK 20
struct bn_evq_block {
    uint32_t next;                /* the slot's next block, or the free list's */
    uint32_t n;
    struct bn_evq_entry ev[BN_EVQ_BLOCK];
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct bn_evq_block) == 256, "an event block is four cache lines");

/* The end of a slot's chain: its last block (UINT32_MAX: the slot is
 * empty) and, writing behind, the events claimed there, those not yet
 * written included. */
struct bn_evq_slot_end {
    uint32_t tail;
    uint32_t n;
};

/* A push written behind (see bn_evq_hide_latency): event i of block b. */
#define BN_EVQ_BEHIND 2u
struct bn_evq_pending {
    uint32_t b, i;
    struct bn_evq_entry ev;
};

struct bn_evq {
    /* the slot being served, sorted: run[run_pos .. run_len) */
    struct bn_evq_entry *run;
    size_t run_pos, run_len, run_cap;
    struct bn_evq_entry *sorted;  /* run_cap events: where a dense slot is sorted into */
    int64_t cur;                  /* its slot number (time >> shift) */
    unsigned shift;               /* slot width 2^shift ps */
    /* the wheel: slots cur+1 .. cur+BN_EVQ_SLOTS-1, chains of blocks;
     * what a push reads of its slot in one place */
    uint32_t *slot_head;
    struct bn_evq_slot_end *slot_end;
    /* writing behind, and the pushes not yet written: behind_n of them,
     * in a ring whose next place is behind_next */
    bool write_behind;
    struct bn_evq_pending behind[BN_EVQ_BEHIND];
    uint32_t behind_next, behind_n;
    uint64_t *nonempty;           /* one bit per slot */
    struct bn_evq_block *block;
    uint32_t block_cap, block_free;
    /* the far future: a 4-ary heap */
    struct bn_evq_far *heap;
    size_t heap_len, heap_cap;
    size_t len;
    uint32_t next_seq;
    /* prefetch hints past the slot being served: the next busy slot, when
     * known (kept up to date by pushes into the wheel before it) */
    int64_t peek_slot;
    bool peek_known;
    bool keyed;                   /* ties by kind and object first (bn_evq_set_keyed) */
    bool failed;                  /* a pop ran out of memory (it returned false) */
    bool past;                    /* a push was refused: its time lay before the slot served */
};

int bn_evq_init(struct bn_evq *q, size_t initial_cap);
/* Slots of 2^shift ps (BN_EVQ_SHIFT_MIN .. MAX; init: MIN), for a queue
 * still empty; -1 otherwise. */
int bn_evq_set_slot_width(struct bn_evq *q, unsigned shift);
/* Keyed order (see above) or push order (init's), for a queue still
 * empty; -1 otherwise. */
int bn_evq_set_keyed(struct bn_evq *q, bool keyed);
void bn_evq_free(struct bn_evq *q);
/* Returns 0, or -1 if growing storage failed or the time lies before the
 * slot being served (a caller's bug, which sets `past`: the entries of the
 * near future could not tell its time). */
int bn_evq_push(struct bn_evq *q, bn_time_t time, uint16_t kind, uint32_t obj, uint32_t arg);
/* Where the wheel outgrows the caches, write pushes behind: a push lands
 * in the last block of a slot microseconds ahead, a line last touched many
 * events before on a large fabric, and a store to a line not in cache
 * holds up every store after it until the line arrives. Writing behind, a
 * push claims its place from compact per-slot counts, fetches the line and
 * is written BN_EVQ_BEHIND pushes later. On a wheel that stays in cache it only
 * costs instructions. Order is unchanged either way. */
void bn_evq_hide_latency(struct bn_evq *q, bool on);
/* The next event of the slot being served, into *out. */
static inline void bn_evq_take(struct bn_evq *q, struct bn_event *out)
{
    const struct bn_evq_entry *e = &q->run[q->run_pos++];
    *out = (struct bn_event){.time = (q->cur << q->shift) | e->at, .kind = e->kind,
                             .obj = e->obj, .arg = e->arg};
    q->len--;
}
/* bn_evq_pop once the slot being served is done: enter the next busy one. */
bool bn_evq_pop_entering(struct bn_evq *q, struct bn_event *out);
/* Remove the earliest event into *out; false if empty. Inline for the
 * common case, an event of the slot being served (on a large fabric all
 * but one in fifty). */
static inline bool bn_evq_pop(struct bn_evq *q, struct bn_event *out)
{
    if (q->run_pos < q->run_len && !q->failed) {
        bn_evq_take(q, out);
        return true;
    }
    return bn_evq_pop_entering(q, out);
}
static inline size_t bn_evq_len(const struct bn_evq *q) { return q->len; }
/* Is the next event earlier than `end`? A slot that starts at or past it
 * is not entered, so pushes at or past `end` stay possible after a false
 * (a partitioned run's messages, held to the end of their window). */
bool bn_evq_next_before_entering(struct bn_evq *q, bn_time_t end);
static inline bool bn_evq_next_before(struct bn_evq *q, bn_time_t end)
{
    if (q->run_pos < q->run_len && !q->failed) /* within the slot being served */
        return ((q->cur << q->shift) | q->run[q->run_pos].at) < end;
    return bn_evq_next_before_entering(q, end);
}
/* The next event's time, into *t, without entering its slot; false if
 * the queue is empty. */
bool bn_evq_next_time(struct bn_evq *q, bn_time_t *t);
/* In the keyed order: is the next event at or before (time, kind, obj)?
 * Events of that very key count as before (a partitioned run's end). */
bool bn_evq_next_upto(struct bn_evq *q, bn_time_t time, uint16_t kind, uint32_t obj);
const struct bn_evq_entry *bn_evq_peek_beyond(struct bn_evq *q, size_t ahead);
/* About the event `ahead` places after the next one, or NULL: a hint for
 * prefetching, valid until the next push or pop. Within the slot being
 * served it is exact; past it, it is an event of the next busy slot (in
 * push order, not yet sorted), so prefetching does not stall at every slot
 * boundary. */
static inline const struct bn_evq_entry *bn_evq_peek_ahead(struct bn_evq *q, size_t ahead)
{
    size_t i = q->run_pos + ahead;
    return i < q->run_len ? &q->run[i] : bn_evq_peek_beyond(q, i - q->run_len);
}
static inline const struct bn_evq_entry *bn_evq_peek(struct bn_evq *q)
{
    return bn_evq_peek_ahead(q, 0);
}

#endif
