/*
 * `bnet report FILE.json... -o report.html`: one self-contained HTML page
 * of saved results (docs/plots.md, "Report"). Per file: what ran (the
 * command, the scenario), its figures (a table per kind of result), the
 * seed's table, the plots bnet plot draws for it (gnuplot's SVG, inlined:
 * no file or network needed to view the page), a job timeline drawn here,
 * and the configuration it ran with. Reads the results' JSON, the public
 * contract, as the plots do.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdbool.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plot/plot.h"
#include "plot/report.h"

/* Text for HTML: &, <, > and quotes escaped. */
static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
}

/* A JSON scalar as table text. */
static void cell(FILE *f, const json_t *v)
{
    char buf[64];
    if (json_is_string(v))
        esc(f, json_string_value(v));
    else if (json_is_integer(v))
        fprintf(f, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, sizeof buf, "%.6g", json_real_value(v)), fputs(buf, f);
    else if (json_is_true(v) || json_is_false(v))
        fputs(json_is_true(v) ? "true" : "false", f);
    else if (!v || json_is_null(v))
        fputs("-", f);
    else
        fputs("&hellip;", f);
}

/* A table of the objects of `rows` (an array), one column per key of
 * `cols` (NULL-terminated; "a.b" reaches into an object). */
static void table(FILE *f, const json_t *rows, const char *const *cols)
{
    fputs("<table><tr>", f);
    for (const char *const *c = cols; *c; c++)
        fputs("<th>", f), esc(f, *c), fputs("</th>", f);
    fputs("</tr>\n", f);
    size_t i;
    const json_t *row;
    json_array_foreach(rows, i, row) {
        fputs("<tr>", f);
        for (const char *const *c = cols; *c; c++) {
            char key[64];
            snprintf(key, sizeof key, "%s", *c);
            char *dot = strchr(key, '.');
            const json_t *v = row;
            if (dot) {
                *dot = '\0';
                v = json_object_get(v, key);
                v = json_object_get(v, dot + 1);
            } else {
                v = json_object_get(v, key);
            }
            fputs("<td>", f), cell(f, v), fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* An object's scalar members as a two-column table (nested objects as
 * "a.b"), at most `max` rows. */
static void pairs(FILE *f, const json_t *obj, const char *prefix, int *left)
{
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        if (*left <= 0)
            return;
        char key[192];
        snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "", k);
        if (json_is_object(v)) {
            pairs(f, v, key, left);
            continue;
        }
        if (json_is_array(v))
            continue;
        fputs("<tr><th>", f), esc(f, key), fputs("</th><td>", f), cell(f, v);
        fputs("</td></tr>\n", f);
        (*left)--;
    }
}

static void kv_table(FILE *f, const json_t *obj, int max)
{
    fputs("<table class=\"kv\">\n", f);
    pairs(f, obj, "", &max);
    fputs("</table>\n", f);
}

/* The kind of result, by its keys (as bnet plot tells them apart). */
static const char *kind_of(const json_t *root)
{
    if (json_object_get(root, "flows") && json_object_get(root, "series"))
        return "run";
    if (json_object_get(root, "rows"))
        return "coll";
    if (json_object_get(root, "fabrics"))
        return "compare";
    if (json_object_get(root, "points"))
        return "sweep";
    if (json_object_get(root, "pairs"))
        return "p2p";
    if (json_object_get(root, "jobs") && json_object_get(root, "sim"))
        return "job";
    if (json_object_get(root, "topology"))
        return "topo";
    return NULL;
}

static void figures(FILE *f, const json_t *root, const char *kind)
{
    fputs("<h3>Figures</h3>\n", f);
    if (strcmp(kind, "run") == 0) {
        kv_table(f, json_object_get(root, "summary"), 60);
    } else if (strcmp(kind, "coll") == 0) {
        static const char *const cols[] = {"size", "type", "algo", "channels", "time_us",
                                           "algbw_gbs", "busbw_gbs", "wrong", NULL};
        table(f, json_object_get(root, "rows"), cols);
    } else if (strcmp(kind, "compare") == 0) {
        static const char *const cols[] = {"fabric", "link_layer", "port_gbps", NULL};
        table(f, json_object_get(root, "fabrics"), cols);
    } else if (strcmp(kind, "sweep") == 0) {
        static const char *const cols[] = {"seed", "summary.flows", "summary.flows_completed",
                                           "summary.drops", "summary.pause_frames", NULL};
        table(f, json_object_get(root, "points"), cols);
    } else if (strcmp(kind, "p2p") == 0) {
        size_t i;
        const json_t *p;
        json_array_foreach(json_object_get(root, "pairs"), i, p) {
            static const char *const bw[] = {"bytes", "iterations", "bw_peak_gbps",
                                             "bw_avg_gbps", "msg_rate_mpps", NULL};
            static const char *const lat[] = {"bytes", "iterations", "t_min_us",
                                              "t_typical_us", "t_p99_us", "t_p999_us", NULL};
            fputs("<p>", f), esc(f, json_string_value(json_object_get(p, "src_name")));
            fputs(" &rarr; ", f), esc(f, json_string_value(json_object_get(p, "dst_name")));
            fputs("</p>\n", f);
            table(f, json_object_get(p, "rows"),
                  json_is_true(json_object_get(root, "latency")) ? lat : bw);
        }
    } else if (strcmp(kind, "job") == 0) {
        static const char *const cols[] = {"name", "kind", "gpus", "iteration_us",
                                           "compute_us", "exposed_comm_us", "bubble_us", NULL};
        table(f, json_object_get(root, "jobs"), cols);
    } else {
        kv_table(f, json_object_get(root, "topology"), 60);
    }
}

