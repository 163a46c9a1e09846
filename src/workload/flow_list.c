/*
 * Flow list from a file (workload.flow_file): hosts by index; '#' starts a
 * comment, blank lines are skipped. A relative path is taken from the
 * scenario file's folder. The format is workload.flow_format, or, with
 * auto, the one that claims the first significant line: htsim's connection
 * matrix ("Nodes N"), HPCC's flow.txt (a count alone), else bnet's own.
 * Every malformed line is reported with file:line and the field at fault.
 *
 * bnet's own: one flow per line, `src dst bytes start_us`, optionally
 * followed by `after I[,J...]`: the flow starts start_us after flows I, J
 * (indices of earlier flow lines, from 0) are all received.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/lines.h"
#include "core/num.h"
#include "core/path.h"
#include "workload/flow_file.h"

static const struct bn_flow_format *const formats[] = {&bn_flow_bnet, &bn_flow_htsim,
                                                       &bn_flow_hpcc};
#define NFORMATS (sizeof formats / sizeof formats[0])

const char *bn_flow_format_name(size_t i)
{
    return i == 0 ? "auto" : i <= NFORMATS ? formats[i - 1]->name : NULL;
}

/* Its keys. */
struct flow_list_keys {
    char file[BN_PATH_MAX];      /* the flow file (docs/traffic.md#flow-files) */
    uint8_t format;              /* 0 = auto, else 1 + its format's index (bnet, htsim, hpcc) */
};
BN_WL_KEYS_CHECK(struct flow_list_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "workload.flow_file", BN_ROW_STRING, .info.unit = "", .info.def = "",
      .info.doc = "flow_list: the flow file (required for flow_list): 'src dst bytes start_us "
                  "[after I,J]' lines, an htsim connection matrix or HPCC's flow.txt.",
      BN_ROW_WL(struct flow_list_keys, file) },
    { .info.path = "workload.flow_format", BN_ROW_ENUM, .info.unit = "", .info.def = "auto",
      .info.choice = bn_flow_format_name,
      .info.doc = "flow_list: the file's format: bnet's own lines, htsim's connection matrix, "
                  "HPCC's flow.txt, or auto (from its first line).",
      BN_ROW_WL(struct flow_list_keys, format) },
};

extern const struct bn_workload_ops bn_wl_flow_list; /* below */

static const struct flow_list_keys *keys_of(const struct bn_scenario *sc)
{
    return bn_workload_keys(sc, &bn_wl_flow_list);
}

const char *bn_flow_file(const struct bn_scenario *sc)
{
    return keys_of(sc)->file;
}

bool bn_flow_u64(const char *tok, uint64_t *v)
{
    return bn_num_u64(tok, UINT64_MAX, v);
}

bool bn_flow_real(const char *tok, double *v)
{
    double x;
    if (!bn_num_real(tok, &x) || !(x >= 0) || x > 1e12)
        return false;
    *v = x;
    return true;
}

int bn_flow_file_add(struct bn_flow_reader *r, unsigned lineno, uint64_t src, uint64_t dst,
                     uint64_t bytes, double start_us, struct bn_error *err)
{
    if (src >= r->nhosts || dst >= r->nhosts)
        return bn_fail(err, BN_EINPUT, "%s:%u: field '%s': host %llu does not exist (%u hosts)",
                       r->path, lineno, src >= r->nhosts ? "src" : "dst",
                       (unsigned long long)(src >= r->nhosts ? src : dst), r->nhosts);
    if (src == dst)
        return bn_fail(err, BN_EINPUT, "%s:%u: field 'dst': a host cannot send to itself", r->path,
                       lineno);
    if (bytes == 0 || bytes > BN_MAX_MESSAGE_BYTES)
        return bn_fail(err, BN_EINPUT, "%s:%u: field 'bytes': must be 1..%llu", r->path, lineno,
                       (unsigned long long)BN_MAX_MESSAGE_BYTES);
    int rc = bn_flow_list_add(r->out, (uint32_t)src, (uint32_t)dst, bytes,
                              bn_time_from_us(start_us), err);
    if (rc == BN_OK)
        r->out->flows[r->out->n - 1].line = lineno;
    return rc;
}

/* ---- bnet's own lines ---- */

