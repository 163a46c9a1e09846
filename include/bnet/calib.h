/*
 * `bnet calibrate`: bnet fitted to a cluster's own measurements. It reads
 * nccl-tests and perftest outputs as those tools print them, runs the same
 * rows on the matching simulated cluster, fits a small named set of
 * scenario keys by least squares on log time, and writes the result as a
 * scenario overlay (docs/calibration.md).
 */
#ifndef BNET_CALIB_H
#define BNET_CALIB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bnet/error.h"
#include "bnet/scenario.h"

#ifdef __cplusplus
extern "C" {
#endif

enum bn_calib_kind { BN_CALIB_NCCL_TESTS = 0, BN_CALIB_PERFTEST = 1 };

/* An NCCL_* variable an input names (an env line, a launch command's
 * -x NCCL_X=V, or NCCL's "NCCL_X set by environment to V"). */
struct bn_calib_env {
    char name[40], value[40];
};

#define BN_CALIB_MAX_ENV 16

/* One input file as read. */
struct bn_calib_input {
    char path[BN_PATH_MAX];
    char sha256[65];           /* of the file's bytes, lowercase hex */
    enum bn_calib_kind kind;
    char op[24];               /* bnet's coll.op ("allreduce") or p2p.test ("write_bw") */
    char nccl_version[24];     /* "2.24.3" from "NCCL version 2.24.3+cuda12.6"; "" if absent */
    uint32_t nodes;            /* distinct hosts of the "Using devices" lines */
    uint32_t gpus_per_node;    /* ranks per host (all hosts alike, else refused) */
    uint32_t nranks;           /* ranks listed */
    char gpu[48];              /* the devices' name ("NVIDIA H100 80GB HBM3") */
    uint32_t nenv;
    struct bn_calib_env env[BN_CALIB_MAX_ENV];
    uint32_t first_row, nrows; /* its rows in bn_calib_data.rows */
};

/* One measured row. nccl-tests: the smaller of the out-of-place and
 * in-place times (noise only adds time). perftest: t_typical (latency
 * tests) or bytes over BW average (bandwidth tests). */
struct bn_calib_row {
    uint32_t input;            /* index into inputs */
    uint32_t line;             /* its line in that file */
    char op[24];               /* the input's op, or this test's (a perftest file may hold several) */
    uint64_t bytes;            /* nccl-tests' size; perftest's #bytes */
    double oop_us, ip_us;      /* nccl-tests' two times (0: not printed) */
    double time_us;            /* what the fit compares */
    double busbw_gbs;          /* nccl-tests: that column's busbw (GB/s); perftest bw: Gb/s */
    int32_t inline_bytes;      /* perftest: its test's "Max inline data" (-1: not printed) */
};

/* What bn_calib_read read; bn_calib_data_free frees it. */
struct bn_calib_data {
    struct bn_calib_input *inputs;
    uint32_t ninputs;
    struct bn_calib_row *rows;
    uint32_t nrows;
};

/* Read each file (nccl-tests' or perftest's output, told apart by its
 * lines). A line neither tool nor NCCL prints, or a broken one: BN_EINPUT
 * "FILE:LINE: ...". `out` need not be initialized; on an error nothing is
 * left to free. */
int bn_calib_read(const char *const *paths, uint32_t npaths, struct bn_calib_data *out,
                  struct bn_error *err);
void bn_calib_data_free(struct bn_calib_data *d);

/* A fitted scenario key. */
struct bn_calib_param {
    char key[40];
    double initial, value;     /* the scenario's value; the fitted one */
    double sigma;              /* one standard deviation, from the Jacobian's covariance */
    double lo, hi;             /* bounds from published hardware figures */
    bool at_bound;             /* the fit ended within 1 % of a bound: sigma says little */
    bool discrete;             /* an integer (coll.channels): searched, no sigma */
};

#define BN_CALIB_MAX_PARAMS 8

/* A row as measured and as bnet runs it before and after the fit. */
struct bn_calib_fit_row {
    uint32_t row;              /* index into bn_calib_data.rows */
    uint32_t input;            /* its input, index into bn_calib_results.inputs */
    uint32_t nodes;            /* the input's hosts */
    uint64_t bytes;
    double measured_us, before_us, after_us;
    double measured_gbs, before_gbs, after_gbs; /* busbw (nccl-tests) */
    char algo[16], proto[8];   /* what bnet ran after the fit */
    bool fitted;               /* the row was in the fit (not only predicted) */
};

struct bn_calib_results {
    char bnet_version[32];
    bool fitted;               /* false: the rows evaluated only (a calibration applied) */
    uint32_t nparams;
    struct bn_calib_param params[BN_CALIB_MAX_PARAMS];
    uint32_t nrows;
    struct bn_calib_fit_row *rows;
    double rms_before, rms_after; /* root mean square of ln(bnet / measured) */
    uint32_t evaluations;      /* runs of every row */
    int status;                /* MINPACK lmdif's info (1-4 converged, 5 evaluations ran out) */
    double wall_s;
    uint32_t ninputs;
    struct bn_calib_input *inputs; /* a copy: file names and checksums */
    char applied[BN_PATH_MAX]; /* the calibration applied before (bn_calib_opts), or "" */
};

struct bn_calib_opts {
    bool fit;                  /* false: run the rows only (e.g. a hold-out's prediction) */
    const char *const *keys;   /* the keys to fit, NULL-terminated (NULL: the default set) */
    uint32_t max_evals;        /* runs of every row at most (0: 30) */
    const char *applied;       /* the name of a calibration already in the scenario, or NULL */
    unsigned jobs;             /* rows run at once, each in a worker process (0, 1: here) */
    /* without a fit: the rows run again on this scenario as "after" (the
     * base with a calibration applied), so a prediction shows both; NULL:
     * after is before */
    const struct bn_scenario *after;
};

/* The keys fitted by default, NULL past the last, and whether `key` can
 * be fitted (it has published bounds). */
const char *bn_calib_default_key(uint32_t i);
bool bn_calib_fittable(const char *key);

/* Build the cluster each nccl-tests input ran on from `base` (its nodes x
 * GPUs per node; NCCL_ALGO, NCCL_PROTO and the channel variables as NCCL
 * reads them), run every row, and fit. On BN_OK free `out` with
 * bn_calib_results_free; on an error nothing is left to free. */
int bn_calibrate(const struct bn_scenario *base, const struct bn_calib_data *d,
                 const struct bn_calib_opts *o, struct bn_calib_results *out,
                 struct bn_error *err);
void bn_calib_results_free(struct bn_calib_results *r);

/* The fit's table: parameters with their uncertainty, the rows before and
 * after (write errors are not reported). */
void bn_calib_print(FILE *out, const struct bn_calib_results *r);
/* The calibration as a scenario overlay (YAML: the fitted keys, the inputs'
 * checksums, bnet's version), and the whole result as JSON. "-": stdout.
 * BN_OK, BN_EINPUT if it cannot be written, or BN_ENOMEM. */
int bn_calib_write_yaml(const struct bn_calib_results *r, const char *path, struct bn_error *err);
int bn_calib_write_json(const struct bn_calib_results *r, const char *path, struct bn_error *err);

#ifdef __cplusplus
}
#endif

#endif
