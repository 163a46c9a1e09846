/*
 * Human names for nodes and ports, as results print them and scenarios
 * name them: hosts "host12", switches by tier name and index within the
 * tier ("tor3", "agg0", "spine7"), ports "<node>/<index on the node>".
 * Topologies read from a file keep the file's node names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"

void bn_topo_node_name(const struct bn_topo *t, uint32_t node, char *buf, size_t len)
{
    const struct bn_topo_node *nd = &t->nodes[node];
    if (t->names && t->names[node]) {
        snprintf(buf, len, "%s", t->names[node]);
        return;
    }
    if (nd->kind == BN_NODE_HOST) {
        snprintf(buf, len, "host%u", node);
        return;
    }
    if (nd->kind == BN_NODE_SCALEUP) {
        snprintf(buf, len, "nvswitch%u", node - t->scaleup_first);
        return;
    }
    if (nd->kind == BN_NODE_AGG && node >= t->agg_first + t->nsharp) { /* "nvswitch2.nvls" */
        snprintf(buf, len, "nvswitch%u.nvls", node - t->nvls_first);
        return;
    }
    if (nd->kind == BN_NODE_AGG) { /* named after its switch: "tor3.agg" */
        bn_topo_node_name(t, t->nhosts + (node - t->agg_first), buf, len);
        size_t at = strlen(buf);
        snprintf(buf + at, len > at ? len - at : 0, ".agg");
        return;
    }
    const char *tier = t->tier_name[nd->tier] ? t->tier_name[nd->tier] : "switch";
    snprintf(buf, len, "%s%u", tier, t->tier_index[node]); /* bn_topo_finish */
}

void bn_topo_port_name(const struct bn_topo *t, uint32_t port, char *buf, size_t len)
{
    char node[BN_TOPO_NAME_MAX];
    uint32_t n = t->ports[port].node;
    bn_topo_node_name(t, n, node, sizeof node);
    snprintf(buf, len, "%s/%u", node, port - t->nodes[n].first_port);
}

uint32_t bn_topo_find_port(const struct bn_topo *t, const char *name)
{
    char want[BN_TOPO_PORT_NAME_MAX], have[BN_TOPO_PORT_NAME_MAX];
    snprintf(want, sizeof want, "%s", name);
    for (uint32_t p = 0; p < t->nports; p++) {
        bn_topo_port_name(t, p, have, sizeof have);
        if (strcmp(have, want) == 0)
            return p;
    }
    return UINT32_MAX;
}

uint32_t bn_topo_find_node(const struct bn_topo *t, const char *name)
{
    char have[BN_TOPO_NAME_MAX];
    for (uint32_t n = 0; n < t->nnodes; n++) {
        bn_topo_node_name(t, n, have, sizeof have);
        if (strcmp(have, name) == 0)
            return n;
    }
    return UINT32_MAX;
}
