/*
 * topology.kind: file — bnet's plain-text topology format (docs/topologies.md):
 *
 *   # comment; blank lines are skipped
 *   host NAME
 *   switch NAME [tier N]
 *   link A B RATE_GBPS LENGTH_M copper|fiber
 *
 * Nodes are declared before the links that use them; a host has exactly one
 * link, to a switch. A switch's tier is its hop distance from the nearest
 * host; a stated tier is checked against it. Errors are FILE:LINE: field.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/lines.h"
#include "core/num.h"
#include "topo/import.h"

#define MAX_TOK 8

static int split(char *line, char **tok)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    int n = 0;
    for (char *s = strtok(line, " \t\r\n"); s; s = strtok(NULL, " \t\r\n"))
        if (n < MAX_TOK)
            tok[n++] = s;
        else
            return MAX_TOK + 1;
    return n;
}

/* A number; -1 if tok is not one. The caller checks bounds (what strtod
 * overflows or underflows to, inf or 0, falls outside them). */
static int parse_num(const char *tok, double *v)
{
    return bn_num_real(tok, v) ? 0 : -1;
}

static int node_of(struct bn_draft *d, const char *name, uint32_t line, const char *field,
                   uint32_t *idx, struct bn_error *err)
{
    *idx = bn_draft_find(d, name);
    if (*idx == UINT32_MAX)
        return bn_fail(err, BN_EINPUT, "%s:%u: %s: unknown node '%s' (declare it with 'host %s' "
                       "or 'switch %s' before this line)", d->path, line, field, name, name, name);
    return BN_OK;
}

static int parse_link(struct bn_draft *d, char **tok, int n, uint32_t line, struct bn_error *err)
{
    if (n != 6)
        return bn_fail(err, BN_EINPUT, "%s:%u: link: expected 'link A B RATE_GBPS LENGTH_M "
                       "copper|fiber' (got %d fields)", d->path, line, n);
    uint32_t a, b;
    double rate, len;
    int rc = node_of(d, tok[1], line, "link endpoint A", &a, err);
    if (rc == BN_OK)
        rc = node_of(d, tok[2], line, "link endpoint B", &b, err);
    if (rc != BN_OK)
        return rc;
    /* the bounds of link.rate_gbps and the cable-length keys */
    if (parse_num(tok[3], &rate) != 0)
        return bn_fail(err, BN_EINPUT, "%s:%u: link RATE_GBPS: '%s' is not a rate in Gb/s",
                       d->path, line, tok[3]);
    if (!(rate >= BN_DRAFT_RATE_MIN_GBPS && rate <= BN_DRAFT_RATE_MAX_GBPS))
        return bn_fail(err, BN_EINPUT, "%s:%u: link RATE_GBPS: '%s' is out of range (expected "
                       "%g..%g Gb/s, as link.rate_gbps)", d->path, line, tok[3],
                       BN_DRAFT_RATE_MIN_GBPS, BN_DRAFT_RATE_MAX_GBPS);
    if (parse_num(tok[4], &len) != 0)
        return bn_fail(err, BN_EINPUT, "%s:%u: link LENGTH_M: '%s' is not a length in metres",
                       d->path, line, tok[4]);
    if (!(len >= 0 && len <= BN_DRAFT_LENGTH_MAX_M))
        return bn_fail(err, BN_EINPUT, "%s:%u: link LENGTH_M: '%s' is out of range (expected "
                       "0..%g m, as link.host_cable_m)", d->path, line, tok[4],
                       BN_DRAFT_LENGTH_MAX_M);
    if (strcmp(tok[5], "copper") != 0 && strcmp(tok[5], "fiber") != 0)
        return bn_fail(err, BN_EINPUT, "%s:%u: link cable: '%s' is not copper or fiber",
                       d->path, line, tok[5]);
    return bn_draft_add_link(d, a, b, rate, len, bn_topo_cable_kind(tok[5]), line, err);
}

/* The keys that open htsim's fat-tree configuration file (FatTreeTopology
 * reads them in any case): also named ".topo", but not ours. */
static bool htsim_key(const char *tok)
{
    static const char *const keys[] = {"Nodes", "Tiers", "Podsize", "Tier"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcasecmp(tok, keys[i]) == 0)
            return true;
    return false;
}

static int parse_line(void *ctx, char *text, unsigned line, struct bn_error *err)
{
    struct bn_draft *d = ctx;
    char *tok[MAX_TOK];
    int n = split(text, tok);
    uint32_t idx;
    if (n == 0)
        return BN_OK;
    if (n > MAX_TOK)
        return bn_fail(err, BN_EINPUT, "%s:%u: too many fields", d->path, line);
    if (strcmp(tok[0], "host") == 0) {
        if (n != 2)
            return bn_fail(err, BN_EINPUT, "%s:%u: host: expected 'host NAME'", d->path, line);
        return bn_draft_add_node(d, tok[1], BN_NODE_HOST, 0, line, &idx, err);
    }
    if (strcmp(tok[0], "switch") == 0) {
        double tier = 0;
        if (n != 2 && n != 4)
            return bn_fail(err, BN_EINPUT, "%s:%u: switch: expected 'switch NAME [tier N]'",
                           d->path, line);
        if (n == 4 && (strcmp(tok[2], "tier") != 0 || parse_num(tok[3], &tier) != 0 ||
                       !(tier >= 1 && tier <= BN_MAX_TIERS) || tier != (int)tier))
            return bn_fail(err, BN_EINPUT, "%s:%u: switch tier: expected 'tier N' with N in "
                           "1..%d (got '%s %s')", d->path, line, BN_MAX_TIERS, tok[2], tok[3]);
        return bn_draft_add_node(d, tok[1], BN_NODE_SWITCH, (uint8_t)tier, line, &idx, err);
    }
    if (strcmp(tok[0], "link") == 0)
        return parse_link(d, tok, n, line, err);
    if (strcmp(tok[0], "topology:") == 0 || strcmp(tok[0], "npus_count:") == 0)
        return bn_fail(err, BN_EINPUT, "%s:%u: '%s' opens an ASTRA-sim analytical network "
                       "configuration (topology, npus_count, bandwidth, latency per "
                       "dimension; its examples/network/analytical/*.yml): bnet does not read "
                       "it; state the fabric as topology.kind or as host, switch and link lines",
                       d->path, line, tok[0]);
    if (htsim_key(tok[0]))
        return bn_fail(err, BN_EINPUT, "%s:%u: '%s' opens htsim's fat-tree description (Nodes, "
                       "Tiers, Podsize and Tier blocks, htsim's -topo, as ASTRA-sim's htsim "
                       "examples use): bnet does not read it; state the fabric as "
                       "topology.kind=fat_tree or as host, switch and link lines",
                       d->path, line, tok[0]);
    return bn_fail(err, BN_EINPUT, "%s:%u: unknown statement '%s' (expected host, switch or "
                   "link)", d->path, line, tok[0]);
}

static int build(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err)
{
    char path[BN_PATH_MAX * 2];
    FILE *f = bn_topo_open_file(sc, path, sizeof path, err);
    if (!f)
        return err->status;
    struct bn_draft d;
    bn_draft_init(&d, path);
    int rc = bn_each_line(f, path, parse_line, &d, NULL, err);
    fclose(f);
    if (rc == BN_OK)
        rc = bn_draft_to_topo(&d, t, err);
    bn_draft_free(&d);
    return rc;
}

const struct bn_topo_builder_ops bn_topo_file = {
    .name = "file",
    .summary = "bnet's text format, from topology.file",
    .build = build,
};
