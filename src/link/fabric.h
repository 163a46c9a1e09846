/*
 * The fabric's runtime: ports with their output queues, the packet pool, the
 * clock and the event queue. Ports are the link layer: each serializes at
 * its line rate (wire overhead included), holds a finite drop-tail buffer,
 * marks ECN RED-style on the instantaneous queue, and hands the packet to its
 * peer after serialization + propagation (+ FEC) + the peer switch's
 * forwarding latency (cut-through: after the head only).
 *
 * The switch and NIC layers act on this structure; the engine (src/sim)
 * owns it and dispatches events.
 */
#ifndef BN_LINK_FABRIC_H
#define BN_LINK_FABRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/evkind.h"
#include "core/evq.h"
#include "core/rng.h"
#include "core/time.h"
#include "link/fc.h"
#include "link/packet.h"
#include "link/telemetry.h"

/*
 * A port is busy until its last bit has left (busy_until). It gets a wake-up
 * event (BN_EV_PORT_FREE) only when something is waiting for it, so an idle
 * or lightly used port costs one event per packet-hop, not two.
 */
/*
 * What every packet-hop reads and writes fits one cache line, the counters
 * every frame adds to included; the rarer ones (drops, trims, the high bits
 * of ECN marks) and the ECN random stream live apart in bn_port_stats (same
 * index). To fit, queue lengths, buffers and latencies are 32-bit: a port's
 * queue holds at most 4 GiB - 1 (switch.buffer_bytes is bounded so; an
 * unbounded queue that would pass it stops the run with an error) and a
 * link's latency is at most 4.29 ms (the build checks).
 */
enum bn_port_flag {
    BN_PORT_AT_HOST = 1u << 0,     /* this is a NIC's port */
    BN_PORT_PEER_SWITCH = 1u << 1, /* packets sent here are forwarded by a switch */
    BN_PORT_CUT_OUT = 1u << 2,     /* ...which decides after the head (cut-through) */
    BN_PORT_CUT_IN = 1u << 3,      /* packets arriving here were cut through upstream */
    BN_PORT_PEER_HOST = 1u << 4,   /* packets sent here arrive at an endpoint (a NIC) */
    BN_PORT_WAKE_PENDING = 1u << 5, /* a BN_EV_PORT_FREE is scheduled */
    BN_PORT_DOWN = 1u << 6,        /* its link is down (link/impair.c): what it carries is lost */
    BN_PORT_STAMPS = 1u << 7,      /* a switch's port that stamps in-band telemetry (telemetry.h) */
};

#define BN_PORT_UNBOUNDED UINT32_MAX /* buffer_bytes of a port that never drops */

struct bn_port {
    bn_time_t busy_until;
    uint64_t rate_bps;
    bn_time_t busy_ps;      /* serialization time of the frames sent (utilization) */
    uint64_t tx_bytes;      /* frame bytes sent */
    struct bn_pktq q;
    uint32_t lat_ps;        /* propagation + FEC + the peer switch's forwarding latency */
    uint32_t buffer_bytes;  /* output queue limit (lossy), or BN_PORT_UNBOUNDED */
    uint32_t node, peer;
    uint8_t flags;          /* enum bn_port_flag */
    uint8_t drops_lo;       /* frames dropped, low 8 bits (the rest: bn_port_drops) */
    uint16_t ecn_marks_lo;  /* ECN marks, low 16 bits (the rest: bn_port_ecn_marks) */
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct bn_port) == 64, "a port is one cache line");

/* One line each: the ECN draw of every frame queued past Kmin reads and
 * writes the stream (56 bytes apart, most ports' stats straddled two). */
struct bn_port_stats {
    uint64_t drops_hi;      /* drops in multiples of 2^8 (see bn_port_drops) */
    uint64_t trims;
    uint64_t ecn_marks_hi;  /* ECN marks in multiples of 2^16 (see bn_port_ecn_marks) */
    uint64_t lost;          /* frames lost to a failure here: a dead link, corruption,
                             * no route (link/impair.c) */
    struct bn_rng rng;      /* ECN marking draws */
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct bn_port_stats) == 64, "a port's stats are one cache line");

struct bn_ecn_params {
    bool enabled;
    uint64_t kmin, kmax;
    double pmax;
};

struct bn_loss_log {
    uint32_t *qp;
    uint32_t n, cap;        /* past cap, losses are not logged */
};

/* A partitioned run (sim/partition.c): frames and flow-control signals
 * crossing a cut between parts are held here, as separate processes
 * would hold them for their next exchange, and delivered at the end of
 * the window (no earlier: a message that would land before it means the
 * lookahead was wrong). */
