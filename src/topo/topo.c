/*
 * Fabric graph construction shared by all builders: builders declare switches
 * and record links; finish() lays the ports out contiguously per node, wires
 * peers and gives leaves their dense index. See topo.h for the numbering.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"

extern const struct bn_topo_builder_ops bn_topo_fat_tree;
extern const struct bn_topo_builder_ops bn_topo_leaf_spine;
extern const struct bn_topo_builder_ops bn_topo_rail_optimized;
extern const struct bn_topo_builder_ops bn_topo_file;
extern const struct bn_topo_builder_ops bn_topo_dragonfly_plus;
extern const struct bn_topo_builder_ops bn_topo_ibnetdiscover;
extern const struct bn_topo_builder_ops bn_topo_ns3;

static const struct bn_topo_builder_ops *const builders[] = {
    &bn_topo_fat_tree,
    &bn_topo_leaf_spine,
    &bn_topo_rail_optimized,
    &bn_topo_dragonfly_plus,
    &bn_topo_file,
    &bn_topo_ibnetdiscover,
    &bn_topo_ns3,
};

#define NBUILDERS (sizeof builders / sizeof builders[0])
_Static_assert(NBUILDERS <= BN_SC_TOPO_MAX, "bn_scenario.topo has no block for every builder");

/* topology.kind's doc: each builder's name and summary, in registry order,
 * a run of equal summaries said once (a constant for the key's row:
 * tests/scenario/test_module_keys.c fails when it and the summaries
 * disagree). */
const char bn_topo_builder_doc[] =
    "Network shape: fat_tree (three-tier fat-tree of k pods), leaf_spine (two-tier "
    "leaf-spine, a folded Clos), rail_optimized (DGX SuperPOD style: GPU i of each server "
    "on rail leaf i), dragonfly_plus (leaf-spine groups, global links between spines), file "
    "(bnet's text format, from topology.file), ibnetdiscover (ibnetdiscover output, from "
    "topology.file), ns3 (ns-3 text of HPCC/ASTRA-sim/SimAI, from topology.file). See "
    "docs/topologies.md.";

const void *bn_topo_keys(const struct bn_scenario *sc)
{
    return &sc->topo[sc->topology.kind];
}

static const struct bn_key_row *rows_of(size_t i, size_t *nrows)
{
    *nrows = builders[i]->nkeys;
    return builders[i]->keys;
}

const struct bn_key_modules bn_topo_key_modules = {NBUILDERS, rows_of, NULL};

const char *bn_topo_builder_name(size_t i)
{
    return i < NBUILDERS ? builders[i]->name : NULL;
}

const char *bn_topo_builder_summary(size_t i)
{
    return i < NBUILDERS ? builders[i]->summary : NULL;
}

const struct bn_topo_builder_ops *bn_topo_builder_at(size_t i)
{
    return i < NBUILDERS ? builders[i] : NULL;
}

int bn_topo_count(const struct bn_scenario *sc, struct bn_topo_counts *c, struct bn_error *err)
{
    struct bn_topo t;
    memset(&t, 0, sizeof t);
    memset(c, 0, sizeof *c);
    if (sc->topology.kind >= NBUILDERS)
        return bn_fail(err, BN_EINTERNAL, "topology.kind %u: no such builder", sc->topology.kind);
    t.counting = true;
    int rc = builders[sc->topology.kind]->build(&t, sc, err);
    if (rc == BN_OK)
        *c = (struct bn_topo_counts){.hosts = t.nhosts, .switches = t.nswitches,
                                     .leaves = t.switches_per_tier[1], .links = t.nedges};
    bn_topo_free(&t);
    return rc;
}

int bn_topo_build(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err)
{
    memset(t, 0, sizeof *t);
    if (sc->topology.kind >= NBUILDERS) /* the scenario's setter checked it */
        return bn_fail(err, BN_EINTERNAL, "topology.kind %u: no such builder", sc->topology.kind);
    const struct bn_topo_builder_ops *b = builders[sc->topology.kind];
    snprintf(t->kind, sizeof t->kind, "%s", b->name);
    t->rail_servers = b->rail_servers;
    int rc = b->build(t, sc, err);
    if (rc != BN_OK) {
        bn_topo_free(t);
        return rc;
    }
    rc = bn_topo_add_scale_up(t, sc, err);
    if (rc == BN_OK)
        rc = bn_topo_add_aggregation(t, sc, err);
    if (rc == BN_OK)
        rc = bn_topo_finish(t, err);
    /* Builders that do not derive it from their construction get the
     * tier-by-tier Clos figure. */
    if (rc == BN_OK && t->bisection_gbps == 0)
        t->bisection_gbps = bn_topo_clos_bisection(t);
    if (rc != BN_OK)
        bn_topo_free(t);
    return rc;
}

