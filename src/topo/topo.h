/*
 * The fabric graph: nodes (hosts = NIC endpoints, and switches) joined by
 * links, each link being two ports that point at each other. This is the
 * *model* of the network, built once from the scenario; the engine's runtime
 * state (queues, counters) lives elsewhere in arrays indexed by the same ids.
 *
 * Numbering: hosts are nodes 0..hosts-1 (host id == node id), switches follow.
 * Every host has one port to its leaf (ToR) switch, its first; with NVLink
 * domains (scale_up.c) a second to its domain's NVSwitch, whose nodes come
 * after the backend switches. Tier 1 switches are "leaves"; each gets a
 * dense leaf index used by the routing tables.
 */
#ifndef BN_TOPO_TOPO_H
#define BN_TOPO_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bnet/error.h"
#include "bnet/scenario.h"
#include "core/keyrow.h"
#include "core/time.h"

#define BN_MAX_TIERS 4
/* Room for a node's name ("tor3", or a topology file's, at most 63 bytes)
 * and a port's ("<node>/<index>"), terminator included: names are never
 * cut, so two nodes never print alike. */
#define BN_TOPO_NAME_MAX 64
#define BN_TOPO_PORT_NAME_MAX 80

/* A scale-up switch (NVSwitch) joins the GPUs of one NVLink domain through
 * a second port of each; it is not part of the routed backend fabric. */
/* An aggregation unit (SHARP, aggregation.c) is an endpoint inside a switch. */
enum bn_node_kind { BN_NODE_HOST = 0, BN_NODE_SWITCH = 1, BN_NODE_SCALEUP = 2, BN_NODE_AGG = 3 };
/* as the scenario's link.host_cable / link.fabric_cable hold them */
enum bn_cable { BN_CABLE_COPPER = BN_SC_COPPER, BN_CABLE_FIBER = BN_SC_FIBER };

struct bn_topo_node {
    uint8_t kind;        /* enum bn_node_kind */
    uint8_t tier;        /* 0 host, 1 leaf/ToR, 2 agg/spine, 3 core */
    uint16_t nports;
    uint32_t first_port; /* ports first_port .. first_port+nports-1 */
    uint32_t leaf;       /* host: its leaf's leaf index; leaf switch: own index; else UINT32_MAX */
    uint32_t group;      /* dragonfly_plus: the node's group; 0 elsewhere */
};

struct bn_topo_port {
    uint32_t node;
    uint32_t peer;       /* the port at the other end of the link */
    double rate_gbps;
    double length_m;
    uint8_t cable;       /* enum bn_cable */
};

struct bn_topo {
    char kind[BN_NAME_MAX];
    bool rail_servers;   /* its builder lays hosts out in servers, a rail per GPU */
    uint32_t nnodes, nports, nhosts, nswitches, nleaves;
    uint32_t ntiers;                     /* switch tiers */
    uint32_t switches_per_tier[BN_MAX_TIERS + 1]; /* index by tier (1..) */
    struct bn_topo_node *nodes;
    struct bn_topo_port *ports;
    uint32_t *leaf_node;                 /* leaf index -> node id */
    double bisection_gbps;               /* from the builder's construction */
    uint32_t radix;
    uint32_t ngroups, group_leaves;  /* dragonfly_plus: groups and leaves per group (else 0) */
    uint32_t nscaleup, scaleup_first; /* NVLink domains: their NVSwitch nodes (else 0) */
    uint32_t domain_gpus;            /* hosts per NVLink domain (0: none) */
    /* Aggregation units, nodes agg_first .. agg_first + nagg - 1: first
     * nsharp SHARP units (one per switch, switch order), then nnvls NVLS
     * units from nvls_first (one per NVLink domain, domain order). */
    uint32_t nagg, agg_first, nsharp, nnvls, nvls_first;
    const char *tier_name[BN_MAX_TIERS + 1]; /* set by the builder, e.g. "tor" */
    char **names;                        /* per node, from a topology file; NULL: generated */
    /* A topology file that numbers its nodes (ns-3's): per file id, its
     * host index, UINT32_MAX for a switch; NULL: not numbered. */
    uint32_t *file_host;
    uint32_t nfile_ids;
    uint32_t *tier_index;                /* per node: a switch's index within its tier (finish) */
    /* Links recorded by builders before ports are laid out by finish(). */
    struct bn_topo_edge *edges;
    uint32_t nedges, edges_cap;
    bool counting;       /* bn_topo_count: links are counted, not recorded */
};

struct bn_topo_edge {
    uint32_t a, b;
    double rate_gbps, length_m;
    uint8_t cable;
};

