/*
 * Packets: small fixed-size records in one pool, named by 32-bit index. They
 * carry no route and no payload, only what switches and NICs read. Queues
 * link packets through `next`, so queueing never allocates. The pool hands
 * out freed slots first (a free list, last freed first), else the next
 * never-used one; it grows in place, its address space reserved up front
 * (bn_big_reserve), committing twice as much when exhausted (rare). Growing
 * by moving used to copy the pool and fault its pages in twice: 3 % of an
 * 8192-host run, whose pool reaches 1.6 M packets, 51 MB.
 */
#ifndef BN_LINK_PACKET_H
#define BN_LINK_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BN_PKT_NONE UINT32_MAX
#define BN_PKT_HOP_MAX 15u

enum bn_pkt_type {
    BN_PKT_DATA = 0,
    BN_PKT_ACK = 1,
    BN_PKT_NAK = 2,
    BN_PKT_CNP = 3, /* congestion notification: RoCE CNP, or an InfiniBand BECN */
};

enum bn_pkt_flag {
    BN_PKT_ECN_CAPABLE = 1u << 0, /* ECT: switches may mark it CE */
    BN_PKT_ECN_CE = 1u << 1,      /* congestion experienced */
    BN_PKT_LAST = 1u << 2,        /* last packet of its message */
    BN_PKT_TRIMMED = 1u << 3,     /* a switch cut its payload (header forwarded) */
    BN_PKT_VALIANT = 1u << 4,     /* routed through an intermediate group (UGAL chose it) */
    BN_PKT_VIA_DONE = 1u << 5,    /* it has reached its intermediate group: minimal from here */
    BN_PKT_STAMPED = 1u << 6,     /* its first switch stamped its path: `entropy` holds the stamp */
    BN_PKT_UNSOLICITED = 1u << 7, /* sent without a receiver's credit (a first window) */
};

/* 32 bytes, so two share a cache line and none straddles one. The sender
 * and everything else about a flow are found through `qp`. */
struct bn_packet {
    uint32_t next;     /* queue link */
    uint32_t qp;       /* queue pair (flow) id */
    uint32_t psn;      /* packet sequence number (ACK/NAK: the next expected psn) */
    uint32_t dst;      /* destination host */
    uint32_t entropy;  /* flow identity hashed by ECMP; once STAMPED, the rest of its path */
    uint16_t bytes;    /* frame bytes on the wire, headers included, wire overhead not */
    unsigned type : 4; /* enum bn_pkt_type */
    unsigned hop : 4;  /* switches that have forwarded it (saturates): its place on its path */
    uint8_t flags;     /* enum bn_pkt_flag */
    union {
        struct {       /* data */
            uint16_t payload; /* payload bytes */
            uint16_t path;    /* hash of the egress choices made on the way */
        };
        uint32_t sack;  /* ACK of a selective-repeat transport: the PSN it received */
    };
    uint32_t in_port;  /* the port it entered its current switch by (flow control) */
};
_Static_assert(sizeof(struct bn_packet) == 32, "packets are 32 bytes");

struct bn_pool {
    struct bn_packet *pkts;
    size_t reserved;    /* bytes of address space */
    uint32_t cap;       /* packets committed */
    uint32_t top;       /* packets ever handed out: the next never-used slot */
    uint32_t free_head, in_use, high_water;
};

int bn_pool_init(struct bn_pool *p, uint32_t initial_cap);
/* A hint: start loading packet `pkt`. */
static inline void bn_pool_prefetch(const struct bn_pool *p, uint32_t pkt)
{
    __builtin_prefetch(&p->pkts[pkt]);
}
void bn_pool_free(struct bn_pool *p);
/* Returns BN_PKT_NONE only if growing failed. */
uint32_t bn_pool_get(struct bn_pool *p);
static inline void bn_pool_put(struct bn_pool *p, uint32_t i)
{
    p->pkts[i].next = p->free_head;
    p->free_head = i;
    p->in_use--;
}

/* Intrusive FIFO of packets. `bytes` is 32-bit (see bn_port); whoever
 * pushes onto an unbounded queue checks it has room (bn_pktq_has_room). */
struct bn_pktq {
    uint32_t head, tail, bytes;
};

static inline bool bn_pktq_empty(const struct bn_pktq *q) { return q->head == BN_PKT_NONE; }
static inline bool bn_pktq_has_room(const struct bn_pktq *q, uint32_t bytes)
{
    return (uint64_t)q->bytes + bytes <= UINT32_MAX;
}

static inline void bn_pktq_init(struct bn_pktq *q)
{
    q->head = q->tail = BN_PKT_NONE;
    q->bytes = 0;
}

static inline void bn_pktq_push(struct bn_pktq *q, struct bn_pool *p, uint32_t i)
{
    p->pkts[i].next = BN_PKT_NONE;
    if (q->tail == BN_PKT_NONE)
        q->head = i;
    else
        p->pkts[q->tail].next = i;
    q->tail = i;
    q->bytes += p->pkts[i].bytes;
}

/* At the head: trimmed headers go ahead of data, as in a priority queue. */
static inline void bn_pktq_push_front(struct bn_pktq *q, struct bn_pool *p, uint32_t i)
{
    p->pkts[i].next = q->head;
    q->head = i;
    if (q->tail == BN_PKT_NONE)
        q->tail = i;
    q->bytes += p->pkts[i].bytes;
}

static inline uint32_t bn_pktq_pop(struct bn_pktq *q, struct bn_pool *p)
{
    uint32_t i = q->head;
    if (i == BN_PKT_NONE)
        return i;
    q->head = p->pkts[i].next;
    if (q->head == BN_PKT_NONE)
        q->tail = BN_PKT_NONE;
    q->bytes -= p->pkts[i].bytes;
    return i;
}

#endif
