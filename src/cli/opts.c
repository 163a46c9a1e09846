/*
 * The options of every command, in one table that getopt_long(3) parses and
 * `bnet help` prints, so the two cannot disagree. `bnet coll` takes every
 * flag of NVIDIA's nccl-tests with its long form (src/common.cu of
 * nccl-tests 2.x), p2p perftest's. A row with a key is a flag whose value
 * sets that scenario key; one with a field fills a field of struct
 * cli_opts. Every input problem is one line on stderr and exit status 2.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

enum {
    RUN = 1u << BN_CLI_RUN, TOPO = 1u << BN_CLI_TOPO, COLL = 1u << BN_CLI_COLL,
    JOB = 1u << BN_CLI_JOB, P2P = 1u << BN_CLI_P2P, COMPARE = 1u << BN_CLI_COMPARE,
    SWEEP = 1u << BN_CLI_SWEEP,
    ALL = RUN | TOPO | COLL | JOB | P2P | COMPARE | SWEEP
};

/* Flags of nccl-tests that steer the host side of a real run (threads,
 * streams, CUDA graphs, timeouts, registration): a simulation has no such
 * side, so they are accepted, checked to be counts, and recorded in the
 * result's command (docs/collectives.md, "nccl-tests flags"). */
#define HOST_ONLY "accept"
/* perftest's host side: the device (-d mlx5_0) by name, and switches (-F,
 * -R) that take no value; accepted, no effect */
#define HOST_NAME "accept_name"
/* perftest's modes bnet does not model, refused by name with why */
#define REFUSED "refuse"

