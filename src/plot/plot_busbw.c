/*
 * Bus bandwidth against message size: a line per algorithm of each coll
 * result (the rows it ran with that algorithm) and per fabric of each
 * compare result (its AllReduce rows), all on one figure so sweeps run
 * separately (one per --algo, one per fabric) compare at a glance.
 */
#include <string.h>

#include "plot/figure.h"
#include "plot/plots.h"

struct line {
    size_t doc;
    json_t *rows;      /* coll rows or a fabric's allreduce rows */
    const char *algo;  /* coll: the algorithm these points ran; NULL: every row */
    char label[192];
};

#define MAX_SERIES 64

/* The lines of one coll file: an algorithm each, in order of first use. */
static size_t coll_lines(struct doc *d, size_t di, json_t *rows, bool many, struct line *out,
                         size_t n)
{
    char file[96];
    fig_file_label(d->path, file, sizeof file);
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        const char *algo = doc_str(d, r, "algo");
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++)
            seen = out[k].doc == di && out[k].algo && strcmp(out[k].algo, algo) == 0;
        if (seen || n == MAX_SERIES)
            continue;
        out[n] = (struct line){.doc = di, .rows = rows, .algo = algo};
        snprintf(out[n].label, sizeof out[n].label, many ? "%s (%s)" : "%s", algo, file);
        n++;
    }
    return n;
}

static size_t compare_lines(struct doc *d, size_t di, json_t *fabrics, bool many,
                            struct line *out, size_t n)
{
    char file[96];
    fig_file_label(d->path, file, sizeof file);
    size_t i;
    json_t *f;
    json_array_foreach(fabrics, i, f) {
        json_t *rows = doc_get(d, f, "allreduce", JSON_ARRAY);
        if (!rows || n == MAX_SERIES)
            continue;
        out[n] = (struct line){.doc = di, .rows = rows};
        snprintf(out[n].label, sizeof out[n].label, many ? "%s (%s)" : "%s",
                 doc_str(d, f, "fabric"), file);
        n++;
    }
    return n;
}

int plot_busbw(struct doc *docs, int n, const char *dir, FILE *log)
{
    struct line lines[MAX_SERIES];
    size_t nl = 0;
    for (int i = 0; i < n; i++) {
        struct doc *d = &docs[i];
        json_t *rows = json_object_get(d->root, "rows");
        nl = rows ? coll_lines(d, (size_t)i, doc_get(d, d->root, "rows", JSON_ARRAY), n > 1,
                               lines, nl)
                  : compare_lines(d, (size_t)i, doc_get(d, d->root, "fabrics", JSON_ARRAY),
                                  n > 1, lines, nl);
        if (!doc_ok(d))
            return 2;
    }
    if (nl == 0) {
        fprintf(log, "plot: no bus bandwidth figure: no rows\n");
        return 0;
    }
    struct fig g;
    int rc = fig_open(&g, dir, "busbw", "Bus bandwidth against message size", 900, 550);
    if (rc)
        return rc;
    for (size_t l = 0; l < nl; l++) {
        struct doc *d = &docs[lines[l].doc];
        bool compare = lines[l].algo == NULL;
        fprintf(g.f, "$B%zu << EOD\n", l);
        size_t i;
        json_t *r;
        json_array_foreach(lines[l].rows, i, r) {
            if (!compare && strcmp(doc_str(d, r, "algo"), lines[l].algo) != 0)
                continue;
            if (json_is_null(json_object_get(r, "busbw_gbs"))) /* interrupted: not measured */
                continue;
            fprintf(g.f, "%.10g %.10g\n", doc_num(d, r, compare ? "bytes" : "size"),
                    doc_num(d, r, "busbw_gbs"));
        }
        fputs("EOD\n", g.f);
        if (!doc_ok(d)) {
            fig_abandon(&g);
            return 2;
        }
    }
    fputs("set logscale x 2\nset format x '%.0b %BB'\nset xlabel 'message size'\n"
          "set ylabel 'bus bandwidth (GB/s)'\nset yrange [0:*]\nplot ", g.f);
    for (size_t l = 0; l < nl; l++) {
        fprintf(g.f, "%s$B%zu using 1:2 with linespoints lw 2 pt 7 title ", l ? ", " : "", l);
        fig_quote(g.f, lines[l].label);
    }
    fputc('\n', g.f);
    return fig_close(&g, log);
}
