/*
 * topology.kind: ns3 — the topology text of HPCC's ns-3 simulation
 * (alibaba-edu/High-Precision-Congestion-Control, simulation/mix/topology.txt),
 * which ASTRA-sim's ns-3 backend and SimAI read too:
 *
 *   NODES SWITCHES LINKS
 *   SWITCH_ID SWITCH_ID ...              (SWITCHES node ids)
 *   SRC DST RATE DELAY ERROR_RATE        (LINKS lines: 100Gbps 0.001ms 0)
 *
 * Node ids run 0..NODES-1; the ones not listed as switches are hosts,
 * numbered in the order of their ids. The topology keeps the ids
 * (bn_topo.file_host), so HPCC's flow.txt, which names ns-3 node ids,
 * lands on the right hosts wherever the switches are numbered. As ns-3
 * (HPCC's scratch/third.cc) reads the file, only the LINKS lines the
 * header declares are read; what follows them (HPCC's own file has more
 * links and a note on the format) is ignored, with a warning. RATE is an ns-3 data rate
 * (bps, Kbps, Mbps, Gbps, Tbps); DELAY an ns-3 time (s, ms, us, ns, ps),
 * laid as fiber of the length whose propagation it is (link.fiber_ns_per_m);
 * bnet adds its switch latency (switch.latency_ns: 0 matches ns-3's).
 * A non-zero ERROR_RATE is refused: the model's bit errors are a fault
 * (link_ber). Errors are FILE:LINE naming the field.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/lines.h"
#include "core/num.h"
#include "core/warn.h"
#include "topo/import.h"

enum { HEADER, SWITCHES, LINKS, DONE };

/* A link as read; the draft gets them once the file is whole. */
struct ns3_link {
    uint32_t a, b, line;
    double gbps, len_m;
};

struct ns3 {
    struct bn_draft d;
    const struct bn_scenario *sc;
    int part;
    uint64_t nodes, nswitches, nlinks, links_read;
    unsigned header_line, ignored_line; /* the first line past the links (0: none) */
    uint8_t *is_switch;
    struct ns3_link *links;
    uint32_t links_cap;
};

static bool whole(const char *tok, uint64_t max, uint64_t *v)
{
    return bn_num_u64(tok, max, v);
}

/* A number then a unit from `units` (scales[i] each); false if not one. */
static bool with_unit(const char *tok, const char *const *units, const double *scales, double *v)
{
    const char *end;
    double x;
    if (!bn_num_real_prefix(tok, &x, &end) || !(x >= 0))
        return false;
    for (size_t i = 0; units[i]; i++)
        if (strcmp(end, units[i]) == 0) {
            *v = x * scales[i];
            return true;
        }
    return false;
}

static int header(struct ns3 *x, char **tok, int n, unsigned line, struct bn_error *err)
{
    uint64_t v[3];
    if (n != 3 || !whole(tok[0], 1u << 24, &v[0]) || !whole(tok[1], v[0], &v[1]) ||
        !whole(tok[2], 1u << 26, &v[2]))
        return bn_fail(err, BN_EINPUT, "%s:%u: expected 'NODES SWITCHES LINKS' (switches at most "
                       "the nodes)", x->d.path, line);
    x->nodes = v[0], x->nswitches = v[1], x->nlinks = v[2];
    x->header_line = line;
    if (x->nodes - x->nswitches > x->nlinks) /* every host has its link */
        return bn_fail(err, BN_EINPUT, "%s:%u: %llu hosts need as many links, and LINKS is %llu",
                       x->d.path, line, (unsigned long long)(x->nodes - x->nswitches),
                       (unsigned long long)x->nlinks);
    x->is_switch = calloc(x->nodes + 1, 1);
    if (!x->is_switch)
        return bn_fail(err, BN_ENOMEM, "out of memory reading %s", x->d.path);
    x->part = SWITCHES;
    return BN_OK;
}

/* The file is whole: every node in id order (hosts numbered as ns-3
 * numbers them), then the links. Nothing is declared before, so a header
 * promising millions of nodes costs nothing until its lines are there. */
