/*
 * perftest's output (linux-rdma/perftest: ib_write_bw, ib_send_lat,
 * ib_read_lat ...) as it prints it: a dashed rule, the test's title ("RDMA_Write
 * BW Test", "Send Latency Test"), its settings ("Number of qps : 1", two to
 * a line; "Max inline data" is kept with the test's rows), the local and
 * remote addresses, the column titles ("#bytes
 * #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]", or
 * "t_min[usec] ... 99.9% percentile[usec]") and a row per size. Several
 * tests may follow each other in one file (a shell session); its prompts
 * with the command, the server's "Waiting for client" box and perftest's
 * own warnings are passed over. Any other line: its file and line.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "core/grow.h"

enum unit { U_NONE, U_GBITS, U_MBYTES, U_MIBYTES, U_LAT };

struct state {
    const char *path;
    struct bn_calib_input *in;
    char test[24];            /* "write_bw" from the title */
    enum unit unit;           /* from the column titles */
    int32_t inline_bytes;     /* the test's "Max inline data", -1 until printed */
};

/* "RDMA_Write BW Test" -> "write_bw"; NULL if not a title. */
static const char *test_of_title(const char *s, char *buf, size_t len)
{
    static const char *const verbs[][2] = {
        {"RDMA_Write", "write"}, {"RDMA_Read", "read"}, {"Send", "send"}, {"Atomic", "atomic"},
    };
    size_t n = strlen(s);
    bool bw = n > 8 && strcmp(s + n - 8, " BW Test") == 0;
    bool lat = n > 13 && strcmp(s + n - 13, " Latency Test") == 0;
    if (!bw && !lat)
        return NULL;
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (strncmp(s, verbs[i][0], strlen(verbs[i][0])) == 0) {
            snprintf(buf, len, "%s_%s", verbs[i][1], bw ? "bw" : "lat");
            return buf;
        }
    return NULL;
}

static bool rule(const char *s)
{
    return strspn(s, "-") == strlen(s) || strspn(s, "*") == strlen(s) ||
           (s[0] == '*' && strstr(s, "Waiting for client"));
}

/* perftest's notes and a shell's prompt or command. */
static bool passed_over(const char *s)
{
    static const char *const notes[] = {
        "WARNING:", "Conflicting CPU frequency", "Disabling dynamic polling",
        "Requested SQ size", "Current TX depth", "local address:", "remote address:", "GID:",
    };
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++)
        if (strncmp(s, notes[i], strlen(notes[i])) == 0)
            return true;
    /* "user@host:~$ ib_write_bw ..." or "[root@node3 bin]# ib_write_bw ..." */
    const char *ib = strstr(s, "ib_");
    if (!ib)
        return false;
    for (const char *p = s; p < ib; p++)
        if (*p == '$' || *p == '#')
            return true;
    return ib == s;
}

static int titles(struct state *st, const char *s, unsigned line, struct bn_error *err)
{
    st->unit = strstr(s, "t_min[usec]")        ? U_LAT
               : strstr(s, "BW peak[Gb/sec]")  ? U_GBITS
               : strstr(s, "BW peak[MB/sec]")  ? U_MBYTES
               : strstr(s, "BW peak[MiB/sec]") ? U_MIBYTES
                                               : U_NONE;
    if (st->unit == U_NONE)
        return bn_fail(err, BN_EINPUT, "%s:%u: column titles that are not perftest's (BW peak "
                       "in Gb/sec, MB/sec or MiB/sec, or t_min[usec] ...)", st->path, line);
    if (!st->test[0])
        return bn_fail(err, BN_EINPUT, "%s:%u: column titles before the test's title (\"RDMA_"
                       "Write BW Test\", ...)", st->path, line);
    return BN_OK;
}

