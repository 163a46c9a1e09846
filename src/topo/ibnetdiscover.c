/*
 * topology.kind: ibnetdiscover — import the text an InfiniBand subnet
 * discovery (`ibnetdiscover`, infiniband-diags) prints: one block per node,
 *
 *   Switch  36 "S-b8cef603000a1234"   # "leaf-01" enhanced port 0 lid 3 lmc 0
 *   [1]     "H-b8cef603000b5678"[1](b8cef603000b5679)   # "gpu-node-01 mlx5_0" lid 7 4xNDR
 *   Ca      1 "H-b8cef603000b5678"    # "gpu-node-01 mlx5_0"
 *   [1](b8cef603000b5679)   "S-b8cef603000a1234"[1]  # lid 7 lmc 0 "leaf-01" lid 3 4xNDR
 *
 * A block header names the node by its quoted id ("S-<guid>", "H-<guid>");
 * each "[port]" line below it names the peer's id and "[port]", and ends in
 * a comment whose last word is the link's width x speed (4xNDR). Every link
 * is listed from both ends; it is kept once. vendid=/devid=/...guid= lines
 * and '#' comments are skipped. Switches become switches, CAs hosts (one
 * NIC port each); routers are not supported. Rates: lanes x the speed's
 * lane rate (SDR 2.5, DDR 5, QDR 10, FDR10 10, FDR 14, EDR 25, HDR 50, NDR
 * 100, XDR 200 Gb/s), else link.rate_gbps / link.fabric_rate_gbps. Cables
 * are not in the dump: the scenario's link.host_cable and link.fabric_cable
 * (and lengths) apply.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/lines.h"
#include "topo/import.h"

struct port_rec {
    uint32_t node, port, peer_port, line;
    char *peer;          /* peer id as written */
    uint32_t peer_node;
    double rate_gbps;    /* 0: not stated */
};

struct reader {
    struct bn_draft d;
    struct port_rec *recs;
    uint32_t nrecs, cap;
    uint32_t cur;        /* node whose block we are in, UINT32_MAX before any */
};

static const struct { const char *name; double lane_gbps; } speeds[] = {
    {"SDR", 2.5}, {"DDR", 5}, {"QDR", 10}, {"FDR10", 10}, {"FDR", 14},
    {"EDR", 25},  {"HDR", 50}, {"NDR", 100}, {"XDR", 200},
};

/* "4xNDR" -> 400; 0 if the word is not a width x speed. */
static double rate_of(const char *w)
{
    char *end;
    long lanes = strtol(w, &end, 10);
    if (end == w || *end != 'x' || lanes < 1 || lanes > 32)
        return 0;
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
        if (strcmp(end + 1, speeds[i].name) == 0)
            return lanes * speeds[i].lane_gbps;
    return 0;
}

/* The quoted string at *p (after blanks) into out; advances *p. */
static int quoted(const char **p, char *out, size_t cap)
{
    const char *s = *p + strspn(*p, " \t");
    if (*s != '"')
        return -1;
    const char *e = strchr(s + 1, '"');
    if (!e || (size_t)(e - s - 1) >= cap || e == s + 1)
        return -1;
    memcpy(out, s + 1, (size_t)(e - s - 1));
    out[e - s - 1] = '\0';
    *p = e + 1;
    return 0;
}

/* "[N]" at *p, then an optional "(guid)"; advances *p. */
static int bracket(const char **p, uint32_t *n)
{
    const char *s = *p;
    if (*s != '[')
        return -1;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s + 1, &end, 10);
    if (errno || end == s + 1 || *end != ']' || v > 65535)
        return -1;
    s = end + 1;
    if (*s == '(') {
        const char *c = strchr(s, ')');
        if (!c)
            return -1;
        s = c + 1;
    }
    *n = (uint32_t)v;
    *p = s;
    return 0;
}

