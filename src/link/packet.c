/* Packet pool with a free list; see packet.h. */
#include <stdlib.h>

#include "core/bigmem.h"
#include "link/packet.h"

/* Up to 2^31 packets (64 GB of address space, none of it committed). */
#define POOL_MAX_PACKETS (UINT32_MAX / 2)

int bn_pool_init(struct bn_pool *p, uint32_t initial_cap)
{
    p->cap = initial_cap ? initial_cap : 1024;
    p->reserved = (size_t)POOL_MAX_PACKETS * sizeof *p->pkts;
    p->pkts = bn_big_reserve(&p->reserved, (size_t)p->cap * sizeof *p->pkts);
    p->free_head = BN_PKT_NONE;
    p->top = p->in_use = p->high_water = 0;
    if (!p->pkts || bn_big_commit(p->pkts, p->reserved, (size_t)p->cap * sizeof *p->pkts) != 0)
        return -1;
    return 0;
}

void bn_pool_free(struct bn_pool *p)
{
    bn_big_unreserve(p->pkts, p->reserved);
    p->pkts = NULL;
    p->cap = 0;
    p->reserved = 0;
}

uint32_t bn_pool_get(struct bn_pool *p)
{
    uint32_t i = p->free_head;
    if (i != BN_PKT_NONE) {
        p->free_head = p->pkts[i].next;
    } else {
        if (p->top == p->cap) {
            size_t room = p->reserved / sizeof *p->pkts;
            uint32_t cap = (size_t)p->cap * 2 < room ? p->cap * 2 : (uint32_t)room;
            if (cap == p->cap ||
                bn_big_commit(p->pkts, p->reserved, (size_t)cap * sizeof *p->pkts) != 0)
                return BN_PKT_NONE;
            p->cap = cap;
        }
        i = p->top++;
    }
    if (++p->in_use > p->high_water)
        p->high_water = p->in_use;
    return i;
}
