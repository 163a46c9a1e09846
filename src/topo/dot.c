/*
 * The fabric graph as Graphviz DOT (`bnet topo --dot`): an undirected graph,
 * one node per host and switch, one edge per link (parallel links repeat),
 * tiers on ranks from hosts up, fiber links dashed, each edge's rate, medium
 * and length in its tooltip. Render with `dot -Tsvg`.
 */
#include <stdio.h>

#include "topo/topo.h"

static void quoted_name(FILE *f, const struct bn_topo *t, uint32_t node)
{
    char name[128];
    bn_topo_node_name(t, node, name, sizeof name);
    fputc('"', f);
    for (const char *c = name; *c; c++) {
        if (*c == '"' || *c == '\\')
            fputc('\\', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

int bn_topo_write_dot(const struct bn_topo *t, FILE *f)
{
    fprintf(f, "graph bnet {\n  // %s: %u hosts, %u switches, %u links\n", t->kind, t->nhosts,
            t->nswitches, t->nports / 2);
    fputs("  rankdir=BT;\n  node [shape=box, fontsize=10];\n", f);
    for (uint32_t tier = 0; tier <= t->ntiers; tier++) {
        fprintf(f, "  { rank=same; // tier %u\n", tier);
        for (uint32_t n = 0; n < t->nnodes; n++) {
            if (t->nodes[n].tier != tier)
                continue;
            fputs("    ", f);
            quoted_name(f, t, n);
            fputs(t->nodes[n].kind == BN_NODE_HOST ? " [shape=ellipse];\n" : ";\n", f);
        }
        fputs("  }\n", f);
    }
    for (uint32_t p = 0; p < t->nports; p++) {
        const struct bn_topo_port *tp = &t->ports[p];
        if (tp->peer < p)
            continue; /* each link once */
        fputs("  ", f);
        quoted_name(f, t, tp->node);
        fputs(" -- ", f);
        quoted_name(f, t, t->ports[tp->peer].node);
        fprintf(f, " [tooltip=\"%g Gb/s %s %g m\"%s];\n", tp->rate_gbps,
                tp->cable == BN_CABLE_COPPER ? "copper" : "fiber", tp->length_m,
                tp->cable == BN_CABLE_COPPER ? "" : ", style=dashed");
    }
    fputs("}\n", f);
    return ferror(f) ? -1 : 0;
}
