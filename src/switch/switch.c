/* Switch forwarding; see switch.h. */
#include <stdlib.h>
#include <string.h>

#include "core/bigmem.h"
#include "switch/switch.h"

void bn_switches_free(struct bn_switches *s)
{
    free(s->state);
    free(s->hash_salt);
    free(s->groups.sw_group);
    bn_big_free(s->lb_priv);
    bn_big_free(s->memo);
    s->memo = NULL;
    s->memo_cap = 0;
    s->state = NULL;
    s->hash_salt = NULL;
    s->lb_priv = NULL;
}

/* The egress port of `pk` at switch `node`. Deciding (`decide`) may draw
 * at random, read queues and update a policy's state; without it nothing
 * changes, and where only deciding could tell (non-minimal routing, a
 * policy that is not pure) the answer is UINT32_MAX. *multi: the choice
 * was among several ports (the packet's path hash records those). */
static uint32_t lookup(struct bn_switches *s, uint32_t node, struct bn_packet *pk, uint32_t in_port,
                       bool decide, bool *multi)
{
    *multi = false;
    if (node >= s->scaleup_first)
        return s->scaleup_port[pk->dst];
    if (pk->dst >= s->agg_first)
        return s->agg_next[(size_t)(pk->dst - s->agg_first) * s->routes->nswitches +
                           (node - s->routes->first_switch)];
    if (s->groups.mode && !decide)
        return UINT32_MAX;
    uint32_t leaf = s->groups.mode ? bn_nonminimal_leaf(s, node, pk, in_port)
                                   : s->host_route[pk->dst].leaf;
    struct bn_route_set set = bn_routes_lookup(s->routes, node, leaf);
    if (set.cnt == 0)
        return set.run ? BN_ROUTE_DROP : s->host_route[pk->dst].deliver_port;
    if (set.cnt == 1)
        return set.first;
    if (s->hash_salt) { /* a run's port is known without reading the set (routing.h) */
        *multi = true;
        return bn_route_port(s->routes, set,
                             bn_lb_hash_index(&s->ctx, s->hash_salt[node - s->routes->first_switch],
                                              set.cnt, pk));
    }
    const uint32_t *ports = &s->routes->hops[set.off];
    struct bn_lb_switch_state *st = &s->state[node - s->routes->first_switch];
    if (!decide && !st->ops->pure)
        return UINT32_MAX;
    *multi = true;
    return st->ops->pick(&s->ctx, st, ports, set.cnt, pk);
}

/* Walk the path of a packet at its first switch, asking each switch on it
 * in advance, and keep what its first switch needs to stamp the rest. A
 * path that some switch cannot answer in advance, or that does not fit a
 * stamp (bn_path_memo), is not memoized (n = 0). */
/* A port's peer and whether that is an endpoint, from its line, or from
 * the graph where the line may not be here (bn_fabric.absent). */
static uint32_t walk_peer(const struct bn_switches *s, uint32_t p)
{
    return s->ctx.f->absent ? s->topo->ports[p].peer : s->ctx.f->ports[p].peer;
}

static bool walk_at_host(const struct bn_switches *s, uint32_t p)
{
    if (!s->ctx.f->absent)
        return s->ctx.f->ports[p].flags & BN_PORT_AT_HOST;
    uint8_t kind = s->topo->nodes[s->topo->ports[p].node].kind;
    return kind == BN_NODE_HOST || kind == BN_NODE_AGG; /* as build.c flags it */
}

static void memo_walk(struct bn_switches *s, uint32_t node, const struct bn_packet *pk,
                      struct bn_path_memo *m)
{
    struct bn_packet probe = *pk;
    *m = (struct bn_path_memo){.dst = pk->dst, .entropy = pk->entropy, .epoch = s->memo_epoch};
    uint32_t stamp = 0, prev = 0;
    uint16_t mul = 1, add = 0;
    for (uint32_t i = 0; i < BN_MEMO_HOPS; i++) {
        bool multi;
        uint32_t out = lookup(s, node, &probe, UINT32_MAX, false, &multi);
        if (out >= BN_ROUTE_DROP)
            return;
        if (i == 0) {
            m->out0 = out;
        } else {
            int64_t d = (int64_t)out - (int64_t)walk_peer(s, prev); /* from the arrival port */
            if (d < -127 || d > 127)
                return;
            stamp |= (uint32_t)(d + BN_STAMP_BIAS) << (8 * (i - 1));
        }
        if (multi) { /* as route() folds the choices into a data packet's path hash */
            mul = (uint16_t)(mul * 31u);
            add = (uint16_t)(add * 31u + out + 1u);
        }
        uint32_t next = walk_peer(s, out);
        if (walk_at_host(s, next)) {
            m->n = (uint8_t)(i + 1);
            m->stamp = stamp;
            m->path_mul = mul;
            m->path_add = add;
            return;
        }
        node = s->ctx.f->port_node[next];
        prev = out;
    }
}

