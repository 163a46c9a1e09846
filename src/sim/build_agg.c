/*
 * Aggregation units at run time: each unit's NIC port, and the next hop
 * towards every SHARP unit from every switch (NVLS units hang off their
 * NVSwitch, which reaches them as it reaches its GPUs). A reduction tree's
 * edges join a switch to a neighbour, so one fixed shortest path per unit
 * (the first port in port order that gets closer, as a subnet manager
 * would pin it) is all a unit's traffic needs; no load balancing applies.
 */
#include <stdlib.h>

#include "sim/sim.h"

#define FAR UINT32_MAX

static void bfs(const struct bn_topo *t, uint32_t from, uint32_t *dist, uint32_t *queue)
{
    uint32_t first = t->nhosts;
    for (uint32_t i = 0; i < t->nswitches; i++)
        dist[i] = FAR;
    uint32_t head = 0, tail = 0;
    dist[from - first] = 0;
    queue[tail++] = from;
    while (head < tail) {
        uint32_t n = queue[head++];
        const struct bn_topo_node *nd = &t->nodes[n];
        for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++) {
            uint32_t m = t->ports[t->ports[p].peer].node;
            if (t->nodes[m].kind == BN_NODE_SWITCH && dist[m - first] == FAR) {
                dist[m - first] = dist[n - first] + 1;
                queue[tail++] = m;
            }
        }
    }
}

int bn_sim_build_agg(struct bn_sim *s, struct bn_nic_params *np, struct bn_error *err)
{
    const struct bn_topo *t = &s->topo;
    s->sw.agg_first = UINT32_MAX;
    if (!t->nagg)
        return BN_OK;
    uint32_t m = t->nswitches, first = t->nhosts;
    s->agg_port = malloc((size_t)t->nagg * sizeof *s->agg_port);
    s->agg_next = malloc(((size_t)t->nsharp * m + 1) * sizeof *s->agg_next);
    uint32_t *dist = malloc((size_t)m * sizeof *dist), *queue = malloc((size_t)m * sizeof *queue);
    if (!s->agg_port || !s->agg_next || !dist || !queue) {
        free(dist);
        free(queue);
        return bn_fail(err, BN_ENOMEM, "out of memory for %u aggregation units", t->nagg);
    }
    for (uint32_t a = 0; a < t->nagg; a++)
        s->agg_port[a] = t->nodes[t->agg_first + a].first_port;
    for (uint32_t a = 0; a < t->nsharp; a++) { /* NVLS units are reached through NVSwitches */
        uint32_t unit = t->agg_first + a, home = first + a;
        bfs(t, home, dist, queue);
        for (uint32_t x = 0; x < m; x++) {
            uint32_t *next = &s->agg_next[(size_t)a * m + x];
            const struct bn_topo_node *nd = &t->nodes[first + x];
            *next = FAR;
            for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports && *next == FAR; p++) {
                uint32_t peer = t->ports[t->ports[p].peer].node;
                if (x == a ? peer == unit
                           : t->nodes[peer].kind == BN_NODE_SWITCH && dist[x] != FAR &&
                                 dist[peer - first] == dist[x] - 1)
                    *next = p;
            }
        }
    }
    free(dist);
    free(queue);
    s->sw.agg_first = t->agg_first;
    s->sw.agg_next = s->agg_next;
    np->agg_port = s->agg_port;
    np->nagg = t->nagg;
    np->agg_node0 = t->agg_first;
    np->nvls_node0 = t->nvls_first;
    np->nnvls = t->nnvls;
    return BN_OK;
}
