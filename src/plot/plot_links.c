/*
 * The link series as heatmaps: a row per link (or run of links) grouped by
 * tier pair, a column per sample, colour = the fraction of that interval
 * the links were busy (utilization) or held by PFC pauses (pause timeline).
 */
#include <stdlib.h>
#include <string.h>

#include "plot/figure.h"
#include "plot/plots.h"

/* Tics at the middle of each tier pair's rows, lines between pairs. */
static void tier_tics(struct doc *d, FILE *f, json_t *links)
{
    size_t n = json_array_size(links);
    fputs("set ytics (", f);
    bool first = true;
    for (size_t s = 0, e; s < n; s = e) {
        json_t *a = json_array_get(links, s);
        const char *from = doc_str(d, a, "from"), *to = doc_str(d, a, "to");
        for (e = s + 1; e < n; e++) {
            json_t *b = json_array_get(links, e);
            if (strcmp(doc_str(d, b, "from"), from) || strcmp(doc_str(d, b, "to"), to))
                break;
        }
        char label[160];
        snprintf(label, sizeof label, "%s>%s", from, to);
        fputs(first ? "" : ", ", f);
        fig_quote(f, label);
        fprintf(f, " %.1f", (double)(s + e - 1) / 2);
        first = false;
    }
    fputs(")\n", f);
    for (size_t s = 1; s < n; s++) {
        json_t *a = json_array_get(links, s - 1), *b = json_array_get(links, s);
        if (strcmp(doc_str(d, a, "from"), doc_str(d, b, "from")) ||
            strcmp(doc_str(d, a, "to"), doc_str(d, b, "to")))
            fprintf(f, "set arrow from graph 0, first %.1f to graph 1, first %.1f nohead front "
                    "lc rgb '#404040'\n", s - 0.5, s - 0.5);
    }
}

static int heatmap(struct doc *d, const char *dir, const char *name, const char *title,
                   const char *key, const char *cblabel, json_t *t, json_t *links, FILE *log)
{
    struct fig g;
    int rc = fig_open(&g, dir, name, title, 1000, 600);
    if (rc)
        return rc;
    size_t ns = json_array_size(t), nl = json_array_size(links);
    json_t **col = malloc((nl + 1) * sizeof *col);
    if (!col) {
        fig_abandon(&g);
        fprintf(stderr, "bnet: out of memory\n");
        return 1;
    }
    for (size_t l = 0; l < nl; l++)
        col[l] = doc_get(d, json_array_get(links, l), key, JSON_ARRAY);
    fputs("$M << EOD\n", g.f);
    for (size_t k = 0; k < ns && doc_ok(d); k++) {
        double tk = doc_at(d, t, k, "series.t_us");
        for (size_t l = 0; l < nl && doc_ok(d); l++)
            fprintf(g.f, "%.10g %zu %.6g\n", tk, l, doc_at(d, col[l], k, key));
        fputc('\n', g.f);
    }
    fputs("EOD\n", g.f);
    tier_tics(d, g.f, links);
    fprintf(g.f, "set xlabel 'simulated time (us); each column the interval before it'\n"
            "set ylabel 'links, by tier pair (%zu rows)'\nset cblabel '%s'\nset cbrange [0:1]\n"
            "set palette defined (0 '#ffffff', 0.25 '#fee08b', 0.6 '#f46d43', 1 '#67001f')\n"
            "set autoscale xfix\nset autoscale yfix\nset grid noxtics noytics\nunset key\n"
            "plot $M using 1:2:3 with image title '%s'\n", nl, cblabel, key);
    free(col);
    return fig_end(&g, doc_ok(d), log);
}

int plot_run_links(struct doc *d, const char *dir, FILE *log)
{
    json_t *sr = doc_get(d, d->root, "series", JSON_OBJECT);
    json_t *t = doc_get(d, sr, "t_us", JSON_ARRAY);
    json_t *links = json_object_get(sr, "links"); /* absent in results of bnet 0.1.0 */
    if (!doc_ok(d))
        return 2;
    if (json_array_size(t) < 2 || json_array_size(links) == 0) {
        fprintf(log, "plot: no link heatmaps: no link series (observe.link_rows or "
                "observe.sample_us 0, or a flow-level run)\n");
        return 0;
    }
    int rc = heatmap(d, dir, "links-utilization", "Link utilization over time", "utilization",
                     "busy fraction", t, links, log);
    if (rc == 0)
        rc = heatmap(d, dir, "links-pause", "PFC pause timeline", "paused_fraction",
                     "paused fraction", t, links, log);
    return rc;
}