struct bn_cut_msg {
    bn_time_t time;
    uint32_t obj, arg;
    uint32_t seq;               /* its place among those held in the window */
    uint16_t kind;
    struct bn_packet pkt;       /* a frame's copy (its pool slot is freed) */
    struct bn_int_rec rec;      /* and its in-band telemetry, when kept (telemetry.h) */
};

struct bn_cut {
    uint8_t *port;              /* per port: its link crosses the cut */
    bn_time_t window_end;
    struct bn_cut_msg *msg;
    uint32_t n, cap;
    uint64_t frames, signals, bytes; /* held, over the run */
    bool early;                 /* a message would land before window_end */
};

struct bn_fabric {
    struct bn_port *ports;
    /* each port's node, compact (a switch's ports share a line or two):
     * what a switch's lookup reads instead of the arrival port's line */
    uint32_t *port_node;
    struct bn_port_stats *stats;
    const struct bn_fc_ops *fc;
    void *fc_state;                 /* the flow-control module's own (its setup's) */
    uint32_t nports;
    struct bn_pool pool;
    /* The link a port's enqueue owes the frame queued before it, written
     * one queue operation later (bn_port_queue_push): 1 + that frame's
     * index (0: none), and the frame to link. */
    uint32_t link_from1, link_to;
    struct bn_evq evq;
    bn_time_t now;
    uint16_t wire_overhead;
    uint16_t head_bytes;    /* wire bytes a cut-through switch waits for */
    uint16_t trim_bytes;    /* trimming on: what is left of a trimmed frame (its headers); 0 = off */
    uint32_t ctrl_reserve;  /* trimming on: room beyond a port's buffer for control frames */
    uint64_t pkts_trimmed;
    struct bn_ecn_params ecn;
    /* conservation ledger: injected = delivered + dropped (congestion) +
     * lost (to failures: link/impair.c) + in flight */
    uint64_t pkts_injected, pkts_delivered, pkts_dropped, pkts_lost;
    uint64_t bytes_injected, bytes_delivered, bytes_dropped, bytes_lost, data_pkts_dropped;
    uint64_t pkts_corrupted;        /* of pkts_lost: dropped for a bit error at a receiver */
    /* Some link is down or corrupts frames: arrivals and enqueues check
     * (one predictable branch when not). */
    bool impaired;
    struct bn_impair *impair;       /* link/impair.c's own (NULL: no fault ever) */
    /* Queue pairs of lost frames, for whoever reads them (the fault
     * schedule: which flows a fault hit); NULL: not kept. */
    struct bn_loss_log *loss_log;
    /* In-band telemetry records (link/telemetry.h): switches stamp data
     * packets when the congestion control reads them; NULL: none. */
    struct bn_telemetry *telemetry;
    /* Hybrid (flow/hybrid.c): per port, the bytes the flows crossing it
     * would hold queued, counted with its queue for ECN; NULL: none. */
    const uint32_t *ecn_backlog;
    uint64_t packet_hops;
    bn_time_t last_delivery;        /* progress watchdog: last frame delivered or lost, or
                                     * the first into an empty fabric */
    uint64_t lossless_overflows; /* frames a lossless buffer could not have held */
    bool cut_may_hold;      /* a cut-through switch has ports of different rates */
    bool oom;               /* an event or packet could not be allocated */
    bool time_overflow;     /* an event fell beyond BN_TIME_LIMIT */
    uint32_t queue_overflow; /* 1 + a port whose queue would have passed 4 GiB; 0: none */
    struct bn_cut *cut;     /* a partitioned run's cut (NULL: none) */
    /* Its parts on processes, after the run, on rank 0: every port's
     * flow-control counters, as its part's module left them (NULL: ask
     * the module). */
    const struct bn_fc_port_stats *fc_final;
    /* A partitioned run's rank (sim/ranks.c): per port, 1 where this process
     * holds nothing of it (another rank's port, no peer of its own): its
     * line and counters stay unwritten zero pages. NULL: every port here. */
    const uint8_t *absent;
};

/* Hold a message for a port across the cut (pkt: a frame, or BN_PKT_NONE). */
void bn_cut_hold(struct bn_fabric *f, bn_time_t t, uint16_t kind, uint32_t obj, uint32_t arg,
                 uint32_t pkt);