/* `after I,J`: a trigger needing every one of them, each signalling it when
 * its receiver is done. */
static int after(struct bn_flow_reader *r, const char *list, unsigned lineno,
                 struct bn_error *err)
{
    struct bn_flow_list *l = r->out;
    uint32_t self = l->n - 1, trig, need = 0;
    int rc = bn_flow_list_trigger(l, 0, false, 0, &trig, err);
    for (const char *p = list; rc == BN_OK && *p;) {
        char item[24];
        size_t len = strcspn(p, ",");
        uint64_t dep;
        if (len == 0 || len >= sizeof item)
            return bn_fail(err, BN_EINPUT, "%s:%u: field 'after': '%s' is not a list of flow "
                           "indices ('3' or '0,2')", r->path, lineno, list);
        memcpy(item, p, len);
        item[len] = '\0';
        if (!bn_flow_u64(item, &dep) || dep >= self)
            return bn_fail(err, BN_EINPUT, "%s:%u: field 'after': '%s' is not an earlier flow "
                           "(0..%u, in the order of the file's flow lines)", r->path, lineno,
                           item, self ? self - 1 : 0);
        rc = bn_flow_list_signal(l, (uint32_t)dep, trig, false, err);
        need++;
        p += len + (p[len] == ',');
    }
    if (rc == BN_OK) {
        l->trig[trig].need = need;
        l->flows[self].gate = trig;
    }
    return rc;
}

static int bnet_line(struct bn_flow_reader *r, char *const *tok, int nt, unsigned lineno,
                     struct bn_error *err)
{
    static const char *const names[] = {"src", "dst", "bytes", "start_us"};
    if (nt != 4 && !(nt == 6 && strcmp(tok[4], "after") == 0))
        return bn_fail(err, BN_EINPUT, "%s:%u: expected 4 fields 'src dst bytes start_us' "
                       "(then optionally 'after I,J'), got %d", r->path, lineno, nt);
    uint64_t v[3];
    double start_us;
    for (int i = 0; i < 3; i++)
        if (!bn_flow_u64(tok[i], &v[i]))
            return bn_fail(err, BN_EINPUT, "%s:%u: field '%s': '%s' is not a non-negative integer",
                           r->path, lineno, names[i], tok[i]);
    if (!bn_flow_real(tok[3], &start_us))
        return bn_fail(err, BN_EINPUT, "%s:%u: field 'start_us': '%s' is not a time in 0..1e12",
                       r->path, lineno, tok[3]);
    int rc = bn_flow_file_add(r, lineno, v[0], v[1], v[2], start_us, err);
    return rc == BN_OK && nt == 6 ? after(r, tok[5], lineno, err) : rc;
}

/* Anything htsim and HPCC do not claim. */
static bool bnet_claims(char *const *tok, int n)
{
    (void)tok;
    (void)n;
    return true;
}

const struct bn_flow_format bn_flow_bnet = {
    .name = "bnet",
    .claims = bnet_claims,
    .line = bnet_line,
};

/* ---- reading ---- */

struct reading {
    struct bn_flow_reader r;
    const struct bn_flow_format *fmt;   /* NULL: auto, until the first line */
    bool begun;
    int rc;
};

/* Split at blanks, after cutting a '#' comment; how many tokens (at most
 * BN_FLOW_TOKENS_MAX kept, the count goes on). */
static int split(char *line, char **tok)
{
    char *hash = strchr(line, '#'), *save = NULL;
    if (hash)
        *hash = '\0';
    int n = 0;
    for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save))
        if (n++ < BN_FLOW_TOKENS_MAX)
            tok[n - 1] = t;
    return n;
}

static int read_line(void *ctx, char *line, unsigned lineno, struct bn_error *err)
{
    struct reading *x = ctx;
    char *tok[BN_FLOW_TOKENS_MAX];
    int n = split(line, tok);
    if (n == 0)
        return BN_OK;
    if (n > BN_FLOW_TOKENS_MAX)
        return bn_fail(err, BN_EINPUT, "%s:%u: more than %d fields", x->r.path, lineno,
                       BN_FLOW_TOKENS_MAX);
    for (size_t i = 1; !x->fmt && i <= NFORMATS; i++) /* bnet's own last: it claims all */
        if (formats[i % NFORMATS]->claims(tok, n))
            x->fmt = formats[i % NFORMATS];
    if (!x->begun) {
        x->begun = true;
        int rc = x->fmt->begin ? x->fmt->begin(&x->r, err) : BN_OK;
        if (rc != BN_OK)
            return rc;
    }
    return x->fmt->line(&x->r, tok, n, lineno, err);
}

