/*
 * Rerouting: routes of the surviving graph, computed once per distinct
 * set of dead links (a flapping link alternates between two), appended to
 * the live tables, and installed switch by switch when the control plane
 * says. A change's reach (which switches' tables differ, and by how many
 * 64-destination blocks) and each switch's distance from it are what the
 * control plane plans from.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fault/faults.h"

/* The version computed for the current down set, computing it if new. */
static int version_for(struct bn_faults *ft, uint32_t *v, struct bn_error *err)
{
    const struct bn_topo *t = ft->env.t;
    for (uint32_t i = 0; i < ft->nver; i++)
        if (memcmp(ft->ver[i].down, ft->down, t->nports) == 0) {
            *v = i;
            return BN_OK;
        }
    if (ft->nver == ft->ver_cap) {
        uint32_t cap = ft->ver_cap ? 2 * ft->ver_cap : 4;
        struct route_version *nv = realloc(ft->ver, cap * sizeof *nv);
        if (!nv)
            return bn_fail(err, BN_ENOMEM, "out of memory for new routes");
        ft->ver = nv;
        ft->ver_cap = cap;
    }
    struct route_version *rv = &ft->ver[ft->nver];
    rv->down = malloc(t->nports + 1);
    rv->rec = malloc(((size_t)t->nswitches + 1) * sizeof *rv->rec);
    if (!rv->down || !rv->rec) {
        free(rv->down);
        free(rv->rec);
        return bn_fail(err, BN_ENOMEM, "out of memory for new routes");
    }
    memcpy(rv->down, ft->down, t->nports);
    struct bn_routes fresh;
    int rc = bn_routes_build_live(&fresh, t, ft->down, err);
    if (rc == BN_OK)
        rc = bn_routes_append(ft->env.r, &fresh, rv->rec, err);
    if (rc == BN_OK)
        bn_routes_free(&fresh);
    if (rc != BN_OK) {
        free(rv->down);
        free(rv->rec);
        return rc;
    }
    *v = ft->nver++;
    return BN_OK;
}

/* Switch-to-switch hops from the switches at fault fa's links, over the
 * links up (a host's link seeds its leaf). */
static void distances(struct bn_faults *ft, const struct fault *fa)
{
    const struct bn_topo *t = ft->env.t;
    uint32_t first = t->nhosts, head = 0, tail = 0;
    for (uint32_t i = 0; i < t->nswitches; i++)
        ft->dist[i] = UINT32_MAX;
    for (uint32_t i = 0; i < fa->nports; i++) {
        uint32_t ends[2] = {t->ports[fa->ports[i]].node, t->ports[t->ports[fa->ports[i]].peer].node};
        for (int e = 0; e < 2; e++) {
            uint32_t n = ends[e];
            if (t->nodes[n].kind != BN_NODE_SWITCH || ft->dist[n - first] == 0)
                continue;
            ft->dist[n - first] = 0;
            ft->queue[tail++] = n;
        }
    }
    while (head < tail) {
        uint32_t n = ft->queue[head++];
        const struct bn_topo_node *nd = &t->nodes[n];
        for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++) {
            uint32_t m = t->ports[t->ports[p].peer].node;
            if (ft->down[p] || t->nodes[m].kind != BN_NODE_SWITCH ||
                ft->dist[m - first] != UINT32_MAX)
                continue;
            ft->dist[m - first] = ft->dist[n - first] + 1;
            ft->queue[tail++] = m;
        }
    }
}

/* The 64-destination blocks of switch sw's table that record `to` changes
 * from what it uses now (0: none). */
