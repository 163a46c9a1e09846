/*
 * Switches: a packet that has arrived (its head, under cut-through) is
 * routed on its destination leaf to the set of minimal next hops, the
 * switch's load-balancing policy picks one, and the packet joins that
 * port's output queue.
 */
#ifndef BN_SWITCH_SWITCH_H
#define BN_SWITCH_SWITCH_H

#include "link/fabric.h"
#include "switch/lb.h"
#include "topo/routing.h"
#include "topo/topo.h"

enum bn_nonminimal { BN_NM_NONE = 0, BN_NM_VALIANT = 1, BN_NM_UGAL = 2 };

/* Dragonfly+ groups, for non-minimal routing (nonminimal.c). */
struct bn_groups {
    uint8_t mode;               /* enum bn_nonminimal */
    uint32_t ngroups, group_leaves;
    uint32_t *sw_group;         /* per switch (node - first_switch) */
};

/* A flow's path, memoized: where minimal routing and pure policies (ECMP)
 * decide, a data packet's egress at every switch is a function of its
 * destination and entropy, which all of a flow's packets share (unless the
 * sender sprays), so the first packet's walk serves the rest. Kept per
 * queue pair and direction, checked against the packet's destination and
 * entropy, and read once per packet, at its first switch: that switch
 * stamps the rest of the path into the packet (BN_PKT_STAMPED), one byte a
 * switch, each the egress port's distance from the arrival port (+128), so
 * the switches after it read nothing but the packet. A path that does not
 * fit a stamp (more than BN_MEMO_HOPS switches, a distance beyond +-127) is
 * not memoized. 32 bytes. */
#define BN_MEMO_HOPS 5
#define BN_STAMP_BIAS 128
struct bn_path_memo {
    uint32_t dst, entropy;        /* of the packets it serves */
    uint32_t out0;                /* egress port at the first switch */
    uint32_t stamp;               /* switches 2..n: egress - arrival port + BN_STAMP_BIAS, a byte each */
    /* a data packet's path hash (bn_packet.path) at the end of the path:
     * path * path_mul + path_add (mod 2^16), what the hops would have made */
    uint16_t path_mul, path_add;
    uint8_t n;                    /* switches on the path; 0: none memoized */
    uint8_t pad_[3];
    uint32_t epoch;               /* the routing tables it was walked on (memo_epoch) */
    uint32_t pad2_;
};
_Static_assert(sizeof(struct bn_path_memo) == 32, "a path memo is half a cache line");

struct bn_host_route {
    uint32_t leaf;          /* its leaf's index */
    uint32_t deliver_port;  /* the leaf's port facing it */
};

struct bn_switches {
    const struct bn_routes *routes;
    /* path memos, by queue pair and direction (bn_switches_enable_memo) */
    bool memo_on;
    /* an optical circuit moved (bn_switches_rewired): a stamp may lead into
     * another switch's ports, so stamps are no longer followed */
    bool stamps_void;
    uint32_t memo_cap;
    uint32_t memo_epoch;                /* bumped when any switch's table changes */
    struct bn_path_memo *memo;
    struct bn_groups groups;
    struct bn_lb_ctx ctx;
    struct bn_lb_switch_state *state;   /* per switch (node - first_switch) */
    void *lb_priv;                      /* the policies' private state, all switches' */
    /* when every switch hashes (ECMP): their salts, 8 bytes a switch, so a
     * choice reads no policy state (on a large fabric, a line per hop) */
    uint64_t *hash_salt;
    /* host -> its leaf and the leaf's port facing it: one 8-byte record, as
     * a lookup reads the leaf at every switch and the port at the last, so
     * the first read brings the second (two misses a hop at 8192 hosts) */
    const struct bn_host_route *host_route;
    /* NVSwitches (nodes from scaleup_first on; UINT32_MAX: none) forward
     * on the destination alone: host -> the NVSwitch port facing it. */
    uint32_t scaleup_first;
    const uint32_t *scaleup_port;
    /* SHARP units (nodes from agg_first on; UINT32_MAX: none) are reached
     * over fixed next hops: [unit * nswitches + switch] -> port. */
    uint32_t agg_first;
    const uint32_t *agg_next;
    /* the graph, which a memo's walk reads where the fabric holds only
     * some ports (a partitioned run's rank: bn_fabric.absent); last, apart
     * from what every hop reads */
    const struct bn_topo *topo;
};

/* switch_setup.c: the switches of topology t, each tier's policy as the
 * scenario names it (switch.load_balancing, switch.lb_per_tier) set up
 * from its keys, hashing, Dragonfly+ groups (switch.nonminimal), and path
 * memos where every switch routes minimally with a pure policy and flows
 * keep their entropy (no per-packet spraying). host_route: per host, its
 * leaf and the leaf's port facing it. */
