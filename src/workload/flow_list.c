/*
 * Flow list from a file: one flow per line, `src dst bytes start_us`, hosts
 * by index; '#' starts a comment, blank lines are skipped. A relative path is
 * taken from the scenario file's folder. Every malformed line is reported
 * with file:line and the field at fault.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/lines.h"
#include "core/path.h"
#include "workload/workload.h"

static bool parse_u64(const char *tok, uint64_t *v)
{
    if (!tok || *tok == '-' || *tok == '+')
        return false;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(tok, &end, 10);
    if (errno || end == tok || *end)
        return false;
    *v = x;
    return true;
}

static bool parse_nonneg(const char *tok, double *v)
{
    if (!tok)
        return false;
    char *end;
    errno = 0;
    double x = strtod(tok, &end);
    if (errno || end == tok || *end || !(x >= 0) || x > 1e12)
        return false;
    *v = x;
    return true;
}

static int parse_line(char *line, const char *path, unsigned lineno, uint32_t nhosts,
                      struct bn_flow_list *out, struct bn_error *err)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    static const char *const names[] = {"src", "dst", "bytes", "start_us"};
    char *tok[5] = {0};
    char *save = NULL;
    int nt = 0;
    for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save))
        if (nt < 5)
            tok[nt++] = t;
        else
            nt++;
    if (nt == 0)
        return BN_OK;
    if (nt != 4)
        return bn_fail(err, BN_EINPUT, "%s:%u: expected 4 fields 'src dst bytes start_us', got %d",
                       path, lineno, nt);
    uint64_t v[3];
    double start_us;
    for (int i = 0; i < 3; i++)
        if (!parse_u64(tok[i], &v[i]))
            return bn_fail(err, BN_EINPUT, "%s:%u: field '%s': '%s' is not a non-negative integer",
                           path, lineno, names[i], tok[i]);
    if (!parse_nonneg(tok[3], &start_us) || start_us > 1e12)
        return bn_fail(err, BN_EINPUT, "%s:%u: field 'start_us': '%s' is not a time in 0..1e12",
                       path, lineno, tok[3]);
    for (int i = 0; i < 2; i++)
        if (v[i] >= nhosts)
            return bn_fail(err, BN_EINPUT, "%s:%u: field '%s': host %llu does not exist (%u hosts)",
                           path, lineno, names[i], (unsigned long long)v[i], nhosts);
    if (v[0] == v[1])
        return bn_fail(err, BN_EINPUT, "%s:%u: field 'dst': a host cannot send to itself", path,
                       lineno);
    if (v[2] == 0 || v[2] > BN_MAX_MESSAGE_BYTES)
        return bn_fail(err, BN_EINPUT, "%s:%u: field 'bytes': must be 1..%llu", path, lineno,
                       (unsigned long long)BN_MAX_MESSAGE_BYTES);
    return bn_flow_list_add(out, (uint32_t)v[0], (uint32_t)v[1], v[2], bn_time_from_us(start_us),
                            err);
}

struct list_file {
    const char *path;
    uint32_t nhosts;
    struct bn_flow_list *out;
};

static int list_line(void *ctx, char *line, unsigned lineno, struct bn_error *err)
{
    struct list_file *lf = ctx;
    return parse_line(line, lf->path, lineno, lf->nhosts, lf->out, err);
}

static int generate(const struct bn_scenario *sc, const struct bn_wl_hosts *h,
                    struct bn_rng *rng, struct bn_flow_list *out, struct bn_error *err)
{
    (void)rng;
    char path[BN_PATH_MAX * 2];
    bn_path_beside(sc->source, sc->workload.flow_file, path, sizeof path);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return bn_fail(err, BN_EINPUT, "%s: key 'workload.flow_file': cannot open '%s': %s",
                       sc->source, path, strerror(errno));
    struct list_file lf = {path, h->n, out};
    int rc = bn_each_line(fp, path, list_line, &lf, NULL, err);
    fclose(fp);
    if (rc == BN_OK && out->n == 0)
        rc = bn_fail(err, BN_EINPUT, "%s: no flows in the file", path);
    return rc;
}

const struct bn_workload_ops bn_wl_flow_list = {
    .name = "flow_list",
    .needs_flow_file = true,
    .generate = generate,
};