static const struct bn_cli_opt options[] = {
    /* nccl-tests (bnet coll); -t x -g x -N or --nranks GPUs (docs/collectives.md) */
    {'t', "nthreads", "N", COLL, NULL, false, false, "threads"},
    {'g', "ngpus", "N", COLL, NULL, false, false, "gpus"},
    {'N', "nodes", "N", COLL, NULL, false, false, "nodes"},
    {0, "nranks", "N", COLL, NULL, false, false, "nranks"},
    {'b', "minbytes", "MIN", COLL, "coll.min_bytes", true, false, NULL},
    {'e', "maxbytes", "MAX", COLL, "coll.max_bytes", true, false, NULL},
    {'i', "stepbytes", "BYTES", COLL, "coll.step_bytes", true, false, NULL},
    {'f', "stepfactor", "FACTOR", COLL, "coll.step_factor", false, false, NULL},
    {'n', "iters", "ITERS", COLL, "coll.iters", false, false, NULL},
    {'m', "agg_iters", "N", COLL, NULL, false, false, "agg_iters"},
    {'w', "warmup_iters", "WARMUP", COLL, "coll.warmup", false, false, NULL},
    {'c', "check", "0|1", COLL, "coll.check", false, false, NULL},
    {'o', "op", "REDOP", COLL, "coll.redop", false, false, NULL},
    {'d', "datatype", "TYPE", COLL, "coll.datatype", false, false, NULL},
    {'r', "root", "ROOT", COLL, "coll.root", false, false, NULL},
    {'a', "average", "0-3", COLL, NULL, false, false, HOST_ONLY},
    {'p', "parallel_init", "0|1", COLL, NULL, false, false, HOST_ONLY},
    {'z', "blocking", "0|1", COLL, NULL, false, false, HOST_ONLY},
    {'y', "stream_null", "0|1", COLL, NULL, false, false, HOST_ONLY},
    {'T', "timeout", "SECONDS", COLL, NULL, false, false, HOST_ONLY},
    {'G', "cudagraph", "N", COLL, NULL, false, false, HOST_ONLY},
    {'C', "report_cputime", "0|1", COLL, NULL, false, false, HOST_ONLY},
    {'R', "local_register", "0|1", COLL, NULL, false, false, HOST_ONLY},
    {'F', "output_file", "PATH", COLL, NULL, false, false, "output_file"},
    {0, "coll", "COLL", COLL, "coll.op", false, false, NULL},
    {0, "algo", "ALGO", COLL, "coll.algo", false, false, NULL},
    {0, "proto", "PROTO", COLL, "coll.proto", false, false, NULL},
    {0, "channels", "N", COLL, "coll.channels", false, false, NULL},
    {0, "bnet-columns", NULL, COLL, NULL, false, false, "bnet_columns"},
    /* perftest (bnet p2p) */
    {0, "test", "TEST", P2P, "p2p.test", false, false, NULL},
    {'s', "size", "BYTES", P2P, "p2p.bytes", true, false, NULL},
    {'a', "all", NULL, P2P, "p2p.bytes", false, false, NULL},
    {'n', "iters", "ITERS", P2P, "p2p.iterations", false, false, NULL},
    {'q', "qp", "QPS", P2P, "p2p.qps", false, false, NULL},
    {'t', "tx-depth", "DEPTH", P2P, "p2p.tx_depth", false, false, NULL},
    {'o', "outs", "READS", P2P, "nic.max_rd_atomic", false, false, NULL},
    {'I', "inline_size", "BYTES", P2P, "nic.inline_bytes", false, false, NULL},
    {0, "hosts", "A,B,...", P2P, "p2p.hosts", false, false, NULL},
    {'m', "mtu", "BYTES", P2P, "nic.mtu_bytes", false, false, NULL},
    {0, "report_gbits", NULL, P2P, NULL, false, false, "report_gbits"},
    {'d', "ib-dev", "DEVICE", P2P, NULL, false, false, HOST_NAME},
    {'x', "gid-index", "N", P2P, NULL, false, false, HOST_ONLY},
    {'p', "port", "PORT", P2P, NULL, false, false, HOST_ONLY},
    {'F', "CPU-freq", NULL, P2P, NULL, false, false, HOST_NAME},
    {'R', "rdma_cm", NULL, P2P, NULL, false, false, HOST_NAME},
    {'b', "bidirectional", NULL, P2P, NULL, false, false, REFUSED},
    {'D', "duration", "SECONDS", P2P, NULL, false, false, REFUSED},
    /* bnet's own */
    {0, "fabrics", "A,B,...", COMPARE, "compare.fabrics", false, false, NULL},
    {0, "fidelity", "LEVEL", RUN | COLL | JOB | COMPARE | SWEEP, "sim.fidelity", false, false,
     NULL},
    {0, "region", "SPEC", RUN | COLL | JOB | COMPARE | SWEEP, "sim.region", false, false, NULL},
    {0, "partitions", "N", RUN | COLL, "sim.partitions", false, false, NULL},
    {0, "partition", "auto|pods", RUN | COLL, "sim.partition", false, false, NULL},
    {0, "vary", "KEY=V1,V2", SWEEP, NULL, false, true, "vary"},
    {0, "seeds", "LIST", SWEEP, NULL, false, false, "seeds"},
    {0, "calibration", "FILE", COLL | JOB | COMPARE, NULL, false, false, "calibration"},
    {0, "set", "KEY=VALUE", ALL, NULL, false, true, "set"},
    {0, "seed", "N", ALL, NULL, false, false, "seed"},
    {0, "json", "PATH|-", ALL, NULL, false, false, "json"},
    {'j', "jobs", "N", COLL | COMPARE | SWEEP, NULL, false, false, "jobs"},
    {0, "trace", "PATH|-", JOB, NULL, false, false, "trace"},
    {0, "csv", "PREFIX", RUN | COMPARE | SWEEP, NULL, false, false, "csv"},
    {0, "plot", "DIR", RUN | COLL | COMPARE, NULL, false, false, "plot"},
    {0, "paths", "SRC,DST", TOPO, NULL, false, false, "paths"},
    {0, "dot", "PATH|-", TOPO, NULL, false, false, "dot"},
    {0, "reproducible", NULL, RUN, NULL, false, false, "reproducible"},
    {0, "quiet", NULL, RUN | COLL | JOB | P2P | COMPARE | SWEEP, NULL, false, false, "quiet"},
    {0, "no-seed-report", NULL, COLL | P2P, NULL, false, false, "no_seed_report"},
    {0, "max-wall", "SECONDS", RUN | COLL | JOB | P2P | COMPARE | SWEEP, NULL, false, false,
     "max_wall"},
};

