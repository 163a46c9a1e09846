/* Minimal-path routing tables by BFS from every leaf; see routing.h. */
#include <stdlib.h>
#include <string.h>

#include "core/bigmem.h"
#include "core/interrupt.h"
#include "topo/routing.h"

#define UNREACHED UINT32_MAX

struct bfs_scratch {
    uint32_t *dist;   /* per switch (node - first_switch) */
    uint32_t *queue;
    uint32_t *cand;   /* candidate next-hop ports of one switch */
    /* per port: the switch (node - first_switch) at its other end, UNREACHED
     * for a host or a link that is down: the walks read one array, not the
     * peer's port and its node (at 131,072 GPUs, 2048 walks of 655,360
     * ports) */
    uint32_t *nbr;
};

static void bfs_from(const struct bn_topo *t, uint32_t src_node, struct bfs_scratch *s)
{
    uint32_t first = t->nhosts;
    for (uint32_t i = 0; i < t->nswitches; i++)
        s->dist[i] = UNREACHED;
    uint32_t head = 0, tail = 0;
    s->dist[src_node - first] = 0;
    s->queue[tail++] = src_node - first;
    while (head < tail) {
        uint32_t n = s->queue[head++];
        const struct bn_topo_node *nd = &t->nodes[first + n];
        uint32_t next = s->dist[n] + 1;
        for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++) {
            uint32_t m = s->nbr[p];
            if (m == UNREACHED || s->dist[m] != UNREACHED)
                continue;
            s->dist[m] = next;
            s->queue[tail++] = m;
        }
    }
}

/* Room in `hops` for cnt more. */
static int reserve_hops(struct bn_routes *r, uint32_t cnt)
{
    if (r->nhops + cnt <= r->hops_cap)
        return 0;
    uint32_t cap = r->hops_cap ? r->hops_cap * 2 : 1024;
    while (cap < r->nhops + cnt)
        cap *= 2;
    uint32_t *h = realloc(r->hops, (size_t)cap * sizeof *h);
    if (!h)
        return -1;
    r->hops = h;
    r->hops_cap = cap;
    return 0;
}

/* Find an identical set among those stored from `from` on, else append. */
static int intern_set(struct bn_routes *r, uint32_t from, const uint32_t *ports, uint32_t cnt,
                      struct bn_route_set *out)
{
    for (uint32_t off = from; off + cnt <= r->nhops; off++) {
        if (memcmp(&r->hops[off], ports, cnt * sizeof *ports) == 0) {
            *out = (struct bn_route_set){off, cnt, 0, false};
            return 0;
        }
    }
    if (reserve_hops(r, cnt) != 0)
        return -1;
    memcpy(&r->hops[r->nhops], ports, cnt * sizeof *ports);
    *out = (struct bn_route_set){r->nhops, cnt, 0, false};
    r->nhops += cnt;
    return 0;
}

/* Open switch sw's region of `hops` with its own ports, in order: the runs. */
static int open_region(struct bn_routes *r, const struct bn_topo_node *nd, uint32_t sw)
{
    if (reserve_hops(r, nd->nports) != 0)
        return -1;
    r->sw[sw].hops_base = r->nhops;
    r->sw[sw].first_port = nd->first_port;
    for (uint32_t i = 0; i < nd->nports; i++)
        r->hops[r->nhops++] = nd->first_port + i;
    return 0;
}

/* Ports of switch `sw` one hop closer to leaf `l`, interned into the table.
 * dist[s * nleaves + l]: switch s's distance to leaf l. */
