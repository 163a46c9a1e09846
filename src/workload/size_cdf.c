/* Flow-size distributions (size_cdf.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bnet/scenario.h"
#include "core/lines.h"
#include "core/num.h"
#include "core/path.h"
#include "workload/size_cdf.h"

/* (bytes, percent) points, as HPCC's traffic generator ships them
 * (github.com/alibaba-edu/High-Precision-Congestion-Control, traffic_gen/). */
static const double websearch[][2] = {
    {0, 0}, {10000, 15}, {20000, 20}, {30000, 30}, {50000, 40}, {80000, 53},
    {200000, 60}, {1000000, 70}, {2000000, 80}, {5000000, 90}, {10000000, 97},
    {30000000, 100},
};
static const double fb_hadoop[][2] = {
    {0, 0}, {100, 1}, {200, 2}, {300, 5}, {350, 15}, {400, 20}, {500, 30},
    {600, 40}, {700, 50}, {1000, 60}, {2000, 67}, {7000, 70}, {30000, 72},
    {50000, 82}, {80000, 87}, {120000, 90}, {300000, 95}, {1000000, 97.5},
    {2000000, 99}, {10000000, 100},
};

static const struct builtin {
    const char *name;
    const double (*pts)[2];
    uint32_t n;
} builtins[] = {
    {"websearch", websearch, sizeof websearch / sizeof websearch[0]},
    {"fb_hadoop", fb_hadoop, sizeof fb_hadoop / sizeof fb_hadoop[0]},
};

#define NBUILTINS (sizeof builtins / sizeof builtins[0])

const char *bn_size_cdf_builtin(uint32_t i)
{
    return i < NBUILTINS ? builtins[i].name : NULL;
}

/* A number field of a line: finite, 0..1e12. */
static bool number(const char *tok, double *v)
{
    double x;
    if (!bn_num_real(tok, &x) || !(x >= 0 && x <= 1e12))
        return false;
    *v = x;
    return true;
}

static int parse_line(struct bn_size_cdf *c, char *line, const char *path, unsigned lineno,
                      struct bn_error *err)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    char *save = NULL, *tok[3] = {0};
    int nt = 0;
    for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save))
        if (nt++ < 3)
            tok[nt - 1] = t;
    if (nt == 0)
        return BN_OK;
    if (nt != 2)
        return bn_fail(err, BN_EINPUT, "%s:%u: expected 2 fields '<bytes> <cdf>', got %d", path,
                       lineno, nt);
    double b, p;
    if (!number(tok[0], &b))
        return bn_fail(err, BN_EINPUT, "%s:%u: field 'bytes': '%s' is not a size in 0..1e12",
                       path, lineno, tok[0]);
    if (!number(tok[1], &p) || p > 100)
        return bn_fail(err, BN_EINPUT, "%s:%u: field 'cdf': '%s' is not a probability (0..1, "
                       "or 0..100 percent)", path, lineno, tok[1]);
    if (c->n == BN_CDF_POINTS_MAX)
        return bn_fail(err, BN_EINPUT, "%s:%u: more than %u points", path, lineno,
                       BN_CDF_POINTS_MAX);
    if (c->n && (b < c->bytes[c->n - 1] || p < c->p[c->n - 1]))
        return bn_fail(err, BN_EINPUT, "%s:%u: the %s falls (%g after %g): a CDF rises", path,
                       lineno, b < c->bytes[c->n - 1] ? "size" : "cdf",
                       b < c->bytes[c->n - 1] ? b : p,
                       b < c->bytes[c->n - 1] ? c->bytes[c->n - 1] : c->p[c->n - 1]);
    c->bytes[c->n] = b;
    c->p[c->n++] = p;
    return BN_OK;
}

struct cdf_file {
    struct bn_size_cdf *c;
    const char *path;
};

static int cdf_line(void *ctx, char *line, unsigned lineno, struct bn_error *err)
{
    struct cdf_file *cf = ctx;
    return parse_line(cf->c, line, cf->path, lineno, err);
}

static int read_file(struct bn_size_cdf *c, const char *path, struct bn_error *err)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return bn_fail(err, BN_EINPUT, "cannot open '%s': %s", path, strerror(errno));
    unsigned lineno;
    struct cdf_file cf = {c, path};
    int rc = bn_each_line(fp, path, cdf_line, &cf, &lineno, err);
    fclose(fp);
    if (rc != BN_OK)
        return rc;
    double last = c->n ? c->p[c->n - 1] : 0;
    if (c->n < 2 || (last != 1 && last != 100))
        return bn_fail(err, BN_EINPUT, "%s:%u: a CDF needs 2 points or more and ends at 1 (or "
                       "100 percent)", path, lineno);
    if (c->bytes[c->n - 1] < 1)
        return bn_fail(err, BN_EINPUT, "%s:%u: every size would be 0 bytes", path, lineno);
    return BN_OK;
}

int bn_size_cdf_load(struct bn_size_cdf *c, const char *name, const char *source,
                     struct bn_error *err)
{
    c->n = 0;
    for (uint32_t i = 0; i < NBUILTINS; i++)
        if (strcmp(name, builtins[i].name) == 0) {
            for (uint32_t k = 0; k < builtins[i].n; k++) {
                c->bytes[k] = builtins[i].pts[k][0];
                c->p[k] = builtins[i].pts[k][1] / 100;
            }
            c->n = builtins[i].n;
            return BN_OK;
        }
    char path[BN_PATH_MAX * 2];
    bn_path_beside(source, name, path, sizeof path);
    int rc = read_file(c, path, err);
    if (rc != BN_OK)
        return rc;
    double scale = c->p[c->n - 1];
    for (uint32_t k = 0; k < c->n; k++)
        c->p[k] /= scale;
    return BN_OK;
}

/* The mass below the first point is an atom at it; each segment after is
 * uniform over its sizes. */
double bn_size_cdf_mean(const struct bn_size_cdf *c)
{
    double m = c->p[0] * c->bytes[0];
    for (uint32_t k = 1; k < c->n; k++)
        m += (c->p[k] - c->p[k - 1]) * (c->bytes[k] + c->bytes[k - 1]) / 2;
    return m;
}

static double invert(const struct bn_size_cdf *c, double u)
{
    if (u < c->p[0])
        return c->bytes[0];
    uint32_t lo = 0, hi = c->n - 1; /* p[lo] <= u < p[hi] */
    if (u >= c->p[hi])
        return c->bytes[hi];
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (c->p[mid] <= u)
            lo = mid;
        else
            hi = mid;
    }
    return c->bytes[lo] + (u - c->p[lo]) / (c->p[hi] - c->p[lo]) * (c->bytes[hi] - c->bytes[lo]);
}

uint64_t bn_size_cdf_draw(const struct bn_size_cdf *c, struct bn_rng *rng)
{
    double x = invert(c, bn_rng_uniform(rng));
    uint64_t b = (uint64_t)llround(x);
    return b ? b : 1;
}

double bn_size_cdf_at(const struct bn_size_cdf *c, double x)
{
    if (x < c->bytes[0])
        return 0;
    uint32_t k = 1;
    while (k < c->n && c->bytes[k] <= x)
        k++;
    if (k == c->n)
        return 1;
    double span = c->bytes[k] - c->bytes[k - 1];
    return c->p[k - 1] + (span > 0 ? (x - c->bytes[k - 1]) / span * (c->p[k] - c->p[k - 1]) : 0);
}