static int data_row(struct state *st, struct bn_calib_rows *rows, uint32_t index, char *s,
                    unsigned line, struct bn_error *err)
{
    if (st->unit == U_NONE)
        return bn_fail(err, BN_EINPUT, "%s:%u: a row before perftest's column titles",
                       st->path, line);
    double v[9];
    int n = 0;
    for (char *p = strtok(s, " \t"); p; p = strtok(NULL, " \t")) {
        char *end;
        if (n == 9)
            return bn_fail(err, BN_EINPUT, "%s:%u: more fields than perftest prints", st->path,
                           line);
        v[n] = strtod(p, &end);
        if (*end || !isfinite(v[n]) || v[n] < 0)
            return bn_fail(err, BN_EINPUT, "%s:%u: field %d '%s' is not a number", st->path,
                           line, n + 1, p);
        n++;
    }
    bool lat = st->unit == U_LAT;
    if (lat ? n != 6 && n != 9 : n != 5)
        return bn_fail(err, BN_EINPUT, "%s:%u: %d fields; perftest's %s rows have %s", st->path,
                       line, n, lat ? "latency" : "bandwidth", lat ? "6 or 9" : "5");
    if (v[0] < 1 || v[0] != floor(v[0]) || v[0] > (double)BN_CALIB_BYTES_MAX)
        return bn_fail(err, BN_EINPUT, "%s:%u: #bytes '%g' is not a size (1 .. %llu)", st->path,
                       line, v[0], BN_CALIB_BYTES_MAX);
    /* Gb/s of the average: MB/sec is 10^6 bytes (perftest's MB), MiB/sec 2^20 */
    double scale = st->unit == U_GBITS ? 1 : st->unit == U_MBYTES ? 8e-3 : 8 * 1.048576e-3;
    double gbps = lat ? 0 : v[3] * scale;
    double t = lat ? v[4] : gbps > 0 ? v[0] * 8 / (gbps * 1e3) : 0;
    if (t <= 0)
        return bn_fail(err, BN_EINPUT, "%s:%u: no time or bandwidth in the row", st->path, line);
    if (!bn_grow((void **)&rows->rows, rows->n, &rows->cap, sizeof *rows->rows))
        return bn_fail(err, BN_ENOMEM, "out of memory");
    struct bn_calib_row *r = &rows->rows[rows->n++];
    *r = (struct bn_calib_row){.input = index, .line = line, .bytes = (uint64_t)v[0],
                               .time_us = t, .busbw_gbs = gbps,
                               .inline_bytes = st->inline_bytes};
    snprintf(r->op, sizeof r->op, "%s", st->test);
    return BN_OK;
}

/* "Max inline data : 220[B]" */
static int inline_setting(struct state *st, const char *s, unsigned line, struct bn_error *err)
{
    const char *p = strchr(s, ':');
    char *end = NULL;
    long v = p ? strtol(p + 1, &end, 10) : -1;
    if (!p || end == p + 1 || v < 0 || v > 4096 || strcmp(end, "[B]") != 0)
        return bn_fail(err, BN_EINPUT, "%s:%u: 'Max inline data' is not a size in bytes: '%.60s'",
                       st->path, line, s);
    st->inline_bytes = (int32_t)v;
    return BN_OK;
}

static int one_line(struct state *st, struct bn_calib_rows *rows, uint32_t index, char *raw,
                    unsigned line, struct bn_error *err)
{
    char *s = bn_calib_trim(raw), buf[24];
    if (!*s || rule(s) || passed_over(s))
        return BN_OK;
    const char *test = test_of_title(s, buf, sizeof buf);
    if (test || strstr(s, " BW Test") || strstr(s, " Latency Test")) {
        if (!test)
            return bn_fail(err, BN_EINPUT, "%s:%u: a perftest title bnet does not run: '%.60s'",
                           st->path, line, s);
        snprintf(st->test, sizeof st->test, "%s", test);
        if (!st->in->op[0])
            snprintf(st->in->op, sizeof st->in->op, "%s", test);
        st->unit = U_NONE;
        st->inline_bytes = -1;
        return BN_OK;
    }
    if (s[0] == '#')
        return titles(st, s, line, err);
    if (isdigit((unsigned char)s[0]))
        return data_row(st, rows, index, s, line, err);
    /* the inline size the test used (perftest's -I; its latency rows hang on it) */
    if (strncmp(s, "Max inline data", 15) == 0)
        return inline_setting(st, s, line, err);
    /* a setting: "Number of qps   : 1", "PCIe relax order: ON" */
    const char *colon = strchr(s, ':');
    if (colon && isalpha((unsigned char)s[0]) && colon - s < 28 && colon[1] == ' ')
        return BN_OK;
    return bn_fail(err, BN_EINPUT, "%s:%u: not a line perftest prints: '%.60s'", st->path, line,
                   s);
}

int bn_calib_read_perftest(struct bn_calib_text *t, uint32_t index, struct bn_calib_input *in,
                           struct bn_calib_rows *rows, struct bn_error *err)
{
    struct state st = {.path = t->path, .in = in, .inline_bytes = -1};
    in->kind = BN_CALIB_PERFTEST;
    in->nodes = 2;
    in->gpus_per_node = 1;
    in->nranks = 2;
    size_t pos = 0;
    unsigned line = 0;
    int rc = BN_OK;
    for (char *s; rc == BN_OK && (s = bn_calib_next_line(t, &pos));)
        rc = one_line(&st, rows, index, s, ++line, err);
    if (rc == BN_OK && rows->n == in->first_row)
        rc = bn_fail(err, BN_EINPUT, "%s: no rows: not perftest's output", t->path);
    return rc;
}