static int fill_one(struct bn_routes *r, const struct bn_topo *t, const uint8_t *down,
                    const uint32_t *dist, const uint32_t *nbr, uint32_t sw, uint32_t l,
                    uint32_t *cand, struct bn_route_set *last, struct bn_error *err)
{
    uint32_t first = t->nhosts, node = first + sw, nl = t->nleaves;
    uint32_t d = dist[(size_t)sw * nl + l];
    if (d == 0) { /* this switch is leaf l: the lookup delivers; see dedupe_rows */
        r->sw[sw].own_leaf = l;
        r->table[(size_t)sw * r->nleaves + l] = 0;
        return BN_OK;
    }
    if (d == UNREACHED && down) { /* cut off by failures */
        r->table[(size_t)sw * r->nleaves + l] = BN_ROUTE_UNREACHABLE;
        return BN_OK;
    }
    if (d == UNREACHED) {
        char a[BN_TOPO_NAME_MAX], b[BN_TOPO_NAME_MAX];
        bn_topo_node_name(t, node, a, sizeof a);
        bn_topo_node_name(t, t->leaf_node[l], b, sizeof b);
        return bn_fail(err, BN_EINPUT, "topology: switch '%s' cannot reach leaf '%s' (the "
                       "fabric is not connected)", a, b);
    }
    const struct bn_topo_node *nd = &t->nodes[node];
    uint32_t cnt = 0;
    for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++)
        if (nbr[p] != UNREACHED && dist[(size_t)nbr[p] * nl + l] == d - 1)
            cand[cnt++] = p;
    uint32_t off = cand[0] - nd->first_port, run = BN_ROUTE_RUN; /* in the region's opening */
    for (uint32_t i = 1; i < cnt && run; i++)
        run = cand[i] == cand[0] + i ? run : 0;
    if (!run) {
        uint32_t set_start = r->sw[sw].hops_base;
        struct bn_route_set set;
        /* Neighbouring leaves usually share a set: try it first. */
        if (last->cnt == cnt && memcmp(&r->hops[last->off], cand, cnt * sizeof *cand) == 0)
            set = *last;
        else if (intern_set(r, set_start + nd->nports, cand, cnt, &set) != 0)
            return bn_fail(err, BN_ENOMEM, "out of memory building routing tables");
        *last = set;
        off = set.off - set_start;
    }
    if (cnt > BN_ROUTE_CNT_MAX || off > BN_ROUTE_OFF_MAX) {
        char a[BN_TOPO_NAME_MAX];
        bn_topo_node_name(t, node, a, sizeof a);
        return bn_fail(err, BN_EINPUT, "topology: switch '%s' has more next-hop ports than routing "
                       "tables hold (%u per set, %u in all)", a, BN_ROUTE_CNT_MAX, BN_ROUTE_OFF_MAX);
    }
    r->table[(size_t)sw * r->nleaves + l] = off << BN_ROUTE_OFF_SHIFT | run | cnt;
    return BN_OK;
}

static uint64_t row_hash(const uint32_t *row, uint32_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ row[i]) * 1099511628211ULL;
    return h;
}

/* Store each distinct row once. A leaf's own entry is never read; it takes
 * its neighbour's value so that, e.g., every ToR of a fat-tree (all leaves
 * but its own reached through its one set of uplinks) has the same row. */
static int dedupe_rows(struct bn_routes *r, struct bn_error *err)
{
    uint32_t n = r->nleaves, m = r->nswitches, cap = 64;
    while (cap < 2 * m)
        cap *= 2;
    uint32_t *slot = malloc(cap * sizeof *slot);
    if (!slot)
        return bn_fail(err, BN_ENOMEM, "out of memory building routing tables");
    memset(slot, 0xff, cap * sizeof *slot);
    r->nrows = 0;
    for (uint32_t sw = 0; sw < m; sw++) {
        uint32_t *row = &r->table[(size_t)sw * n], own = r->sw[sw].own_leaf;
        if (own != UINT32_MAX && n > 1)
            row[own] = row[own == 0 ? 1 : own - 1];
        uint32_t i = (uint32_t)row_hash(row, n) & (cap - 1);
        while (slot[i] != UINT32_MAX &&
               memcmp(&r->table[(size_t)slot[i] * n], row, n * sizeof *row) != 0)
            i = (i + 1) & (cap - 1);
        if (slot[i] == UINT32_MAX) { /* new: move it down to the next free row */
            memmove(&r->table[(size_t)r->nrows * n], row, n * sizeof *row);
            slot[i] = r->nrows++;
        }
        r->sw[sw].row = slot[i] * n;
    }
    free(slot);
    /* give back what the distinct rows left: the whole table was written
     * (every page resident), and a fat-tree's rows take a few dozen of its
     * rows (k=32: 4.2 MB allocated, 66 KB kept) */
    size_t used = (size_t)r->nrows * n + 1;
    if (used < r->table_cap) {
        uint32_t *tb = bn_big_realloc(r->table, r->table_cap * sizeof *tb, used * sizeof *tb);
        if (!tb)
            return bn_fail(err, BN_ENOMEM, "out of memory building routing tables");
        r->table = tb;
        r->table_cap = used;
        r->table[used - 1] = 0;
    }
    return BN_OK;
}