void bn_topo_free(struct bn_topo *t)
{
    free(t->nodes);
    free(t->ports);
    free(t->leaf_node);
    free(t->tier_index);
    free(t->edges);
    if (t->names)
        for (uint32_t n = 0; n < t->nnodes; n++)
            free(t->names[n]);
    free(t->names);
    free(t->file_host);
    memset(t, 0, sizeof *t);
}

int bn_topo_alloc(struct bn_topo *t, uint32_t nhosts, uint32_t nswitches, uint32_t nlinks,
                  struct bn_error *err)
{
    t->nhosts = nhosts;
    t->nswitches = nswitches;
    t->nnodes = nhosts + nswitches;
    t->nodes = calloc(t->nnodes, sizeof *t->nodes);
    t->edges = t->counting ? NULL : calloc(nlinks ? nlinks : 1, sizeof *t->edges);
    t->edges_cap = nlinks;
    if (!t->nodes || (!t->edges && !t->counting))
        return bn_fail(err, BN_ENOMEM, "out of memory building a %u-node topology", t->nnodes);
    for (uint32_t i = 0; i < t->nnodes; i++) {
        t->nodes[i].kind = i < nhosts ? BN_NODE_HOST : BN_NODE_SWITCH;
        t->nodes[i].leaf = UINT32_MAX;
    }
    return BN_OK;
}

int bn_topo_append_nodes(struct bn_topo *t, uint32_t count, uint8_t kind, uint32_t extra_links,
                         uint32_t *first, struct bn_error *err)
{
    uint32_t nn = t->nnodes + count, ne = t->nedges + extra_links;
    struct bn_topo_node *nodes = realloc(t->nodes, (size_t)nn * sizeof *nodes);
    if (nodes)
        t->nodes = nodes;
    struct bn_topo_edge *edges = realloc(t->edges, (size_t)ne * sizeof *edges);
    if (edges)
        t->edges = edges;
    char **names = t->names ? realloc(t->names, (size_t)nn * sizeof *names) : NULL;
    if (names)
        t->names = names;
    if (!nodes || !edges || (t->names && !names))
        return bn_fail(err, BN_ENOMEM, "out of memory adding %u nodes to the topology", count);
    t->edges_cap = ne;
    for (uint32_t i = t->nnodes; i < nn; i++) {
        t->nodes[i] = (struct bn_topo_node){.kind = kind, .leaf = UINT32_MAX};
        if (t->names)
            t->names[i] = NULL; /* named by names.c */
    }
    *first = t->nnodes;
    t->nnodes = nn;
    return BN_OK;
}

void bn_topo_set_switch(struct bn_topo *t, uint32_t node, uint8_t tier)
{
    t->nodes[node].kind = BN_NODE_SWITCH;
    t->nodes[node].tier = tier;
    t->switches_per_tier[tier]++;
    if (tier > t->ntiers)
        t->ntiers = tier;
}

void bn_topo_connect(struct bn_topo *t, uint32_t a, uint32_t b, double rate_gbps,
                     double length_m, uint8_t cable)
{
    /* Builders size edges exactly; overflowing is a builder bug. */
    if (t->nedges >= t->edges_cap)
        abort();
    if (t->counting)
        t->nedges++;
    else
        t->edges[t->nedges++] = (struct bn_topo_edge){a, b, rate_gbps, length_m, cable};
    t->nodes[a].nports++;
    t->nodes[b].nports++;
}

static int lay_out_ports(struct bn_topo *t, struct bn_error *err)
{
    t->nports = 2 * t->nedges;
    t->ports = calloc(t->nports ? t->nports : 1, sizeof *t->ports);
    uint32_t *fill = calloc(t->nnodes, sizeof *fill);
    if (!t->ports || !fill) {
        free(fill);
        return bn_fail(err, BN_ENOMEM, "out of memory laying out %u ports", t->nports);
    }
    uint32_t next = 0;
    for (uint32_t n = 0; n < t->nnodes; n++) {
        t->nodes[n].first_port = next;
        next += t->nodes[n].nports;
    }
    for (uint32_t e = 0; e < t->nedges; e++) {
        const struct bn_topo_edge *ed = &t->edges[e];
        uint32_t pa = t->nodes[ed->a].first_port + fill[ed->a]++;
        uint32_t pb = t->nodes[ed->b].first_port + fill[ed->b]++;
        t->ports[pa] = (struct bn_topo_port){ed->a, pb, ed->rate_gbps, ed->length_m, ed->cable};
        t->ports[pb] = (struct bn_topo_port){ed->b, pa, ed->rate_gbps, ed->length_m, ed->cable};
    }
    free(fill);
    return BN_OK;
}