#define NOPTS (sizeof options / sizeof options[0])

static const char *const mode_names[] = {"run", "topo", "coll", "job", "p2p", "compare", "sweep"};

const struct bn_cli_opt *bn_cli_opt_at(size_t i) { return i < NOPTS ? &options[i] : NULL; }

bool bn_cli_opt_in(const struct bn_cli_opt *opt, enum bn_cli_mode mode)
{
    return opt->modes & (1u << mode);
}

const char *bn_cli_opt_label(const struct bn_cli_opt *opt, char *buf, size_t len)
{
    if (opt->short_name && opt->long_name)
        snprintf(buf, len, "-%c, --%s", opt->short_name, opt->long_name);
    else if (opt->short_name)
        snprintf(buf, len, "-%c", opt->short_name);
    else
        snprintf(buf, len, "--%s", opt->long_name);
    return buf;
}

/* Options that say only where results go: the command a result records
 * leaves them out, so that the same run gives the same JSON. */
static bool output_only(const struct bn_cli_opt *opt)
{
    static const char *const fields[] = {"json", "csv", "trace", "dot", "quiet", "reproducible",
                                         "jobs", "plot", "output_file", "bnet_columns",
                                         "report_gbits", "no_seed_report"};
    for (size_t i = 0; opt->field && i < sizeof fields / sizeof fields[0]; i++)
        if (strcmp(opt->field, fields[i]) == 0)
            return true;
    return false;
}

/* The row of `mode` that argument `a` names as typed ("-b", "-b8", "--json",
 * "--json=x"), or NULL; *joined: its value is inside `a`. */
static const struct bn_cli_opt *typed_opt(const char *a, enum bn_cli_mode mode, bool *joined)
{
    *joined = false;
    if (a[0] != '-' || a[1] == '\0')
        return NULL;
    for (const struct bn_cli_opt *opt = options; opt < options + NOPTS; opt++) {
        if (!bn_cli_opt_in(opt, mode))
            continue;
        if (a[1] == '-' && opt->long_name) {
            size_t n = strlen(opt->long_name);
            if (strncmp(a + 2, opt->long_name, n) == 0 && (a[2 + n] == '\0' || a[2 + n] == '=')) {
                *joined = a[2 + n] == '=';
                return opt;
            }
        } else if (a[1] != '-' && opt->short_name == a[1]) {
            *joined = a[2] != '\0';
            return opt;
        }
    }
    return NULL;
}

/* Append `arg` to buf (at *at of len), quoted for a POSIX shell when it
 * holds anything but plain characters. */
static void append_arg(char *buf, size_t len, size_t *at, const char *arg)
{
    bool plain = *arg != '\0' && strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                             "0123456789_./=:,+-@%") == strlen(arg);
    *at += (size_t)snprintf(buf + *at, len - *at, " %s", plain ? "" : "'");
    for (const char *c = arg; *c && *at < len; c++)
        *at += (size_t)snprintf(buf + *at, len - *at, *c == '\'' ? "'\\''" : "%c", *c);
    if (!plain && *at < len)
        *at += (size_t)snprintf(buf + *at, len - *at, "'");
}

char *bn_cli_command_of(int argc, char **argv, int first, enum bn_cli_mode mode)
{
    size_t len = 16;
    for (int i = first; i < argc; i++)
        len += 4 * strlen(argv[i]) + 3;
    char *buf = malloc(len);
    if (!buf)
        return NULL;
    size_t at = (size_t)snprintf(buf, len, "bnet %s", mode_names[mode]);
    for (int i = first; i < argc && at < len; i++) {
        bool joined;
        const struct bn_cli_opt *opt = typed_opt(argv[i], mode, &joined);
        if (opt && output_only(opt)) {
            i += opt->arg && !joined; /* and its value */
            continue;
        }
        append_arg(buf, len, &at, argv[i]);
    }
    return buf;
}

int bn_cli_digits(const char *s, const char **end, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (p == s)
        return -1;
    *end = p;
    *out = v;
    return 0;
}

