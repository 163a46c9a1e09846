/*
 * The fabric as a layered drawing: nodes in rows by tier (hosts at the
 * bottom), every listed port a line coloured by its utilization, the
 * busiest HOT ports drawn thick and labelled. Nodes and tiers come from the
 * results' `ports` (name "node/index", peer, tier, peer_tier).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot/figure.h"
#include "plot/plots.h"

#define HOT 8

struct node {
    char name[80];
    int tier;
    size_t index;  /* position within its tier */
};

/* "host10" after "host9": runs of digits compare as numbers. */
static int natural(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            char *ea, *eb;
            unsigned long long x = strtoull(a, &ea, 10), y = strtoull(b, &eb, 10);
            if (x != y)
                return x < y ? -1 : 1;
            a = ea;
            b = eb;
        } else if (*a != *b) {
            return (unsigned char)*a - (unsigned char)*b;
        } else {
            a++;
            b++;
        }
    }
    return (unsigned char)*a - (unsigned char)*b;
}

static int by_name(const void *a, const void *b)
{
    return natural(((const struct node *)a)->name, ((const struct node *)b)->name);
}

static struct node *find(struct node *nodes, size_t n, const char *name)
{
    struct node key;
    snprintf(key.name, sizeof key.name, "%s", name);
    return bsearch(&key, nodes, n, sizeof *nodes, by_name);
}

struct seg {
    double x, y, dx, dy, util;
    const char *name;
};

static int by_util(const void *a, const void *b)
{
    double x = ((const struct seg *)a)->util, y = ((const struct seg *)b)->util;
    return (x > y) - (x < y);
}

/* Every node the listed ports name, sorted and unique, with its tier. */
static size_t collect_nodes(struct doc *d, json_t *ports, struct node *nodes)
{
    size_t n = 0, i;
    json_t *p;
    json_array_foreach(ports, i, p) {
        int tier = (int)doc_num(d, p, "tier"), peer_tier = (int)doc_num(d, p, "peer_tier");
        if (tier < 0 || peer_tier < 0)
            continue;
        const char *name = doc_str(d, p, "name"), *slash = strrchr(name, '/');
        snprintf(nodes[n].name, sizeof nodes[n].name, "%.*s",
                 (int)(slash ? slash - name : (long)strlen(name)), name);
        nodes[n++].tier = tier;
        snprintf(nodes[n].name, sizeof nodes[n].name, "%s", doc_str(d, p, "peer"));
        nodes[n++].tier = peer_tier;
    }
    qsort(nodes, n, sizeof *nodes, by_name);
    size_t u = 0;
    for (i = 0; i < n; i++)
        if (u == 0 || natural(nodes[u - 1].name, nodes[i].name) != 0)
            nodes[u++] = nodes[i];
    return u;
}

static void tier_labels(struct doc *d, FILE *f, int tiers)
{
    json_t *per = json_object_get(json_object_get(d->root, "topology"), "switches_per_tier");
    const char *key;
    json_t *v;
    int t = 1;
    fputs("set ytics ('host' 0", f);
    json_object_foreach(per, key, v) {
        fprintf(f, ", ");
        fig_quote(f, key);
        fprintf(f, " %d", t++);
    }
    for (; t <= tiers; t++)
        fprintf(f, ", 'tier %d' %d", t, t);
    fputs(")\n", f);
}

