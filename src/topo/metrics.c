/*
 * Figures of a built fabric graph that hold for any topology, regular or
 * imported: capacity up and down each tier (hence oversubscription), a
 * tier-by-tier bisection bound, and the number of minimal paths between two
 * hosts (the equal-cost choices ECMP spreads a flow over).
 */
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"

void bn_topo_tier_stats(const struct bn_topo *t, struct bn_topo_tier_stats s[BN_MAX_TIERS + 1])
{
    memset(s, 0, sizeof(struct bn_topo_tier_stats) * (BN_MAX_TIERS + 1));
    for (uint32_t n = 0; n < t->nnodes; n++) {
        const struct bn_topo_node *nd = &t->nodes[n];
        if (!bn_topo_in_fabric(t, n))
            continue; /* NVLink and aggregation units are not tiers of the fabric */
        struct bn_topo_tier_stats *ts = &s[nd->tier];
        ts->nodes++;
        uint32_t used = 0;
        for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++) {
            uint32_t peer_node = t->ports[t->ports[p].peer].node;
            if (!bn_topo_in_fabric(t, peer_node))
                continue;
            const struct bn_topo_node *peer = &t->nodes[peer_node];
            used++;
            uint8_t peer_tier = peer->tier;
            if (peer_tier < nd->tier) {
                ts->down_links++;
                ts->down_gbps += t->ports[p].rate_gbps;
            } else if (peer_tier > nd->tier) {
                ts->up_links++;
                ts->up_gbps += t->ports[p].rate_gbps;
            } else {
                ts->peer_links++;
            }
        }
        if (used > ts->ports_max)
            ts->ports_max = used;
    }
    for (uint32_t i = 0; i <= BN_MAX_TIERS; i++)
        s[i].peer_links /= 2; /* seen from both ends */
}

double bn_topo_clos_bisection(const struct bn_topo *t)
{
    struct bn_topo_tier_stats s[BN_MAX_TIERS + 1];
    bn_topo_tier_stats(t, s);
    double b = s[0].up_gbps / 2.0;
    for (uint32_t i = 1; i < t->ntiers; i++)
        if (s[i].up_gbps / 2.0 < b)
            b = s[i].up_gbps / 2.0;
    return b;
}

void bn_topo_link_rates(const struct bn_topo *t, double *host_gbps, double *fabric_gbps)
{
    *host_gbps = *fabric_gbps = 0;
    for (uint32_t p = 0; p < t->nports; p++) {
        const struct bn_topo_port *tp = &t->ports[p];
        if (!bn_topo_in_fabric(t, tp->node) || !bn_topo_in_fabric(t, t->ports[tp->peer].node))
            continue;
        bool host = t->nodes[tp->node].kind == BN_NODE_HOST ||
                    t->nodes[t->ports[tp->peer].node].kind == BN_NODE_HOST;
        double *r = host ? host_gbps : fabric_gbps;
        if (tp->rate_gbps > *r)
            *r = tp->rate_gbps;
    }
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* BFS from src over the whole graph (hosts are dead ends but dst), counting
 * shortest paths per node: count[m] += count[n] for every link n->m with
 * dist[m] = dist[n] + 1. */
int bn_topo_min_paths(const struct bn_topo *t, uint32_t src, uint32_t dst, uint32_t *hops,
                      uint64_t *count, struct bn_error *err)
{
    if (src >= t->nhosts || dst >= t->nhosts)
        return bn_fail(err, BN_EINPUT, "paths: host %u is not in this topology (hosts 0..%u)",
                       src >= t->nhosts ? src : dst, t->nhosts - 1);
    *hops = 0;
    *count = 1;
    if (src == dst)
        return BN_OK;
    uint32_t *dist = malloc((size_t)t->nnodes * sizeof *dist);
    uint32_t *queue = malloc((size_t)t->nnodes * sizeof *queue);
    uint64_t *cnt = calloc(t->nnodes, sizeof *cnt);
    if (!dist || !queue || !cnt) {
        free(dist);
        free(queue);
        free(cnt);
        return bn_fail(err, BN_ENOMEM, "out of memory counting paths");
    }
    memset(dist, 0xff, (size_t)t->nnodes * sizeof *dist);
    uint32_t head = 0, tail = 0;
    dist[src] = 0;
    cnt[src] = 1;
    queue[tail++] = src;
    while (head < tail) {
        uint32_t n = queue[head++];
        if (n == dst || (n != src && t->nodes[n].kind == BN_NODE_HOST))
            continue;
        const struct bn_topo_node *nd = &t->nodes[n];
        for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++) {
            uint32_t m = t->ports[t->ports[p].peer].node;
            if (dist[m] == UINT32_MAX) {
                dist[m] = dist[n] + 1;
                queue[tail++] = m;
            }
            if (dist[m] == dist[n] + 1)
                cnt[m] = sat_add(cnt[m], cnt[n]);
        }
    }
    int rc = BN_OK;
    if (dist[dst] == UINT32_MAX)
        rc = bn_fail(err, BN_EINPUT, "paths: host %u cannot reach host %u", src, dst);
    *hops = dist[dst];
    *count = cnt[dst];
    free(dist);
    free(queue);
    free(cnt);
    return rc;
}