static uint32_t changed_blocks(struct bn_faults *ft, uint32_t sw, const struct bn_route_switch *to)
{
    const struct bn_topo *t = ft->env.t;
    const struct bn_routes *r = ft->env.r;
    const struct bn_route_switch *now = &r->sw[sw];
    if (bn_routes_same(r, now, to))
        return 0;
    uint32_t count = 0, gen = ++ft->gen;
    for (uint32_t l = 0; l < t->nleaves; l++) {
        if (l == now->own_leaf || bn_routes_same_leaf(r, now, to, l))
            continue;
        for (uint32_t i = ft->leaf_block_off[l]; i < ft->leaf_block_off[l + 1]; i++)
            if (ft->stamp[ft->leaf_block[i]] != gen) {
                ft->stamp[ft->leaf_block[i]] = gen;
                count++;
            }
    }
    return count ? count : 1; /* a leaf without hosts still changed the table */
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int reroute(struct bn_faults *ft, struct fault *fa, struct bn_error *err);

/* The control plane's answer, and the wall time it took (the one cost a
 * fault adds to a run: docs/performance.md). */
int bn_fault_reroute(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    if (!ft->cp->reroutes)
        return BN_OK;
    double t0 = wall_now();
    int rc = reroute(ft, fa, err);
    ft->reroute_s += wall_now() - t0;
    return rc;
}

static int reroute(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    const struct bn_topo *t = ft->env.t;
    uint32_t v = 0;
    int rc = version_for(ft, &v, err);
    if (rc != BN_OK)
        return rc;
    if (ft->ncomp == ft->comp_cap) {
        uint32_t cap = ft->comp_cap ? 2 * ft->comp_cap : 16;
        uint32_t *nc = realloc(ft->comp_ver, cap * sizeof *nc);
        if (!nc)
            return bn_fail(err, BN_ENOMEM, "out of memory for route computations");
        ft->comp_ver = nc;
        ft->comp_cap = cap;
    }
    uint32_t comp = ft->ncomp++;
    ft->comp_ver[comp] = v;
    distances(ft, fa);
    uint32_t changed = 0;
    for (uint32_t sw = 0; sw < t->nswitches; sw++) {
        ft->blocks[sw] = changed_blocks(ft, sw, &ft->ver[v].rec[sw]);
        ft->at[sw] = BN_TIME_NEVER;
        changed += ft->blocks[sw] != 0;
    }
    struct bn_cp_change c = {.now = ft->env.f->now, .nswitches = t->nswitches,
                             .nhosts = t->nhosts, .dist = ft->dist, .blocks = ft->blocks};
    bool instant = fa->sf->instant; /* known at once: every switch now */
    if (!instant)
        ft->cp->plan(bn_cp_keys(ft->env.sc, ft->cp), &c, ft->at);
    bn_time_t last = c.now;
    for (uint32_t sw = 0; sw < t->nswitches; sw++) {
        if (!ft->blocks[sw])
            continue;
        if (instant) {
            bn_fault_install(ft, sw, comp);
            continue;
        }
        if (ft->at[sw] == BN_TIME_NEVER) {
            last = BN_TIME_NEVER;
            continue;
        }
        bn_fault_schedule(ft, ft->at[sw], BN_EV_ROUTE, sw, comp);
        if (last != BN_TIME_NEVER && ft->at[sw] > last)
            last = ft->at[sw];
    }
    if (!fa->planned) {
        fa->planned = true;
        fa->switches_changed = changed;
        fa->converged = last;
    }
    return BN_OK;
}

void bn_fault_install(struct bn_faults *ft, uint32_t sw, uint32_t comp)
{
    if (ft->installed[sw] != UINT32_MAX && ft->installed[sw] > comp)
        return; /* a later computation got there first */
    ft->installed[sw] = comp;
    ft->env.r->sw[sw] = ft->ver[ft->comp_ver[comp]].rec[sw];
    bn_switches_routes_changed(ft->env.sw);
}

void bn_fault_routes_free(struct bn_faults *ft)
{
    for (uint32_t i = 0; i < ft->nver; i++) {
        free(ft->ver[i].down);
        free(ft->ver[i].rec);
    }
    free(ft->ver);
    free(ft->comp_ver);
}