/* nccl-tests' size letters: a bare K, M or G in either case (its
 * parsesize() reads the first letter only, as a power of 1024) and T,
 * alike; NULL if `c` is not one. KiB, MB and the other scenario suffixes
 * go to the key's own parser (docs/scenario.md, "Sizes"). */
static const char size_letters[] = "KMGT";

static const char *size_letter(char c)
{
    char up = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
    return up ? strchr(size_letters, up) : NULL;
}

/* "N" and a size letter as decimal text in buf; -1 if it is not one or
 * does not fit 64 bits. */
static int size_value(const char *v, char *buf, size_t len)
{
    size_t n = strlen(v);
    const char *letter = n > 1 ? size_letter(v[n - 1]) : NULL;
    const char *end;
    uint64_t x;
    int shift = letter ? (int)(letter - size_letters + 1) * 10 : 0;
    if (!letter || bn_cli_digits(v, &end, UINT64_MAX >> shift, &x) != 0 || end != v + n - 1)
        return -1;
    snprintf(buf, len, "%llu", (unsigned long long)(x << shift));
    return 0;
}

static bool is_collective(const char *v)
{
    static const char *const names[] = {"allreduce", "reducescatter", "allgather", "broadcast",
                                        "reduce", "alltoall", "sendrecv"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(v, names[i]) == 0)
            return true;
    return false;
}

/* A flag that sets its key to `v` (NULL: a switch, which sets it to 0:
 * -a, every size); 0, or the exit status of an error (printed). */
static int key_flag(const struct bn_cli_opt *opt, const char *label, const char *v,
                    struct cli_opts *o)
{
    const char *key = opt->key, *value = v ? v : "0";
    char bytes[24]; /* UINT64_MAX in decimal */
    size_t n = v ? strlen(v) : 0;
    if (opt->size && n > 1 && size_letter(v[n - 1])) {
        if (size_value(v, bytes, sizeof bytes) != 0) {
            fprintf(stderr, "bnet: option '%s': '%s' is not a size (N, NK, NM, NG or NT: "
                    "powers of 1024; or N with KiB, MB ... within 64 bits)\n", label, v);
            return 2;
        }
        value = bytes;
    }
    /* bnet's --op was the collective until nccl-tests' meaning (the
     * reduction) took it; the names do not overlap (docs/results.md) */
    if (strcmp(key, "coll.redop") == 0 && is_collective(value)) {
        fprintf(stderr, "bnet: warning: '%s %s' names the collective; it is now --coll %s "
                "(%s is the reduction, as in nccl-tests)\n", label, value, value, label);
        key = "coll.op";
    }
    size_t len = strlen(key) + strlen(value) + 2;
    char *a = malloc(len);
    if (!a) {
        fprintf(stderr, "bnet: out of memory\n");
        return 1;
    }
    snprintf(a, len, "%s=%s", key, value);
    struct cli_set *set = &o->sets[o->nsets++];
    *set = (struct cli_set){.assignment = a, .owned = a, .typed = v};
    snprintf(set->label, sizeof set->label, "%s", label);
    set->flag = set->label;
    if (!v) /* a switch: its name stands for the value */
        set->typed = set->label;
    return 0;
}

/* perftest's -b and -D: what bnet's p2p would need to model them; exit
 * status 2. */
static int refused(const char *label)
{
    bool bidir = strcmp(label, "-b") == 0 || strcmp(label, "--bidirectional") == 0;
    fprintf(stderr, "bnet: option '%s': %s\n", label,
            bidir ? "perftest's bidirectional test (both hosts sending at once) is not "
                    "modelled: bnet p2p measures one direction; run --hosts A,B for each "
                    "direction, or bnet run with a flow list for both at once"
                  : "perftest's timed run (seconds of traffic) is not modelled: bnet p2p "
                    "runs a count of iterations, -n ITERS");
    return 2;
}