static int build(struct bn_routes *r, const struct bn_topo *t, const uint8_t *down,
                 struct bn_error *err)
{
    memset(r, 0, sizeof *r);
    r->nleaves = t->nleaves;
    r->first_switch = t->nhosts;
    r->nswitches = t->nswitches;
    r->table_cap = (size_t)t->nswitches * t->nleaves + 1;
    /* not zeroed first: fill_one writes every entry, and zeroing 670 MB
     * (k=128) took seconds in which a stop request went unheard */
    r->table = bn_big_alloc(r->table_cap * sizeof *r->table);
    if (r->table)
        r->table[r->table_cap - 1] = 0;
    r->sw = bn_big_calloc(t->nswitches + 1, sizeof *r->sw);
    for (uint32_t sw = 0; r->sw && sw < t->nswitches; sw++)
        r->sw[sw].own_leaf = UINT32_MAX;
    struct bfs_scratch s = {
        .dist = calloc(t->nswitches + 1, sizeof(uint32_t)),
        .queue = calloc(t->nswitches + 1, sizeof(uint32_t)),
        .cand = calloc(t->nports + 1, sizeof(uint32_t)),
        .nbr = malloc((t->nports + 1) * sizeof(uint32_t)),
    };
    int rc = BN_OK;
    if (!r->table || !r->sw || !s.dist || !s.queue || !s.cand || !s.nbr) {
        rc = bn_fail(err, BN_ENOMEM, "out of memory building routing tables");
        goto out;
    }
    for (uint32_t p = 0; p < t->nports; p++) {
        uint32_t m = t->ports[t->ports[p].peer].node;
        s.nbr[p] = t->nodes[m].kind == BN_NODE_SWITCH && !(down && down[p]) ? m - t->nhosts
                                                                           : UNREACHED;
    }
    /* One BFS per leaf; then fill switch by switch so each switch's sets
     * sit together in `hops` and interning only scans that switch's region.
     * Distances are kept by switch, then leaf: filling a switch's row reads
     * its neighbours' rows in order. */
    uint32_t nl = t->nleaves;
    uint32_t *dist_all = calloc((size_t)nl * t->nswitches + 1, sizeof(uint32_t));
    if (!dist_all) {
        rc = bn_fail(err, BN_ENOMEM, "out of memory building routing tables");
        goto out;
    }
    /* a stop request is heard here too: k=128 takes minutes (a leaf's
     * search, or a switch's row, is milliseconds at most) */
    for (uint32_t l = 0; l < nl && rc == BN_OK; l++) {
        if (bn_interrupt_requested()) {
            rc = bn_fail(err, BN_EINTR, "interrupted while computing the routing tables "
                         "(%u of %u leaves); nothing was simulated", l, nl);
            break;
        }
        bfs_from(t, t->leaf_node[l], &s);
        for (uint32_t sw = 0; sw < t->nswitches; sw++)
            dist_all[(size_t)sw * nl + l] = s.dist[sw];
        for (uint32_t m = 0; m < t->nleaves; m++) {
            uint32_t d = s.dist[t->leaf_node[m] - t->nhosts];
            if (d != UNREACHED && d > r->max_leaf_dist)
                r->max_leaf_dist = d;
        }
    }
    for (uint32_t sw = 0; sw < t->nswitches && rc == BN_OK; sw++) {
        struct bn_route_set last = {0, UINT32_MAX, 0, false};
        if (bn_interrupt_requested())
            rc = bn_fail(err, BN_EINTR, "interrupted while filling the routing tables; "
                         "nothing was simulated");
        else if (open_region(r, &t->nodes[t->nhosts + sw], sw) != 0)
            rc = bn_fail(err, BN_ENOMEM, "out of memory building routing tables");
        for (uint32_t l = 0; l < t->nleaves && rc == BN_OK; l++)
            rc = fill_one(r, t, down, dist_all, s.nbr, sw, l, s.cand, &last, err);
    }
    free(dist_all);
    if (rc == BN_OK)
        rc = dedupe_rows(r, err);
out:
    free(s.dist);
    free(s.queue);
    free(s.cand);
    free(s.nbr);
    if (rc != BN_OK)
        bn_routes_free(r);
    return rc;
}

