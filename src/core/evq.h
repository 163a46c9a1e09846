/*
 * The event queue: a 4-ary implicit min-heap in one flat array of 24-byte
 * events, ordered by (time, insertion sequence) so that simultaneous events
 * run in the order they were scheduled, deterministically.
 *
 * Why a 4-ary heap: bench/evq_bench.c measures it against a binary heap and a
 * sorted-bucket calendar queue under the hold model with the delay mix of a
 * packet simulation; docs/performance.md has the figures. Four children share
 * one cache line, halving the tree depth of a binary heap.
 *
 * Events carry no pointers: `kind` selects the handler and `obj`/`arg` are
 * integer ids into the simulator's flat arrays. The array grows by doubling,
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

struct bn_evq {
    struct bn_event *heap;
    size_t len, cap;
    uint32_t next_seq;
};

int bn_evq_init(struct bn_evq *q, size_t initial_cap);
void bn_evq_free(struct bn_evq *q);
/* Returns 0, or -1 if growing the heap failed. */
int bn_evq_push(struct bn_evq *q, bn_time_t time, uint16_t kind, uint32_t obj, uint32_t arg);
/* Remove the earliest event into *out; false if empty. */
bool bn_evq_pop(struct bn_evq *q, struct bn_event *out);
static inline size_t bn_evq_len(const struct bn_evq *q) { return q->len; }
/* The earliest event, or NULL; valid until the next push or pop. */
static inline const struct bn_event *bn_evq_peek(const struct bn_evq *q)
{
    return q->len ? &q->heap[0] : NULL;
}

#endif