static int declare(struct ns3 *x, unsigned line, struct bn_error *err)
{
    int rc = BN_OK;
    for (uint64_t id = 0; id < x->nodes && rc == BN_OK; id++) {
        char name[24];
        uint32_t idx;
        snprintf(name, sizeof name, "%llu", (unsigned long long)id);
        rc = bn_draft_add_node(&x->d, name, x->is_switch[id] ? BN_NODE_SWITCH : BN_NODE_HOST, 0,
                               line, &idx, err);
    }
    for (uint64_t i = 0; i < x->links_read && rc == BN_OK; i++) {
        const struct ns3_link *l = &x->links[i];
        rc = bn_draft_add_link(&x->d, l->a, l->b, l->gbps, l->len_m, BN_CABLE_FIBER, l->line,
                               err);
    }
    return rc;
}

static int switches(struct ns3 *x, char **tok, int n, unsigned line, struct bn_error *err)
{
    if ((uint64_t)n != x->nswitches)
        return bn_fail(err, BN_EINPUT, "%s:%u: expected the %llu switch ids on one line, got %d",
                       x->d.path, line, (unsigned long long)x->nswitches, n);
    for (int i = 0; i < n; i++) {
        uint64_t id;
        if (!whole(tok[i], x->nodes - 1, &id))
            return bn_fail(err, BN_EINPUT, "%s:%u: switch id '%s' is not a node (0..%llu)",
                           x->d.path, line, tok[i], (unsigned long long)x->nodes - 1);
        if (x->is_switch[id])
            return bn_fail(err, BN_EINPUT, "%s:%u: switch id %llu is listed twice", x->d.path,
                           line, (unsigned long long)id);
        x->is_switch[id] = 1;
    }
    x->part = x->nlinks ? LINKS : DONE;
    return BN_OK;
}

static int link_line(struct ns3 *x, char **tok, int n, unsigned line, struct bn_error *err)
{
    static const char *const rates[] = {"bps", "Kbps", "Mbps", "Gbps", "Tbps", NULL};
    static const double gbps[] = {1e-9, 1e-6, 1e-3, 1, 1e3};
    static const char *const times[] = {"s", "ms", "us", "ns", "ps", NULL};
    static const double ns[] = {1e9, 1e6, 1e3, 1, 1e-3};
    if (n != 5)
        return bn_fail(err, BN_EINPUT, "%s:%u: expected 'SRC DST RATE DELAY ERROR_RATE' (got %d "
                       "fields)", x->d.path, line, n);
    uint64_t a, b;
    double rate, delay, errs;
    for (int i = 0; i < 2; i++)
        if (!whole(tok[i], x->nodes - 1, i ? &b : &a))
            return bn_fail(err, BN_EINPUT, "%s:%u: %s '%s' is not a node (0..%llu)", x->d.path,
                           line, i ? "DST" : "SRC", tok[i], (unsigned long long)x->nodes - 1);
    if (!with_unit(tok[2], rates, gbps, &rate) || rate < BN_DRAFT_RATE_MIN_GBPS ||
        rate > BN_DRAFT_RATE_MAX_GBPS)
        return bn_fail(err, BN_EINPUT, "%s:%u: RATE '%s' is not a data rate such as 100Gbps "
                       "(%g..%g Gb/s)", x->d.path, line, tok[2], BN_DRAFT_RATE_MIN_GBPS,
                       BN_DRAFT_RATE_MAX_GBPS);
    if (!with_unit(tok[3], times, ns, &delay))
        return bn_fail(err, BN_EINPUT, "%s:%u: DELAY '%s' is not a time such as 0.001ms", x->d.path,
                       line, tok[3]);
    if (!bn_num_real(tok[4], &errs) || !(errs >= 0 && errs <= 1))
        return bn_fail(err, BN_EINPUT, "%s:%u: ERROR_RATE '%s' is not a probability", x->d.path,
                       line, tok[4]);
    if (errs > 0)
        return bn_fail(err, BN_EINPUT, "%s:%u: ERROR_RATE %s: random loss is a fault in bnet "
                       "(faults: kind link_ber), not part of the topology", x->d.path, line,
                       tok[4]);
    if (!bn_grow((void **)&x->links, (uint32_t)x->links_read, &x->links_cap, sizeof *x->links))
        return bn_fail(err, BN_ENOMEM, "out of memory reading %s", x->d.path);
    x->links[x->links_read++] = (struct ns3_link){(uint32_t)a, (uint32_t)b, line, rate,
                                                  delay / x->sc->link.fiber_ns_per_m};
    if (x->links_read == x->nlinks)
        x->part = DONE;
    return BN_OK;
}