/* The seed's table: figure, value, unit, target, verdict. */
static void seed(FILE *f, const json_t *root)
{
    const json_t *s = json_object_get(root, "seed_report");
    if (!json_is_array(s))
        return;
    static const char *const cols[] = {"figure", "value", "unit", "target", "verdict", NULL};
    fputs("<h3>The seed's figures</h3>\n", f);
    table(f, s, cols);
}

/* Each job's span on one time axis, its iteration split into compute,
 * pipeline bubbles and exposed communication (the JSON's figures; the
 * tasks themselves are in --trace). */
static void job_timeline(FILE *f, const json_t *root, int index)
{
    const json_t *jobs = json_object_get(root, "jobs");
    size_t n = json_array_size(jobs), i;
    double end = 0;
    const json_t *j;
    json_array_foreach(jobs, i, j)
        if (json_number_value(json_object_get(j, "end_us")) > end)
            end = json_number_value(json_object_get(j, "end_us"));
    if (!n || end <= 0)
        return;
    const int w = 800, left = 160, bar = 24;
    int h = 40 + (int)n * (bar + 16);
    fprintf(f, "<figure class=\"plot\" id=\"plot-%d-job-timeline\"><svg "
            "xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"Arial\" font-size=\"12\">"
            "<title>job timeline</title>\n", index, w, h, w, h);
    double scale = (w - left - 20) / end;
    json_array_foreach(jobs, i, j) {
        double s = json_number_value(json_object_get(j, "start_us"));
        double it = json_number_value(json_object_get(j, "iteration_us"));
        double parts[3] = {json_number_value(json_object_get(j, "compute_us")),
                           json_number_value(json_object_get(j, "bubble_us")),
                           json_number_value(json_object_get(j, "exposed_comm_us"))};
        static const char *const color[3] = {"#4e79a7", "#bab0ac", "#e15759"};
        int y = 20 + (int)i * (bar + 16);
        fprintf(f, "<text x=\"4\" y=\"%d\">", y + 16);
        esc(f, json_string_value(json_object_get(j, "name")));
        fprintf(f, "</text>\n<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                "fill=\"none\" stroke=\"#333\"/>\n", left + s * scale, y,
                (json_number_value(json_object_get(j, "end_us")) - s) * scale, bar);
        double x = left + s * scale, sum = parts[0] + parts[1] + parts[2];
        for (int p = 0; p < 3 && it > 0 && sum > 0; p++) {
            double wd = parts[p] / sum * it * scale;
            fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
                    x, y + 2, wd, bar - 4, color[p]);
            x += wd;
        }
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\">0 .. %.1f us; first iteration: compute (blue), "
            "bubbles (grey), exposed communication (red)</text>\n</svg>"
            "<figcaption>job timeline</figcaption></figure>\n", left, h - 6, end);
}

/* gnuplot's SVG (whole file in `text`) inline: from its <svg, with every
 * id and reference prefixed by `pre`, so figures on one page keep apart
 * the definitions each names alike (gpPt0, gnuplot_canvas, ...). */
static void inline_svg(FILE *f, const char *text, const char *pre)
{
    const char *p = strstr(text, "<svg");
    static const char *const marks[] = {" id='", " id=\"", "href='#", "href=\"#", "url(#"};
    while (p && *p) {
        const char *next = NULL;
        size_t mlen = 0;
        for (size_t m = 0; m < sizeof marks / sizeof marks[0]; m++) {
            const char *q = strstr(p, marks[m]);
            if (q && (!next || q < next))
                next = q, mlen = strlen(marks[m]);
        }
        if (!next) {
            fputs(p, f);
            break;
        }
        fwrite(p, 1, (size_t)(next - p) + mlen, f);
        fputs(pre, f);
        p = next + mlen;
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every SVG of `dir` (and its folders), by name, inlined as figures. */
static void plots_of(FILE *f, const char *dir, int file_index, int *nplots)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256)
        if (e->d_name[0] != '.')
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX + 300];
        struct stat st;
        snprintf(path, sizeof path, "%.*s/%s", PATH_MAX - 1, dir, names[i]);
        size_t len = strlen(names[i]);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            plots_of(f, path, file_index, nplots);
        } else if (len > 4 && strcmp(names[i] + len - 4, ".svg") == 0) {
            FILE *in = fopen(path, "r");
            char *text = in ? malloc((size_t)st.st_size + 1) : NULL;
            size_t got = text ? fread(text, 1, (size_t)st.st_size, in) : 0;
            if (text) {
                text[got] = '\0';
                char pre[32];
                snprintf(pre, sizeof pre, "f%d-%d-", file_index, *nplots);
                fprintf(f, "<figure class=\"plot\" id=\"plot-%d-%.*s\">", file_index,
                        (int)(len - 4), names[i]);
                inline_svg(f, text, pre);
                fputs("<figcaption>", f);
                fprintf(f, "%.*s", (int)(len - 4), names[i]);
                fputs("</figcaption></figure>\n", f);
                (*nplots)++;
            }
            free(text);
            if (in)
                fclose(in);
        }
        remove(path); /* the scratch copy: files, then (below) folders */
        free(names[i]);
    }
    rmdir(dir);
}

