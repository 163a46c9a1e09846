/*
 * The link series: every observe.sample_us, each fabric link direction's
 * busy fraction and PFC-paused fraction over the interval just ended.
 * Memory stays bounded on any fabric: past observe.link_rows ports, a row
 * is a run of ports that lead from one tier to the same other tier (its
 * mean), each tier pair getting rows in proportion to its ports.
 */
#include <stdlib.h>
#include <string.h>

#include "driver/flows/flows.h"

static int by_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void tier_name(const struct bn_topo *t, uint8_t tier, char *buf, size_t len)
{
    if (tier == 0)
        snprintf(buf, len, "host");
    else if (t->tier_name[tier])
        snprintf(buf, len, "%s", t->tier_name[tier]);
    else
        snprintf(buf, len, "tier%u", tier);
}

/* Row r covers order[first[r] .. first[r + 1]); name it and its tiers. */
static void name_row(const struct bn_topo *t, const struct bn_link_rows *lr, uint32_t r,
                     struct bn_series_link *l)
{
    uint32_t a = lr->order[lr->first[r]], b = lr->order[lr->first[r + 1] - 1];
    char y[sizeof l->name];
    bn_topo_port_name(t, a, l->name, sizeof l->name);
    if (a != b) { /* "FIRST..LAST", cut to fit */
        size_t at = strlen(l->name);
        bn_topo_port_name(t, b, y, sizeof y);
        if (at + 2 < sizeof l->name)
            memcpy(l->name + at, "..", 3);
        size_t used = strlen(l->name), room = sizeof l->name - 1 - used, n = strlen(y);
        memcpy(l->name + used, y, n < room ? n : room);
        l->name[used + (n < room ? n : room)] = '\0';
    }
    tier_name(t, t->nodes[t->ports[a].node].tier, l->from, sizeof l->from);
    tier_name(t, t->nodes[t->ports[t->ports[a].peer].node].tier, l->to, sizeof l->to);
    l->ports = lr->first[r + 1] - lr->first[r];
}

/* Ports of the backend fabric (NVLink and SHARP units' links apart), keyed
 * (from tier, to tier, port) so that sorting groups them by tier pair. */
static uint64_t *fabric_ports(const struct bn_topo *t, uint32_t *n)
{
    uint64_t *key = malloc(((size_t)t->nports + 1) * sizeof *key);
    if (!key)
        return NULL;
    *n = 0;
    for (uint32_t p = 0; p < t->nports; p++) {
        uint32_t a = t->ports[p].node, b = t->ports[t->ports[p].peer].node;
        if (bn_topo_in_fabric(t, a) && bn_topo_in_fabric(t, b))
            key[(*n)++] = (uint64_t)t->nodes[a].tier << 40 | (uint64_t)t->nodes[b].tier << 32 | p;
    }
    qsort(key, *n, sizeof *key, by_key);
    return key;
}

/* Split the sorted ports into rows: each tier pair's run of c ports gets
 * max(1, rows * c / n) rows of near-equal size. */
static uint32_t split_rows(const uint64_t *key, uint32_t n, uint32_t rows, uint32_t *first)
{
    uint32_t nr = 0;
    for (uint32_t s = 0, e; s < n; s = e) {
        for (e = s; e < n && key[e] >> 32 == key[s] >> 32; e++)
            ;
        uint64_t c = e - s, rc = n <= rows ? c : (uint64_t)rows * c / n;
        rc = rc < 1 ? 1 : rc;
        for (uint64_t i = 0; i < rc; i++)
            first[nr++] = s + (uint32_t)(c * i / rc);
    }
    first[nr] = n;
    return nr;
}

