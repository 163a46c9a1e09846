/*
 * Reading calibration inputs: each file whole (its checksum is of the bytes
 * read), told apart as perftest's or nccl-tests' output, handed to that
 * format's reader. The helpers every reader shares: lines, blanks, the
 * NCCL_* variables a file names.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "core/grow.h"

#define MAX_FILE_BYTES (64u << 20) /* a log of a few thousand rows is well under 1 MiB */

char *bn_calib_next_line(struct bn_calib_text *t, size_t *pos)
{
    if (*pos >= t->len)
        return NULL;
    char *s = t->buf + *pos, *nl = memchr(s, '\n', t->len - *pos);
    size_t n = nl ? (size_t)(nl - s) : t->len - *pos;
    *pos += n + (nl != NULL);
    s[n] = '\0';
    if (n && s[n - 1] == '\r')
        s[n - 1] = '\0';
    return s;
}

char *bn_calib_trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

int bn_calib_add_env(struct bn_calib_input *in, const char *name, size_t nlen,
                     const char *value, size_t vlen, const char *path, unsigned line,
                     struct bn_error *err)
{
    if (nlen >= sizeof in->env[0].name || vlen >= sizeof in->env[0].value)
        return bn_fail(err, BN_EINPUT, "%s:%u: variable '%.*s': name or value too long", path,
                       line, (int)(nlen < 64 ? nlen : 64), name);
    uint32_t i = 0;
    while (i < in->nenv && (strlen(in->env[i].name) != nlen || memcmp(in->env[i].name, name, nlen)))
        i++;
    if (i == BN_CALIB_MAX_ENV)
        return bn_fail(err, BN_EINPUT, "%s:%u: more than %d NCCL_* variables", path, line,
                       BN_CALIB_MAX_ENV);
    memcpy(in->env[i].name, name, nlen);
    in->env[i].name[nlen] = '\0';
    memcpy(in->env[i].value, value, vlen);
    in->env[i].value[vlen] = '\0';
    if (i == in->nenv)
        in->nenv++;
    return BN_OK;
}

/* "NCCL_X=V" at s (V up to a blank or comma); its parts' lengths, or 0. */
static size_t env_token(const char *s, size_t *nlen, const char **v, size_t *vlen)
{
    if (strncmp(s, "NCCL_", 5) != 0)
        return 0;
    size_t n = 5;
    while (isupper((unsigned char)s[n]) || isdigit((unsigned char)s[n]) || s[n] == '_')
        n++;
    if (s[n] != '=')
        return 0;
    *nlen = n;
    *v = s + n + 1;
    *vlen = strcspn(*v, " \t,\"'");
    return n + 1 + *vlen;
}

int bn_calib_command_env(struct bn_calib_input *in, const char *line, const char *path,
                         unsigned lineno, struct bn_error *err)
{
    for (const char *p = line; (p = strstr(p, "NCCL_")); ) {
        size_t nlen, vlen, used;
        const char *v;
        bool starts = p == line || strchr(" \t,=\"'", p[-1]);
        if (starts && (used = env_token(p, &nlen, &v, &vlen)) > 0) {
            int rc = bn_calib_add_env(in, p, nlen, v, vlen, path, lineno, err);
            if (rc != BN_OK)
                return rc;
            p += used;
        } else {
            p += 5;
        }
    }
    return BN_OK;
}

bool bn_calib_is_perftest(const struct bn_calib_text *t)
{
    return strstr(t->buf, " #bytes ") || strstr(t->buf, "#bytes ") == t->buf ||
           strstr(t->buf, " BW Test\n") || strstr(t->buf, " Latency Test\n");
}

/* The file whole, NUL-terminated; BN_OK or BN_EINPUT naming it. */
static int slurp(const char *path, struct bn_calib_text *t, struct bn_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return bn_fail(err, BN_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int rc = buf ? BN_OK : bn_fail(err, BN_ENOMEM, "out of memory");
    while (rc == BN_OK) {
        if (n + 1 == cap) {
            char *grown = cap < MAX_FILE_BYTES ? realloc(buf, cap * 2) : NULL;
            if (!grown) {
                rc = cap < MAX_FILE_BYTES ? bn_fail(err, BN_ENOMEM, "out of memory")
                                          : bn_fail(err, BN_EINPUT, "%s: larger than %u MiB: "
                                                    "not a benchmark's output", path,
                                                    MAX_FILE_BYTES >> 20);
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = bn_fail(err, BN_EINPUT, "%s: read error", path);
            break;
        }
    }
    fclose(f);
    if (rc == BN_OK && memchr(buf, '\0', n))
        rc = bn_fail(err, BN_EINPUT, "%s: a NUL byte: not a text file", path);
    if (rc != BN_OK) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    t->path = path;
    t->buf = buf;
    t->len = n;
    return BN_OK;
}

static int read_one(const char *path, uint32_t index, struct bn_calib_input *in,
                    struct bn_calib_rows *rows, struct bn_error *err)
{
    struct bn_calib_text t;
    int rc = slurp(path, &t, err);
    if (rc != BN_OK)
        return rc;
    memset(in, 0, sizeof *in);
    snprintf(in->path, sizeof in->path, "%s", path);
    rc = bn_calib_sha256(t.buf, t.len, in->sha256, err);
    in->first_row = rows->n;
    if (rc == BN_OK)
        rc = bn_calib_is_perftest(&t) ? bn_calib_read_perftest(&t, index, in, rows, err)
                                      : bn_calib_read_nccl_tests(&t, index, in, rows, err);
    in->nrows = rows->n - in->first_row;
    free(t.buf);
    return rc;
}

int bn_calib_read(const char *const *paths, uint32_t npaths, struct bn_calib_data *out,
                  struct bn_error *err)
{
    memset(out, 0, sizeof *out);
    if (npaths == 0)
        return bn_fail(err, BN_EINPUT, "no input: give nccl-tests or perftest output files");
    struct bn_calib_rows rows = {0};
    out->inputs = calloc(npaths, sizeof *out->inputs);
    if (!out->inputs)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    int rc = BN_OK;
    for (uint32_t i = 0; rc == BN_OK && i < npaths; i++)
        rc = read_one(paths[i], i, &out->inputs[i], &rows, err);
    out->ninputs = npaths;
    out->rows = rows.rows;
    out->nrows = rows.n;
    if (rc != BN_OK)
        bn_calib_data_free(out);
    return rc;
}

void bn_calib_data_free(struct bn_calib_data *d)
{
    free(d->inputs);
    free(d->rows);
    memset(d, 0, sizeof *d);
}