/* A queue pair's two directions (data; acknowledgements and notifications,
 * which go back with their own entropy) share a cache line. */
static inline uint32_t memo_index(const struct bn_packet *pk)
{
    return 2 * pk->qp + (pk->type != BN_PKT_DATA);
}

/* The memo that serves `pk` at its first switch, or NULL. */
static inline const struct bn_path_memo *memo_hit(const struct bn_switches *s,
                                                  const struct bn_packet *pk)
{
    uint32_t i = memo_index(pk);
    if (i >= s->memo_cap)
        return NULL;
    const struct bn_path_memo *m = &s->memo[i];
    return m->dst == pk->dst && m->entropy == pk->entropy && m->n && m->epoch == s->memo_epoch
               ? m
               : NULL;
}

/* A packet at its first switch that no memo serves: walk its path, once per
 * flow and direction. Memos grow with the queue pairs (by doubling; without
 * memory, routing goes on without them). */
static __attribute__((noinline)) const struct bn_path_memo *
memo_learn(struct bn_switches *s, uint32_t node, const struct bn_packet *pk)
{
    uint32_t i = memo_index(pk);
    if (i >= s->memo_cap) {
        uint32_t cap = s->memo_cap ? s->memo_cap : 1024;
        while (cap <= i)
            cap *= 2;
        struct bn_path_memo *m = bn_big_realloc(s->memo, (size_t)s->memo_cap * sizeof *m,
                                                (size_t)cap * sizeof *m);
        if (!m) {
            s->memo_on = false;
            return NULL;
        }
        memset(m + s->memo_cap, 0, (size_t)(cap - s->memo_cap) * sizeof *m);
        s->memo = m;
        s->memo_cap = cap;
    }
    struct bn_path_memo *m = &s->memo[i];
    if (m->dst == pk->dst && m->entropy == pk->entropy && m->epoch == s->memo_epoch)
        return NULL; /* walked before, in vain */
    memo_walk(s, node, pk, m);
    return m->n ? m : NULL;
}

/* Decide (or, without `decide`, predict) the egress port of `pk` at the
 * switch of port `in_port`; deciding counts the hop and stamps a data
 * packet's path. A stamped packet carries its egress ports; a memoized one
 * at its first switch reads its memo and is stamped; the others take the
 * lookup. The switch is looked up (port_node, not the arrival port's line:
 * on a large fabric that is one more cache miss per hop) only when the
 * lookup needs it. */
static inline uint32_t route(struct bn_switches *s, uint32_t in_port, struct bn_packet *pk,
                             bool decide)
{
    if (pk->flags & BN_PKT_STAMPED) { /* its path hash is final already */
        if (__builtin_expect(!s->stamps_void, 1)) {
            uint32_t d = (pk->entropy >> ((8u * (pk->hop - 1u)) & 31u)) & 0xffu;
            if (decide)
                pk->hop++;
            return in_port + d - BN_STAMP_BIAS;
        }
        if (decide) /* stamped on the old wiring: looked up from here on */
            pk->flags &= (uint8_t)~BN_PKT_STAMPED;
    }
    const struct bn_path_memo *m = NULL;
    if (s->memo_on && pk->hop == 0) {
        m = memo_hit(s, pk);
        if (!m && decide)
            m = memo_learn(s, s->ctx.f->port_node[in_port], pk);
    }
    if (m) {
        if (decide) {
            if (pk->type == BN_PKT_DATA)
                pk->path = (uint16_t)(pk->path * m->path_mul + m->path_add);
            if (m->n > 1) { /* its entropy has served: no switch after this one hashes it */
                pk->entropy = m->stamp;
                pk->flags |= BN_PKT_STAMPED;
            }
            pk->hop++;
        }
        return m->out0;
    }
    bool multi;
    if (decide && pk->hop >= BN_PKT_HOP_MAX)
        return BN_ROUTE_DROP; /* a loop, while switches' tables disagree */
    uint32_t out = lookup(s, s->ctx.f->port_node[in_port], pk, in_port, decide, &multi);
    if (decide && out != BN_ROUTE_DROP) {
        if (multi && pk->type == BN_PKT_DATA)
            pk->path = (uint16_t)(pk->path * 31u + out + 1u); /* which path, for the results */
        pk->hop++;
    }
    return out;
}

