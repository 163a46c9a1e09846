/* Draft graphs from topology files into bn_topo; see import.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/path.h"
#include "topo/import.h"

static const char *const tier_names[BN_MAX_TIERS + 1] = {"host", "leaf", "spine", "core",
                                                          "tier4"};

void bn_draft_init(struct bn_draft *d, const char *path)
{
    memset(d, 0, sizeof *d);
    d->path = path;
}

void bn_draft_free(struct bn_draft *d)
{
    for (uint32_t i = 0; i < d->nnodes; i++)
        free(d->nodes[i].name);
    free(d->nodes);
    free(d->links);
    free(d->hash);
    memset(d, 0, sizeof *d);
}

static uint32_t hash_name(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

uint32_t bn_draft_find(const struct bn_draft *d, const char *name)
{
    if (!d->hash_cap)
        return UINT32_MAX;
    for (uint32_t i = hash_name(name) & (d->hash_cap - 1);; i = (i + 1) & (d->hash_cap - 1)) {
        uint32_t v = d->hash[i];
        if (v == 0)
            return UINT32_MAX;
        if (strcmp(d->nodes[v - 1].name, name) == 0)
            return v - 1;
    }
}

static int rehash(struct bn_draft *d)
{
    uint32_t cap = d->hash_cap ? d->hash_cap * 2 : 256;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return -1;
    for (uint32_t n = 0; n < d->nnodes; n++) {
        uint32_t i = hash_name(d->nodes[n].name) & (cap - 1);
        while (h[i])
            i = (i + 1) & (cap - 1);
        h[i] = n + 1;
    }
    free(d->hash);
    d->hash = h;
    d->hash_cap = cap;
    return 0;
}

int bn_draft_add_node(struct bn_draft *d, const char *name, uint8_t kind, uint8_t tier,
                      uint32_t line, uint32_t *index, struct bn_error *err)
{
    if (strlen(name) >= BN_TOPO_NAME_MAX)
        return bn_fail(err, BN_EINPUT, "%s:%u: node name '%.40s...' is %zu bytes (at most %d)",
                       d->path, line, name, strlen(name), BN_TOPO_NAME_MAX - 1);
    uint32_t old = bn_draft_find(d, name);
    if (old != UINT32_MAX)
        return bn_fail(err, BN_EINPUT, "%s:%u: node '%s' is already declared on line %u",
                       d->path, line, name, d->nodes[old].line);
    if (d->nnodes == d->nodes_cap) {
        uint32_t cap = d->nodes_cap ? d->nodes_cap * 2 : 64;
        struct bn_draft_node *n = realloc(d->nodes, cap * sizeof *n);
        if (!n)
            return bn_fail(err, BN_ENOMEM, "out of memory reading %s", d->path);
        d->nodes = n;
        d->nodes_cap = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return bn_fail(err, BN_ENOMEM, "out of memory reading %s", d->path);
    d->nodes[d->nnodes] = (struct bn_draft_node){copy, kind, tier, line, 0};
    *index = d->nnodes++;
    if (d->nnodes * 2 > d->hash_cap) {
        if (rehash(d) != 0) /* places every node, the new one too */
            return bn_fail(err, BN_ENOMEM, "out of memory reading %s", d->path);
        return BN_OK;
    }
    uint32_t i = hash_name(name) & (d->hash_cap - 1);
    while (d->hash[i])
        i = (i + 1) & (d->hash_cap - 1);
    d->hash[i] = *index + 1;
    return BN_OK;
}

int bn_draft_add_link(struct bn_draft *d, uint32_t a, uint32_t b, double rate_gbps,
                      double length_m, uint8_t cable, uint32_t line, struct bn_error *err)
{
    if (a == b)
        return bn_fail(err, BN_EINPUT, "%s:%u: link joins '%s' to itself", d->path, line,
                       d->nodes[a].name);
    if (!(rate_gbps >= BN_DRAFT_RATE_MIN_GBPS && rate_gbps <= BN_DRAFT_RATE_MAX_GBPS))
        return bn_fail(err, BN_EINPUT, "%s:%u: link rate: %g Gb/s is out of range (expected "
                       "%g..%g, as link.rate_gbps)", d->path, line, rate_gbps,
                       BN_DRAFT_RATE_MIN_GBPS, BN_DRAFT_RATE_MAX_GBPS);
    if (!(length_m >= 0 && length_m <= BN_DRAFT_LENGTH_MAX_M))
        return bn_fail(err, BN_EINPUT, "%s:%u: link length: %g m is out of range (expected "
                       "0..%g, as link.host_cable_m)", d->path, line, length_m,
                       BN_DRAFT_LENGTH_MAX_M);
    if (d->nlinks == d->links_cap) {
        uint32_t cap = d->links_cap ? d->links_cap * 2 : 128;
        struct bn_draft_link *l = realloc(d->links, cap * sizeof *l);
        if (!l)
            return bn_fail(err, BN_ENOMEM, "out of memory reading %s", d->path);
        d->links = l;
        d->links_cap = cap;
    }
    d->links[d->nlinks++] = (struct bn_draft_link){a, b, rate_gbps, length_m, cable, line};
    return BN_OK;
}

