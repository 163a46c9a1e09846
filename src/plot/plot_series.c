/*
 * A run's time series: each followed flow's sending rate and alpha (DCQCN, DCTCP),
 * and the observed ports' queue depth, against simulated time. At most
 * MAX_LINES lines a figure (the first followed flows), so it stays legible.
 */
#include <stdbool.h>

#include "plot/figure.h"
#include "plot/plots.h"

#define MAX_LINES 16

/* One figure of items[i][key][k] against t[k]; `label` names item i.
 * `scale` converts the values (bytes to KiB). */
static int lines(struct doc *d, const char *dir, const char *name, const char *title,
                 const char *ylabel, json_t *t, json_t *items, const char *key, double scale,
                 FILE *log)
{
    struct fig g;
    int rc = fig_open(&g, dir, name, title, 900, 500);
    if (rc)
        return rc;
    size_t n = json_array_size(items) < MAX_LINES ? json_array_size(items) : MAX_LINES;
    size_t ns = json_array_size(t);
    double top = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *v = doc_get(d, json_array_get(items, i), key, JSON_ARRAY);
        fprintf(g.f, "$S%zu << EOD\n", i);
        for (size_t k = 0; v && k < ns; k++) {
            double y = doc_at(d, v, k, key) * scale;
            top = y > top ? y : top;
            fprintf(g.f, "%.10g %.10g\n", doc_at(d, t, k, "series.t_us"), y);
        }
        fputs("EOD\n", g.f);
    }
    /* from 0; an all-zero series gets a range gnuplot need not widen */
    fprintf(g.f, "set xlabel 'simulated time (us)'\nset ylabel '%s'\nset yrange [0:%s]\nplot ",
            ylabel, top > 0 ? "*" : "1");
    for (size_t i = 0; i < n; i++) {
        json_t *it = json_array_get(items, i);
        char label[128];
        if (json_object_get(it, "port"))
            snprintf(label, sizeof label, "%s", doc_str(d, it, "port"));
        else
            snprintf(label, sizeof label, "flow %.0f: %.0f>%.0f", doc_num(d, it, "flow"),
                     doc_num(d, it, "src"), doc_num(d, it, "dst"));
        fprintf(g.f, "%s$S%zu using 1:2 with lines lw 1.5 title ", i ? ", " : "", i);
        fig_quote(g.f, label);
    }
    fputc('\n', g.f);
    return fig_end(&g, doc_ok(d), log);
}

/* Whether any flow's `key` series holds a value other than 0. */
static bool any_nonzero(json_t *items, const char *key)
{
    size_t i, k;
    json_t *it, *v;
    json_array_foreach(items, i, it)
        json_array_foreach(json_object_get(it, key), k, v)
            if (json_is_number(v) && json_number_value(v) != 0)
                return true;
    return false;
}

int plot_run_series(struct doc *d, const char *dir, FILE *log)
{
    json_t *sr = doc_get(d, d->root, "series", JSON_OBJECT);
    json_t *t = doc_get(d, sr, "t_us", JSON_ARRAY);
    json_t *flows = doc_get(d, sr, "flows", JSON_ARRAY);
    json_t *queues = doc_get(d, sr, "queues", JSON_ARRAY);
    if (!doc_ok(d))
        return 2;
    if (json_array_size(t) < 2) {
        fprintf(log, "plot: no time series (observe.sample_us 0, or the run ended before a "
                "second sample)\n");
        return 0;
    }
    int rc = 0;
    if (json_array_size(flows))
        rc = lines(d, dir, "series-rate", "Sending rate of the followed flows",
                   "rate (Gb/s)", t, flows, "rate_gbps", 1, log);
    if (rc == 0 && any_nonzero(flows, "alpha"))
        rc = lines(d, dir, "series-alpha", "Congestion estimate (alpha) of the followed flows",
                   "alpha", t, flows, "alpha", 1, log);
    else if (rc == 0)
        fprintf(log, "plot: no alpha figure: every alpha is 0 (not DCQCN, or no CNP)\n");
    if (rc == 0 && json_array_size(queues))
        rc = lines(d, dir, "series-queues", "Output queue depth of the observed ports",
                   "queue (KiB)", t, queues, "bytes", 1.0 / 1024, log);
    return rc;
}
