/*
 * Private to src/fault: a fault kind (faults[].kind) is one file behind
 * struct bn_fault_kind_ops (kind_NAME.c), listed once in kind_registry.c:
 * its name and one-line summary, its own faults[] keys (core/keyrow.h rows
 * the scenario registry splices in), how it checks an item, which links it
 * takes, and what it does as it strikes and ends. faults.c calls only
 * through the table.
 */
#ifndef BN_FAULT_KIND_H
#define BN_FAULT_KIND_H

#include "core/keyrow.h"
#include "fault/faults.h"

struct bn_fault_kind_ops {
    const char *name;
    const char *summary;          /* one line: what fails */
    /* its own faults[] fields, nkeys of them: fields of its keys struct
     * (BN_ROW_FAULT_KIND), which its block of each item holds */
    const struct bn_key_row *keys;
    size_t nkeys;
    bool draws_links;   /* picks its own links (no target; the report lists them) */
    bool loses_nothing; /* drops no frame: its traffic cannot be told, restore not measured */
    bool ends_itself;   /* until_us schedules no end (its own phases finish it) */
    /* The item's own keys' checks, once the common ones pass (NULL: none);
     * keys is its block of the item (bn_fault_keys). */
    int (*validate)(const struct bn_scenario_fault *sf, const void *keys, const char *src,
                    uint32_t index, struct bn_error *err);
    /* Its links (fa->ports) from the topology. */
    int (*resolve)(struct bn_faults *ft, struct fault *fa, struct bn_error *err);
    int (*strike)(struct bn_faults *ft, struct fault *fa, struct bn_error *err);
    int (*end)(struct bn_faults *ft, struct fault *fa, struct bn_error *err);
    /* A phase of its own (PH_FLAP_UP ...) it scheduled (NULL: none). */
    int (*phase)(struct bn_faults *ft, struct fault *fa, uint32_t phase, struct bn_error *err);
};

/* The registry, in faults[].kind's index order (NULL past the last). */
const struct bn_fault_kind_ops *bn_fault_kind_at(size_t i);
/* Kind k's keys struct in item sf: its block (struct fault's keys, for
 * the item's own kind). */
const void *bn_fault_keys(const struct bn_scenario_fault *sf, const struct bn_fault_kind_ops *k);

/* A kind's keys struct fits its block of a faults[] item, as a congestion
 * control's does its (nic/nic.h's BN_CC_KEYS_CHECK). */
#define BN_FAULT_KEYS_CHECK(type) BN_KEYS_FIT(type, struct bn_scenario_fault_kind_block)

/* Shared by the kinds (faults.c). */
int bn_fault_bad_target(const struct fault *fa, const char *why, struct bn_error *err);
int bn_fault_add_port(struct fault *fa, uint32_t p, struct bn_error *err);
uint32_t bn_fault_parse_link(const struct bn_topo *t, const char *text, const char **rest);
bool bn_fault_backend_link(const struct bn_topo *t, uint32_t p);
/* One backend link, as target names it. */
int bn_fault_resolve_link(struct bn_faults *ft, struct fault *fa, struct bn_error *err);
/* Node target's backend links: a switch's all, a host's first. */
int bn_fault_resolve_node(struct bn_faults *ft, struct fault *fa, uint8_t kind,
                          struct bn_error *err);
/* Hold (or release) every link of fa down, then reroute. */
int bn_fault_hold_all(struct bn_faults *ft, struct fault *fa, bool down, struct bn_error *err);
/* Schedule phase of fa at t, if before its end. */
void bn_fault_later(struct bn_faults *ft, const struct fault *fa, bn_time_t t, uint32_t phase);
/* fa's links at rate_gbps at the strike (nothing to reroute: converged at
 * once), back at their own rate at the end (kind_link_degrade.c, whose
 * key faults[].rate_gbps is: nic_degrade borrows it, and these read it
 * from link_degrade's block of the item). */
int bn_fault_rate_validate(const struct bn_scenario_fault *sf, const char *src, uint32_t index,
                           const char *kind, const char *what, struct bn_error *err);
int bn_fault_rate_strike(struct bn_faults *ft, struct fault *fa, struct bn_error *err);
int bn_fault_rate_end(struct bn_faults *ft, struct fault *fa, struct bn_error *err);
/* Down at the strike, up at the end: what a plain link, switch or NIC does. */
int bn_fault_strike_down(struct bn_faults *ft, struct fault *fa, struct bn_error *err);
int bn_fault_end_up(struct bn_faults *ft, struct fault *fa, struct bn_error *err);

#endif
