/*
 * nccl-tests' output as its *_perf programs print it (NVIDIA/nccl-tests
 * src/common.cu): the "# nThread ... nGpus ..." header, "# Using devices"
 * and a "#  Rank R Group G Pid P on HOST device D [BUS] NAME" line per rank,
 * the two column-title lines (size count type [redop] [root], then time
 * algbw busbw #wrong out of place and again in place), a row per size, the
 * "# Out of bounds" and "# Avg bus bandwidth" footer. Around it what NCCL
 * and a launcher print: "NCCL version 2.x.y+cudaZ", NCCL's debug lines
 * (host:pid:tid [dev] NCCL INFO ..., whose "NCCL_X set by environment to V"
 * is kept), NCCL_X=V lines, the mpirun/srun command (its NCCL_X=V tokens),
 * and MPI's "[1,0]<stdout>:" prefix. Any other line is refused with its
 * file and line: bnet fits only what it understood.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "core/grow.h"

#define MAX_HOSTS 4096
#define MAX_TOKENS 24

struct state {
    const char *path;
    struct bn_calib_input *in;
    bool columns;             /* the column titles were seen */
    int pre;                  /* fields before the time groups: size count type [redop] [root] */
    bool has_redop, has_root;
    char redop[16];           /* the first row's reduction ("none" for gathers) */
    int root;                 /* the first row's root (-1: none) */
    double factor;            /* busbw / algbw of the row with the largest algbw */
    double best_algbw;
    char hosts[MAX_HOSTS][40]; /* to count ranks per host */
    uint32_t per_host[MAX_HOSTS];
    uint32_t nhosts;
    char program[128];
};

static int split(char *s, char **tok, int max)
{
    int n = 0;
    for (char *p = strtok(s, " \t"); p && n < max; p = strtok(NULL, " \t"))
        tok[n++] = p;
    return n;
}

/* A number nccl-tests prints (a time, a bandwidth), or "N/A" (0); -1 if
 * neither. */
static double number(const char *s)
{
    if (strcmp(s, "N/A") == 0)
        return 0;
    char *end;
    double v = strtod(s, &end);
    return end != s && !*end && isfinite(v) && v >= 0 ? v : -1;
}

/* "all_reduce_perf" (a path's last part, "_mpi" allowed) as bnet's coll.op. */
static const char *op_of_program(const char *name)
{
    static const char *const map[][2] = {
        {"all_reduce_perf", "allreduce"}, {"all_gather_perf", "allgather"},
        {"reduce_scatter_perf", "reducescatter"}, {"broadcast_perf", "broadcast"},
        {"reduce_perf", "reduce"}, {"alltoall_perf", "alltoall"},
        {"sendrecv_perf", "sendrecv"},
    };
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        size_t n = strlen(map[i][0]);
        if (strncmp(base, map[i][0], n) == 0 && (base[n] == '\0' || strcmp(base + n, "_mpi") == 0))
            return map[i][1];
    }
    return NULL;
}

/* A launcher's command: mpirun, mpiexec, srun or a *_perf program first. */
static bool command_line(const char *s, char *program, size_t len)
{
    if (s[0] == '$' && s[1] == ' ')
        s += 2;
    char first[64];
    size_t n = strcspn(s, " \t");
    if (n == 0 || n >= sizeof first)
        return false;
    memcpy(first, s, n);
    first[n] = '\0';
    const char *base = strrchr(first, '/');
    base = base ? base + 1 : first;
    if (strcmp(base, "mpirun") && strcmp(base, "mpiexec") && strcmp(base, "srun") &&
        !op_of_program(base))
        return false;
    /* the program it starts names the collective */
    for (const char *p = s; *p; p += strspn(p, " \t")) {
        size_t k = strcspn(p, " \t");
        char word[128];
        if (k < sizeof word) {
            memcpy(word, p, k);
            word[k] = '\0';
            if (op_of_program(word))
                snprintf(program, len, "%s", word);
        }
        p += k;
    }
    return true;
}

/* "host:pid:tid [dev] NCCL INFO|WARN|TRACE ...": NCCL's debug output. */
static bool nccl_debug(const char *s, const char **msg)
{
    const char *p = strstr(s, " NCCL ");
    if (!p || p == s || !strchr(s, '[') || strchr(s, '[') > p)
        return false;
    p += 6;
    for (const char *lvl = "INFO\0WARN\0TRACE\0"; *lvl; lvl += strlen(lvl) + 1)
        if (strncmp(p, lvl, strlen(lvl)) == 0 && p[strlen(lvl)] == ' ') {
            *msg = p + strlen(lvl) + 1;
            return true;
        }
    return false;
}

