/* Per-flow throughput and completion-time CDFs of a run's finished flows,
 * and their FCT slowdown by flow size. */
#include <stdlib.h>

#include "plot/figure.h"
#include "plot/plots.h"

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The empirical CDF of v[0..n) as figure `name`. */
static int cdf(const char *dir, const char *name, const char *title, const char *xlabel,
               double *v, size_t n, FILE *log)
{
    struct fig g;
    int rc = fig_open(&g, dir, name, title, 800, 500);
    if (rc)
        return rc;
    qsort(v, n, sizeof *v, by_value);
    fputs("$CDF << EOD\n", g.f);
    for (size_t i = 0; i < n; i++)
        fprintf(g.f, "%.10g %.10g\n", v[i], (double)(i + 1) / (double)n);
    fprintf(g.f, "EOD\nset xlabel '%s'\nset ylabel 'fraction of flows'\nset yrange [0:1]\n"
            "plot $CDF using 1:2 with lines lw 2 title '%zu flows'\n", xlabel, n);
    return fig_close(&g, log);
}

int plot_run_flows(struct doc *d, const char *dir, FILE *log)
{
    json_t *flows = doc_get(d, d->root, "flows", JSON_ARRAY);
    if (!flows)
        return 2;
    size_t n = json_array_size(flows), m = 0;
    double *tp = malloc((n + 1) * sizeof *tp), *fct = malloc((n + 1) * sizeof *fct);
    if (!tp || !fct) {
        free(tp);
        free(fct);
        fprintf(stderr, "bnet: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *f = json_array_get(flows, i);
        if (!json_is_true(json_object_get(f, "done")))
            continue;
        tp[m] = doc_num(d, f, "throughput_gbps");
        fct[m++] = doc_num(d, f, "fct_us");
    }
    int rc = doc_ok(d) ? 0 : 2;
    if (rc == 0 && m == 0)
        fprintf(log, "plot: no flow CDFs: no flow finished\n");
    else if (rc == 0) {
        rc = cdf(dir, "flows-throughput-cdf", "Per-flow throughput", "throughput (Gb/s)", tp, m,
                 log);
        if (rc == 0)
            rc = cdf(dir, "flows-fct-cdf", "Flow completion time", "FCT (us)", fct, m, log);
    }
    free(tp);
    free(fct);
    return rc;
}

/* FCT slowdown against flow size: p50, p95 and p99 of each size bucket at
 * its largest flow (the HPCC paper's figures' form). Results written
 * before slowdown was reported have none: nothing drawn. */
int plot_run_slowdown(struct doc *d, const char *dir, FILE *log)
{
    json_t *sum = doc_get(d, d->root, "summary", JSON_OBJECT);
    json_t *sd = sum ? json_object_get(sum, "fct_slowdown") : NULL;
    json_t *b = sd ? json_object_get(sd, "buckets") : NULL;
    if (!doc_ok(d))
        return 2;
    if (!json_is_array(b) || json_array_size(b) == 0) {
        fprintf(log, "plot: no slowdown figure: no slowdown buckets\n");
        return 0;
    }
    struct fig g;
    int rc = fig_open(&g, dir, "flows-slowdown", "FCT slowdown by flow size", 800, 500);
    if (rc)
        return rc;
    static const char *const cols[] = {"p50", "p95", "p99"};
    for (size_t c = 0; c < 3; c++) {
        fprintf(g.f, "$%s << EOD\n", cols[c]);
        for (size_t i = 0; i < json_array_size(b); i++) {
            json_t *e = json_array_get(b, i);
            fprintf(g.f, "%.10g %.10g\n", doc_num(d, e, "max_bytes"), doc_num(d, e, cols[c]));
        }
        fputs("EOD\n", g.f);
    }
    fputs("set logscale x\nset xlabel 'flow size, largest of its bucket (bytes)'\n"
          "set ylabel 'FCT slowdown (FCT / ideal)'\nset key top left\n"
          "plot $p50 using 1:2 with linespoints lw 2 title 'p50', "
          "$p95 using 1:2 with linespoints lw 2 title 'p95', "
          "$p99 using 1:2 with linespoints lw 2 title 'p99'\n", g.f);
    return fig_end(&g, doc_ok(d), log);
}
