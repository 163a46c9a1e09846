/*
 * Private to src/scenario: the key registry's full record (type, field
 * location, bounds) and the one setter that YAML loading, --set overrides and
 * the defaults all go through, so every path validates a value the same way.
 */
#ifndef BNET_SCENARIO_KEYS_H
#define BNET_SCENARIO_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "bnet/scenario.h"
#include "core/keyrow.h"

/* The row type (struct bn_key_row, enum bn_key_type, BN_KEY_* bounds) is
 * core/keyrow.h's: modules below this layer declare rows too. */

/* Longest message fragment ("why") the setter produces. */
#define BN_SCN_WHY_MAX 400

size_t bn_scn_count(void);
const struct bn_key_row *bn_scn_at(size_t i);

/* k's index in the registry (its slot in bn_scenario.key_line). */
size_t bn_scn_index(const struct bn_key_row *k);

/* Where k's value lives in struct bn_scenario (a module's key: in its
 * block, bn_scenario.fc[...], .lb[...] or .cc[...]). */
size_t bn_scn_offset(const struct bn_key_row *k);

/* Leaf key with exactly this dotted path, or NULL. */
const struct bn_key_row *bn_scn_find(const char *path);

/* The scenario's lists (faults:, jobs:): items of one struct, at most
 * `max`, their count in a uint32_t of bn_scenario. */
struct bn_scn_list {
    const char *name;      /* "faults": the YAML key and --set's "faults.N.field" */
    const char *noun;      /* "fault", for messages */
    size_t offset, stride; /* the array in bn_scenario and one item's size */
    size_t count_offset;   /* where its item count lives */
    uint32_t max;
};
/* The i-th list, or NULL past the last; the list of a key (NULL if none);
 * the list called `name` (NULL if none). */
const struct bn_scn_list *bn_scn_list_at(size_t i);
const struct bn_scn_list *bn_scn_list_of(const struct bn_key_row *k);
const struct bn_scn_list *bn_scn_list_find(const char *name);
/* An item key's field name ("kind" of "faults[].kind"). */
const char *bn_scn_field_name(const struct bn_key_row *k);
/* "kind, at_us, ...": the fields of list l's items. */
void bn_scn_list_fields(const struct bn_scn_list *l, char *buf, size_t len);
/* "faults.N.field" as --set writes it: the item key and N, or NULL. */
const struct bn_key_row *bn_scn_find_item(const char *path, uint32_t *index);
/* The item key of `field` ("kind") in list l, or NULL. */
const struct bn_key_row *bn_scn_item_field(const struct bn_scn_list *l, const char *field);
/* Set field k of item `index` (which then exists: the count grows to it). */
int bn_scn_apply_item(struct bn_scenario *sc, const struct bn_key_row *k, uint32_t index,
                      const char *text, char *why, size_t len);

/* Where the line of field k of item `index` is kept (jobs only; else NULL). */
uint32_t *bn_scn_item_line(struct bn_scenario *sc, const struct bn_key_row *k, uint32_t index);

/* True if some key lives under "prefix." (e.g. "switch.ecn"). */
bool bn_scn_is_section(const char *prefix);

/* "rate_gbps, fabric_rate_gbps, ..." : the direct children of a section
 * ("" = top level), each named once, in registry order. */
void bn_scn_children(const char *section, char *buf, size_t len);

/* "<what> (valid keys in 'link': ...)" for a bad key under `section`;
 * `what` is e.g. "unknown key". */
void bn_scn_unknown(const char *section, const char *key, const char *what, char *why,
                    size_t len);

/* "a number in Gb/s, > 0" : what a valid value for k looks like. */
void bn_scn_expect(const struct bn_key_row *k, char *buf, size_t len);

/* Parse `text` as k's type, check bounds, store it in sc (its line becomes
 * 0: the YAML loader sets it after). On failure leave sc untouched, write
 * "<problem> (expected <what>)" to why, return -1. */
int bn_scn_apply(struct bn_scenario *sc, const struct bn_key_row *k,
                 const char *text, char *why, size_t len);

/* printf into a "why" buffer; returns -1 so setters can `return bn_scn_why(...)`. */
int bn_scn_why(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Copy user text for a message: at most ~60 bytes, control bytes as '?'. */
void bn_scn_excerpt(const char *s, size_t n, char *buf, size_t len);

#endif