/* A key-less option's value into its field of o. */
static int field_opt(const struct bn_cli_opt *opt, const char *label, const char *v,
                     struct cli_opts *o)
{
    static const struct {
        const char *name;
        size_t at;
    } fields[] = {
        {"json", offsetof(struct cli_opts, json)}, {"csv", offsetof(struct cli_opts, csv)},
        {"seed", offsetof(struct cli_opts, seed)}, {"paths", offsetof(struct cli_opts, paths)},
        {"dot", offsetof(struct cli_opts, dot)}, {"trace", offsetof(struct cli_opts, trace)},
        {"jobs", offsetof(struct cli_opts, jobs)}, {"seeds", offsetof(struct cli_opts, seeds)},
        {"plot", offsetof(struct cli_opts, plot)},
        {"calibration", offsetof(struct cli_opts, calibration)},
        {"threads", offsetof(struct cli_opts, threads)},
        {"gpus", offsetof(struct cli_opts, gpus)}, {"nodes", offsetof(struct cli_opts, nodes)},
        {"nranks", offsetof(struct cli_opts, nranks)},
        {"output_file", offsetof(struct cli_opts, output_file)},
        {"max_wall", offsetof(struct cli_opts, max_wall)},
    };
    if (strcmp(opt->field, REFUSED) == 0)
        return refused(label);
    if (!opt->arg) {
        static const struct {
            const char *name;
            size_t at;
        } switches[] = {
            {"quiet", offsetof(struct cli_opts, quiet)},
            {"reproducible", offsetof(struct cli_opts, reproducible)},
            {"bnet_columns", offsetof(struct cli_opts, bnet_columns)},
            {"report_gbits", offsetof(struct cli_opts, report_gbits)},
            {"no_seed_report", offsetof(struct cli_opts, no_seed_report)},
        };
        for (size_t i = 0; i < sizeof switches / sizeof switches[0]; i++)
            if (strcmp(opt->field, switches[i].name) == 0)
                *(int *)((char *)o + switches[i].at) = 1;
        return 0; /* or a host-side switch: no effect */
    }
    if (strcmp(opt->field, HOST_NAME) == 0)
        return 0;
    bool folder = strcmp(opt->field, "plot") == 0;
    if ((folder || strcmp(opt->field, "csv") == 0) && (v[0] == '\0' || strcmp(v, "-") == 0)) {
        fprintf(stderr, "bnet: option '%s' needs a %s ('%s' is not one)\n", label,
                folder ? "folder" : "file prefix", v);
        return 2;
    }
    if (strcmp(opt->field, HOST_ONLY) == 0) {
        const char *end;
        uint64_t x;
        if (bn_cli_digits(v, &end, UINT32_MAX, &x) != 0 || *end) {
            fprintf(stderr, "bnet: option '%s': '%s' is not a count\n", label, v);
            return 2;
        }
        return 0;
    }
    if (strcmp(opt->field, "agg_iters") == 0) {
        if (strcmp(v, "1") != 0) {
            fprintf(stderr, "bnet: option '%s': '%s': bnet times one collective per iteration; "
                    "several launched as a group are not modelled (1 only)\n", label, v);
            return 2;
        }
        return 0;
    }
    if (strcmp(opt->field, "set") == 0) {
        o->sets[o->nsets++] = (struct cli_set){.assignment = v};
        return 0;
    }
    if (strcmp(opt->field, "vary") == 0) {
        o->vary[o->nvary++] = v;
        return 0;
    }
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (strcmp(opt->field, fields[i].name) == 0)
            *(const char **)((char *)o + fields[i].at) = v;
    return 0;
}

/* getopt_long's tables for `mode`: long options (val = 256 + row), and the
 * short letters after ':' (a missing value returns ':'). */
struct getopt_tables {
    struct option longs[NOPTS + 2];
    char shorts[2 * NOPTS + 4];
    const struct bn_cli_opt *by_short[128];
};