/* Check hosts: exactly one link each, and to a switch. */
static int check_hosts(const struct bn_draft *d, const uint32_t *deg, struct bn_error *err)
{
    uint32_t nhosts = 0;
    for (uint32_t i = 0; i < d->nlinks; i++) {
        const struct bn_draft_link *l = &d->links[i];
        if (d->nodes[l->a].kind == BN_NODE_HOST && d->nodes[l->b].kind == BN_NODE_HOST)
            return bn_fail(err, BN_EINPUT, "%s:%u: link joins two hosts ('%s', '%s'); hosts "
                           "attach to a switch", d->path, l->line, d->nodes[l->a].name,
                           d->nodes[l->b].name);
    }
    for (uint32_t n = 0; n < d->nnodes; n++) {
        const struct bn_draft_node *nd = &d->nodes[n];
        if (nd->kind != BN_NODE_HOST)
            continue;
        nhosts++;
        if (deg[n] != 1)
            return bn_fail(err, BN_EINPUT, "%s:%u: host '%s' has %u links; each host must "
                           "attach to exactly one switch (one NIC port per host)", d->path,
                           nd->line, nd->name, deg[n]);
    }
    if (nhosts == 0)
        return bn_fail(err, BN_EINPUT, "%s: no hosts", d->path);
    return BN_OK;
}

/* Tier = hop distance from the nearest host (multi-source BFS). */
static int derive_tiers(struct bn_draft *d, const uint32_t *first, const uint32_t *adj,
                        uint8_t *tier, struct bn_error *err)
{
    uint32_t *queue = malloc((d->nnodes + 1) * sizeof *queue);
    if (!queue)
        return bn_fail(err, BN_ENOMEM, "out of memory reading %s", d->path);
    uint32_t head = 0, tail = 0;
    for (uint32_t n = 0; n < d->nnodes; n++) {
        tier[n] = d->nodes[n].kind == BN_NODE_HOST ? 0 : UINT8_MAX;
        if (tier[n] == 0)
            queue[tail++] = n;
    }
    while (head < tail) {
        uint32_t n = queue[head++];
        for (uint32_t j = first[n]; j < first[n + 1]; j++) {
            uint32_t m = adj[j];
            if (tier[m] == UINT8_MAX) {
                tier[m] = (uint8_t)(tier[n] < UINT8_MAX - 1 ? tier[n] + 1 : UINT8_MAX - 1);
                queue[tail++] = m;
            }
        }
    }
    free(queue);
    for (uint32_t n = 0; n < d->nnodes; n++) {
        const struct bn_draft_node *nd = &d->nodes[n];
        if (tier[n] == UINT8_MAX)
            return bn_fail(err, BN_EINPUT, "%s:%u: switch '%s' is not connected to any host",
                           d->path, nd->line, nd->name);
        if (tier[n] > BN_MAX_TIERS)
            return bn_fail(err, BN_EINPUT, "%s:%u: switch '%s' is %u switch hops from the "
                           "nearest host; at most %u tiers are supported", d->path, nd->line,
                           nd->name, tier[n], BN_MAX_TIERS);
        if (nd->tier && nd->tier != tier[n])
            return bn_fail(err, BN_EINPUT, "%s:%u: switch '%s' is declared tier %u but its "
                           "links put it on tier %u (hop distance from the nearest host)",
                           d->path, nd->line, nd->name, nd->tier, tier[n]);
    }
    return BN_OK;
}

/* One connected graph: every host must reach every other. */
static int check_connected(const struct bn_draft *d, const uint32_t *first, const uint32_t *adj,
                           struct bn_error *err)
{
    uint32_t *queue = malloc((d->nnodes + 1) * sizeof *queue);
    uint8_t *seen = calloc(d->nnodes + 1, 1);
    int rc = BN_OK;
    if (!queue || !seen) {
        rc = bn_fail(err, BN_ENOMEM, "out of memory reading %s", d->path);
        goto out;
    }
    uint32_t head = 0, tail = 0;
    queue[tail++] = 0;
    seen[0] = 1;
    while (head < tail) {
        uint32_t n = queue[head++];
        for (uint32_t j = first[n]; j < first[n + 1]; j++)
            if (!seen[adj[j]]) {
                seen[adj[j]] = 1;
                queue[tail++] = adj[j];
            }
    }
    for (uint32_t n = 0; n < d->nnodes && rc == BN_OK; n++)
        if (!seen[n])
            rc = bn_fail(err, BN_EINPUT, "%s:%u: '%s' cannot reach '%s': the fabric must be one "
                         "connected graph", d->path, d->nodes[n].line, d->nodes[n].name,
                         d->nodes[0].name);
out:
    free(queue);
    free(seen);
    return rc;
}

