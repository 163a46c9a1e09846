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
};

static inline void bn_rbuf_put(struct bn_rbuf *b, const void *v, size_t len)
{
    if (b->sizing) {
        b->need += len;
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

struct bn_rcur {
    const char *p;
    size_t len;         /* left to read */
};

/* The next len bytes into v (NULL: skipped); false past the end. */
static inline bool bn_rcur_get(struct bn_rcur *c, void *v, size_t len)
{
    if (len > c->len)
        return false;
    if (v && len)
        memcpy(v, c->p, len);
    c->p += len;
    c->len -= len;
    return true;
}

#endif