/* One topology builder per file (fat_tree.c, leaf_spine.c ...). */
struct bn_topo_builder_ops {
    const char *name;
    const char *summary; /* one line: the shape it builds (topology.kind's doc) */
    bool rail_servers;   /* hosts in servers of topology.gpus_per_server, a rail per GPU */
    bool fat_tree_shape; /* laid out as bn_fat_tree_shape says: k pods of ToRs and
                          * aggregation switches under the cores */
    /* Its own scenario keys (core/keyrow.h rows, BN_ROW_TOPO: fields of its
     * keys struct, in bn_scenario.topo[its registry index], checked to fit,
     * BN_TOPO_KEYS_CHECK; build reads them with bn_topo_keys); nkeys of
     * them, 0: none. */
    const struct bn_key_row *keys;
    size_t nkeys;
    int (*build)(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err);
};

/* The parsed keys of the builder sc selects (topology.kind): its block of
 * sc, bn_scenario.topo[topology.kind]. */
const void *bn_topo_keys(const struct bn_scenario *sc);
/* Every builder's own key rows, for the scenario registry to splice in
 * after topology.gpus_per_server (core/keyrow.h's walker), in registry
 * order. */
extern const struct bn_key_modules bn_topo_key_modules;
/* Room in the scenario registry for them (tests/scenario/test_validate.c). */
#define BN_TOPO_KEYS_MAX 4
/* A builder's keys struct fits its block of the scenario (bn_scenario.topo). */
#define BN_TOPO_KEYS_CHECK(type) BN_KEYS_FIT(type, struct bn_scenario_topo_block)
/* A row's field m of its keys struct `type` (core/keyrow.h). */
#define BN_ROW_TOPO(type, m) BN_ROW_IN(BN_KEY_BLOCK_TOPO, type, m)

/* The builders' registry (topology.kind): the i-th one's name, NULL past
 * the last. */
const char *bn_topo_builder_name(size_t i);
const struct bn_topo_builder_ops *bn_topo_builder_at(size_t i);
/* Builder i's summary, NULL past the last. */
const char *bn_topo_builder_summary(size_t i);
/* topology.kind's doc: "Network shape: ", each builder's "name (summary)"
 * and "See docs/topologies.md." (written beside the registry: the row
 * needs a constant). */
extern const char bn_topo_builder_doc[];
int bn_topo_build(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err);
/* The size the scenario's topology will have, without laying it out: its
 * builder runs with links counted, not stored (nodes only: 16 bytes each),
 * so a request too large to build is told before it is built. */
struct bn_topo_counts {
    uint64_t hosts, switches, leaves, links;
};
int bn_topo_count(const struct bn_scenario *sc, struct bn_topo_counts *c, struct bn_error *err);
void bn_topo_free(struct bn_topo *t);

/* Construction helpers used by builders. */
int bn_topo_alloc(struct bn_topo *t, uint32_t nhosts, uint32_t nswitches,
                  uint32_t nlinks, struct bn_error *err);
/* Declare switch node `node` with its tier. */
void bn_topo_set_switch(struct bn_topo *t, uint32_t node, uint8_t tier);
/* Record a link between nodes a and b (ports are laid out by finish(), in
 * the order links were added, so a node's ports are contiguous). */
void bn_topo_connect(struct bn_topo *t, uint32_t a, uint32_t b, double rate_gbps,
                     double length_m, uint8_t cable);
/* Lay out ports, assign leaf indices, check every host has one port. */
int bn_topo_finish(struct bn_topo *t, struct bn_error *err);

/* Append `count` nodes of `kind` after all others (before finish), with
 * room for `extra_links` more links; *first is the first new node. */
int bn_topo_append_nodes(struct bn_topo *t, uint32_t count, uint8_t kind, uint32_t extra_links,
                         uint32_t *first, struct bn_error *err);
/* scale_up.c: add scenario's NVLink domains (before finish). */
int bn_topo_add_scale_up(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err);
/* aggregation.c: add one SHARP aggregation unit per switch (before finish). */
int bn_topo_add_aggregation(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err);
/* The SHARP units' keys (sharp.*), which aggregation.c declares: what the
 * topology (units, their rate), the engine (their latency) and the
 * collective driver (trees per unit, whether CollNet can run) read; kept
 * in bn_scenario.agg (checked to fit). */
