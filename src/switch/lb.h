/*
 * Load balancing: given the equal-cost next-hop ports a switch may use
 * towards a packet's destination, pick one. One policy per file, each an ops
 * table (as Linux's tcp_congestion_ops); the switch calls only through it.
 *   ecmp          hash of the flow's identity (lb_ecmp.c)
 *   adaptive      the least-loaded port, per packet (lb_adaptive.c)
 *   flowlet       a flow's path, re-drawn after an idle gap (lb_flowlet.c)
 *   spray_random  a random port per packet (lb_spray.c)
 *   spray_rr      ports in turn, per packet (lb_spray.c)
 * Spraying by the sender (Ultra Ethernet style) is ECMP over a per-packet
 * entropy value the NIC stamps (nic.entropy: per_packet).
 */
#ifndef BN_SWITCH_LB_H
#define BN_SWITCH_LB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bnet/scenario.h"
#include "core/keyrow.h"
#include "core/rng.h"
#include "link/fabric.h"

enum bn_ecmp_fields { BN_HASH_DST = 1u << 0, BN_HASH_ENTROPY = 1u << 1 };

struct bn_lb_ops;

struct bn_lb_switch_state {
    const struct bn_lb_ops *ops;  /* this switch's policy (per tier) */
    uint64_t salt;                /* hash seed */
    struct bn_rng rng;            /* random choices and tie-breaks */
    void *priv;                   /* the policy's own state (priv_size bytes, zeroed) */
};

/* What policies share: the fabric and the fields ECMP hashes. */
struct bn_lb_ctx {
    struct bn_fabric *f;
    uint8_t hash_fields;          /* enum bn_ecmp_fields */
};

struct bn_lb_ops {
    const char *name;
    const char *summary;          /* a few words: how it picks (switch.load_balancing's doc) */
    bool pure;                    /* pick changes no state: it may be asked in advance
                                   * (to prefetch the port it will return) */
    bool hashes;                  /* pick is bn_lb_hash_pick with the switch's salt, so a
                                   * fabric of such switches may keep only their salts at
                                   * hand (switch.c) */
    bool sticky;                  /* a flow sending without pause keeps one next hop (a
                                   * flowlet): the flow level takes it by ECMP's hash */
    /* Its own scenario keys (core/keyrow.h rows, BN_ROW_LB: fields of its
     * keys struct, which lives in bn_scenario.lb[its registry index] and
     * is checked to fit, BN_LB_KEYS_CHECK; bn_lb_keys reads it back);
     * nkeys of them, 0: none. */
    const struct bn_key_row *keys;
    size_t nkeys;
    /* Optional: a switch's private state, sized and filled from the
     * scenario's keys (priv_size bytes, zeroed, 8-byte aligned): what
     * pick reads per packet is copied there, not read from the scenario. */
    size_t (*priv_size)(const struct bn_scenario *sc);
    void (*setup)(void *priv, const struct bn_scenario *sc);
    uint32_t (*pick)(struct bn_lb_ctx *ctx, struct bn_lb_switch_state *sw, const uint32_t *ports,
                     uint32_t nports, const struct bn_packet *pk);
};

/* The registry (switch.load_balancing): the i-th policy and its name, NULL
 * past the last; by name (switch.lb_per_tier), NULL if unknown. */
const struct bn_lb_ops *bn_lb_at(size_t i);
const char *bn_lb_name(size_t i);
const struct bn_lb_ops *bn_lb_find(const char *name);
const char *bn_lb_summary(size_t i);
/* switch.load_balancing's doc: "How a switch picks among equal-cost next
 * hops: " and each policy's "name (summary)", policies in a row with the
 * same summary sharing it (written beside the registry: the row needs a
 * constant). */
extern const char bn_lb_doc[];
/* Policy ops's parsed keys: its block of sc (bn_scenario.lb[its index]). */
const void *bn_lb_keys(const struct bn_scenario *sc, const struct bn_lb_ops *ops);
/* Every policy's own key rows, for the scenario registry to splice in
 * after switch.ecmp_salt (core/keyrow.h's walker), in registry order. */
extern const struct bn_key_modules bn_lb_key_modules;
/* Room in the scenario registry for them (tests/scenario/test_module_keys.c checks). */
#define BN_LB_KEYS_MAX 8

/* A policy's keys struct fits its block of the scenario (bn_scenario.lb). */
#define BN_LB_KEYS_CHECK(type) BN_KEYS_FIT(type, struct bn_scenario_lb_block)
/* A row's field m of its keys struct `type` (core/keyrow.h). */
#define BN_ROW_LB(type, m) BN_ROW_IN(BN_KEY_BLOCK_LB, type, m)
/* A uniform choice among n by a 64-bit hash (multiply-shift, no modulo bias worth the name). */
static inline uint32_t bn_lb_by_hash(uint64_t h, uint32_t n)
{
    return (uint32_t)((h >> 32) * n >> 32);
}
/* ECMP's choice among nports: the flow's identity (the fields
 * switch.ecmp_fields names) hashed with the switch's salt. */
static inline uint32_t bn_lb_hash_index(const struct bn_lb_ctx *ctx, uint64_t salt,
                                        uint32_t nports, const struct bn_packet *pk)
{
    uint64_t key = 0;
    if (ctx->hash_fields & BN_HASH_DST)
        key ^= (uint64_t)pk->dst << 32;
    if (ctx->hash_fields & BN_HASH_ENTROPY)
        key ^= pk->entropy;
    return bn_lb_by_hash(bn_mix64(key ^ salt), nports);
}
static inline uint32_t bn_lb_hash_pick(const struct bn_lb_ctx *ctx, uint64_t salt,
                                       const uint32_t *ports, uint32_t nports,
                                       const struct bn_packet *pk)
{
    return ports[bn_lb_hash_index(ctx, salt, nports, pk)];
}
#endif
