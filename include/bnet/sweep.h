/*
 * `bnet sweep`: one scenario run at every point of a grid of key values
 * (and seeds), a results row per point (docs/sweep.md). Points run in
 * worker processes, any number at once; the results are placed by point,
 * so they do not depend on how many ran at once or which finished first.
 */
#ifndef BNET_SWEEP_H
#define BNET_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bnet/error.h"
#include "bnet/results.h"
#include "bnet/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BN_SWEEP_AXES_MAX 8          /* keys varied at once */
#define BN_SWEEP_POINTS_MAX 100000   /* points of one sweep */
#define BN_SWEEP_JOBS_MAX 64         /* worker processes at once */

/* One key varied: its path, type ("int", "float", ... as bnet keys) and
 * values, each as the scenario holds it once set (bn_scenario_get). */
struct bn_sweep_axis {
    char key[BN_NAME_MAX];
    char type[16];
    uint32_t nvalues;
    char **values;                   /* [nvalues] */
};

/* A point: an index into each axis's values (the last axis varies
 * fastest) and its run's results, without their per-flow, per-port,
 * series and fault arrays (bn_results' scalars: the summary). */
struct bn_sweep_point {
    uint32_t value[BN_SWEEP_AXES_MAX];
    bool done;                       /* it ran (false: the sweep was interrupted first) */
    struct bn_results res;           /* its faults array kept, the other arrays empty */
};

struct bn_sweep_results {
    struct bn_provenance prov;       /* the base scenario, --sets applied */
    char scenario[BN_PATH_MAX];      /* its source */
    uint32_t naxes;
    struct bn_sweep_axis axes[BN_SWEEP_AXES_MAX];
    uint32_t npoints, done;          /* points; those run (all unless interrupted) */
    struct bn_sweep_point *points;   /* [npoints], in grid order */
    unsigned jobs;                   /* worker processes used (per rank) */
    uint32_t ranks;                  /* MPI ranks the points were spread over (0 or 1: none) */
    double wall_s;                   /* wall-clock seconds of the whole sweep */
    bool interrupted;                /* bn_interrupt stopped it: the points done so far */
};

/* Progress after each point: points done, of total, wall seconds so far. */
typedef void (*bn_sweep_progress_fn)(void *ud, uint32_t done, uint32_t total, double wall_s);

/* Run scenario sc at each point of the grid `vary` ("KEY=V1,V2,...", NULL
 * ended, at most BN_SWEEP_AXES_MAX; "seed=1,2,3" varies the seed), `jobs`
 * points at once (1 .. BN_SWEEP_JOBS_MAX). Every point's scenario is made
 * and validated first (BN_EINPUT naming --vary, the key and the value),
 * and the memory of `jobs` of the largest refused up front. */
int bn_sweep_run(const struct bn_scenario *sc, const char *const *vary, unsigned jobs,
                 bn_sweep_progress_fn progress, void *ud, struct bn_sweep_results *out,
                 struct bn_error *err);
/* The same for the points p with p % nparts == part only (the others stay
 * not done): one share of the grid, for a process among nparts (bnet
 * sweep under mpirun gathers the shares on rank 0). */
int bn_sweep_run_part(const struct bn_scenario *sc, const char *const *vary, unsigned jobs,
                      uint32_t part, uint32_t nparts, bn_sweep_progress_fn progress, void *ud,
                      struct bn_sweep_results *out, struct bn_error *err);
void bn_sweep_results_free(struct bn_sweep_results *r);

/* A row per point (docs/sweep.md): the table, JSON, and CSV (RFC 4180). */
void bn_sweep_print(FILE *out, const struct bn_sweep_results *r);
int bn_sweep_write_json(const struct bn_sweep_results *r, const char *path, struct bn_error *err);
int bn_sweep_write_csv(const struct bn_sweep_results *r, const char *path, struct bn_error *err);

#ifdef __cplusplus
}
#endif

#endif