static void tables_of(enum bn_cli_mode mode, struct getopt_tables *t)
{
    memset(t, 0, sizeof *t);
    size_t nl = 0, ns = 0;
    t->shorts[ns++] = ':';
    for (size_t i = 0; i < NOPTS; i++) {
        const struct bn_cli_opt *opt = &options[i];
        if (!bn_cli_opt_in(opt, mode))
            continue;
        if (opt->long_name)
            t->longs[nl++] = (struct option){opt->long_name, opt->arg ? required_argument
                                                                       : no_argument,
                                             NULL, 256 + (int)i};
        if (opt->short_name) {
            t->shorts[ns++] = opt->short_name;
            if (opt->arg)
                t->shorts[ns++] = ':';
            t->by_short[(unsigned char)opt->short_name] = opt;
        }
    }
    t->longs[nl++] = (struct option){"help", no_argument, NULL, 'h'};
    t->shorts[ns++] = 'h';
}

/* A non-option argument: a nccl-tests program name (coll), else the
 * scenario file, at most one. */
static int operand(const char *a, enum bn_cli_mode mode, struct cli_opts *o)
{
    const char *op = mode == BN_CLI_COLL ? bn_cli_perf_op(a) : NULL;
    if (op && !o->program_op) {
        o->program_op = op;
        return 0;
    }
    if (!o->file) {
        o->file = a;
        return 0;
    }
    fprintf(stderr, "bnet: unexpected argument '%s' (one scenario file at most)\n", a);
    return 2;
}

/* " (did you mean '--json'?)" for a mistyped long option of `mode`. */
static void long_hint(const char *typed, enum bn_cli_mode mode, char *buf, size_t len)
{
    const char *names[NOPTS + 1];
    char word[64];
    size_t n = 0;
    for (size_t i = 0; i < NOPTS; i++)
        if (bn_cli_opt_in(&options[i], mode) && options[i].long_name)
            names[n++] = options[i].long_name;
    names[n++] = "help";
    snprintf(word, sizeof word, "%.*s", (int)strcspn(typed + 2, "="), typed + 2);
    const char *near = bn_nearest_word(word, names, n);
    if (near)
        snprintf(buf, len, " (did you mean '--%s'?)", near);
}

int bn_cli_parse(int argc, char **argv, int first, enum bn_cli_mode mode, struct cli_opts *o)
{
    static struct getopt_tables t; /* one parse per process */
    tables_of(mode, &t);
    /* getopt sees argv[first - 1] as the program: the options start after it */
    int sub_argc = argc - first + 1;
    char **sub = argv + first - 1;
    opterr = 0;
    optind = 0; /* glibc: start over */
    for (;;) {
        int li = -1;
        int c = getopt_long(sub_argc, sub, t.shorts, t.longs, &li);
        if (c == -1)
            break;
        const char *last = sub[optind - 1]; /* the option, or its separate value */
        if (c == 'h') {
            bn_cli_print_usage(stdout, mode);
            return -1;
        }
        if (c == '?' || c == ':') {
            char shown[4] = {'-', (char)optopt, 0, 0};
            const char *name = optopt > 0 && optopt < 256 ? shown : last;
            char hint[96] = "";
            if (c == '?' && strncmp(name, "--", 2) == 0)
                long_hint(name, mode, hint, sizeof hint);
            if (c == '?')
                fprintf(stderr, "bnet: unknown option '%.*s'%s (see bnet help %s)\n",
                        (int)strcspn(name, "="), name, hint, mode_names[mode]);
            else
                fprintf(stderr, "bnet: option '%.*s' needs a value\n",
                        (int)strcspn(name, "="), name);
            return 2;
        }
        const struct bn_cli_opt *opt = c >= 256 ? &options[c - 256] : t.by_short[c & 127];
        char label[40];
        if (c >= 256)
            snprintf(label, sizeof label, "--%s", opt->long_name);
        else
            snprintf(label, sizeof label, "-%c", opt->short_name);
        /* "--json --quiet": the next option is not a value ("-" alone is) */
        if (opt->arg && optarg == last && strncmp(optarg, "--", 2) == 0) {
            fprintf(stderr, "bnet: option '%s' needs a value\n", label);
            return 2;
        }
        int rc = opt->key ? key_flag(opt, label, opt->arg ? optarg : NULL, o)
                          : field_opt(opt, label, optarg, o);
        if (rc)
            return rc;
    }
    for (int i = optind; i < sub_argc; i++) {
        int rc = operand(sub[i], mode, o);
        if (rc)
            return rc;
    }
    return 0;
}