int bn_switches_init(struct bn_switches *s, struct bn_fabric *f, const struct bn_routes *r,
                     const struct bn_topo *t, const struct bn_host_route *host_route,
                     const struct bn_scenario *sc, struct bn_error *err);
void bn_switches_free(struct bn_switches *s);
/* nonminimal.c: set up groups; the leaf a packet heads for at `node`. */
int bn_groups_init(struct bn_groups *g, const struct bn_topo *t, uint8_t mode);
uint32_t bn_nonminimal_leaf(struct bn_switches *s, uint32_t node, struct bn_packet *pk,
                            uint32_t in_port);

/* A packet routed nowhere: the leaf of its destination cannot be reached
 * from this switch (links down), or it passed BN_PKT_HOP_MAX switches (a
 * loop while tables disagree). It is lost (bn_fabric_lose). */
#define BN_ROUTE_DROP (UINT32_MAX - 1)

/* Some switch installed new routing tables: paths memoized before are
 * walked again. (A packet stamped before keeps its stamped path.) */
static inline void bn_switches_routes_changed(struct bn_switches *s)
{
    s->memo_epoch++;
}

/* A link's far end changed (an OCS reconfigured): the port offsets that
 * memos and stamped packets carry name the old wiring. From now on paths
 * are looked up at every hop, and memos are off. */
static inline void bn_switches_rewired(struct bn_switches *s)
{
    s->stamps_void = true;
    s->memo_on = false;
    s->memo_epoch++;
}

/* The line holding the path memo a packet at its first switch may read (a
 * queue pair's two directions share it), or NULL: a prefetch hint. */
static inline const void *bn_switch_memo_line(const struct bn_switches *s,
                                              const struct bn_packet *pk)
{
    return s->memo_on && pk->hop == 0 && 2 * pk->qp < s->memo_cap ? &s->memo[2 * pk->qp] : NULL;
}

/* The routing-table entry switch `node` will read for a packet without a
 * memo or stamp (minimal routing over the fat-tree-style tables), or NULL:
 * a prefetch hint. */
static inline const void *bn_switch_route_line(const struct bn_switches *s, uint32_t node,
                                               const struct bn_packet *pk)
{
    if (s->groups.mode || node >= s->scaleup_first || pk->dst >= s->agg_first ||
        (pk->flags & BN_PKT_STAMPED))
        return NULL;
    return bn_routes_entry(s->routes, node, s->host_route[pk->dst].leaf);
}

/* Hints: start loading what the switch of `in_port` will read for an
 * arriving packet: its node, where a lookup needs it (a memoized path
 * needs none); its path memo or routing-table entry (bn_switch_memo_line,
 * bn_switch_route_line). */
static inline void bn_switch_prefetch_arrival(const struct bn_switches *s,
                                              const struct bn_fabric *f, uint32_t in_port)
{
    if (!s->memo_on)
        __builtin_prefetch(&f->port_node[in_port]);
}
static inline void bn_switch_prefetch_route(const struct bn_switches *s, const struct bn_fabric *f,
                                            uint32_t in_port, const struct bn_packet *pk)
{
    const void *line = s->memo_on ? bn_switch_memo_line(s, pk)
                                  : bn_switch_route_line(s, f->port_node[in_port], pk);
    if (line)
        __builtin_prefetch(line);
}

/* The egress port a packet arriving at switch port `in_port` will take, if
 * that is known without deciding (minimal routing, a single next hop or a
 * pure policy such as ECMP), else UINT32_MAX: a prefetch hint. Changes
 * nothing. */
uint32_t bn_switch_predict_egress(struct bn_switches *s, uint32_t in_port, struct bn_packet *pk);

/* The egress port the switch of `in_port` forwards `pk` (arrived there) to:
 * the load-balancing policy decides (and may update its state); the packet
 * counts the hop and, if data, records the choice in its path hash. */
uint32_t bn_switch_route(struct bn_switches *s, uint32_t in_port, struct bn_packet *pk);

/* For the flow-level engine: the egress ports switch `node` may forward
 * `pk` on (into ports, at most max; returns how many there are, 0: none
 * or non-minimal routing, which it does not answer) and *pick, the one it
 * takes when every packet of the flow goes the same way (ECMP's hash, a
 * pure policy, a single next hop; a sticky one's flowlets, by ECMP's hash
 * with the switch's salt), else UINT32_MAX: the policy decides per packet
 * (adaptive, spraying) or `per_packet` entropy spreads the flow over the
 * set. Changes nothing. */
uint32_t bn_switch_choices(struct bn_switches *s, uint32_t node, const struct bn_packet *pk,
                           bool per_packet, uint32_t *ports, uint32_t max, uint32_t *pick);

/* BN_EV_ARRIVE at switch port `in_port`. (BN_EV_ARRIVE_TAIL, for a packet
 * held for its tail, names the chosen egress port: the engine queues it.) */
void bn_switch_receive(struct bn_fabric *f, struct bn_switches *s, uint32_t in_port, uint32_t pkt);

#endif