/* One result file's section. */
static int section(FILE *f, const char *path, int index, const char *scratch, FILE *log)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) {
        fprintf(stderr, "bnet: %s: line %d: %s\n", path, je.line, je.text);
        return 2;
    }
    const char *kind = kind_of(root);
    if (!kind) {
        fprintf(stderr, "bnet: %s: not a result of bnet (no 'flows', 'rows', 'fabrics', "
                "'points', 'pairs', 'jobs' or 'topology'): docs/plots.md\n", path);
        json_decref(root);
        return 2;
    }
    fprintf(f, "<section class=\"result\" data-kind=\"%s\">\n<h2>", kind);
    esc(f, path);
    fprintf(f, " <small>(%s)</small></h2>\n<p><code>", kind);
    esc(f, json_string_value(json_object_get(root, "command")));
    fputs("</code> &middot; scenario <code>", f);
    esc(f, json_string_value(json_object_get(root, "scenario")));
    fputs("</code> &middot; bnet ", f);
    esc(f, json_string_value(json_object_get(root, "bnet_version")));
    fputs("</p>\n", f);
    figures(f, root, kind);
    seed(f, root);
    fputs("<h3>Plots</h3>\n", f);
    int nplots = 0;
    if (strcmp(kind, "job") == 0) {
        job_timeline(f, root, index);
        nplots++;
    }
    if (strcmp(kind, "run") == 0 || strcmp(kind, "coll") == 0 || strcmp(kind, "compare") == 0) {
        char dir[PATH_MAX + 16];
        snprintf(dir, sizeof dir, "%.*s/%d", PATH_MAX - 1, scratch, index);
        int rc = bn_plot_files(&path, 1, dir, log);
        if (rc) {
            json_decref(root);
            return rc;
        }
        plots_of(f, dir, index, &nplots);
    }
    if (!nplots)
        fputs("<p>(no plots for this kind of result)</p>\n", f);
    const json_t *config = json_object_get(root, "config");
    if (json_is_object(config)) {
        fputs("<h3>Configuration</h3>\n<details><summary>every scenario key as it ran</summary>\n",
              f);
        kv_table(f, config, 100000);
        fputs("</details>\n", f);
    }
    fputs("</section>\n", f);
    json_decref(root);
    return 0;
}

static const char style[] =
    "body{font-family:Arial,sans-serif;margin:2em;max-width:1100px}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;"
    "text-align:right;font-size:13px}th{background:#f4f4f4}table.kv th{text-align:left}"
    "figure.plot{display:inline-block;margin:.5em}figure.plot svg{max-width:100%;height:auto}"
    "code{background:#f4f4f4;padding:1px 3px}";

int bn_report_html(const char *const *paths, int n, const char *out, FILE *log)
{
    char scratch[PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/bnet-report.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch)) {
        fprintf(stderr, "bnet: report: cannot make a scratch folder: %s\n", strerror(errno));
        return 1;
    }
    bool to_stdout = strcmp(out, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(out, "w"); /* the page's one open */
    if (!f) {
        fprintf(stderr, "bnet: %s: cannot write the report: %s\n", out, strerror(errno));
        rmdir(scratch);
        return 2;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>bnet report</title>\n<style>", f);
    fputs(style, f);
    fputs("</style>\n</head>\n<body>\n<h1>bnet report</h1>\n<p>Results of ", f);
    for (int i = 0; i < n; i++)
        fputs(i ? ", <code>" : "<code>", f), esc(f, paths[i]), fputs("</code>", f);
    fputs(". Every figure is in this page: it needs no other file and no network.</p>\n", f);
    int rc = 0;
    for (int i = 0; i < n && !rc; i++)
        rc = section(f, paths[i], i, scratch, log);
    fputs("</body>\n</html>\n", f);
    int bad = ferror(f);
    if ((to_stdout ? fflush(f) : fclose(f)) != 0 || bad) {
        fprintf(stderr, "bnet: %s: cannot write the report\n", out);
        rc = rc ? rc : 2;
    }
    rmdir(scratch);
    return rc;
}
