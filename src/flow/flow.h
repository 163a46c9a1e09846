/*
 * The flow-level engine (sim.fidelity: flow): the same fabric, routes,
 * NICs and drivers as the packet engine, but what a queue pair's send
 * engine is given moves as a flow instead of as packets. A queue pair
 * sending is one flow; its rate is its max-min fair share of the links it
 * loads (maxmin.c), recomputed when a flow starts or stops; queue pairs
 * that load the same links alike are one solver flow (rateclass.h); a message's
 * last byte leaves when its wire bytes (headers and framing as the packet
 * engine counts them) have gone at that rate, and reaches the receiver one
 * path latency later (propagation, switch latency, the last frame's
 * serialization per store-and-forward hop); its ACK comes back one reverse
 * path later. Completions go through the NIC layer as in the packet
 * engine, so the endpoint model, READs and every driver work unchanged.
 *
 * Routes: ECMP takes the hash choices the packet engine's switches make
 * for the flow's header; a flow that is spread (per-packet entropy,
 * spraying, adaptive routing, flowlets) splits evenly over the next hops
 * at every switch. Not modelled: queueing delay, congestion control,
 * losses, PFC pauses, failures (docs/flow_level.md).
 */
#ifndef BN_FLOW_FLOW_H
#define BN_FLOW_FLOW_H

#include "flow/maxmin.h"
#include "flow/linkclass.h"
#include "flow/rateclass.h"
#include "link/fabric.h"
#include "nic/nic.h"
#include "switch/switch.h"
#include "switch/walk.h"

/* Per queue pair. */
struct bn_flow_qp {
    double left;           /* wire bytes of its message, from carry until it joins its class */
    bn_time_t last_rx, last_ack; /* the latest delivery and ACK scheduled (kept in order) */
    bn_time_t lat_a;       /* its last byte's latency after it leaves: lat_a + lat_b x frame */
    double lat_b;          /* ps per byte of the last frame */
    bn_time_t ack_lat;     /* an ACK's trip back */
    uint32_t msg;          /* the message being sent (BN_NONE: idle) */
    uint32_t cls;          /* its rate class, the solver's flow (BN_NONE: path not known) */
    uint32_t last_wire;    /* wire bytes of that message's last frame */
    uint8_t walked;        /* its path is known */
    uint8_t packet;        /* hybrid: its path touches the region, packets carry it */
};

struct bn_hybrid; /* hybrid.c: packets in a region, flows outside */

/* The path walk's scratch (paths.c): the walk's own (switch/walk.h); per
 * port, marks and slots that merge a port used twice; the uses. */
struct bn_flow_walk {
    struct bn_switch_walk sw;
    uint32_t *use_mark, *use_slot, stamp, walk_stamp;
    uint32_t *use_p, nuse;
    float *use_w;
    uint8_t *use_passive;
};

struct bn_flow_engine {
    struct bn_fabric *f;
    struct bn_switches *sw;
    struct bn_nics *n;
    struct bn_maxmin mm;          /* flow id = a rate class; link id = a class of ports */
    /* queue pairs whose flows load the same links alike, one solver flow
     * each (rateclass.h); under hybrid, each queue pair its own class of
     * the same id (hybrid.c solves packet queue pairs by that id) */
    struct bn_rateclass rcl;
    /* ports in classes of identical ones (linkclass.h); off under per-packet
     * entropy, where data spreads but ACKs take one path each and every
     * port's flows differ (a k=32 spray permutation: 38k classes of 49k
     * ports, refined at twice the cost of a solve without) */
    struct bn_linkclass lc;
    struct bn_flow_qp *q;
    uint32_t nq;
    uint32_t *heap, nheap;        /* rate classes sending, by done_at */
    bn_time_t ev_at;              /* the earliest BN_EV_FLOW_SENT scheduled (BN_TIME_NEVER) */
    bn_time_t solve_at;           /* the earliest BN_EV_FLOW_SOLVE scheduled (BN_TIME_NEVER) */
    uint32_t ack_wire, full_wire; /* an ACK's wire bytes; a full data frame's */
    uint32_t ack_every;
    /* per NIC: its flows sending (or about to), and when it last started
     * from idle (its frames' clock, for the round robin) */
    uint32_t *nic_flows;
    bn_time_t *busy_since;
    struct bn_flow_walk walk;
    const struct bn_cc_ops *cc;   /* the scenario's congestion control (hybrid's packets keep it) */
    struct bn_hybrid *hy;         /* NULL unless sim.fidelity hybrid */
    int rc;                       /* first failure inside a NIC callback */
    struct bn_error *err;
};

/* Set up over an assembled fabric whose NICs are initialised; the NICs
 * hand their queue pairs' data to it from then on. */
int bn_flow_init(struct bn_flow_engine *e, struct bn_fabric *f, struct bn_switches *sw,
                 struct bn_nics *n, struct bn_error *err);
void bn_flow_free(struct bn_flow_engine *e);
/* Room for queue pair qpid's state (queue pairs come as drivers go). */
int bn_flow_reserve(struct bn_flow_engine *e, uint32_t qpid);
/* BN_EV_FLOW_SOLVE, _SENT, _RX, _ACK, _START. */
int bn_flow_event(struct bn_flow_engine *e, const struct bn_event *ev, struct bn_error *err);

/* Rates again at once (a flow started or stopped competing). */
void bn_flow_solve_soon(struct bn_flow_engine *e);

/* paths.c: the links queue pair qpid's flow loads (data one way, ACKs
 * back) with their weights, and its latencies, into e->q[qpid] and the
 * allocator. */
int bn_flow_walk(struct bn_flow_engine *e, uint32_t qpid, struct bn_error *err);
int bn_flow_walk_init(struct bn_flow_walk *wk, uint32_t nports, struct bn_error *err);
void bn_flow_walk_free(struct bn_flow_walk *wk);

#endif