struct bn_topo_sharp_keys {
    double rate_gbps;            /* aggregation throughput per switch; 0 = ports x line rate */
    double latency_ns;           /* aggregation latency per switch */
    uint32_t max_trees;          /* concurrent aggregation trees a switch holds */
    bool enabled;                /* aggregation units in the switches */
};
const struct bn_topo_sharp_keys *bn_topo_sharp(const struct bn_scenario *sc);
/* Their rows, one module's, for the scenario registry to splice in after
 * the collective algorithms'. */
extern const struct bn_key_modules bn_topo_agg_key_modules;
/* Room in the scenario registry for them (checked in aggregation.c). */
#define BN_TOPO_AGG_KEYS_MAX 4
/* Whether node n is part of the backend fabric graph (host or switch). */
static inline bool bn_topo_in_fabric(const struct bn_topo *t, uint32_t n)
{
    return t->nodes[n].kind <= BN_NODE_SWITCH;
}

/* The NVLink domain of host h, or UINT32_MAX without one. */
static inline uint32_t bn_topo_domain(const struct bn_topo *t, uint32_t h)
{
    return t->domain_gpus ? h / t->domain_gpus : UINT32_MAX;
}

/* names.c: "host12", "tor3", ports "tor3/1"; find_port gives UINT32_MAX if
 * no port has that name. */
void bn_topo_node_name(const struct bn_topo *t, uint32_t node, char *buf, size_t len);
void bn_topo_port_name(const struct bn_topo *t, uint32_t port, char *buf, size_t len);
uint32_t bn_topo_find_port(const struct bn_topo *t, const char *name);
/* The node named `name` ("tor3", "host12"), or UINT32_MAX. */
uint32_t bn_topo_find_node(const struct bn_topo *t, const char *name);

/* dot.c: the graph as Graphviz DOT; -1 on a write error. */
int bn_topo_write_dot(const struct bn_topo *t, FILE *f);

/* Link parameters for host and fabric links from the scenario. */
double bn_topo_fabric_rate(const struct bn_scenario *sc);
/* "copper" or anything else (fiber), as topology files name them. */
uint8_t bn_topo_cable_kind(const char *name);
/* A link's latency besides serialization: `length_m` of cable `cable`
 * (enum bn_cable: link.copper_ns_per_m or link.fiber_ns_per_m) plus the
 * FEC latency of every link (link.fec_ns), in ns and in ps. */
double bn_topo_link_ns(const struct bn_scenario *sc, double length_m, uint8_t cable);
bn_time_t bn_topo_prop_ps(const struct bn_scenario *sc, const struct bn_topo_port *tp);

/* Split a radix-k switch's ports r:1 into `down` (towards hosts) and `up`:
 * up = k/(r+1), down = k - up; both must be whole and >= 1, else an error
 * naming `key`. r = 1 gives the non-blocking k/2 : k/2. */
int bn_topo_split_ports(const struct bn_scenario *sc, const char *key, uint32_t k, double r,
                        uint32_t *down, uint32_t *up, struct bn_error *err);

/* fat_tree.c: a fat-tree's ports from its keys: a ToR's d1 host ports and
 * u1 uplinks, an aggregation switch's d2 ToR-facing and u2 core-facing
 * ones; k pods of d2 ToRs and u1 aggregation switches. */
struct bn_fat_tree_shape {
    uint32_t d1, u1, d2, u2;
};
int bn_fat_tree_shape(const struct bn_scenario *sc, struct bn_fat_tree_shape *s,
                      struct bn_error *err);

/* metrics.c: per-tier capacity, from the graph alone (any topology). Index 0
 * is the hosts; down/up are links to a lower/higher tier, "peer" links join
 * two switches of one tier. ports_max is the most ports used on one node. */
struct bn_topo_tier_stats {
    uint32_t nodes, ports_max;
    uint32_t down_links, up_links, peer_links;
    double down_gbps, up_gbps;
};
void bn_topo_tier_stats(const struct bn_topo *t, struct bn_topo_tier_stats s[BN_MAX_TIERS + 1]);
/* Bisection of a Clos built tier by tier: the smallest of half the hosts'
 * injection and half of each tier's uplink capacity. Exact for the regular
 * builders (which check it against their own construction), an estimate
 * for irregular, imported fabrics. */
double bn_topo_clos_bisection(const struct bn_topo *t);
/* The fastest host link and switch-to-switch link (0 if there is none). */
void bn_topo_link_rates(const struct bn_topo *t, double *host_gbps, double *fabric_gbps);
/* Shortest paths (in links) between hosts src and dst, and how many there
 * are (parallel links count separately; saturates at UINT64_MAX). */
int bn_topo_min_paths(const struct bn_topo *t, uint32_t src, uint32_t dst, uint32_t *hops,
                      uint64_t *count, struct bn_error *err);

#endif