static int read_line(void *ctx, char *text, unsigned line, struct bn_error *err)
{
    struct ns3 *x = ctx;
    char *hash = strchr(text, '#'), *save = NULL, **tok = NULL;
    if (hash)
        *hash = '\0';
    int n = 0, cap = 0, rc = BN_OK;
    for (char *t = strtok_r(text, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == cap) {
            char **g = realloc(tok, (size_t)(cap = cap ? 2 * cap : 8) * sizeof *g);
            if (!g) {
                free(tok);
                return bn_fail(err, BN_ENOMEM, "out of memory reading %s", x->d.path);
            }
            tok = g;
        }
        tok[n++] = t;
    }
    if (n > 0 && x->part == DONE) {
        if (!x->ignored_line)
            x->ignored_line = line;
    } else if (n > 0)
        rc = x->part == HEADER   ? header(x, tok, n, line, err)
             : x->part == SWITCHES ? switches(x, tok, n, line, err)
                                   : link_line(x, tok, n, line, err);
    free(tok);
    return rc;
}

/* ns-3's node ids to bnet's hosts, for flow files that name nodes by id. */
static int keep_ids(struct ns3 *x, struct bn_topo *t, struct bn_error *err)
{
    t->file_host = malloc(x->nodes * sizeof *t->file_host);
    if (!t->file_host)
        return bn_fail(err, BN_ENOMEM, "out of memory reading %s", x->d.path);
    t->nfile_ids = (uint32_t)x->nodes;
    for (uint64_t id = 0; id < x->nodes; id++)
        t->file_host[id] = x->d.nodes[id].kind == BN_NODE_HOST ? x->d.nodes[id].id : UINT32_MAX;
    return BN_OK;
}

static int build(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err)
{
    char path[BN_PATH_MAX * 2];
    FILE *f = bn_topo_open_file(sc, path, sizeof path, err);
    if (!f)
        return err->status;
    struct ns3 x = {.sc = sc};
    bn_draft_init(&x.d, path);
    unsigned lines;
    int rc = bn_each_line(f, path, read_line, &x, &lines, err);
    fclose(f);
    if (rc == BN_OK && x.part == SWITCHES && x.nswitches == 0)
        x.part = x.nlinks ? LINKS : DONE;
    if (rc == BN_OK && x.part < LINKS)
        rc = bn_fail(err, BN_EINPUT, "%s:%u: the file ends before its %s", path, lines,
                     x.part == HEADER ? "'NODES SWITCHES LINKS' line" : "switch ids");
    if (rc == BN_OK && x.links_read != x.nlinks)
        rc = bn_fail(err, BN_EINPUT, "%s:%u: %llu links declared, %llu given", path,
                     x.header_line, (unsigned long long)x.nlinks,
                     (unsigned long long)x.links_read);
    if (rc == BN_OK)
        rc = declare(&x, x.header_line, err);
    if (rc == BN_OK)
        rc = bn_draft_to_topo(&x.d, t, err);
    if (rc == BN_OK)
        rc = keep_ids(&x, t, err);
    if (rc == BN_OK && x.ignored_line)
        bn_warn("%s:%u: ignored from here on: the first line declares %llu links, and ns-3 "
                "reads no further", path, x.ignored_line, (unsigned long long)x.nlinks);
    bn_draft_free(&x.d);
    free(x.is_switch);
    free(x.links);
    return rc;
}

const struct bn_topo_builder_ops bn_topo_ns3 = {
    .name = "ns3",
    .summary = "ns-3 text of HPCC/ASTRA-sim/SimAI, from topology.file",
    .build = build,
};
