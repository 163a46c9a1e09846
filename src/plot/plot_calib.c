/*
 * A calibration's figure (bnet calibrate --report, docs/calibration.md):
 * bus bandwidth against message size per input, as measured (points) and
 * as bnet ran the rows before (dashed) and after the fit (solid), so where
 * the fit still misses shows by size and node count.
 */
#include <string.h>

#include "plot/figure.h"
#include "plot/plots.h"

#define MAX_INPUTS 16

int plot_calib(struct doc *d, const char *dir, FILE *log)
{
    json_t *rows = doc_get(d, d->root, "rows", JSON_ARRAY);
    json_t *inputs = doc_get(d, d->root, "inputs", JSON_ARRAY);
    if (!doc_ok(d))
        return 2;
    size_t nin = json_array_size(inputs);
    if (nin > MAX_INPUTS)
        nin = MAX_INPUTS;
    struct fig g;
    int rc = fig_open(&g, dir, "calibration", "Measured and bnet's bus bandwidth", 900, 550);
    if (rc)
        return rc;
    static const char *const cols[] = {"measured_busbw_gbs", "before_busbw_gbs",
                                       "after_busbw_gbs"};
    for (size_t k = 0; k < nin; k++)
        for (int c = 0; c < 3; c++) {
            fprintf(g.f, "$D%zu_%d << EOD\n", k, c);
            size_t i;
            json_t *r;
            json_array_foreach(rows, i, r) {
                if ((size_t)doc_num(d, r, "input") != k)
                    continue;
                fprintf(g.f, "%.10g %.10g\n", doc_num(d, r, "bytes"), doc_num(d, r, cols[c]));
            }
            fputs("EOD\n", g.f);
        }
    if (!doc_ok(d)) {
        fig_abandon(&g);
        return 2;
    }
    fputs("set logscale x 2\nset format x '%.0b %BB'\nset xlabel 'message size'\n"
          "set ylabel 'bus bandwidth (GB/s)'\nset yrange [0:*]\nset key left top\nplot ", g.f);
    static const char *const style[] = {"with points pt 7 ps 1.2", "with lines dt 2 lw 1.5",
                                        "with lines lw 2.5"};
    static const char *const what[] = {"measured", "bnet before", "bnet after"};
    for (size_t k = 0; k < nin; k++) {
        json_t *in = json_array_get(inputs, k);
        char file[96], label[192];
        fig_file_label(doc_str(d, in, "file"), file, sizeof file);
        for (int c = 0; c < 3; c++) {
            snprintf(label, sizeof label, "%s, %s", file, what[c]);
            fprintf(g.f, "%s$D%zu_%d using 1:2 %s lc %zu title ", k || c ? ", " : "", k, c,
                    style[c], k + 1);
            fig_quote(g.f, label);
        }
    }
    fputc('\n', g.f);
    return fig_end(&g, doc_ok(d), log);
}
