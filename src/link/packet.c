/* Packet pool with a free list; see packet.h. */
#include <stdlib.h>

#include "core/bigmem.h"
#include "link/packet.h"

static void thread_free_list(struct bn_pool *p, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++)
        p->pkts[i].next = i + 1 < to ? i + 1 : p->free_head;
    p->free_head = from;
}

int bn_pool_init(struct bn_pool *p, uint32_t initial_cap)
{
    p->cap = initial_cap ? initial_cap : 1024;
    p->pkts = bn_big_alloc((size_t)p->cap * sizeof *p->pkts);
    p->free_head = BN_PKT_NONE;
    p->in_use = p->high_water = 0;
    if (!p->pkts)
        return -1;
    thread_free_list(p, 0, p->cap);
    return 0;
}

void bn_pool_free(struct bn_pool *p)
{
    bn_big_free(p->pkts);
    p->pkts = NULL;
    p->cap = 0;
}

uint32_t bn_pool_get(struct bn_pool *p)
{
    if (p->free_head == BN_PKT_NONE) {
        if (p->cap >= UINT32_MAX / 2)
            return BN_PKT_NONE;
        struct bn_packet *n = bn_big_realloc(p->pkts, (size_t)p->cap * sizeof *n,
                                             (size_t)p->cap * 2 * sizeof *n);
        if (!n)
            return BN_PKT_NONE;
        p->pkts = n;
        thread_free_list(p, p->cap, p->cap * 2);
        p->cap *= 2;
    }
    uint32_t i = p->free_head;
    p->free_head = p->pkts[i].next;
    if (++p->in_use > p->high_water)
        p->high_water = p->in_use;
    return i;
}
