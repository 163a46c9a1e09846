/* 4-ary min-heap event queue; see evq.h for why this shape. */
#include <stdlib.h>

#include "core/bigmem.h"
#include "core/evq.h"

/* Sequence numbers wrap; compare them as a signed distance. */
static inline bool earlier(const struct bn_event *a, const struct bn_event *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    return (int32_t)(a->seq - b->seq) < 0;
}

int bn_evq_init(struct bn_evq *q, size_t initial_cap)
{
    q->cap = initial_cap ? initial_cap : 1024;
    q->len = 0;
    q->next_seq = 0;
    q->heap = bn_big_alloc(q->cap * sizeof *q->heap);
    return q->heap ? 0 : -1;
}

void bn_evq_free(struct bn_evq *q)
{
    bn_big_free(q->heap);
    q->heap = NULL;
    q->len = q->cap = 0;
}

int bn_evq_push(struct bn_evq *q, bn_time_t time, uint16_t kind, uint32_t obj, uint32_t arg)
{
    if (q->len == q->cap) {
        struct bn_event *h = bn_big_realloc(q->heap, q->cap * sizeof *h, 2 * q->cap * sizeof *h);
        if (!h)
            return -1;
        q->heap = h;
        q->cap *= 2;
    }
    struct bn_event ev = {.time = time, .seq = q->next_seq++, .kind = kind, .obj = obj, .arg = arg};
    size_t i = q->len++;
    while (i > 0) {
        size_t parent = (i - 1) / 4;
        if (!earlier(&ev, &q->heap[parent]))
            break;
        q->heap[i] = q->heap[parent];
        i = parent;
    }
    q->heap[i] = ev;
    return 0;
}

bool bn_evq_pop(struct bn_evq *q, struct bn_event *out)
{
    if (q->len == 0)
        return false;
    *out = q->heap[0];
    struct bn_event last = q->heap[--q->len];
    size_t n = q->len, i = 0;
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
    return true;
}