static inline void bn_fabric_schedule(struct bn_fabric *f, bn_time_t t, uint16_t kind,
                                      uint32_t obj, uint32_t arg)
{
    if (t > BN_TIME_LIMIT)
        f->time_overflow = true;
    else if (bn_evq_push(&f->evq, t, kind, obj, arg) != 0)
        f->oom = true;
}

/* Frames port p has marked CE. A port marks most of the frames it queues
 * when congested, so the count lives in its line, 16 bits of it; the
 * carries go to its counters' line once per 65536 marks. */
static inline uint64_t bn_port_ecn_marks(const struct bn_fabric *f, uint32_t p)
{
    return f->stats[p].ecn_marks_hi + f->ports[p].ecn_marks_lo;
}

/* Frames port p has dropped. A lossy fabric under load drops a good share
 * of its frames (at 8192 hosts, permutation, ECMP: 4 in 10), so the count
 * lives in the port's line, which the drop has at hand, 8 bits of it; the
 * carries go to its counters' line once per 256 drops. */
static inline uint64_t bn_port_drops(const struct bn_fabric *f, uint32_t p)
{
    return f->stats[p].drops_hi + f->ports[p].drops_lo;
}

/* Cut-through, the one rule: the switch at the far end of port p passes a
 * frame on after its head (BN_PORT_CUT_OUT), but not onto a faster port
 * `out`: it cannot outrun its input, so it waits for the tail (switch.c).
 * out == UINT32_MAX: the next port is not known (any, at the decision). */
static inline bool bn_port_cuts_through(const struct bn_port *ports, uint32_t p, uint32_t out)
{
    return (ports[p].flags & (BN_PORT_PEER_SWITCH | BN_PORT_CUT_OUT)) ==
               (BN_PORT_PEER_SWITCH | BN_PORT_CUT_OUT) &&
           (out == UINT32_MAX || ports[out].rate_bps <= ports[p].rate_bps);
}

static inline bool bn_port_idle(const struct bn_fabric *f, const struct bn_port *port)
{
    return f->now >= port->busy_until;
}

/* Ask for a BN_EV_PORT_FREE when the port's current frame is out (now, if
 * it is idle: a credit or a resume has just arrived). */
static inline void bn_port_want_wake(struct bn_fabric *f, uint32_t p)
{
    struct bn_port *port = &f->ports[p];
    if (!(port->flags & BN_PORT_WAKE_PENDING)) {
        port->flags |= BN_PORT_WAKE_PENDING;
        bn_time_t t = port->busy_until > f->now ? port->busy_until : f->now;
        /* its node rides along: the loop's prefetch hints find the NIC
         * behind a host's port without loading port_node (a miss there) */
        bn_fabric_schedule(f, t, BN_EV_PORT_FREE, p, port->node);
    }
}

/* The same for a sender that may not go before `t` (a NIC waiting for its
 * DMA): a wake already pending comes first, and asks again. */
static inline void bn_port_wake_at(struct bn_fabric *f, uint32_t p, bn_time_t t)
{
    struct bn_port *port = &f->ports[p];
    if (!(port->flags & BN_PORT_WAKE_PENDING)) {
        port->flags |= BN_PORT_WAKE_PENDING;
        bn_fabric_schedule(f, port->busy_until > t ? port->busy_until : t, BN_EV_PORT_FREE, p,
                           port->node);
    }
}

/* Hints: start loading port p's line; its queue's head frame (false: the
 * queue is empty). */
static inline void bn_port_prefetch(const struct bn_fabric *f, uint32_t p)
{
    __builtin_prefetch(&f->ports[p]);
}
static inline bool bn_port_prefetch_head(const struct bn_fabric *f, uint32_t p)
{
    uint32_t head = f->ports[p].q.head;
    if (head == BN_PKT_NONE)
        return false;
    __builtin_prefetch(&f->pool.pkts[head]);
    return true;
}

/* May port p start a frame of `bytes` now, as far as flow control goes? */
static inline bool bn_port_fc_allows(const struct bn_fabric *f, uint32_t p, uint32_t bytes)
{
    return !f->fc->may_send || f->fc->may_send(f, p, bytes);
}

/* Send a pending flow-control frame (PFC) if the port is idle; true if sent. */
static inline bool bn_port_send_control(struct bn_fabric *f, uint32_t p)
{
    return f->fc->send_control && f->fc->send_control(f, p);
}
/* Schedule a flow-control signal to reach port `to` at time t. */
static inline void bn_fabric_signal(struct bn_fabric *f, bn_time_t t, uint32_t to,
                                    enum bn_fc_signal sig, uint32_t amount)
{
    if (__builtin_expect(f->cut != NULL, 0) && f->cut->port[to])
        bn_cut_hold(f, t, BN_EV_FC_SIGNAL, to, (amount << 2) | (uint32_t)sig, BN_PKT_NONE);
    else
        bn_fabric_schedule(f, t, BN_EV_FC_SIGNAL, to, (amount << 2) | (uint32_t)sig);
}

