/* Results travelling between a partitioned run's processes (ranks.c):
 * records appended to a growing buffer, read back in the same order. */
#ifndef BN_SIM_RANKS_BUF_H
#define BN_SIM_RANKS_BUF_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct bn_rbuf {
    char *p;
    size_t n, cap;
    bool oom;
};

static inline void bn_rbuf_put(struct bn_rbuf *b, const void *v, size_t len)
{
    if (b->oom || len == 0)
        return;
    if (b->n + len > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + len)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, v, len);
    b->n += len;
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