/* "#  Rank  3 Group  0 Pid 1234 on host device  3 [0000:19:00] NAME". */
static int rank_line(struct state *st, char *s, unsigned line, struct bn_error *err)
{
    char *tok[MAX_TOKENS];
    char copy[512];
    snprintf(copy, sizeof copy, "%s", s);
    int n = split(copy, tok, MAX_TOKENS);
    if (n < 10 || strcmp(tok[0], "Rank") || strcmp(tok[2], "Group") || strcmp(tok[4], "Pid") ||
        strcmp(tok[6], "on") || strcmp(tok[8], "device"))
        return bn_fail(err, BN_EINPUT, "%s:%u: a 'Using devices' line that is not '#  Rank R "
                       "Group G Pid P on HOST device D [BUS] NAME'", st->path, line);
    const char *host = tok[7];
    uint32_t h = 0;
    while (h < st->nhosts && strcmp(st->hosts[h], host))
        h++;
    if (h == st->nhosts) {
        if (st->nhosts == MAX_HOSTS)
            return bn_fail(err, BN_EINPUT, "%s:%u: more than %d hosts", st->path, line,
                           MAX_HOSTS);
        snprintf(st->hosts[h], sizeof st->hosts[h], "%s", host);
        st->nhosts++;
        st->in->nodes++;
    }
    st->per_host[h]++;
    st->in->nranks++;
    if (!st->in->gpu[0]) { /* the device name: what follows "[BUS]" */
        const char *name = strchr(s, ']');
        if (name)
            snprintf(st->in->gpu, sizeof st->in->gpu, "%s", name + 1 + strspn(name + 1, " "));
    }
    return BN_OK;
}

/* "#       size         count      type   redop    root     time ...". */
static int title_line(struct state *st, char *s, unsigned line, struct bn_error *err)
{
    char *tok[MAX_TOKENS];
    char copy[512];
    snprintf(copy, sizeof copy, "%s", s);
    int n = split(copy, tok, MAX_TOKENS), i = 0;
    if (n < 3 || strcmp(tok[0], "size") || strcmp(tok[1], "count"))
        return bn_fail(err, BN_EINPUT, "%s:%u: column titles that are not nccl-tests' (size "
                       "count type ...)", st->path, line);
    i = 2;
    if (i < n && strcmp(tok[i], "type") == 0)
        i++;
    st->has_redop = i < n && strcmp(tok[i], "redop") == 0;
    i += st->has_redop;
    st->has_root = i < n && strcmp(tok[i], "root") == 0;
    i += st->has_root;
    if (i + 4 > n || strcmp(tok[i], "time") || strcmp(tok[i + 1], "algbw") ||
        strcmp(tok[i + 2], "busbw"))
        return bn_fail(err, BN_EINPUT, "%s:%u: column titles without 'time algbw busbw' after "
                       "the size, count and type", st->path, line);
    st->pre = i;
    st->columns = true;
    return BN_OK;
}