/* Stops bn_each_line at the first significant line, its format found. */
struct sniff {
    const struct bn_flow_format *fmt;
};

static int sniff_line(void *ctx, char *line, unsigned lineno, struct bn_error *err)
{
    (void)lineno;
    (void)err;
    struct sniff *x = ctx;
    char *tok[BN_FLOW_TOKENS_MAX];
    int n = split(line, tok);
    if (n == 0 || n > BN_FLOW_TOKENS_MAX)
        return n == 0 ? BN_OK : BN_EINTR;
    for (size_t i = 1; !x->fmt && i <= NFORMATS; i++)
        if (formats[i % NFORMATS]->claims(tok, n))
            x->fmt = formats[i % NFORMATS];
    return BN_EINTR; /* found: stop reading */
}

bool bn_flow_file_fails_links(const struct bn_scenario *sc)
{
    const struct flow_list_keys *k = keys_of(sc);
    if (k->format)
        return formats[k->format - 1]->fails_links;
    char path[BN_PATH_MAX * 2];
    bn_path_beside(sc->source, k->file, path, sizeof path);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return false;
    struct sniff x = {NULL};
    struct bn_error err;
    bn_each_line(fp, path, sniff_line, &x, NULL, &err);
    fclose(fp);
    return x.fmt && x.fmt->fails_links;
}

static int generate(const struct bn_scenario *sc, const struct bn_wl_hosts *h,
                    struct bn_rng *rng, struct bn_flow_list *out, struct bn_error *err)
{
    (void)rng;
    const struct flow_list_keys *k = keys_of(sc);
    char path[BN_PATH_MAX * 2];
    bn_path_beside(sc->source, k->file, path, sizeof path);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return bn_fail(err, BN_EINPUT, "%s: key 'workload.flow_file': cannot open '%s': %s",
                       sc->source, path, strerror(errno));
    struct reading x = {.r = {path, h->n, h->file_host, h->nfile_ids, sc->sim.max_time_us, out,
                              NULL},
                        .fmt = k->format ? formats[k->format - 1] : NULL};
    unsigned lines;
    int rc = bn_each_line(fp, path, read_line, &x, &lines, err);
    fclose(fp);
    if (rc == BN_OK && x.fmt && x.fmt->end)
        rc = x.fmt->end(&x.r, lines, err);
    if (x.fmt && x.fmt->free)
        x.fmt->free(&x.r);
    if (rc == BN_OK && out->n == 0)
        rc = bn_fail(err, BN_EINPUT, "%s: no flows in the file", path);
    if (rc == BN_OK)
        rc = bn_flow_list_check_gates(out, path, err);
    return rc;
}

/* For the memory estimate, before the file is read: its lines, each at
 * most one flow (a 3-million-line file is counted in tens of ms, where
 * reading it takes seconds and its flows gigabytes). 0: cannot be opened
 * (generate says why). */
static uint64_t count(const struct bn_scenario *sc, uint64_t nhosts, uint64_t *serial)
{
    (void)nhosts;
    char path[BN_PATH_MAX * 2], buf[1 << 16];
    bn_path_beside(sc->source, keys_of(sc)->file, path, sizeof path);
    FILE *fp = fopen(path, "r");
    uint64_t lines = 0;
    size_t n = 0;
    char last = '\n';
    while (fp && (n = fread(buf, 1, sizeof buf, fp)) > 0) {
        for (const char *p = buf; (p = memchr(p, '\n', (size_t)(buf + n - p))); p++)
            lines++;
        last = buf[n - 1];
    }
    if (fp)
        fclose(fp);
    *serial = 1;
    return lines + (last != '\n');
}

const struct bn_workload_ops bn_wl_flow_list = {
    .name = "flow_list",
    .summary = "the flows listed in workload.flow_file",
    .needs_flow_file = true,
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .generate = generate,
    .count = count,
    .count_key = "workload.flow_file", /* a flow per line */
};