static double last_word_rate(const char *s)
{
    const char *hash = strchr(s, '#');
    if (!hash)
        return 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", hash + 1);
    double r = 0;
    for (char *w = strtok(buf, " \t\r\n"); w; w = strtok(NULL, " \t\r\n"))
        r = rate_of(w); /* the last word wins */
    return r;
}

static int port_line(struct reader *r, const char *s, uint32_t line, struct bn_error *err)
{
    const char *path = r->d.path;
    if (r->cur == UINT32_MAX)
        return bn_fail(err, BN_EINPUT, "%s:%u: port line before any Switch or Ca block",
                       path, line);
    struct port_rec rec = {.node = r->cur, .line = line};
    char peer[256];
    const char *p = s;
    if (bracket(&p, &rec.port) != 0)
        return bn_fail(err, BN_EINPUT, "%s:%u: port: expected '[N]' at the start", path, line);
    if (quoted(&p, peer, sizeof peer) != 0)
        return bn_fail(err, BN_EINPUT, "%s:%u: peer: expected the peer's quoted id after "
                       "[%u]", path, line, rec.port);
    if (bracket(&p, &rec.peer_port) != 0)
        return bn_fail(err, BN_EINPUT, "%s:%u: peer port: expected '[N]' after \"%s\"", path,
                       line, peer);
    rec.rate_gbps = last_word_rate(p);
    if (!(rec.peer = strdup(peer)))
        return bn_fail(err, BN_ENOMEM, "out of memory reading %s", path);
    if (r->nrecs == r->cap) {
        uint32_t cap = r->cap ? r->cap * 2 : 256;
        struct port_rec *n = realloc(r->recs, cap * sizeof *n);
        if (!n) {
            free(rec.peer);
            return bn_fail(err, BN_ENOMEM, "out of memory reading %s", path);
        }
        r->recs = n;
        r->cap = cap;
    }
    r->recs[r->nrecs++] = rec;
    return BN_OK;
}

static int header_line(struct reader *r, const char *s, uint32_t line, struct bn_error *err)
{
    const char *path = r->d.path;
    bool sw = strncmp(s, "Switch", 6) == 0;
    const char *p = s + (sw ? 6 : 2);
    char *end;
    unsigned long nports = strtoul(p, &end, 10);
    char id[256];
    if (end == p || nports < 1)
        return bn_fail(err, BN_EINPUT, "%s:%u: %s: expected the number of ports after '%.*s'",
                       path, line, sw ? "Switch" : "Ca", sw ? 6 : 2, s);
    p = end;
    if (quoted(&p, id, sizeof id) != 0)
        return bn_fail(err, BN_EINPUT, "%s:%u: %s: expected the node's quoted id (\"S-...\" "
                       "or \"H-...\")", path, line, sw ? "Switch" : "Ca");
    return bn_draft_add_node(&r->d, id, sw ? BN_NODE_SWITCH : BN_NODE_HOST, 0, line, &r->cur,
                             err);
}

static int read_line(void *ctx, char *s, unsigned line, struct bn_error *err)
{
    struct reader *r = ctx;
    s += strspn(s, " \t");
    if (*s == '\0' || *s == '\n' || *s == '\r' || *s == '#')
        return BN_OK;
    if (*s == '[')
        return port_line(r, s, line, err);
    if (strncmp(s, "Switch", 6) == 0 || (strncmp(s, "Ca", 2) == 0 && (s[2] == ' ' || s[2] == '\t')))
        return header_line(r, s, line, err);
    if (strncmp(s, "Rt", 2) == 0 && (s[2] == ' ' || s[2] == '\t'))
        return bn_fail(err, BN_EINPUT, "%s:%u: routers (Rt) are not supported", r->d.path, line);
    if (strchr(s, '=') && strcspn(s, "=") < strcspn(s, " \t")) /* vendid=0x2c9 ... */
        return BN_OK;
    return bn_fail(err, BN_EINPUT, "%s:%u: not ibnetdiscover output: expected a Switch or Ca "
                   "header, a '[port]' line or key=value", r->d.path, line);
}

