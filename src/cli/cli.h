/* Shared pieces of the `bnet` command. */
#ifndef BN_CLI_CLI_H
#define BN_CLI_CLI_H

enum bn_cli_mode { BN_CLI_RUN, BN_CLI_TOPO, BN_CLI_COLL };

/* Parse options from argv[first..] and run or describe. Returns exit status. */
int bn_cli_run(int argc, char **argv, int first, enum bn_cli_mode mode);
const char *bn_cli_usage(enum bn_cli_mode mode);

#endif
