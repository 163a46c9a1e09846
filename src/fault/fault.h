/*
 * Failures and the control planes that route around them. The scenario's
 * `faults:` list (links down, degraded, corrupting or flapping; switches
 * and NICs down; random links; optical circuits moved) becomes events on
 * the engine's queue; each applies to the links (link/impair.h) and, where
 * the graph changed, asks the fabric's control plane when each switch
 * installs the routes of the surviving graph. The routes themselves are
 * computed here, once per distinct set of dead links, and swapped into
 * the live tables switch by switch (topo/routing.h, bn_routes_append), so
 * forwarding reads nothing new. Throughput before and after each fault is
 * sampled to tell when traffic is restored.
 *
 * A control plane is one file behind struct bn_cp_ops (cp_NAME.c); it
 * only says when: see docs/failures.md for each one's timing and sources.
 */
#ifndef BN_FAULT_FAULT_H
#define BN_FAULT_FAULT_H

#include "bnet/results.h"
#include "core/evq.h"
#include "core/keyrow.h"
#include "link/fabric.h"
#include "nic/nic.h"
#include "switch/switch.h"
#include "topo/routing.h"
#include "topo/topo.h"

/* A change of the graph, as a control plane sees it. */
struct bn_cp_change {
    bn_time_t now;              /* when the links changed */
    uint32_t nswitches, nhosts;
    /* per switch: switch-to-switch hops from the nearest switch at a
     * changed link (0: it is one), over the links up; UINT32_MAX: cut off */
    const uint32_t *dist;
    /* per switch: forwarding-table blocks (64 destinations each, as an
     * InfiniBand LFT block) whose next hops change; 0: its table stays */
    const uint32_t *blocks;
};

struct bn_cp_ops {
    const char *name;
    const char *summary; /* one line: what reroutes (routing.control_plane's doc) */
    bool reroutes;      /* false: tables never change (traffic into a dead link is lost) */
    /* Its own scenario keys (core/keyrow.h rows, BN_ROW_CP: fields of its
     * keys struct, in bn_scenario.cp[its registry index], checked to fit,
     * BN_CP_KEYS_CHECK); nkeys of them, 0: none. */
    const struct bn_key_row *keys;
    size_t nkeys;
    /* When each switch with blocks[sw] > 0 installs its new table (at[sw];
     * BN_TIME_NEVER: it never learns); keys is its block (bn_cp_keys). */
    void (*plan)(const void *keys, const struct bn_cp_change *c, bn_time_t *at);
};

/* The registry (routing.control_plane = 0 for auto, else 1 + index). */
const struct bn_cp_ops *bn_cp_at(size_t i);
const char *bn_cp_name(size_t i);
const char *bn_cp_summary(size_t i);
/* routing.control_plane's doc: "What reroutes around failures: ", each
 * plane's "name (summary)", then what auto is and "See docs/failures.md."
 * (written beside the registry: the row needs a constant). */
extern const char bn_cp_doc[];
/* Plane cp's parsed keys: its block of sc. */
const void *bn_cp_keys(const struct bn_scenario *sc, const struct bn_cp_ops *cp);
/* Every plane's own key rows, for the scenario registry to splice in after
 * routing.control_plane (core/keyrow.h's walker), in registry order. */
extern const struct bn_key_modules bn_cp_key_modules;
/* Room in the scenario registry for them. */
#define BN_CP_KEYS_MAX 16
/* A plane's keys struct fits its block of the scenario (bn_scenario.cp). */
#define BN_CP_KEYS_CHECK(type) BN_KEYS_FIT(type, struct bn_scenario_cp_block)
/* A row's field m of its keys struct `type` (core/keyrow.h). */
#define BN_ROW_CP(type, m) BN_ROW_IN(BN_KEY_BLOCK_CP, type, m)
/* The fault kinds' registry (kind_registry.c; faults[].kind is the index):
 * each one's name and one-line summary, NULL past the last; and their own
 * faults[] keys, all kinds' in registry order (core/keyrow.h's walker),
 * that the scenario registry splices in after faults[].target. */
const char *bn_fault_kind_name(size_t i);
const char *bn_fault_kind_summary(size_t i);
extern const char bn_fault_kind_doc[];
extern const struct bn_key_modules bn_fault_kind_key_modules;
/* Room in the scenario registry for them (checked by tests/fault). */
#define BN_FAULT_KIND_KEYS_MAX 24
extern const struct bn_cp_ops bn_cp_ib_sm, bn_cp_ethernet;

/* What the faults act on: the assembled model. */
struct bn_fault_env {
    const struct bn_scenario *sc;
    struct bn_fabric *f;
    struct bn_topo *t;
    struct bn_routes *r;
    struct bn_switches *sw;
    struct bn_nics *nics;       /* the probe reads queue pairs' progress */
};

struct bn_faults;

/* Resolve the scenario's faults against the topology (an unknown target
 * is an input error naming the fault's key) and schedule their first
 * events. *out stays NULL when the scenario has none. */
int bn_faults_init(struct bn_faults **out, const struct bn_fault_env *env, struct bn_error *err);
/* BN_EV_FAULT and BN_EV_ROUTE. */
int bn_faults_event(struct bn_faults *ft, const struct bn_event *ev, struct bn_error *err);
/* The control plane's name, and what was measured per fault (malloc'd
 * array of nfaults; the caller frees it). */
const char *bn_faults_control_plane(const struct bn_faults *ft);
/* Wall seconds spent computing and comparing routes. */
double bn_faults_reroute_s(const struct bn_faults *ft);
int bn_faults_report(const struct bn_faults *ft, struct bn_fault_result **out, uint32_t *n,
                     struct bn_error *err);
void bn_faults_free(struct bn_faults *ft);
/* The ports fault i (the scenario's order) acts on, one of each link; NULL
 * with *n 0 past the last (or with none). */
const uint32_t *bn_faults_ports(const struct bn_faults *ft, uint32_t i, uint32_t *n);

#endif
