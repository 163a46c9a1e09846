/*
 * A calibration's reports (docs/calibration.md): the table (each fitted
 * key with its standard deviation and bounds; each row measured, before
 * and after, with its error), the overlay YAML that --calibration applies,
 * and the JSON that `bnet calibrate --report` draws.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bnet/calib.h"
#include "json_util.h"

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static double pct(double bnet, double measured)
{
    return measured > 0 ? 100 * (bnet / measured - 1) : 0;
}

/* Mean and largest |error| of the rows at or above 1 MiB (big) or below. */
static void band(const struct bn_calib_results *r, bool big, bool after, double *mean, double *max,
                 uint32_t *n)
{
    *mean = *max = 0;
    *n = 0;
    for (uint32_t i = 0; i < r->nrows; i++) {
        const struct bn_calib_fit_row *f = &r->rows[i];
        if ((f->bytes >= (1u << 20)) != big)
            continue;
        double e = fabs(pct(after ? f->after_us : f->before_us, f->measured_us));
        *mean += e;
        *max = e > *max ? e : *max;
        (*n)++;
    }
    if (*n)
        *mean /= *n;
}

void bn_calib_print(FILE *out, const struct bn_calib_results *r)
{
    fprintf(out, "# bnet calibrate (bnet %s): %u rows from %u files, %s, %u runs of every row, "
            "%.1f s\n", r->bnet_version, r->nrows, r->ninputs,
            r->fitted ? "fitted" : r->applied[0] ? "calibration applied, not fitted" : "not fitted",
            r->evaluations, r->wall_s);
    if (r->applied[0])
        fprintf(out, "# calibration: %s\n", r->applied);
    if (r->fitted) {
        fprintf(out, "#\n# %-24s %12s %12s %12s   %s\n", "key", "scenario", "fitted", "+/- sigma",
                "bounds");
        for (uint32_t p = 0; p < r->nparams; p++) {
            const struct bn_calib_param *q = &r->params[p];
            char sig[24];
            if (isnan(q->sigma))
                snprintf(sig, sizeof sig, q->discrete ? "(discrete)" : "-");
            else
                snprintf(sig, sizeof sig, "%.4g", q->sigma);
            fprintf(out, "  %-24s %12.6g %12.6g %12s   [%g, %g]%s\n", q->key, q->initial,
                    q->value, sig, q->lo, q->hi, q->at_bound ? " at a bound" : "");
        }
        fprintf(out, "# MINPACK lmdif info %d (1-4: converged; 5: runs ran out)\n", r->status);
    }
    fprintf(out, "#\n# %-30s %5s %12s %10s %10s %8s %10s %8s %8s %8s  %s\n", "file", "nodes",
            "size", "measured", "before", "error", "after", "error", "busbw", "after",
            "bnet ran");
    fprintf(out, "# %-30s %5s %12s %10s %10s %8s %10s %8s %8s %8s\n", "", "", "(B)", "(us)", "(us)",
            "", "(us)", "", "(GB/s)", "(GB/s)");
    for (uint32_t i = 0; i < r->nrows; i++) {
        const struct bn_calib_fit_row *f = &r->rows[i];
        fprintf(out, "  %-30.30s %5u %12llu %10.2f %10.2f %+7.1f%% %10.2f %+7.1f%% %8.2f %8.2f  "
                "%s%s%s\n", base_name(r->inputs[f->input].path), f->nodes,
                (unsigned long long)f->bytes, f->measured_us, f->before_us,
                pct(f->before_us, f->measured_us), f->after_us, pct(f->after_us, f->measured_us),
                f->measured_gbs, f->after_gbs, f->algo, f->proto[0] ? "/" : "", f->proto);
    }
    for (int big = 1; big >= 0; big--) {
        double m0, x0, m1, x1;
        uint32_t n;
        band(r, big, false, &m0, &x0, &n);
        band(r, big, true, &m1, &x1, &n);
        if (n)
            fprintf(out, "# %u rows %s 1 MiB: |error| mean %.1f %%, max %.1f %% before; mean "
                    "%.1f %%, max %.1f %% after\n", n, big ? "at or above" : "below", m0, x0, m1,
                    x1);
    }
    fprintf(out, "# rms of ln(bnet / measured): %.4f before, %.4f after\n", r->rms_before,
            r->rms_after);
}

