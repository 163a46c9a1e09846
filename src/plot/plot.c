/*
 * `bnet plot` and `--plot DIR`: read result files, tell their kind by their
 * keys, and draw each kind's figures (docs/plots.md). Several run results
 * go to a folder each; every coll and compare result shares one figure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plot/figure.h"
#include "plot/plot.h"
#include "plot/plots.h"

static int make_dir(const char *dir)
{
    struct stat st;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "bnet: plot folder '%s': cannot create it: %s\n", dir, strerror(errno));
        return 2;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "bnet: plot folder '%s': not a folder\n", dir);
        return 2;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "bnet: plot folder '%s': cannot write in it: %s\n", dir,
                strerror(errno));
        return 2;
    }
    return 0;
}

int bn_plot_ready(const char *dir)
{
    int rc = make_dir(dir);
    if (rc)
        return rc;
    int st = fig_gnuplot(dir, "--version", 1);
    if (st == 127) {
        fprintf(stderr, "bnet: plots need gnuplot, which is not on PATH (Debian: apt-get "
                "install gnuplot-nox)\n");
        return 1;
    }
    if (st != 0) {
        fprintf(stderr, "bnet: 'gnuplot --version' failed (status %d)\n", st);
        return 1;
    }
    return 0;
}

static int plot_run(struct doc *d, const char *dir, FILE *log)
{
    int rc = plot_run_flows(d, dir, log);
    if (rc == 0)
        rc = plot_run_slowdown(d, dir, log);
    if (rc == 0)
        rc = plot_run_series(d, dir, log);
    if (rc == 0)
        rc = plot_run_links(d, dir, log);
    if (rc == 0)
        rc = plot_run_topology(d, dir, log);
    return rc;
}

enum kind { RUN, SWEEP, CALIB, OTHER };

static enum kind kind_of(const json_t *root)
{
    if (json_object_get(root, "flows") && json_object_get(root, "series"))
        return RUN;
    const json_t *kind = json_object_get(root, "kind");
    if (json_is_string(kind) && strcmp(json_string_value(kind), "calibration") == 0)
        return CALIB;
    if (json_object_get(root, "rows") || json_object_get(root, "fabrics"))
        return SWEEP;
    return OTHER;
}

static int load(struct doc *d, const char *path)
{
    json_error_t je;
    d->path = path;
    d->root = json_load_file(path, 0, &je);
    if (!d->root) {
        fprintf(stderr, "bnet: %s: line %d: %s\n", path, je.line, je.text);
        return 2;
    }
    if (kind_of(d->root) == OTHER) {
        fprintf(stderr, "bnet: %s: not a result of bnet run, coll, compare or calibrate (no "
                "'flows', 'rows' or 'fabrics'): docs/plots.md lists what is drawn\n", path);
        return 2;
    }
    return 0;
}

/* A folder per run result when there are several: DIR/NAME (NAME the file's
 * name without .json). */
static int run_dir(const char *dir, const char *path, char *buf, size_t len)
{
    char name[256];
    fig_file_label(path, name, sizeof name);
    if ((size_t)snprintf(buf, len, "%s/%s", dir, name) >= len) {
        fprintf(stderr, "bnet: %s: path too long\n", path);
        return 2;
    }
    return make_dir(buf);
}

int bn_plot_files(const char *const *paths, int n, const char *dir, FILE *log)
{
    int rc = bn_plot_ready(dir);
    struct doc *docs = rc ? NULL : calloc((size_t)n + 1, sizeof *docs);
    struct doc *sweeps = rc ? NULL : calloc((size_t)n + 1, sizeof *sweeps);
    if (!rc && (!docs || !sweeps)) {
        fprintf(stderr, "bnet: out of memory\n");
        rc = 1;
    }
    for (int i = 0; !rc && i < n; i++)
        rc = load(&docs[i], paths[i]);
    int nsweeps = 0;
    for (int i = 0; !rc && i < n; i++) {
        struct doc *d = &docs[i];
        if (kind_of(d->root) == SWEEP) {
            sweeps[nsweeps++] = *d;
            continue;
        }
        if (kind_of(d->root) == CALIB) {
            rc = plot_calib(d, dir, log);
            if (rc == 2 && !doc_ok(d))
                fprintf(stderr, "bnet: %s\n", d->err);
            continue;
        }
        char sub[PATH_MAX];
        rc = n == 1 ? 0 : run_dir(dir, d->path, sub, sizeof sub);
        if (!rc)
            rc = plot_run(d, n == 1 ? dir : sub, log);
        if (rc == 2 && !doc_ok(d))
            fprintf(stderr, "bnet: %s\n", d->err);
    }
    if (!rc && nsweeps) {
        rc = plot_busbw(sweeps, nsweeps, dir, log);
        for (int i = 0; rc == 2 && i < nsweeps; i++)
            if (!doc_ok(&sweeps[i])) {
                fprintf(stderr, "bnet: %s\n", sweeps[i].err);
                break;
            }
    }
    for (int i = 0; docs && i < n; i++)
        json_decref(docs[i].root);
    free(docs);
    free(sweeps);
    return rc;
}