static int data_row(struct state *st, struct bn_calib_rows *rows, uint32_t index, char *s,
                    unsigned line, struct bn_error *err)
{
    if (!st->columns)
        return bn_fail(err, BN_EINPUT, "%s:%u: a row before nccl-tests' column titles",
                       st->path, line);
    char *tok[MAX_TOKENS];
    int n = split(s, tok, MAX_TOKENS), pre = st->pre;
    if (n != pre + 4 && n != pre + 8)
        return bn_fail(err, BN_EINPUT, "%s:%u: a row of %d fields; nccl-tests' columns here "
                       "make %d (out of place) or %d (and in place)", st->path, line, n,
                       pre + 4, pre + 8);
    char *end;
    errno = 0;
    unsigned long long size = strtoull(tok[0], &end, 10);
    if (*end || size == 0 || !isdigit((unsigned char)tok[0][0]) || errno ||
        size > BN_CALIB_BYTES_MAX)
        return bn_fail(err, BN_EINPUT, "%s:%u: size '%s' is not a byte count (1 .. %llu)",
                       st->path, line, tok[0], BN_CALIB_BYTES_MAX);
    double v[8];
    for (int k = 0; k < n - pre; k++) {
        bool wrong = k % 4 == 3; /* #wrong: a count, "N/A", or an old error like 0e+00 */
        v[k] = wrong ? 0 : number(tok[pre + k]);
        if (v[k] < 0)
            return bn_fail(err, BN_EINPUT, "%s:%u: field %d '%s' is not a number", st->path,
                           line, pre + k + 1, tok[pre + k]);
    }
    double oop = v[0], ip = n == pre + 8 ? v[4] : 0;
    if (oop <= 0 && ip <= 0)
        return bn_fail(err, BN_EINPUT, "%s:%u: no time in either column", st->path, line);
    bool use_ip = ip > 0 && (oop <= 0 || ip < oop);
    if (st->has_redop && rows->n == st->in->first_row)
        snprintf(st->redop, sizeof st->redop, "%s", tok[3]);
    if (st->has_root && rows->n == st->in->first_row)
        st->root = atoi(tok[st->has_redop ? 4 : 3]);
    double algbw = use_ip ? v[5] : v[1], busbw = use_ip ? v[6] : v[2];
    if (algbw > st->best_algbw) {
        st->best_algbw = algbw;
        st->factor = busbw / algbw;
    }
    if (!bn_grow((void **)&rows->rows, rows->n, &rows->cap, sizeof *rows->rows))
        return bn_fail(err, BN_ENOMEM, "out of memory");
    struct bn_calib_row *r = &rows->rows[rows->n++];
    *r = (struct bn_calib_row){.input = index, .line = line, .bytes = size, .oop_us = oop,
                               .ip_us = ip, .time_us = use_ip ? ip : oop, .busbw_gbs = busbw,
                               .inline_bytes = -1};
    return BN_OK;
}

/* A comment line of nccl-tests' own. */
static int comment(struct state *st, char *s, unsigned line, bool *devices, struct bn_error *err)
{
    static const char *const known[] = {
        "nccl-tests version", "nThread ", "Out of bounds values", "Avg bus bandwidth",
        "Collective test concluded", "Reducing maxBytes", "Using devices", "(B)",
    };
    char *body = bn_calib_trim(s + 1);
    if (!*body)
        return BN_OK;
    if (strncmp(body, "Rank ", 5) == 0)
        return *devices ? rank_line(st, body, line, err)
                        : bn_fail(err, BN_EINPUT, "%s:%u: a rank line before '# Using devices'",
                                  st->path, line);
    if (strncmp(body, "Collective test starting:", 25) == 0) {
        snprintf(st->program, sizeof st->program, "%s", bn_calib_trim(body + 25));
        return BN_OK;
    }
    if (strncmp(body, "size ", 5) == 0)
        return title_line(st, body, line, err);
    if (strncmp(body, "out-of-place", 12) == 0)
        return BN_OK;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strncmp(body, known[i], strlen(known[i])) == 0) {
            *devices |= i == 6;
            return BN_OK;
        }
    return bn_fail(err, BN_EINPUT, "%s:%u: a comment nccl-tests does not print: '%.60s'",
                   st->path, line, body);
}

static int one_line(struct state *st, struct bn_calib_rows *rows, uint32_t index, char *raw,
                    unsigned line, bool *devices, struct bn_error *err)
{
    char *s = raw;
    if (s[0] == '[') { /* Open MPI's --tag-output: "[1,0]<stdout>:" */
        char *tag = strstr(s, "]<stdout>:");
        if (!tag)
            tag = strstr(s, "]<stderr>:");
        if (tag)
            s = tag + 10;
    }
    s = bn_calib_trim(s);
    if (!*s)
        return BN_OK;
    if (s[0] == '#')
        return comment(st, s, line, devices, err);
    if (isdigit((unsigned char)s[0]) && !strchr(s, ':'))
        return data_row(st, rows, index, s, line, err);
    const char *msg;
    if (strncmp(s, "NCCL version ", 13) == 0) {
        size_t n = strcspn(s + 13, "+ ");
        snprintf(st->in->nccl_version, sizeof st->in->nccl_version, "%.*s",
                 (int)(n < 23 ? n : 23), s + 13);
        return BN_OK;
    }
    if (nccl_debug(s, &msg)) {
        const char *set = strstr(msg, " set by environment to ");
        if (strncmp(msg, "NCCL_", 5) == 0 && set) {
            const char *v = set + 23;
            return bn_calib_add_env(st->in, msg, (size_t)(set - msg), v, strcspn(v, " ."),
                                    st->path, line, err);
        }
        return BN_OK;
    }
    if (strncmp(s, "export ", 7) == 0)
        s += 7;
    if (strncmp(s, "NCCL_", 5) == 0 && strchr(s, '=') && !strpbrk(s, " \t"))
        return bn_calib_command_env(st->in, s, st->path, line, err);
    if (command_line(s, st->program, sizeof st->program))
        return bn_calib_command_env(st->in, s, st->path, line, err);
    return bn_fail(err, BN_EINPUT, "%s:%u: not a line nccl-tests, NCCL or a launcher prints: "
                   "'%.60s'", st->path, line, s);
}

