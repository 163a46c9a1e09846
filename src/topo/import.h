/*
 * Shared by the topology readers (file.c, ibnetdiscover.c): a draft graph of
 * named nodes and links as read, then turned into a bn_topo. Tiers come from
 * the links: a switch's tier is its hop distance from the nearest host, so
 * switches with hosts are leaves (the routing tables need hosts on tier 1).
 * Every problem is reported as FILE:LINE naming the node or field.
 */
#ifndef BN_TOPO_IMPORT_H
#define BN_TOPO_IMPORT_H

#include <stdio.h>

#include "topo/topo.h"

/* A link's rate and cable length as the scenario keys bound them
 * (link.rate_gbps, link.host_cable_m / fabric_cable_m): a rate that rounds
 * to 0 b/s divides by zero in the serialization time, and a slower one
 * only stalls. tests/topo/test_import.c keeps these and the keys in step. */
#define BN_DRAFT_RATE_MIN_GBPS 0.001
#define BN_DRAFT_RATE_MAX_GBPS 1e6
#define BN_DRAFT_LENGTH_MAX_M 1e6

struct bn_draft_node {
    char *name;
    uint8_t kind;      /* enum bn_node_kind */
    uint8_t tier;      /* as stated in the file; 0 = derive */
    uint32_t line;     /* where it was declared */
    uint32_t id;       /* node id in the built topology */
};

struct bn_draft_link {
    uint32_t a, b;     /* draft node indices */
    double rate_gbps, length_m;
    uint8_t cable;
    uint32_t line;
};

struct bn_draft {
    const char *path;  /* for messages */
    struct bn_draft_node *nodes;
    uint32_t nnodes, nodes_cap;
    struct bn_draft_link *links;
    uint32_t nlinks, links_cap;
    uint32_t *hash;    /* open addressing over node names: index + 1, 0 empty */
    uint32_t hash_cap;
};

void bn_draft_init(struct bn_draft *d, const char *path);
void bn_draft_free(struct bn_draft *d);
/* Index of the node called `name`, or UINT32_MAX. */
uint32_t bn_draft_find(const struct bn_draft *d, const char *name);
/* Declare a node; an existing name is an error naming both lines. */
int bn_draft_add_node(struct bn_draft *d, const char *name, uint8_t kind, uint8_t tier,
                      uint32_t line, uint32_t *index, struct bn_error *err);
/* Add a link; a rate or length outside the bounds above is an error. */
int bn_draft_add_link(struct bn_draft *d, uint32_t a, uint32_t b, double rate_gbps,
                      double length_m, uint8_t cable, uint32_t line, struct bn_error *err);
/* Number hosts then switches, derive tiers, check every host has one link
 * to a switch, and record the links into t (not yet finished). */
int bn_draft_to_topo(struct bn_draft *d, struct bn_topo *t, struct bn_error *err);

/* topology.file resolved against the scenario file's folder. */
void bn_topo_resolve_path(const struct bn_scenario *sc, char *out, size_t cap);
/* Open topology.file (resolved like resolve_path); NULL with `err` filled on failure. */
FILE *bn_topo_open_file(const struct bn_scenario *sc, char *path, size_t cap, struct bn_error *err);

#endif