/* Start sending `pkt` on idle port `p` now. */
void bn_port_transmit(struct bn_fabric *f, uint32_t p, uint32_t pkt);
/* Queue `pkt` at switch egress port `p` (drop-tail, ECN) and start it if idle. */
void bn_port_enqueue(struct bn_fabric *f, uint32_t p, uint32_t pkt);
/* Write the link an enqueue left owing (bn_port_queue_push). */
static inline void bn_port_queue_settle(struct bn_fabric *f)
{
    if (f->link_from1) {
        f->pool.pkts[f->link_from1 - 1].next = f->link_to;
        f->link_from1 = 0;
    }
}

/* Queue `pkt` at the tail of port p's queue. The frame queued before it
 * was last touched when it joined, long ago on a large fabric; storing
 * the link there at once would stall on that line (a store to a line not
 * in cache blocks the stores after it), so it is fetched now and written
 * at the next enqueue or send on any port, by when it is at hand. Only a
 * send reads links, and every send settles first. */
static inline void bn_port_queue_push(struct bn_fabric *f, struct bn_pktq *q, uint32_t pkt)
{
    struct bn_packet *pk = &f->pool.pkts[pkt];
    pk->next = BN_PKT_NONE;
    bn_port_queue_settle(f);
    if (q->tail == BN_PKT_NONE) {
        q->head = pkt;
    } else {
        __builtin_prefetch(&f->pool.pkts[q->tail], 1);
        f->link_from1 = q->tail + 1;
        f->link_to = pkt;
    }
    q->tail = pkt;
    q->bytes += pk->bytes;
}

/* BN_EV_PORT_FREE at a switch port: send the next queued packet, if any. */
static inline void bn_port_send_next(struct bn_fabric *f, uint32_t p)
{
    struct bn_port *port = &f->ports[p];
    bn_port_queue_settle(f);
    if (bn_pktq_empty(&port->q) ||
        !bn_port_fc_allows(f, p, f->pool.pkts[port->q.head].bytes + f->wire_overhead))
        return; /* a credit or a resume will wake the port */
    bn_port_transmit(f, p, bn_pktq_pop(&port->q, &f->pool));
    if (!bn_pktq_empty(&f->ports[p].q))
        bn_port_want_wake(f, p);
}

/* fabric.c: nports ports (zeroed: the assembly gives them their rates,
 * latencies and places), their stats, the packet pool and event queue;
 * and the flow-control module `fc`, set up from `in` (after the ports). */
int bn_fabric_init(struct bn_fabric *f, uint32_t nports, struct bn_error *err);
/* The same, holding only the ports `absent` does not mark (NULL: all);
 * `absent` must outlive the fabric. */
int bn_fabric_init_on(struct bn_fabric *f, uint32_t nports, const uint8_t *absent,
                      struct bn_error *err);
int bn_fabric_fc_setup(struct bn_fabric *f, const struct bn_fc_ops *fc, const struct bn_fc_setup *in,
                       struct bn_error *err);
void bn_fabric_free(struct bn_fabric *f);

/* The packet reached its destination NIC by port `in`: ledger, flow
 * control, pool. */
void bn_fabric_deliver(struct bn_fabric *f, uint32_t in, uint32_t pkt);
void bn_fabric_drop(struct bn_fabric *f, uint32_t port, uint32_t pkt);
/* The frame is lost to a failure at `port` (a dead link, a bit error, no
 * route): the lost ledger, not congestion drops. A frame inside a switch
 * (at_switch) leaves its ingress accounting first. */
void bn_fabric_lose(struct bn_fabric *f, uint32_t port, uint32_t pkt, bool at_switch);
/* A frame a queue without a drop limit has no room for (bn_pktq_has_room):
 * dropped, and the port noted, so the run stops with an error. */
void bn_fabric_overflow(struct bn_fabric *f, uint32_t port, uint32_t pkt);
/* A NIC creates a packet: ledger. Returns BN_PKT_NONE on exhaustion. */
uint32_t bn_fabric_new_packet(struct bn_fabric *f);
void bn_fabric_count_injected(struct bn_fabric *f, const struct bn_packet *pk);

#endif