int bn_routes_build(struct bn_routes *r, const struct bn_topo *t, struct bn_error *err)
{
    return build(r, t, NULL, err);
}

int bn_routes_build_live(struct bn_routes *r, const struct bn_topo *t, const uint8_t *down,
                         struct bn_error *err)
{
    return build(r, t, down, err); /* down is not NULL: unreachable is no error */
}

int bn_routes_append(struct bn_routes *r, const struct bn_routes *fresh,
                     struct bn_route_switch *rec, struct bn_error *err)
{
    size_t used = (size_t)r->nrows * r->nleaves, add = (size_t)fresh->nrows * fresh->nleaves;
    if (used + add + 1 > r->table_cap) {
        size_t cap = r->table_cap * 2 > used + add + 1 ? r->table_cap * 2 : used + add + 1;
        uint32_t *tb = bn_big_realloc(r->table, r->table_cap * sizeof *tb, cap * sizeof *tb);
        if (!tb)
            return bn_fail(err, BN_ENOMEM, "out of memory for new routing tables");
        r->table = tb;
        r->table_cap = cap;
    }
    uint32_t hops0 = r->nhops;
    if (reserve_hops(r, fresh->nhops) != 0)
        return bn_fail(err, BN_ENOMEM, "out of memory for new routing tables");
    memcpy(&r->table[used], fresh->table, add * sizeof *r->table);
    memcpy(&r->hops[hops0], fresh->hops, (size_t)fresh->nhops * sizeof *r->hops);
    r->nhops += fresh->nhops;
    for (uint32_t sw = 0; sw < r->nswitches; sw++) {
        rec[sw] = fresh->sw[sw];
        rec[sw].row += (uint32_t)used;
        rec[sw].hops_base += hops0;
    }
    r->nrows += fresh->nrows;
    return BN_OK;
}

/* Switch record w's set towards leaf l (cnt 0 and run: unreachable). */
static struct bn_route_set set_of(const struct bn_routes *r, const struct bn_route_switch *w,
                                  uint32_t l)
{
    uint32_t e = r->table[w->row + l], off = e >> BN_ROUTE_OFF_SHIFT;
    return (struct bn_route_set){w->hops_base + off, e & BN_ROUTE_CNT_MAX, w->first_port + off,
                                 (e & BN_ROUTE_RUN) != 0};
}

bool bn_routes_same_leaf(const struct bn_routes *r, const struct bn_route_switch *a,
                         const struct bn_route_switch *b, uint32_t l)
{
    struct bn_route_set x = set_of(r, a, l), y = set_of(r, b, l);
    if (x.cnt != y.cnt || (x.cnt == 0 && x.run != y.run))
        return false;
    for (uint32_t i = 0; i < x.cnt; i++)
        if (bn_route_port(r, x, i) != bn_route_port(r, y, i))
            return false;
    return true;
}

bool bn_routes_same(const struct bn_routes *r, const struct bn_route_switch *a,
                    const struct bn_route_switch *b)
{
    for (uint32_t l = 0; l < r->nleaves; l++)
        if (l != a->own_leaf && !bn_routes_same_leaf(r, a, b, l))
            return false;
    return true;
}

void bn_routes_free(struct bn_routes *r)
{
    bn_big_free(r->table);
    bn_big_free(r->sw);
    free(r->hops);
    memset(r, 0, sizeof *r);
}
