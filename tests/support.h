/* Helpers shared by the C tests: scenarios from defaults + overrides. */
#ifndef BN_TESTS_SUPPORT_H
#define BN_TESTS_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bnet/bnet.h"
#include "bnet/coll.h"

/* Key `path` of sc reads `want`, as a scenario file would give it (enum
 * keys are stored as indices: bn_scenario_get names them). */
#define assert_key(sc, path, want) assert_key_at(sc, path, want, __FILE__, __LINE__)
static inline void assert_key_at(const struct bn_scenario *sc, const char *path, const char *want,
                                 const char *file, int line)
{
    char got[BN_PATH_MAX];
    if (bn_scenario_get(sc, path, got, sizeof got) != BN_OK)
        fail_msg("%s:%d: no key %s", file, line, path);
    if (strcmp(got, want) != 0)
        fail_msg("%s:%d: %s is '%s', not '%s'", file, line, path, got, want);
}

/* Defaults, then each "key=value" in the NULL-terminated list. */
static inline void test_scenario(struct bn_scenario *sc, const char *const *sets)
{
    struct bn_error err = {0};
    bn_scenario_defaults(sc);
    snprintf(sc->source, sizeof sc->source, "<test>");
    for (; sets && *sets; sets++) {
        int rc = bn_scenario_set(sc, *sets, &err);
        if (rc != BN_OK)
            fail_msg("--set %s: %s", *sets, err.msg);
    }
    if (bn_scenario_validate(sc, &err) != BN_OK)
        fail_msg("validate: %s", err.msg);
}

static inline void test_run(const struct bn_scenario *sc, struct bn_results *res)
{
    struct bn_error err = {0};
    int rc = bn_run(sc, NULL, res, &err);
    if (rc != BN_OK)
        fail_msg("bn_run: %s", err.msg);
}

/* A one-size bnet coll sweep of the scenario `sets` make: its row (every
 * element right, in both column groups) and the NIC's goodput (Gb/s). */
static inline void test_coll_row(const char *const *sets, struct bn_coll_row *row,
                                 double *goodput_gbps)
{
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_coll_results r;
    struct bn_error err = {0};
    if (bn_coll_sweep(&sc, &r, &err) != BN_OK)
        fail_msg("bn_coll_sweep: %s", err.msg);
    assert_int_equal(r.nrows, 1);
    assert_int_equal(r.rows[0].wrong, 0);
    assert_int_equal(r.rows[0].inplace_wrong, 0);
    *row = r.rows[0];
    if (goodput_gbps)
        *goodput_gbps = r.nic_goodput_gbps;
    bn_coll_results_free(&r);
}

/* Conservation: what entered the fabric left it, was lost to a failure,
 * or is still inside; every flow completed unless a fault failed it. */
static inline void assert_ledger_balanced(const struct bn_results *r)
{
    assert_int_equal(r->pkts_injected,
                     r->pkts_delivered + r->pkts_dropped + r->pkts_lost + r->pkts_in_flight);
    assert_int_equal(r->bytes_injected, r->bytes_delivered + r->bytes_dropped + r->bytes_lost +
                                            r->bytes_in_flight);
    if (!r->stopped_early) {
        assert_int_equal(r->pkts_in_flight, 0);
        assert_int_equal(r->flows_completed + r->flows_failed, r->nflows);
    }
}

/* Mean depth of the first sampled queue (the leaf port facing an
 * incast's receiver, by default) from sample `from` on. */
static inline double test_queue_mean(const struct bn_results *r, uint32_t from)
{
    const struct bn_series *s = &r->series;
    assert_true(s->nqueues >= 1 && s->nsamples > from + 10);
    double sum = 0;
    for (uint32_t k = from; k < s->nsamples; k++)
        sum += s->queue_bytes[(size_t)k * s->nqueues];
    return sum / (s->nsamples - from);
}

/* Write n bytes (NULs included) to a fresh temporary file; returns its
 * path (static buffer). */
static inline const char *test_tmpfile_n(const char *data, size_t n)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/bnet_test_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        fail_msg("mkstemp failed");
    FILE *f = fdopen(fd, "w");
    fwrite(data, 1, n, f);
    fclose(f);
    return path;
}

/* Write `text` to a fresh temporary file; returns its path (static buffer). */
static inline const char *test_tmpfile(const char *text)
{
    return test_tmpfile_n(text, strlen(text));
}

/* A file's whole text (malloc'd; the caller frees); a path is from the
 * repository root, where the tests run. */
static inline char *test_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s (tests run from the repository root)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = calloc((size_t)n + 1, 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return text;
}

/* A file's whole text (malloc'd; the caller frees), and the file removed. */
static inline char *test_take_file(const char *path)
{
    char *text = test_read_file(path);
    remove(path);
    return text;
}

/* The results as their reproducible JSON text (malloc'd; the caller frees). */
static inline char *test_results_json(const struct bn_results *r)
{
    const char *path = test_tmpfile("");
    struct bn_error err = {0};
    assert_int_equal(bn_results_write_json(r, path, BN_JSON_REPRODUCIBLE, &err), BN_OK);
    return test_take_file(path);
}

#endif