/* The collective from busbw / algbw, the reduction and the root, where no
 * program name says it (nccl-tests' busbw factors: docs/collectives.md). */
static const char *op_of_factor(const struct state *st, uint32_t n)
{
    if (n < 2 || st->best_algbw <= 0)
        return NULL;
    double f = st->factor, ar = 2.0 * (n - 1) / n, half = (double)(n - 1) / n;
    bool sum = st->has_redop && strcmp(st->redop, "none") != 0;
    if (fabs(f - ar) < 0.03 * ar && sum && st->root < 0)
        return "allreduce";
    if (fabs(f - half) < 0.03 * half && sum && st->root < 0)
        return "reducescatter";
    if (fabs(f - 1) < 0.03 && st->root >= 0)
        return sum ? "reduce" : "broadcast";
    return NULL; /* allgather and alltoall have the same factor: a name must say */
}

int bn_calib_read_nccl_tests(struct bn_calib_text *t, uint32_t index, struct bn_calib_input *in,
                             struct bn_calib_rows *rows, struct bn_error *err)
{
    struct state *st = calloc(1, sizeof *st);
    if (!st)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    st->path = t->path;
    st->in = in;
    st->root = -1;
    in->kind = BN_CALIB_NCCL_TESTS;
    size_t pos = 0;
    unsigned line = 0;
    bool devices = false;
    int rc = BN_OK;
    for (char *s; rc == BN_OK && (s = bn_calib_next_line(t, &pos));)
        rc = one_line(st, rows, index, s, ++line, &devices, err);
    if (rc == BN_OK && rows->n == in->first_row)
        rc = bn_fail(err, BN_EINPUT, "%s: no rows: not nccl-tests' output", t->path);
    if (rc == BN_OK && in->nranks == 0)
        rc = bn_fail(err, BN_EINPUT, "%s: no '# Using devices' rank lines: the cluster's shape "
                     "(hosts, GPUs per host) is unknown", t->path);
    for (uint32_t h = 1; rc == BN_OK && h < st->nhosts; h++)
        if (st->per_host[h] != st->per_host[0])
            rc = bn_fail(err, BN_EINPUT, "%s: host '%s' has %u ranks and '%s' %u: bnet builds "
                         "servers alike", t->path, st->hosts[h], st->per_host[h], st->hosts[0],
                         st->per_host[0]);
    if (rc == BN_OK) {
        in->gpus_per_node = in->nranks / in->nodes;
        if (in->gpus_per_node * in->nodes != in->nranks)
            rc = bn_fail(err, BN_EINPUT, "%s: %u ranks on %u hosts: not the same count on each",
                         t->path, in->nranks, in->nodes);
    }
    const char *op = st->program[0] ? op_of_program(st->program) : NULL;
    if (rc == BN_OK && st->program[0] && !op)
        rc = bn_fail(err, BN_EINPUT, "%s: program '%s' is not one of nccl-tests' *_perf",
                     t->path, st->program);
    if (rc == BN_OK && !op && !(op = op_of_factor(st, in->nranks)))
        rc = bn_fail(err, BN_EINPUT, "%s: which collective ran is not said (no '# Collective "
                     "test starting' or launch command) and busbw / algbw does not tell",
                     t->path);
    if (rc == BN_OK) {
        snprintf(in->op, sizeof in->op, "%s", op);
        for (uint32_t i = in->first_row; i < rows->n; i++)
            snprintf(rows->rows[i].op, sizeof rows->rows[i].op, "%s", op);
    }
    free(st);
    return rc;
}