uint32_t bn_switch_predict_egress(struct bn_switches *s, uint32_t in_port, struct bn_packet *pk)
{
    uint32_t out = route(s, in_port, pk, false);
    return out == BN_ROUTE_DROP ? UINT32_MAX : out;
}

uint32_t bn_switch_route(struct bn_switches *s, uint32_t in_port, struct bn_packet *pk)
{
    return route(s, in_port, pk, true);
}

void bn_switch_receive(struct bn_fabric *f, struct bn_switches *s, uint32_t in_port, uint32_t pkt)
{
    struct bn_packet *pk = &f->pool.pkts[pkt];
    if (f->fc->lossless) {
        pk->in_port = in_port;
        f->fc->on_arrive(f, in_port, pk->bytes + f->wire_overhead);
    }
    /* The switch decides on the head. Cut-through cannot outrun its input,
     * though: onto a faster link it holds the packet until its tail has
     * arrived (store-and-forward) and only then queues it. Only a fabric
     * whose cut-through switches mix port rates has to look. */
    uint32_t out = bn_switch_route(s, in_port, pk);
    if (__builtin_expect(out == BN_ROUTE_DROP, 0)) {
        bn_fabric_lose(f, in_port, pkt, true);
        return;
    }
    const struct bn_port *in = &f->ports[in_port];
    if (f->cut_may_hold && (in->flags & BN_PORT_CUT_IN) && f->ports[out].rate_bps > in->rate_bps) {
        bn_time_t rest = bn_serialization_ps(pk->bytes + f->wire_overhead, in->rate_bps) -
                         bn_serialization_ps(f->head_bytes, in->rate_bps);
        bn_fabric_schedule(f, f->now + rest, BN_EV_ARRIVE_TAIL, out, pkt);
        return;
    }
    bn_port_enqueue(f, out, pkt);
}

uint32_t bn_switch_choices(struct bn_switches *s, uint32_t node, const struct bn_packet *pk,
                           bool per_packet, uint32_t *ports, uint32_t max, uint32_t *pick)
{
    *pick = UINT32_MAX;
    uint32_t n = 0;
    if (node >= s->scaleup_first || pk->dst >= s->agg_first || s->groups.mode == BN_NM_NONE) {
        struct bn_packet probe = *pk;
        bool multi;
        if (node < s->scaleup_first && pk->dst < s->agg_first) {
            uint32_t leaf = s->host_route[pk->dst].leaf;
            struct bn_route_set set = bn_routes_lookup(s->routes, node, leaf);
            if (set.cnt > 1) {
                n = set.cnt < max ? set.cnt : max;
                for (uint32_t i = 0; i < n; i++)
                    ports[i] = bn_route_port(s->routes, set, i);
                const struct bn_lb_switch_state *st = &s->state[node - s->routes->first_switch];
                if (st->ops->sticky && !per_packet) {
                    *pick = bn_route_port(s->routes, set,
                                          bn_lb_hash_index(&s->ctx, st->salt, set.cnt, pk));
                    return n;
                }
                if (per_packet || !(s->hash_salt || st->ops->pure))
                    return set.cnt; /* spread: the caller splits evenly */
            }
        }
        uint32_t out = lookup(s, node, &probe, UINT32_MAX, false, &multi);
        if (out >= BN_ROUTE_DROP)
            return 0;
        *pick = out;
        if (n == 0) {
            ports[0] = out;
            n = 1;
        }
        return n;
    }
    return 0;
}