int bn_draft_to_topo(struct bn_draft *d, struct bn_topo *t, struct bn_error *err)
{
    uint32_t nn = d->nnodes;
    uint32_t *first = calloc(nn + 2, sizeof *first);
    uint32_t *adj = malloc((2 * (size_t)d->nlinks + 1) * sizeof *adj);
    uint8_t *tier = malloc(nn + 1);
    int rc = BN_OK;
    if (!first || !adj || !tier) {
        rc = bn_fail(err, BN_ENOMEM, "out of memory reading %s", d->path);
        goto out;
    }
    for (uint32_t i = 0; i < d->nlinks; i++) {
        first[d->links[i].a + 2]++;
        first[d->links[i].b + 2]++;
    }
    /* degrees are first[n+2]; prefix sums make first[n+1] the start of n */
    rc = check_hosts(d, first + 2, err);
    if (rc != BN_OK)
        goto out;
    for (uint32_t n = 0; n < nn; n++)
        first[n + 2] += first[n + 1];
    for (uint32_t i = 0; i < d->nlinks; i++) {
        adj[first[d->links[i].a + 1]++] = d->links[i].b;
        adj[first[d->links[i].b + 1]++] = d->links[i].a;
    }
    rc = derive_tiers(d, first, adj, tier, err);
    if (rc == BN_OK)
        rc = check_connected(d, first, adj, err);
    if (rc != BN_OK)
        goto out;

    uint32_t nhosts = 0, next;
    for (uint32_t n = 0; n < nn; n++)
        nhosts += d->nodes[n].kind == BN_NODE_HOST;
    rc = bn_topo_alloc(t, nhosts, nn - nhosts, d->nlinks, err);
    if (rc == BN_OK && !(t->names = calloc(nn, sizeof *t->names)))
        rc = bn_fail(err, BN_ENOMEM, "out of memory reading %s", d->path);
    if (rc != BN_OK)
        goto out;
    next = 0;
    for (uint32_t n = 0; n < nn; n++)
        if (d->nodes[n].kind == BN_NODE_HOST)
            d->nodes[n].id = next++;
    /* switches in tier order, so names and tables read bottom-up */
    for (uint8_t tr = 1; tr <= BN_MAX_TIERS; tr++)
        for (uint32_t n = 0; n < nn; n++)
            if (d->nodes[n].kind != BN_NODE_HOST && tier[n] == tr) {
                d->nodes[n].id = next++;
                bn_topo_set_switch(t, d->nodes[n].id, tr);
            }
    for (uint32_t n = 0; n < nn; n++) {
        t->names[d->nodes[n].id] = d->nodes[n].name;
        d->nodes[n].name = NULL; /* now owned by t */
        uint32_t deg = first[n + 1] - first[n];
        if (deg > t->radix)
            t->radix = deg;
    }
    for (uint8_t tr = 1; tr <= t->ntiers; tr++)
        t->tier_name[tr] = tier_names[tr];
    for (uint32_t i = 0; i < d->nlinks; i++) {
        const struct bn_draft_link *l = &d->links[i];
        bn_topo_connect(t, d->nodes[l->a].id, d->nodes[l->b].id, l->rate_gbps, l->length_m,
                        l->cable);
    }
out:
    free(first);
    free(adj);
    free(tier);
    return rc;
}

void bn_topo_resolve_path(const struct bn_scenario *sc, char *out, size_t cap)
{
    bn_path_beside(sc->source, sc->topology.file, out, cap);
}

FILE *bn_topo_open_file(const struct bn_scenario *sc, char *path, size_t cap, struct bn_error *err)
{
    if (sc->topology.file[0] == '\0') {
        bn_fail(err, BN_EINPUT, "%s: key 'topology.file': must be set when topology.kind is %s",
                sc->source, bn_topo_builder_name(sc->topology.kind));
        return NULL;
    }
    bn_topo_resolve_path(sc, path, cap);
    FILE *f = fopen(path, "r");
    if (!f)
        bn_fail(err, BN_EINPUT, "%s: key 'topology.file': cannot open '%s': %s", sc->source, path,
                strerror(errno));
    return f;
}