int bn_flows_links_init(struct bn_flows *fl, struct bn_error *err)
{
    const struct bn_sim *s = fl->s;
    struct bn_link_rows *lr = &fl->links;
    struct bn_series *sr = &fl->series;
    uint32_t rows = s->sc->observe.link_rows, n = 0;
    /* the flow-level engine keeps no per-port busy time (docs/plots.md) */
    if (rows == 0 || s->flow)
        return BN_OK;
    uint64_t *key = fabric_ports(&s->topo, &n);
    if (!key)
        return bn_fail(err, BN_ENOMEM, "out of memory for the link series");
    /* at most `rows` plus one per tier pair (each has one at least) */
    size_t cap = (size_t)(n < rows ? n : rows) + 2 * BN_MAX_TIERS * (BN_MAX_TIERS + 1) + 1;
    lr->order = malloc(((size_t)n + 1) * sizeof *lr->order);
    lr->first = malloc((cap + 1) * sizeof *lr->first);
    if (!lr->order || !lr->first) {
        free(key);
        return bn_fail(err, BN_ENOMEM, "out of memory for the link series");
    }
    for (uint32_t i = 0; i < n; i++)
        lr->order[i] = (uint32_t)key[i];
    sr->nlinks = n ? split_rows(key, n, rows, lr->first) : 0;
    free(key);
    sr->links = calloc((size_t)sr->nlinks + 1, sizeof *sr->links);
    lr->busy = calloc((size_t)sr->nlinks + 1, sizeof *lr->busy);
    lr->paused = calloc((size_t)sr->nlinks + 1, sizeof *lr->paused);
    if (!sr->links || !lr->busy || !lr->paused)
        return bn_fail(err, BN_ENOMEM, "out of memory for the link series");
    for (uint32_t r = 0; r < sr->nlinks; r++)
        name_row(&s->topo, lr, r, &sr->links[r]);
    return BN_OK;
}

static double fraction(uint64_t part, double whole)
{
    double f = whole > 0 ? (double)part / whole : 0;
    return f > 1 ? 1 : f; /* a frame's whole serialization counts when it starts */
}

/* During the run each sample keeps the rows' busy and paused picoseconds
 * over its interval, and the interval (integers, exact in a double): what
 * a partitioned run's parts add up, and what halving the series adds in
 * pairs. bn_flows_links_finish makes them fractions. */
void bn_flows_links_sample(struct bn_flows *fl, uint32_t k)
{
    const struct bn_sim *s = fl->s;
    const struct bn_fabric *f = &s->fab;
    struct bn_link_rows *lr = &fl->links;
    struct bn_series *sr = &fl->series;
    for (uint32_t r = 0; r < sr->nlinks; r++) {
        uint64_t busy = 0, paused = 0;
        for (uint32_t i = lr->first[r]; i < lr->first[r + 1]; i++) {
            uint32_t p = lr->order[i];
            if (!bn_sim_here(s, f->port_node[p])) /* another process's part counts it */
                continue;
            busy += f->ports[p].busy_ps;
            if (f->fc->port_stats) {
                struct bn_fc_port_stats st = {0};
                f->fc->port_stats(f, p, &st);
                paused += st.paused_ps;
            }
        }
        sr->link_util[(size_t)k * sr->nlinks + r] = k ? (double)(busy - lr->busy[r]) : 0;
        sr->link_paused[(size_t)k * sr->nlinks + r] = k ? (double)(paused - lr->paused[r]) : 0;
        lr->busy[r] = busy;
        lr->paused[r] = paused;
    }
    lr->span[k] = k ? (double)(f->now - lr->at) : 0;
    lr->at = f->now;
}

void bn_flows_links_finish(struct bn_flows *fl)
{
    const struct bn_link_rows *lr = &fl->links;
    struct bn_series *sr = &fl->series;
    for (uint32_t k = 1; k < sr->nsamples; k++)
        for (uint32_t r = 0; r < sr->nlinks; r++) {
            double whole = lr->span[k] * (lr->first[r + 1] - lr->first[r]);
            double *u = &sr->link_util[(size_t)k * sr->nlinks + r];
            double *p = &sr->link_paused[(size_t)k * sr->nlinks + r];
            *u = fraction((uint64_t)*u, whole);
            *p = fraction((uint64_t)*p, whole);
        }
}

void bn_flows_links_free(struct bn_flows *fl)
{
    free(fl->links.order);
    free(fl->links.first);
    free(fl->links.busy);
    free(fl->links.paused);
    free(fl->links.span);
    memset(&fl->links, 0, sizeof fl->links);
}
