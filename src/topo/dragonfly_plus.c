/*
 * Dragonfly+ (Shpiner et al., "Dragonfly+: Low cost topology for scaling
 * datacenters", HiPINEB 2017; the Mellanox/NVIDIA InfiniBand layout): groups
 * that are two-tier leaf-spine inside, spines joined by global links across
 * groups. With radix-k switches a group has k/2 leaves (k/2 hosts each, one
 * uplink to each of the group's k/2 spines) and k/2 spines (k/2 ports down,
 * k/2 global), so (k/2)^2 hosts and (k/2)^2 global ports per group, and up
 * to (k/2)^2 + 1 groups with one global link between every pair of groups.
 * Global port p of a group belongs to spine p / (k/2); group a reaches group
 * b > a through its port b-1 and b's port a. A minimal route between
 * groups is leaf-spine-spine-leaf: 5 links host to host through 4 switches;
 * the BFS routing tables find them; switch/nonminimal.c adds Valiant and
 * UGAL on top.
 */
#include "topo/topo.h"

/* Its key (topology.groups), in its block of the scenario. */
struct dfp_keys {
    uint64_t groups; /* 0 = the most the radix allows */
};
BN_TOPO_KEYS_CHECK(struct dfp_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "topology.groups", BN_ROW_INT, .info.unit = "groups", .info.def = "0",
      .info.doc = "dragonfly_plus: number of groups (2..(k/2)^2+1); 0 = the most the radix allows.",
      BN_ROW_TOPO(struct dfp_keys, groups), BN_ROW_RANGE(0, 1000000) },
};

static int build(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err)
{
    uint32_t k = sc->topology.k, h = k / 2, max_groups = h * h + 1;
    uint64_t groups_key = ((const struct dfp_keys *)bn_topo_keys(sc))->groups;
    uint64_t want = groups_key ? groups_key : max_groups;
    if (want < 2 || want > max_groups)
        return bn_fail(err, BN_EINPUT,
                       "%s: key 'topology.groups': %llu groups; radix %u allows 2..%u", sc->source,
                       (unsigned long long)want, k, max_groups);
    uint32_t groups = (uint32_t)want;
    uint32_t hosts = groups * h * h, leaves = groups * h, spines = groups * h;
    uint32_t links = hosts + groups * h * h + groups * (groups - 1) / 2;
    int rc = bn_topo_alloc(t, hosts, leaves + spines, links, err);
    if (rc != BN_OK)
        return rc;
    t->radix = k;
    t->tier_name[1] = "leaf";
    t->tier_name[2] = "spine";
    uint32_t leaf0 = hosts, spine0 = hosts + leaves;
    t->ngroups = groups;
    t->group_leaves = h;
    for (uint32_t i = 0; i < leaves; i++) {
        bn_topo_set_switch(t, leaf0 + i, 1);
        t->nodes[leaf0 + i].group = i / h;
    }
    for (uint32_t i = 0; i < spines; i++) {
        bn_topo_set_switch(t, spine0 + i, 2);
        t->nodes[spine0 + i].group = i / h;
    }
    for (uint32_t x = 0; x < hosts; x++)
        t->nodes[x].group = x / (h * h);
    double host_rate = sc->link.rate_gbps, fab_rate = bn_topo_fabric_rate(sc);
    uint8_t host_cable = sc->link.host_cable;
    uint8_t fab_cable = sc->link.fabric_cable;
    for (uint32_t x = 0; x < hosts; x++)
        bn_topo_connect(t, x, leaf0 + x / h, host_rate, sc->link.host_cable_m, host_cable);
    for (uint32_t g = 0; g < groups; g++)
        for (uint32_t l = 0; l < h; l++)
            for (uint32_t s = 0; s < h; s++)
                bn_topo_connect(t, leaf0 + g * h + l, spine0 + g * h + s, fab_rate,
                                sc->link.fabric_cable_m, fab_cable);
    for (uint32_t a = 0; a < groups; a++)
        for (uint32_t b = a + 1; b < groups; b++)
            bn_topo_connect(t, spine0 + a * h + (b - 1) / h, spine0 + b * h + a / h, fab_rate,
                            sc->link.fabric_cable_m, fab_cable);
    /* Half the groups against the other half: the global links between them
     * (one per pair) or the hosts' own links, whichever is smaller. */
    double cut = (double)(groups / 2) * (double)(groups - groups / 2) * fab_rate;
    double host_side = hosts / 2.0 * host_rate;
    t->bisection_gbps = cut < host_side ? cut : host_side;
    return BN_OK;
}

const struct bn_topo_builder_ops bn_topo_dragonfly_plus = {
    .name = "dragonfly_plus",
    .summary = "leaf-spine groups, global links between spines",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .build = build,
};
