/* Per-flow throughput and completion-time CDFs of a run's finished flows. */
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
