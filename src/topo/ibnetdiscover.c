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
 * each "[port]" line below it names the peer's id and "[port]", and its
 * comment holds the link's active width x speed (4xNDR), followed with -f
 * by "s=N w=N v=N". -g adds chassis lines ("Chassis 1 (guid ...)",
 * "Non-Chassis Nodes", "Hostname: ...") and "[ext N]" external port
 * numbers, all read past. Every link is listed from both ends; it is kept
 * once. vendid=/devid=/...guid= lines and '#' comments are skipped.
 * Switches become switches, CAs hosts (bnet's host is one NIC port: a CA
 * with several cabled ports becomes one host per port, "H-<guid>/<port>",
 * with a warning); routers are not supported.
 *
 * Rates: lanes x the speed's lane rate (IBTA: SDR 2.5, DDR 5, QDR 10,
 * FDR10 10, FDR 14.0625, EDR 25.78125 signalling; bnet takes the data
 * rates NVIDIA quotes: FDR 14, EDR 25, HDR 50, NDR 100, XDR 200 Gb/s a
 * lane), widths 1x, 2x, 4x, 8x, 12x; no width x speed at all:
 * link.rate_gbps / link.fabric_rate_gbps. A word that is one but names an
 * unknown speed or width (4xZZZ, ibnetdiscover's "??"/"???") is refused.
 * Two ends that state different rates: the slower (what the link can
 * carry both ways), with a warning. Cables are not in the dump: the
 * scenario's link.host_cable and link.fabric_cable (and lengths) apply.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/lines.h"
#include "core/warn.h"
#include "topo/import.h"

struct port_rec {
    uint32_t node, port, peer_port, line;
    char *peer;          /* peer id as written */
    uint32_t peer_node;
    double rate_gbps;    /* 0: not stated */
    char rate_word[16];  /* as written ("4xHDR"), for messages */
};

struct reader {
    struct bn_draft blocks; /* one node per Switch/Ca block, as named */
    struct bn_draft d;      /* what is built: a host per cabled CA port */
    struct port_rec *recs;
    uint32_t nrecs, cap;
    uint32_t cur;        /* block we are in, UINT32_MAX before any */
};

static const struct { const char *name; double lane_gbps; } speeds[] = {
    {"SDR", 2.5}, {"DDR", 5}, {"QDR", 10}, {"FDR10", 10}, {"FDR", 14},
    {"EDR", 25},  {"HDR", 50}, {"NDR", 100}, {"XDR", 200},
};
static const unsigned widths[] = {1, 2, 4, 8, 12};

/* Digits at *p into *v (at most max); advances *p. -1 if none or too big. */
static int digits(const char **p, unsigned long max, unsigned long *v)
{
    const char *s = *p;
    unsigned long x = 0;
    if (*s < '0' || *s > '9')
        return -1;
    for (; *s >= '0' && *s <= '9'; s++)
        if ((x = x * 10 + (unsigned long)(*s - '0')) > max)
            return -1;
    *v = x;
    *p = s;
    return 0;
}

/* "4xNDR" -> 400 (Gb/s); 0 if the word is no width x speed; -1 if it is
 * one ("<digits or ??>x<letters or ???>") bnet does not know. */
static double rate_of(const char *w)
{
    const char *p = w;
    unsigned long lanes = 0;
    if (strncmp(p, "??x", 3) == 0)
        return -1;
    if (digits(&p, 99, &lanes) != 0 || *p != 'x' || !p[1])
        return 0;
    const char *sp = p + 1;
    if (sp[strspn(sp, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789?")] != '\0')
        return 0; /* not a speed's shape: some other word */
    bool width_ok = false;
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
        width_ok |= lanes == widths[i];
    for (size_t i = 0; width_ok && i < sizeof speeds / sizeof speeds[0]; i++)
        if (strcmp(sp, speeds[i].name) == 0)
            return (double)lanes * speeds[i].lane_gbps;
    return -1;
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

/* "[N]" at *p, then any "(guid)" and -g's "[ext N]", blanks between;
 * advances *p past them. */
static int bracket(const char **p, uint32_t *n)
{
    const char *s = *p;
    unsigned long v;
    if (*s != '[')
        return -1;
    s++;
    if (digits(&s, 65535, &v) != 0 || *s != ']')
        return -1;
    s++;
    for (;;) {
        const char *t = s + strspn(s, " \t");
        if (*t == '(' && strchr(t, ')'))
            s = strchr(t, ')') + 1;
        else if (strncmp(t, "[ext ", 5) == 0 && strchr(t, ']'))
            s = strchr(t, ']') + 1;
        else
            break;
    }
    *n = (uint32_t)v;
    *p = s;
    return 0;
}

/* The width x speed in the comment after '#': the last word outside the
 * quoted node descriptions that is one (-f's s= w= v= follow it). */
static int comment_rate(const char *s, struct port_rec *rec, const char *path,
                        struct bn_error *err)
{
    const char *hash = strchr(s, '#');
    if (!hash)
        return BN_OK;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", hash + 1);
    for (char *q = strchr(buf, '"'); q; q = strchr(q, '"')) { /* blank out "..." */
        char *e = strchr(q + 1, '"');
        if (!e)
            break;
        memset(q, ' ', (size_t)(e - q + 1));
        q = e + 1;
    }
    char *save = NULL;
    for (char *w = strtok_r(buf, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
        double r = rate_of(w);
        if (r < 0)
            return bn_fail(err, BN_EINPUT, "%s:%u: link width x speed '%s' is not one bnet "
                           "knows (widths 1x 2x 4x 8x 12x; speeds SDR DDR QDR FDR10 FDR EDR "
                           "HDR NDR XDR): give the link's rate as one of them", path,
                           rec->line, w);
        if (r > 0) {
            rec->rate_gbps = r;
            snprintf(rec->rate_word, sizeof rec->rate_word, "%s", w);
        }
    }
    return BN_OK;
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
    int rc = comment_rate(p, &rec, path, err);
    if (rc != BN_OK)
        return rc;
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
    unsigned long nports;
    char id[256];
    p += strspn(p, " \t");
    if (digits(&p, 65535, &nports) != 0 || nports < 1)
        return bn_fail(err, BN_EINPUT, "%s:%u: %s: expected the number of ports after '%.*s'",
                       path, line, sw ? "Switch" : "Ca", sw ? 6 : 2, s);
    if (quoted(&p, id, sizeof id) != 0)
        return bn_fail(err, BN_EINPUT, "%s:%u: %s: expected the node's quoted id (\"S-...\" "
                       "or \"H-...\")", path, line, sw ? "Switch" : "Ca");
    return bn_draft_add_node(&r->blocks, id, sw ? BN_NODE_SWITCH : BN_NODE_HOST, 0, line,
                             &r->cur, err);
}

/* -g's chassis lines: "Chassis 1 (guid 0x...)", "Non-Chassis Nodes",
 * "Hostname: ..." (its section comments start with '#'). */
static bool grouping_line(const char *s)
{
    return strncmp(s, "Chassis ", 8) == 0 || strncmp(s, "Non-Chassis Nodes", 17) == 0 ||
           strncmp(s, "Hostname:", 9) == 0;
}

static int read_line(void *ctx, char *s, unsigned line, struct bn_error *err)
{
    struct reader *r = ctx;
    s += strspn(s, " \t");
    if (*s == '\0' || *s == '\n' || *s == '\r' || *s == '#' || grouping_line(s))
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

/* A link as kept: block and port at each end. */
struct ib_link {
    uint32_t a, pa, b, pb, line;
    double rate_gbps;
};

/* Resolve peers, check both ends agree, keep each link once (from the end
 * with the smaller (block, port), or the only end that lists it). */
static int pair_ends(struct reader *r, struct ib_link *links, uint32_t *nlinks,
                     struct bn_error *err)
{
    const struct bn_draft *b = &r->blocks;
    const char *path = r->d.path;
    for (uint32_t i = 0; i < r->nrecs; i++) {
        struct port_rec *rec = &r->recs[i];
        rec->peer_node = bn_draft_find(b, rec->peer);
        if (rec->peer_node == UINT32_MAX)
            return bn_fail(err, BN_EINPUT, "%s:%u: peer: \"%s\" has no Switch or Ca block",
                           path, rec->line, rec->peer);
    }
    qsort(r->recs, r->nrecs, sizeof *r->recs, cmp_rec);
    *nlinks = 0;
    for (uint32_t i = 0; i < r->nrecs; i++) {
        const struct port_rec *rec = &r->recs[i];
        if (i > 0 && cmp_rec(rec, &r->recs[i - 1]) == 0)
            return bn_fail(err, BN_EINPUT, "%s:%u: port [%u] of \"%s\" is listed twice (also "
                           "line %u)", path, rec->line, rec->port, b->nodes[rec->node].name,
                           r->recs[i - 1].line);
        struct port_rec key = {.node = rec->peer_node, .port = rec->peer_port};
        const struct port_rec *back = bsearch(&key, r->recs, r->nrecs, sizeof *r->recs, cmp_rec);
        if (back && (back->peer_node != rec->node || back->peer_port != rec->port))
            return bn_fail(err, BN_EINPUT, "%s:%u: \"%s\"[%u] is linked to \"%s\"[%u], but line "
                           "%u links that port elsewhere", path, rec->line,
                           b->nodes[rec->node].name, rec->port, rec->peer, rec->peer_port,
                           back->line);
        if (back && cmp_rec(back, rec) < 0)
            continue; /* kept from the other end */
        double rate = rec->rate_gbps;
        if (back && back->rate_gbps > 0 && (rate == 0 || back->rate_gbps < rate))
            rate = back->rate_gbps;
        if (back && back->rate_gbps > 0 && rec->rate_gbps > 0 &&
            back->rate_gbps != rec->rate_gbps)
            bn_warn("%s:%u: \"%s\"[%u] is %s, and its other end (line %u) %s: the link is "
                    "taken at the slower, %g Gb/s", path, rec->line, b->nodes[rec->node].name,
                    rec->port, rec->rate_word, back->line, back->rate_word, rate);
        links[(*nlinks)++] = (struct ib_link){rec->node, rec->port, rec->peer_node,
                                              rec->peer_port, rec->line, rate};
    }
    return BN_OK;
}

/* The built node at block n's port p: the block's own, or its port's host
 * for a CA that has several. */
static uint32_t node_at(struct reader *r, const uint32_t *ports, const uint32_t *base,
                        uint32_t n, uint32_t p)
{
    if (ports[n] <= 1 || r->blocks.nodes[n].kind != BN_NODE_HOST)
        return base[n];
    char name[300];
    snprintf(name, sizeof name, "%s/%u", r->blocks.nodes[n].name, p);
    return bn_draft_find(&r->d, name);
}

/* Declare the built nodes (a CA with k cabled ports: k hosts, warned),
 * then the links at their rates. */
static int make_links(struct reader *r, const struct bn_scenario *sc, struct bn_error *err)
{
    struct bn_draft *d = &r->d, *b = &r->blocks;
    /* checked here, before qsort and bsearch meet an empty (NULL) array */
    if (r->nrecs == 0)
        return bn_fail(err, BN_EINPUT, "%s: no '[port]' lines: not an ibnetdiscover dump of a "
                       "cabled fabric (each Switch or Ca block lists its connected ports)",
                       d->path);
    struct ib_link *links = malloc(r->nrecs * sizeof *links);
    uint32_t *ports = calloc(b->nnodes, sizeof *ports), *base = calloc(b->nnodes, sizeof *base);
    uint32_t nlinks = 0;
    int rc = links && ports && base ? pair_ends(r, links, &nlinks, err)
                                    : bn_fail(err, BN_ENOMEM, "out of memory reading %s", d->path);
    for (uint32_t i = 0; rc == BN_OK && i < nlinks; i++) {
        ports[links[i].a]++;
        ports[links[i].b]++;
    }
    for (uint32_t n = 0; rc == BN_OK && n < b->nnodes; n++) {
        const struct bn_draft_node *bn = &b->nodes[n];
        if (ports[n] <= 1 || bn->kind != BN_NODE_HOST) {
            rc = bn_draft_add_node(d, bn->name, bn->kind, 0, bn->line, &base[n], err);
            continue;
        }
        bn_warn("%s:%u: CA \"%s\" has %u cabled ports: imported as %u hosts, \"%s/<port>\" "
                "(a bnet host is one NIC port)", d->path, bn->line, bn->name, ports[n],
                ports[n], bn->name);
        for (uint32_t i = 0; rc == BN_OK && i < nlinks; i++)
            for (int end = 0; end < 2 && rc == BN_OK; end++) {
                if ((end ? links[i].b : links[i].a) != n)
                    continue;
                char name[300];
                uint32_t idx;
                snprintf(name, sizeof name, "%s/%u", bn->name, end ? links[i].pb : links[i].pa);
                rc = bn_draft_add_node(d, name, BN_NODE_HOST, 0, bn->line, &idx, err);
            }
    }
    const struct bn_scenario_link *lk = &sc->link;
    for (uint32_t i = 0; rc == BN_OK && i < nlinks; i++) {
        const struct ib_link *l = &links[i];
        bool host = b->nodes[l->a].kind == BN_NODE_HOST || b->nodes[l->b].kind == BN_NODE_HOST;
        double rate = l->rate_gbps > 0 ? l->rate_gbps : host ? lk->rate_gbps
                                                             : bn_topo_fabric_rate(sc);
        rc = bn_draft_add_link(d, node_at(r, ports, base, l->a, l->pa),
                               node_at(r, ports, base, l->b, l->pb), rate,
                               host ? lk->host_cable_m : lk->fabric_cable_m,
                               host ? lk->host_cable : lk->fabric_cable, l->line, err);
    }
    free(links);
    free(ports);
    free(base);
    return rc;
}

static int build(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err)
{
    char path[BN_PATH_MAX * 2];
    FILE *f = bn_topo_open_file(sc, path, sizeof path, err);
    if (!f)
        return err->status;
    struct reader r = {.cur = UINT32_MAX};
    bn_draft_init(&r.blocks, path);
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
    bn_draft_free(&r.blocks);
    bn_draft_free(&r.d);
    return rc;
}

const struct bn_topo_builder_ops bn_topo_ibnetdiscover = {
    .name = "ibnetdiscover",
    .summary = "ibnetdiscover output, from topology.file",
    .build = build,
};