static int cmp_rec(const void *x, const void *y)
{
    const struct port_rec *a = x, *b = y;
    uint64_t ka = ((uint64_t)a->node << 16) | a->port, kb = ((uint64_t)b->node << 16) | b->port;
    return ka < kb ? -1 : ka > kb;
}

/* Keep each link once: from the end with the smaller (node, port), or from
 * the only end that lists it. */
static int make_links(struct reader *r, const struct bn_scenario *sc, struct bn_error *err)
{
    struct bn_draft *d = &r->d;
    /* checked here, before qsort and bsearch meet an empty (NULL) array */
    if (r->nrecs == 0)
        return bn_fail(err, BN_EINPUT, "%s: no '[port]' lines: not an ibnetdiscover dump of a "
                       "cabled fabric (each Switch or Ca block lists its connected ports)",
                       d->path);
    for (uint32_t i = 0; i < r->nrecs; i++) {
        struct port_rec *rec = &r->recs[i];
        rec->peer_node = bn_draft_find(d, rec->peer);
        if (rec->peer_node == UINT32_MAX)
            return bn_fail(err, BN_EINPUT, "%s:%u: peer: \"%s\" has no Switch or Ca block",
                           d->path, rec->line, rec->peer);
    }
    qsort(r->recs, r->nrecs, sizeof *r->recs, cmp_rec);
    for (uint32_t i = 0; i < r->nrecs; i++) {
        const struct port_rec *rec = &r->recs[i];
        if (i > 0 && cmp_rec(rec, &r->recs[i - 1]) == 0)
            return bn_fail(err, BN_EINPUT, "%s:%u: port [%u] of \"%s\" is listed twice (also "
                           "line %u)", d->path, rec->line, rec->port, d->nodes[rec->node].name,
                           r->recs[i - 1].line);
        struct port_rec key = {.node = rec->peer_node, .port = rec->peer_port};
        const struct port_rec *back = bsearch(&key, r->recs, r->nrecs, sizeof *r->recs, cmp_rec);
        if (back && (back->peer_node != rec->node || back->peer_port != rec->port))
            return bn_fail(err, BN_EINPUT, "%s:%u: \"%s\"[%u] is linked to \"%s\"[%u], but line "
                           "%u links that port elsewhere", d->path, rec->line,
                           d->nodes[rec->node].name, rec->port, rec->peer, rec->peer_port,
                           back->line);
        if (back && cmp_rec(back, rec) < 0)
            continue; /* kept from the other end */
        bool host = d->nodes[rec->node].kind == BN_NODE_HOST ||
                    d->nodes[rec->peer_node].kind == BN_NODE_HOST;
        const struct bn_scenario_link *lk = &sc->link;
        double rate = rec->rate_gbps > 0 ? rec->rate_gbps
                      : host ? lk->rate_gbps : bn_topo_fabric_rate(sc);
        int rc = bn_draft_add_link(d, rec->node, rec->peer_node, rate,
                                   host ? lk->host_cable_m : lk->fabric_cable_m,
                                   (host ? lk->host_cable : lk->fabric_cable),
                                   rec->line, err);
        if (rc != BN_OK)
            return rc;
    }
    return BN_OK;
}

static int build(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err)
{
    char path[BN_PATH_MAX * 2];
    FILE *f = bn_topo_open_file(sc, path, sizeof path, err);
    if (!f)
        return err->status;
    struct reader r = {.cur = UINT32_MAX};
    bn_draft_init(&r.d, path);
    int rc = bn_each_line(f, path, read_line, &r, NULL, err);
    fclose(f);
    if (rc == BN_OK)
        rc = make_links(&r, sc, err);
    if (rc == BN_OK)
        rc = bn_draft_to_topo(&r.d, t, err);
    for (uint32_t i = 0; i < r.nrecs; i++)
        free(r.recs[i].peer);
    free(r.recs);
    bn_draft_free(&r.d);
    return rc;
}

const struct bn_topo_builder_ops bn_topo_ibnetdiscover = {
    .name = "ibnetdiscover",
    .build = build,
};
