/*
 * The calibration readers and fit (docs/calibration.md): one file per
 * input format, a checksum, and the least-squares fit over MINPACK.
 */
#ifndef BN_CALIB_CALIB_H
#define BN_CALIB_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "bnet/calib.h"
#include "bnet/error.h"

/* A row's message size at most, as workload.message_bytes: a larger one is
 * no measurement (and past 2^64 no integer). */
#define BN_CALIB_BYTES_MAX 1000000000000ULL

/* A file's text, NUL-terminated, split into lines by the readers. */
struct bn_calib_text {
    const char *path;
    char *buf;
    size_t len;
};

/* Rows appended as read (bn_grow). */
struct bn_calib_rows {
    struct bn_calib_row *rows;
    uint32_t n, cap;
};

/* The next line of t from *pos: NUL-terminated in place (its newline and
 * a CR before it dropped); NULL at the end. */
char *bn_calib_next_line(struct bn_calib_text *t, size_t *pos);
/* Leading and trailing blanks off, in place. */
char *bn_calib_trim(char *s);
/* Record NCCL_NAME=VALUE in `in` (a later one wins); BN_OK or BN_EINPUT
 * naming file:line when more than BN_CALIB_MAX_ENV differ. */
int bn_calib_add_env(struct bn_calib_input *in, const char *name, size_t nlen,
                     const char *value, size_t vlen, const char *path, unsigned line,
                     struct bn_error *err);
/* Every NCCL_X=V token of a launch command line into `in`. */
int bn_calib_command_env(struct bn_calib_input *in, const char *line, const char *path,
                         unsigned lineno, struct bn_error *err);

/* Whether the text is perftest's (its title or column lines) rather than
 * nccl-tests'. */
bool bn_calib_is_perftest(const struct bn_calib_text *t);
/* nccl_tests_log.c and perftest_log.c: the file's header into `in` and its
 * rows appended to `rows` (input index `index`); BN_OK or BN_EINPUT
 * "FILE:LINE: ...". */
int bn_calib_read_nccl_tests(struct bn_calib_text *t, uint32_t index, struct bn_calib_input *in,
                             struct bn_calib_rows *rows, struct bn_error *err);
int bn_calib_read_perftest(struct bn_calib_text *t, uint32_t index, struct bn_calib_input *in,
                           struct bn_calib_rows *rows, struct bn_error *err);

/* sha256 of `len` bytes as 64 lowercase hex digits (OpenSSL's libcrypto). */
int bn_calib_sha256(const void *data, size_t len, char out[65], struct bn_error *err);

/* fit.c: minimize sum_i r_i(x)^2 over x in [lo, hi] (n parameters, m
 * residuals) with MINPACK's Levenberg-Marquardt (lmdif: forward-difference
 * Jacobian), the bounds by a sine transform; then each parameter's
 * standard deviation from the covariance sigma^2 (J^T J)^-1 at the
 * optimum. fn returns BN_OK or an error that stops the fit. */
typedef int (*bn_calib_resid_fn)(void *ud, const double *x, double *r, struct bn_error *err);
struct bn_calib_fit {
    uint32_t n, m;
    double x[BN_CALIB_MAX_PARAMS];     /* in: start; out: the optimum */
    double lo[BN_CALIB_MAX_PARAMS], hi[BN_CALIB_MAX_PARAMS];
    double sigma[BN_CALIB_MAX_PARAMS]; /* out */
    uint32_t max_evals;                /* calls of fn at most */
    uint32_t evals;                    /* out: calls made */
    int info;                          /* out: lmdif's info */
    double cost;                       /* out: sum of squares at the optimum */
};
int bn_calib_lm(struct bn_calib_fit *f, bn_calib_resid_fn fn, void *ud, struct bn_error *err);

#endif
