/* Shared pieces of the `bnet` command. */
#ifndef BN_CLI_CLI_H
#define BN_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum bn_cli_mode {
    BN_CLI_RUN, BN_CLI_TOPO, BN_CLI_COLL, BN_CLI_JOB, BN_CLI_P2P, BN_CLI_COMPARE, BN_CLI_SWEEP
};

/* An option of run, topo, coll, job, p2p, compare or sweep (run_cmd.c's table): the parser and the
 * help read the same rows. */
struct bn_cli_opt {
    const char *name;   /* "--set", "-b" */
    const char *arg;    /* "KEY=VALUE"; NULL: a switch */
    unsigned modes;     /* 1u << enum bn_cli_mode, for each command that takes it */
    const char *key;    /* a flag that sets this scenario key, or NULL */
    bool size;          /* its value takes nccl-tests' K/M/G (powers of 1024) */
    bool repeat;        /* may be given more than once */
};

/* The i-th option, NULL past the last; whether `mode` takes it. */
const struct bn_cli_opt *bn_cli_opt_at(size_t i);
bool bn_cli_opt_in(const struct bn_cli_opt *opt, enum bn_cli_mode mode);

/* Parse options from argv[first..] and run or describe. Returns exit status. */
int bn_cli_run(int argc, char **argv, int first, enum bn_cli_mode mode);
/* `bnet help COMMAND` for run, topo, coll, job, p2p, compare or sweep. */
void bn_cli_print_usage(FILE *out, enum bn_cli_mode mode);
/* plot_cmd.c: `bnet plot FILE... [--out DIR]` from argv[first..]; its usage (main.c). */
int bn_cli_plot(int argc, char **argv, int first);
void bn_cli_print_plot_usage(FILE *out);

#endif