static FILE *open_out(const char *path, struct bn_error *err)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!f)
        bn_fail(err, BN_EINPUT, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

static int close_out(FILE *f, const char *path, struct bn_error *err)
{
    int bad = ferror(f);
    if (f == stdout)
        bad |= fflush(f) != 0;
    else
        bad |= fclose(f) != 0;
    return bad ? bn_fail(err, BN_EINPUT, "%s: write failed", path) : BN_OK;
}

int bn_calib_write_yaml(const struct bn_calib_results *r, const char *path, struct bn_error *err)
{
    if (!r->fitted)
        return bn_fail(err, BN_EINPUT, "%s: nothing fitted to write (the rows were only run)",
                       path);
    FILE *f = open_out(path, err);
    if (!f)
        return BN_EINPUT;
    fprintf(f, "# bnet calibration: the keys fitted to the measurements below\n"
            "# (docs/calibration.md). Apply with: bnet coll|job|compare --calibration FILE\n"
            "bnet_version: \"%s\"\ninputs:\n", r->bnet_version);
    for (uint32_t k = 0; k < r->ninputs; k++)
        fprintf(f, "  - file: \"%s\"\n    sha256: \"%s\"\n    nodes: %u\n    gpus_per_node: %u\n"
                "    rows: %u\n", r->inputs[k].path, r->inputs[k].sha256, r->inputs[k].nodes,
                r->inputs[k].gpus_per_node, r->inputs[k].nrows);
    fprintf(f, "fit:\n  rows: %u\n  runs: %u\n  rms_before: %.6f\n  rms_after: %.6f\n"
            "  minpack_info: %d\nset:\n", r->nrows, r->evaluations, r->rms_before, r->rms_after,
            r->status);
    for (uint32_t p = 0; p < r->nparams; p++) {
        const struct bn_calib_param *q = &r->params[p];
        fprintf(f, "  %s: %.6g", q->key, q->value);
        if (!isnan(q->sigma))
            fprintf(f, "    # +/- %.3g", q->sigma);
        else
            fprintf(f, "    # %s", q->discrete ? "discrete" : "no deviation: rows = keys");
        fprintf(f, ", bounds [%g, %g], was %g%s\n", q->lo, q->hi, q->initial,
                q->at_bound ? ", at a bound" : "");
    }
    return close_out(f, path, err);
}

int bn_calib_write_json(const struct bn_calib_results *r, const char *path, struct bn_error *err)
{
    json_t *root = json_object(), *params = json_array(), *rows = json_array(),
           *inputs = json_array();
    json_object_set_new(root, "bnet_version", json_string(r->bnet_version));
    json_object_set_new(root, "kind", json_string("calibration"));
    json_object_set_new(root, "fitted", json_boolean(r->fitted));
    json_object_set_new(root, "applied", bn_json_text(r->applied));
    for (uint32_t k = 0; k < r->ninputs; k++) {
        const struct bn_calib_input *in = &r->inputs[k];
        json_t *o = json_object();
        json_object_set_new(o, "file", bn_json_text(in->path));
        json_object_set_new(o, "sha256", json_string(in->sha256));
        json_object_set_new(o, "op", json_string(in->op));
        json_object_set_new(o, "nodes", json_integer(in->nodes));
        json_object_set_new(o, "gpus_per_node", json_integer(in->gpus_per_node));
        json_object_set_new(o, "nccl_version", bn_json_text(in->nccl_version));
        json_t *env = json_object();
        for (uint32_t e = 0; e < in->nenv; e++)
            json_object_set_new(env, in->env[e].name, bn_json_text(in->env[e].value));
        json_object_set_new(o, "env", env);
        json_array_append_new(inputs, o);
    }
    for (uint32_t p = 0; p < r->nparams; p++) {
        const struct bn_calib_param *q = &r->params[p];
        json_t *o = json_object();
        json_object_set_new(o, "key", json_string(q->key));
        json_object_set_new(o, "initial", json_real(q->initial));
        json_object_set_new(o, "value", json_real(q->value));
        json_object_set_new(o, "sigma", isnan(q->sigma) ? json_null() : json_real(q->sigma));
        json_object_set_new(o, "lo", json_real(q->lo));
        json_object_set_new(o, "hi", json_real(q->hi));
        json_object_set_new(o, "at_bound", json_boolean(q->at_bound));
        json_object_set_new(o, "discrete", json_boolean(q->discrete));
        json_array_append_new(params, o);
    }
    for (uint32_t i = 0; i < r->nrows; i++) {
        const struct bn_calib_fit_row *f = &r->rows[i];
        json_t *o = json_object();
        json_object_set_new(o, "input", json_integer(f->input));
        json_object_set_new(o, "nodes", json_integer(f->nodes));
        json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
        json_object_set_new(o, "measured_us", json_real(f->measured_us));
        json_object_set_new(o, "before_us", json_real(f->before_us));
        json_object_set_new(o, "after_us", json_real(f->after_us));
        json_object_set_new(o, "measured_busbw_gbs", json_real(f->measured_gbs));
        json_object_set_new(o, "before_busbw_gbs", json_real(f->before_gbs));
        json_object_set_new(o, "after_busbw_gbs", json_real(f->after_gbs));
        json_object_set_new(o, "algo", json_string(f->algo));
        json_object_set_new(o, "proto", json_string(f->proto));
        json_array_append_new(rows, o);
    }
    json_object_set_new(root, "inputs", inputs);
    json_object_set_new(root, "params", params);
    json_object_set_new(root, "rows", rows);
    json_object_set_new(root, "rms_before", json_real(r->rms_before));
    json_object_set_new(root, "rms_after", json_real(r->rms_after));
    json_object_set_new(root, "runs", json_integer(r->evaluations));
    json_object_set_new(root, "minpack_info", json_integer(r->status));
    return bn_json_dump(root, path, BN_JSON_FLAGS, err);
}