static int draw(struct doc *d, const char *dir, json_t *ports, struct node *nodes, size_t nn,
                struct seg *segs, FILE *log)
{
    size_t count[16] = {0}, i, ns = 0;
    int tiers = 0;
    for (i = 0; i < nn; i++) {
        int t = nodes[i].tier < 15 ? nodes[i].tier : 15;
        nodes[i].index = count[t]++;
        tiers = t > tiers ? t : tiers;
    }
    json_t *p;
    json_array_foreach(ports, i, p) {
        if (doc_num(d, p, "tier") < 0 || doc_num(d, p, "peer_tier") < 0)
            continue;
        const char *name = doc_str(d, p, "name"), *slash = strrchr(name, '/');
        char own[80];
        snprintf(own, sizeof own, "%.*s", (int)(slash ? slash - name : (long)strlen(name)), name);
        struct node *a = find(nodes, nn, own), *b = find(nodes, nn, doc_str(d, p, "peer"));
        if (!a || !b)
            continue;
        double xa = (a->index + 0.5) / (double)count[a->tier < 15 ? a->tier : 15];
        double xb = (b->index + 0.5) / (double)count[b->tier < 15 ? b->tier : 15];
        segs[ns++] = (struct seg){xa, a->tier, xb - xa, b->tier - a->tier,
                                  doc_num(d, p, "utilization"), name};
    }
    qsort(segs, ns, sizeof *segs, by_util);
    struct fig g;
    int rc = fig_open(&g, dir, "topology", "Fabric links by utilization (busiest labelled)",
                      1100, 650);
    if (rc)
        return rc;
    fputs("$L << EOD\n", g.f);
    for (i = 0; i < ns; i++)
        fprintf(g.f, "%.6f %.0f %.6f %.0f %.6g\n", segs[i].x, segs[i].y, segs[i].dx, segs[i].dy,
                segs[i].util);
    fputs("EOD\n$H << EOD\n", g.f);
    for (i = ns > HOT ? ns - HOT : 0; i < ns; i++) {
        /* labels spread along their links, so that links sharing a node
         * do not stack them on one spot */
        double at = 0.2 + 0.6 * (double)(i % HOT) / HOT;
        fprintf(g.f, "%.6f %.0f %.6f %.0f %.6g %.6f %.6f ", segs[i].x, segs[i].y, segs[i].dx,
                segs[i].dy, segs[i].util, segs[i].x + at * segs[i].dx,
                segs[i].y + at * segs[i].dy);
        char label[128];
        snprintf(label, sizeof label, "%s %.0f%%", segs[i].name, 100 * segs[i].util);
        for (char *c = label; *c; c++)
            *c = *c == '"' ? '\'' : *c;
        fprintf(g.f, "\"%s\"\n", label);
    }
    fputs("EOD\n$N << EOD\n", g.f);
    for (i = 0; i < nn; i++) {
        int t = nodes[i].tier < 15 ? nodes[i].tier : 15;
        fprintf(g.f, "%.6f %d\n", (nodes[i].index + 0.5) / (double)count[t], nodes[i].tier);
    }
    fputs("EOD\n", g.f);
    tier_labels(d, g.f, tiers);
    fprintf(g.f, "set xrange [0:1]\nset yrange [-0.3:%d.3]\nunset xtics\nset grid noxtics "
            "noytics\nset cbrange [0:1]\nset cblabel 'utilization'\n"
            "set palette defined (0 '#d9d9d9', 0.5 '#fdae61', 1 '#a50026')\nunset key\n"
            "plot $L using 1:2:3:4:5 with vectors nohead lw 1 lc palette title 'links', "
            "$H using 1:2:3:4:5 with vectors nohead lw 4 lc palette title 'busiest', "
            "$H using 6:7:8 with labels font ',9' left offset 0.5,0 title 'labels', "
            "$N using 1:2 with points pt 7 ps 0.5 lc rgb '#202020' title 'nodes'\n", tiers);
    return fig_end(&g, doc_ok(d), log);
}

int plot_run_topology(struct doc *d, const char *dir, FILE *log)
{
    json_t *ports = doc_get(d, d->root, "ports", JSON_ARRAY);
    if (!ports)
        return 2;
    json_t *first = json_array_get(ports, 0);
    if (!first || !json_object_get(first, "tier")) {
        fprintf(log, "plot: no topology figure: %s\n",
                first ? "its ports carry no tiers (results of bnet 0.1.0)"
                      : "no ports listed");
        return 0;
    }
    size_t n = json_array_size(ports), i;
    json_t *p;
    double busiest = 0;
    json_array_foreach(ports, i, p)
        busiest = fmax(busiest, json_number_value(json_object_get(p, "utilization")));
    if (busiest == 0) {
        fprintf(log, "plot: no topology figure: no port was busy (a flow-level run keeps no "
                "port utilization)\n");
        return 0;
    }
    struct node *nodes = malloc((2 * n + 1) * sizeof *nodes);
    struct seg *segs = malloc((n + 1) * sizeof *segs);
    int rc = 1;
    if (nodes && segs) {
        size_t nn = collect_nodes(d, ports, nodes);
        rc = doc_ok(d) ? draw(d, dir, ports, nodes, nn, segs, log) : 2;
    } else {
        fprintf(stderr, "bnet: out of memory\n");
    }
    free(nodes);
    free(segs);
    return rc;
}
