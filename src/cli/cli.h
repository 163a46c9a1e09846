/* Shared pieces of the `bnet` command. */
#ifndef BN_CLI_CLI_H
#define BN_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bnet/scenario.h"

enum bn_cli_mode {
    BN_CLI_RUN, BN_CLI_TOPO, BN_CLI_COLL, BN_CLI_JOB, BN_CLI_P2P, BN_CLI_COMPARE, BN_CLI_SWEEP
};

/* An option of run, topo, coll, job, p2p, compare or sweep (opts.c's table): the parser
 * (getopt_long) and the help read the same rows. */
struct bn_cli_opt {
    char short_name;       /* 'b' for -b; 0: a long option only */
    const char *long_name; /* "minbytes" for --minbytes; NULL: a short option only */
    const char *arg;       /* "KEY=VALUE"; NULL: a switch */
    unsigned modes;        /* 1u << enum bn_cli_mode, for each command that takes it */
    const char *key;       /* a flag that sets this scenario key, or NULL */
    bool size;             /* a bare K/M/G/T is a power of 1024, as in nccl-tests */
    bool repeat;           /* may be given more than once */
    const char *field;     /* a key-less option with a value: the cli_opts field it fills */
};

/* One scenario override in the order given: a --set, a flag turned into
 * KEY=VALUE, or an NCCL_* variable (allocated to its length). */
struct cli_set {
    const char *assignment;
    char *owned;              /* assignment, when made here */
    const char *flag, *typed; /* the flag and value as typed; flag NULL: --set */
    char label[40];           /* the flag's name, when flag points here */
};

/* What the command line asked for. */
struct cli_opts {
    char *command;            /* what ran, for the JSON: argv without output options */
    const char *file;
    const char *json, *csv, *seed;
    const char *paths, *dot;  /* topo: --paths SRC,DST, --dot PATH */
    const char *trace;        /* job: --trace PATH */
    const char *jobs;         /* compare, sweep, coll: -j N */
    const char *max_wall;     /* --max-wall SECONDS: stop there, as a SIGINT would */
    const char *seeds;        /* sweep: --seeds LIST */
    const char **vary;        /* sweep: each --vary KEY=V1,V2 */
    int nvary;
    const char *plot;         /* --plot DIR: figures of the results */
    const char *calibration;  /* --calibration FILE: bnet calibrate's overlay, before --set */
    /* coll, as nccl-tests: the rank count (-t x -g x -N, or --nranks), the
     * CSV table (-F), bnet's own columns, the collective a program name
     * chose (all_reduce_perf) */
    const char *threads, *gpus, *nodes, *nranks, *output_file;
    const char *program_op;
    int64_t ranks;            /* the GPUs they make (0: the scenario's) */
    int bnet_columns;
    int report_gbits;         /* p2p: Gb/sec as perftest's --report_gbits (else MB/sec) */
    int no_seed_report;       /* coll, p2p: the table without the seed's figures after it */
    struct cli_set *sets;
    int nsets;
    int reproducible, quiet;
};

/* The i-th option, NULL past the last; whether `mode` takes it. */
const struct bn_cli_opt *bn_cli_opt_at(size_t i);
bool bn_cli_opt_in(const struct bn_cli_opt *opt, enum bn_cli_mode mode);

/* Parse options from argv[first..] and run or describe. Returns exit status.
 * `program_op`: the collective a name like all_reduce_perf chose, or NULL. */
int bn_cli_run(int argc, char **argv, int first, enum bn_cli_mode mode, const char *program_op);
/* opts.c: parse argv[first..] into o (sets and vary sized argc + 8); 0, -1
 * after --help, or an exit status after a message. */
int bn_cli_parse(int argc, char **argv, int first, enum bn_cli_mode mode, struct cli_opts *o);
/* "bnet MODE ARGS" without the options that say only where output goes;
 * NULL if out of memory. */
char *bn_cli_command_of(int argc, char **argv, int first, enum bn_cli_mode mode);
/* A decimal number of digits only (no sign, blanks or base prefix, which
 * strtoull would take); *end after it. -1 if none or it exceeds `max`. */
int bn_cli_digits(const char *s, const char **end, uint64_t max, uint64_t *out);
/* "-b, --minbytes", "--set", "-j" into buf. */
const char *bn_cli_opt_label(const struct bn_cli_opt *opt, char *buf, size_t len);
/* nccl_tests.c: the collective a nccl-tests program name stands for
 * ("all_reduce_perf" -> "allreduce"), or NULL. */
const char *bn_cli_perf_op(const char *name);
/* Apply the NCCL_* variables of the environment (NCCL_ALGO, NCCL_PROTO,
 * NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS) to sc as NCCL reads them; BN_OK
 * or BN_EINPUT naming the variable. */
int bn_cli_nccl_env(struct bn_scenario *sc, struct bn_error *err);
/* The rank count -t x -g x -N or --nranks asked for (0: none); -1 after a
 * message if they are not counts. */
int64_t bn_cli_rank_count(const struct cli_opts *o);
/* `bnet help COMMAND` for run, topo, coll, job, p2p, compare or sweep. */
void bn_cli_print_usage(FILE *out, enum bn_cli_mode mode);
/* outputs.c: 0 if every output path the options name (--json, --trace,
 * --dot, -F, --csv PREFIX) can be written, else 2 after a message; before
 * anything runs. */
int bn_cli_check_outputs(const struct cli_opts *o);
/* suggest.c: " (did you mean 'X'?)" for `word` among `words` (NULL
 * terminated), into buf; "" if none is near. */
const char *bn_cli_did_you_mean(const char *word, const char *const *words, char *buf,
                                size_t len);
/* plot_cmd.c: `bnet plot FILE... [--out DIR]` from argv[first..]; its usage (main.c). */
int bn_cli_plot(int argc, char **argv, int first);
void bn_cli_print_plot_usage(FILE *out);
/* report_cmd.c: `bnet report FILE... [-o PAGE]`; its usage (main.c). */
int bn_cli_report(int argc, char **argv, int first);
void bn_cli_print_report_usage(FILE *out);
/* calib_cmd.c: `bnet calibrate FILE... [options]` from argv[first..]; its usage. */
int bn_cli_calibrate(int argc, char **argv, int first);
void bn_cli_print_calibrate_usage(FILE *out);

#endif
