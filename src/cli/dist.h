/* bnet under mpirun (dist.c, docs/sweep.md): which rank this process is,
 * and bnet sweep's shares of the grid gathered on rank 0. */
#ifndef BN_CLI_DIST_H
#define BN_CLI_DIST_H

#include <stdbool.h>
#include <stdint.h>

#include "bnet/bnet.h"
#include "bnet/coll.h"
#include "bnet/compare.h"
#include "bnet/sweep.h"

struct bn_cli_dist {
    int rank, size;   /* 0 and 1 outside mpirun */
    int local;        /* ranks on this machine (0: not known) */
};

/* Join mpirun's job when launched by it (MPI_Init); 0, or an exit status
 * after a message (launched by mpirun but built without MPI). */
int bn_cli_dist_init(int *argc, char ***argv);
void bn_cli_dist_finish(void);
/* This process's rank and the job's size (0 and 1 outside mpirun). */
const struct bn_cli_dist *bn_cli_dist(void);
/* Every rank's status: the lowest failing rank's, or 0 when all succeeded;
 * *print: this rank is that one (it prints the error). Collective. */
int bn_cli_dist_status(int own, bool *print);
/* Under mpirun: the ranks one partitioned run's parts go to (NULL: one
 * process, or a build without MPI). */
const struct bn_ranks *bn_cli_dist_ranks(void);
/* Under mpirun: end this rank with a message when it waits longer than
 * timeout_s at one exchange of bn_cli_dist_ranks()' (0: never). */
void bn_cli_dist_watch(double timeout_s);
/* Rank 0 takes the points the other ranks ran into res (their shares),
 * and every rank learns whether one was interrupted. Collective; a point
 * no rank should have sent aborts the job. */
void bn_cli_dist_gather_sweep(const struct bn_cli_dist *d, struct bn_sweep_results *res);
/* The same for bnet coll's rows (rank r measured rows i % size == r). */
/* Every rank's peak resident memory into rank 0's results (a partitioned
 * run's ranks; all call it). */
void bn_cli_dist_gather_rss(const struct bn_cli_dist *d, struct bn_results *res);
void bn_cli_dist_gather_coll(const struct bn_cli_dist *d, struct bn_coll_results *res);
/* The same for bnet compare's columns (rank r measured c % size == r). */
void bn_cli_dist_gather_compare(const struct bn_cli_dist *d, struct bn_compare_results *res);

#endif