int bn_topo_finish(struct bn_topo *t, struct bn_error *err)
{
    int rc = lay_out_ports(t, err);
    if (rc != BN_OK)
        return rc;
    t->nleaves = t->switches_per_tier[1];
    t->leaf_node = calloc(t->nleaves ? t->nleaves : 1, sizeof *t->leaf_node);
    if (!t->leaf_node)
        return bn_fail(err, BN_ENOMEM, "out of memory indexing leaves");
    uint32_t li = 0;
    for (uint32_t n = t->nhosts; n < t->nnodes; n++) {
        if (t->nodes[n].tier == 1) {
            t->nodes[n].leaf = li;
            t->leaf_node[li++] = n;
        }
    }
    /* switch names ("agg7") number switches within their tier; counted
     * once here, not per name (results name every port: at 8192 hosts a
     * count per name took longer than the run) */
    t->tier_index = calloc(t->nnodes, sizeof *t->tier_index);
    if (!t->tier_index)
        return bn_fail(err, BN_ENOMEM, "out of memory indexing switch tiers");
    uint32_t in_tier[256] = {0};
    for (uint32_t n = t->nhosts; n < t->nnodes; n++)
        if (t->nodes[n].kind == BN_NODE_SWITCH)
            t->tier_index[n] = in_tier[t->nodes[n].tier]++;
    for (uint32_t h = 0; h < t->nhosts; h++) {
        const struct bn_topo_node *hn = &t->nodes[h];
        uint32_t want = t->nscaleup ? 2 : 1;
        if (hn->nports != want)
            return bn_fail(err, BN_EINTERNAL, "topology: host %u has %u ports (want %u)", h,
                           hn->nports, want);
        if (want == 2 && t->nodes[t->ports[t->ports[hn->first_port + 1].peer].node].kind !=
                             BN_NODE_SCALEUP)
            return bn_fail(err, BN_EINTERNAL, "topology: host %u's second port is not NVLink", h);
        uint32_t sw = t->ports[t->ports[hn->first_port].peer].node;
        if (t->nodes[sw].tier != 1)
            return bn_fail(err, BN_EINTERNAL, "topology: host %u is not attached to a leaf", h);
        t->nodes[h].leaf = t->nodes[sw].leaf;
    }
    free(t->edges);
    t->edges = NULL;
    return BN_OK;
}

double bn_topo_fabric_rate(const struct bn_scenario *sc)
{
    return sc->link.fabric_rate_gbps > 0 ? sc->link.fabric_rate_gbps : sc->link.rate_gbps;
}

uint8_t bn_topo_cable_kind(const char *name)
{
    return strcmp(name, "copper") == 0 ? BN_CABLE_COPPER : BN_CABLE_FIBER;
}

double bn_topo_link_ns(const struct bn_scenario *sc, double length_m, uint8_t cable)
{
    double ns_per_m = cable == BN_CABLE_COPPER ? sc->link.copper_ns_per_m : sc->link.fiber_ns_per_m;
    return length_m * ns_per_m + sc->link.fec_ns;
}

bn_time_t bn_topo_prop_ps(const struct bn_scenario *sc, const struct bn_topo_port *tp)
{
    return bn_time_from_ns(bn_topo_link_ns(sc, tp->length_m, tp->cable));
}

int bn_topo_split_ports(const struct bn_scenario *sc, const char *key, uint32_t k, double r,
                        uint32_t *down, uint32_t *up, struct bn_error *err)
{
    double u = k / (r + 1.0);
    uint32_t ui = (uint32_t)(u + 0.5);
    if (ui < 1 || ui >= k || u - ui > 1e-9 || ui - u > 1e-9)
        return bn_fail(err, BN_EINPUT,
                       "%s: key '%s': %g does not split a radix-%u switch into whole ports "
                       "(uplinks = k/(r+1) = %g)", sc->source, key, r, k, u);
    *up = ui;
    *down = k - ui;
    return BN_OK;
}
