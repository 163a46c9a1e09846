/* Results travelling between a partitioned run's processes (ranks.c):
 * records appended to a growing buffer, read back in the same order. */
#ifndef BN_SIM_RANKS_BUF_H
#define BN_SIM_RANKS_BUF_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

struct bn_rbuf {
    char *p;
    uint32_t n, cap;
    bool oom;
    bool sizing;        /* only count: `need` bytes (bn_rbuf_exact) */
    size_t need;
    /* A window (bn_rbuf_window): of the records' bytes, keep only those
     * in [skip, skip + cap) at p, so that a pack far larger than the
     * window travels a window at a time (ranks.c, bn_ranks_gather_stream). */
    bool window;
    size_t pos, skip;
};

static inline void bn_rbuf_put(struct bn_rbuf *b, const void *v, size_t len)
{
    if (b->sizing) {
        b->need += len;
        return;
    }
    if (b->window) {
        size_t lo = b->pos > b->skip ? b->pos : b->skip, end = b->pos + len;
        size_t hi = end < b->skip + b->cap ? end : b->skip + b->cap;
        if (lo < hi) {
            memcpy(b->p + (lo - b->skip), (const char *)v + (lo - b->pos), hi - lo);
            b->n = (uint32_t)(hi - b->skip);
        }
        b->pos = end;
        return;
    }
    if (b->oom || len == 0)
        return;
    /* (an exchange's MPI counts stop at 2 GiB anyway) */
    if (len >= UINT32_MAX - b->n ||
        !bn_grow((void **)&b->p, (uint32_t)(b->n + len - 1), &b->cap, 1)) {
        b->oom = true;
        return;
    }
    memcpy(b->p + b->n, v, len);
    b->n += (uint32_t)len;
}

/* After a sizing pass: room for exactly what it counted, so that the
 * records are put without doubling (at 8192 hosts the doubling left a
 * rank's 6 MB of results in 9 MB). */
static inline void bn_rbuf_exact(struct bn_rbuf *b)
{
    b->sizing = false;
    if (b->need >= UINT32_MAX || !(b->p = malloc(b->need + 1))) {
        b->oom = true;
        return;
    }
    b->cap = (uint32_t)b->need + 1;
}

/* Pack into `room` (cap bytes) the bytes [skip, skip + cap) of what the
 * packer puts. */
static inline void bn_rbuf_window(struct bn_rbuf *b, char *room, uint32_t cap, size_t skip)
{
    *b = (struct bn_rbuf){.p = room, .cap = cap, .window = true, .skip = skip};
}

/* Records read back; a stream's (bn_ranks_gather_stream) come in pieces:
 * `rest` bytes are still to come, and more() brings the next piece. */
struct bn_rcur {
    const char *p;
    size_t len;         /* left to read here */
    size_t rest;        /* still to come after these */
    bool (*more)(void *ud, struct bn_rcur *c);
    void *ud;
};

/* The next len bytes into v (NULL: skipped); false past the end. */
static inline bool bn_rcur_get(struct bn_rcur *c, void *v, size_t len)
{
    if (len > c->len + c->rest)
        return false;
    char *to = v;
    while (len > c->len) { /* the rest of this piece, then the next */
        if (to && c->len)
            memcpy(to, c->p, c->len);
        to = to ? to + c->len : NULL;
        len -= c->len;
        c->len = 0;
        if (!c->more || !c->more(c->ud, c))
            return false;
    }
    if (to && len)
        memcpy(to, c->p, len);
    c->p += len;
    c->len -= len;
    return true;
}

/* Every byte read. */
static inline bool bn_rcur_end(const struct bn_rcur *c)
{
    return c->len == 0 && c->rest == 0;
}

#endif
