/*
 * Link-level flow control, one module per file behind this table:
 *   lossy   drop-tail output queues (fc_lossy.c)
 *   credit  InfiniBand credit-based flow control per virtual lane (fc_credit.c)
 *   pfc     Ethernet priority flow control with XOFF/XON thresholds (fc_pfc.c)
 * The port code calls only through the table. Lossless modes account every
 * frame to the ingress port it entered a switch by, until it leaves the
 * switch; that is what credits and pause thresholds are counted against.
 * bnet carries all traffic in one lossless class (one VL / one priority).
 */
#ifndef BN_LINK_FC_H
#define BN_LINK_FC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bnet/error.h"
#include "bnet/scenario.h"
#include "core/keyrow.h"
#include "core/time.h"

struct bn_fabric;

enum bn_fc_signal { BN_FC_CREDIT = 0, BN_FC_XOFF = 1, BN_FC_XON = 2 };

/* The link layer a module belongs to (an encapsulation names its own). */
enum bn_link_layer { BN_LL_ANY = 0, BN_LL_ETHERNET, BN_LL_INFINIBAND };

/* What a module's set-up needs to know of a port beyond bn_port: its
 * link as built, and its place. */
struct bn_fc_link {
    double rate_gbps, cable_m;
    bn_time_t prop_ps;      /* one-way propagation (with FEC) to its peer */
    bool switch_port;       /* on a backend switch, which pools its ports' buffers */
    bool never_pauses;      /* never pauses its sender: a NIC, an NVSwitch's (unbounded
                             * queues), or a switch's port from its SHARP unit */
    bool scale_up;          /* an NVLink link, or an NVSwitch's NVLS engine's */
};

/* The scenario's keys, the largest frame on the wire, and each port's link. */
struct bn_fc_setup {
    const struct bn_scenario *sc;
    uint32_t max_wire;
    const struct bn_fc_link *link;
};

/* A port's flow-control counters, for the results (zero where a module
 * has none). */
struct bn_fc_port_stats {
    uint64_t pause_sent, pause_received, resume_sent;
    bn_time_t paused_ps;    /* held by its peer's pauses so far (one running counts to now) */
};

struct bn_fc_ops {
    const char *name;
    const char *summary;    /* a few words: what it is (link.flow_control's doc) */
    /* Its own scenario keys (core/keyrow.h rows, BN_ROW_FC: fields of its
     * keys struct, which lives in bn_scenario.fc[its registry index] and
     * is checked to fit, BN_FC_KEYS_CHECK; setup reads it back with
     * bn_fc_keys); nkeys of them, 0: none. */
    const struct bn_key_row *keys;
    size_t nkeys;
    bool lossless;
    bool pauses;            /* it sends pause frames (reports show them) */
    uint8_t link_layer;     /* enum bn_link_layer: the encapsulations it runs under */
    /* Check the scenario's keys against the fabric and build the module's
     * state in f->fc_state (its own, freed by fc_free). May be NULL. */
    int (*setup)(struct bn_fabric *f, const struct bn_fc_setup *in, struct bn_error *err);
    void (*fc_free)(struct bn_fabric *f);
    /* May port p start a frame of `bytes` now? */
    bool (*may_send)(const struct bn_fabric *f, uint32_t p, uint32_t bytes);
    /* Port p starts sending a frame of `bytes`. */
    void (*on_transmit)(struct bn_fabric *f, uint32_t p, uint32_t bytes);
    /* A frame entered a switch by port `in`. */
    void (*on_arrive)(struct bn_fabric *f, uint32_t in, uint32_t bytes);
    /* A frame that entered by port `in` left its switch (or reached its NIC). */
    void (*on_depart)(struct bn_fabric *f, uint32_t in, uint32_t bytes);
    /* A flow-control signal (credit, XOFF, XON) reached port p. */
    void (*on_signal)(struct bn_fabric *f, uint32_t p, uint32_t signal, uint32_t arg);
    /* Optional: send a control frame port p has pending (a PFC pause or
     * resume) if the port is idle; true if one went out. */
    bool (*send_control)(struct bn_fabric *f, uint32_t p);
    /* Optional: port p's link went down or came back up (link/impair.c):
     * forget what the link owed (pauses no resume will lift, credits in
     * frames that were lost) so nothing waits on it for ever. */
    void (*link_reset)(struct bn_fabric *f, uint32_t p);
    /* Optional: port p's counters. */
    void (*port_stats)(const struct bn_fabric *f, uint32_t p, struct bn_fc_port_stats *out);
};

/* The registry (link.flow_control): the i-th module and its name, NULL
 * past the last. */
const struct bn_fc_ops *bn_fc_at(size_t i);
const char *bn_fc_name(size_t i);
const char *bn_fc_summary(size_t i);
/* link.flow_control's doc: "Link-level flow control: " and each module's
 * "name (summary)" (written beside the registry: the row needs a
 * constant). */
extern const char bn_fc_doc[];
/* Module ops's parsed keys: its block of sc (bn_scenario.fc[its index]). */
const void *bn_fc_keys(const struct bn_scenario *sc, const struct bn_fc_ops *ops);
/* Every module's own key rows, for the scenario registry to splice in
 * after link.flow_control (core/keyrow.h's walker), in registry order. */
extern const struct bn_key_modules bn_fc_key_modules;
/* Room in the scenario registry for them (tests/scenario/test_module_keys.c checks). */
#define BN_FC_KEYS_MAX 8

/* A module's keys struct fits its block of the scenario (bn_scenario.fc). */
#define BN_FC_KEYS_CHECK(type) BN_KEYS_FIT(type, struct bn_scenario_fc_block)
/* A row's field m of its keys struct `type` (core/keyrow.h). */
#define BN_ROW_FC(type, m) BN_ROW_IN(BN_KEY_BLOCK_FC, type, m)

#endif
