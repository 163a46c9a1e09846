/*
 * A key row: one scenario key as a module declares it (path, type, unit,
 * default text, doc line, where its value lives, bounds). The scenario
 * layer's registry (scenario/keys.c) is a table of these, and a module
 * with parameters (a fault kind, src/fault/kind_*.c; a congestion control,
 * src/nic/cc_*.c; a load-balancing policy, src/switch/lb_*.c; a link
 * flow-control module, src/link/fc_*.c; a topology builder, a transport,
 * a collective algorithm, the SHARP units, a workload generator) carries
 * its own rows that the registry splices in, so its knobs live with it
 * (issue 54, as Linux's module_param in the module's file).
 */
#ifndef BN_CORE_KEYROW_H
#define BN_CORE_KEYROW_H

#include <stddef.h>
#include <stdint.h>

#include "bnet/scenario.h"

enum bn_key_type { BN_KEY_INT, BN_KEY_FLOAT, BN_KEY_BOOL, BN_KEY_STRING, BN_KEY_ENUM };

/* Bound flags: which of lo/hi apply, and whether lo itself is excluded. */
enum {
    BN_KEY_LO = 1u << 0,      /* value >= lo */
    BN_KEY_LO_EXCL = 1u << 1, /* value > lo (e.g. "0 is not allowed") */
    BN_KEY_HI = 1u << 2,      /* value <= hi */
    BN_KEY_DERIVED = 1u << 3, /* default is 0 = "same as another key" */
    BN_KEY_SPLICE = 1u << 4,  /* no key: the registry's module rows go here */
};

struct bn_key_row {
    struct bn_scenario_key_info info; /* path, type and unit names, default, doc, choices */
    enum bn_key_type kind;
    size_t offset; /* offsetof(struct bn_scenario, ...) */
    size_t size;   /* field size: int width or string buffer size */
    double lo, hi;
    unsigned flags;
    uint8_t list;  /* 0, or 1 + the list whose items have this field ("faults[].x") */
    uint8_t block; /* 0, or BN_KEY_BLOCK_*: offset is within its module's block */
};

/* The module blocks of struct bn_scenario a row's offset may be within
 * (struct bn_key_row.block): a congestion control's keys are a field of
 * its own struct, in bn_scenario.cc[its registry index]; a load-balancing
 * policy's, in bn_scenario.lb[...]; a flow-control module's, in
 * bn_scenario.fc[...]; a topology builder's, in bn_scenario.topo[...];
 * a transport's, in bn_scenario.tp[...]; a fault kind's, in each faults[]
 * item's kinds[...] (a list row: the item's place is added as for any of
 * its fields); a collective algorithm's, in bn_scenario.algo[...]; the
 * SHARP aggregation units', in bn_scenario.agg (one module); a control
 * plane's, in bn_scenario.cp[...]; a workload generator's, in
 * bn_scenario.wl[...]. */
enum { BN_KEY_BLOCK_CC = 1, BN_KEY_BLOCK_LB = 2, BN_KEY_BLOCK_FC = 3, BN_KEY_BLOCK_TOPO = 4,
       BN_KEY_BLOCK_TP = 5, BN_KEY_BLOCK_FAULT = 6, BN_KEY_BLOCK_ALGO = 7, BN_KEY_BLOCK_AGG = 8,
       BN_KEY_BLOCK_CP = 9, BN_KEY_BLOCK_WL = 10 };

/* A registry's modules as the key rows they carry (each module's ops table
 * has its own rows): n modules, module i's rows from rows_of(i), which
 * sets *nrows; order, if not NULL, the order (a permutation of 0..n-1) in
 * which their rows come in the scenario registry. One walker serves every
 * registry (cc, lb, fc, fault kinds). */
struct bn_key_modules {
    size_t n;
    const struct bn_key_row *(*rows_of)(size_t i, size_t *nrows);
    const unsigned char *order;
};

/* The rows of the o-th module in their order (o < m->n), *nrows of them. */
const struct bn_key_row *bn_key_modules_rows(const struct bn_key_modules *m, size_t o,
                                             size_t *nrows);
/* The j-th of all the modules' rows, in their order (NULL past the last). */
const struct bn_key_row *bn_key_modules_row(const struct bn_key_modules *m, size_t j);
/* How many rows the modules carry in all. */
size_t bn_key_modules_nrows(const struct bn_key_modules *m);
/* The registry index of the module whose row k is (SIZE_MAX: none's). */
size_t bn_key_modules_owner(const struct bn_key_modules *m, const struct bn_key_row *k);

/* A module's keys struct `type` fits its kind's block (`block`, a struct
 * bn_scenario_*_block) of the scenario, in size and alignment. */
#define BN_KEYS_FIT(type, block) \
    _Static_assert(sizeof(type) <= sizeof(block) && _Alignof(type) <= _Alignof(block), \
                   #type " must fit in " #block)
/* A row's field m of a module's keys struct `type`, in a block of kind b
 * (BN_KEY_BLOCK_*): its offset within the block; the scenario registry
 * adds the block's. */
#define BN_ROW_IN(b, type, m) \
    .offset = offsetof(type, m), .size = sizeof(((type *)0)->m), .block = (b)

/* Designated-initializer pieces for a row. */
#define BN_ROW_INT .kind = BN_KEY_INT, .info.type = "int"
#define BN_ROW_FLOAT .kind = BN_KEY_FLOAT, .info.type = "float"
#define BN_ROW_BOOL .kind = BN_KEY_BOOL, .info.type = "bool"
#define BN_ROW_STRING .kind = BN_KEY_STRING, .info.type = "string"
#define BN_ROW_ENUM .kind = BN_KEY_ENUM, .info.type = "enum"
#define BN_ROW_ABOVE_ZERO .lo = 0, .flags = BN_KEY_LO | BN_KEY_LO_EXCL
#define BN_ROW_AT_LEAST(v) .lo = (v), .flags = BN_KEY_LO
/* Physical-sanity bounds also keep integer picosecond time far from overflow. */
#define BN_ROW_RANGE(a, b) .lo = (a), .hi = (b), .flags = BN_KEY_LO | BN_KEY_HI

/* The list number of faults[] items (struct bn_key_row.list). */
enum { BN_KEY_LIST_FAULTS = 1, BN_KEY_LIST_JOBS = 2 };
/* Field m of every faults[] item. */
#define BN_ROW_FAULT(m) \
    .offset = offsetof(struct bn_scenario, faults[0].m), \
    .size = sizeof(((struct bn_scenario *)0)->faults[0].m), .list = BN_KEY_LIST_FAULTS
/* Field m of a fault kind's keys struct `type`, in its block of every
 * faults[] item. */
#define BN_ROW_FAULT_KIND(type, m) BN_ROW_IN(BN_KEY_BLOCK_FAULT, type, m), .list = BN_KEY_LIST_FAULTS

#endif
