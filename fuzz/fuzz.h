/*
 * Shared by the libFuzzer harnesses (fuzz_*.c, docs/testing.md): what
 * counts as a finding, and the fuzzer's input as text or as a file.
 *
 * Most fuzzed inputs are bad input, and bnet refusing them (BN_EINPUT, one
 * line naming file:line and key) is the expected outcome: a harness then
 * returns normally. Any other status from the library (BN_ENOMEM on a tiny
 * input, BN_EINTERNAL: an invariant failed) is a finding: the harness
 * aborts, and libFuzzer saves the input as it does for a crash, a sanitizer
 * report, a leak or a timeout.
 */
#ifndef BN_FUZZ_FUZZ_H
#define BN_FUZZ_FUZZ_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bnet/bnet.h"
#include "bnet/job.h"
#include "scenario/keys.h"
#include "workload/workload.h"

/* libFuzzer's entry point: called once per input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A finding that is not a crash: say what, and abort so libFuzzer keeps
 * the input. */
static inline void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static inline void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: finding: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* BN_OK and BN_EINPUT are outcomes; any other status is a finding. */
static inline void fuzz_expect(int rc, const struct bn_error *err, const char *call)
{
    if (rc != BN_OK && rc != BN_EINPUT)
        fuzz_fail("%s returned status %d: %s", call, rc, err->msg);
}

/* The input as a C string (malloc'd; a NUL inside ends it, as it would end
 * any string the CLI passes on). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        fuzz_fail("out of memory for a %zu-byte input", size);
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#define FUZZ_PATH_MAX 64

/* This process's input file (see fuzz_file); "" until made. */
static inline char *fuzz_path(void)
{
    static char path[FUZZ_PATH_MAX];
    return path;
}

static inline void fuzz_remove_file(void)
{
    unlink(fuzz_path());
}

/* The input, NULs included, written to this process's own file, for the
 * readers that take a path (topology.file, workload.flow_file). One file
 * per process, rewritten for each input (libFuzzer runs one at a time),
 * in memory (/dev/shm) where there is one, removed at exit. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
    char *path = fuzz_path();
    if (!path[0]) {
        snprintf(path, FUZZ_PATH_MAX, "/dev/shm/bnet-fuzz-XXXXXX");
        int fd = mkstemp(path);
        if (fd < 0) {
            snprintf(path, FUZZ_PATH_MAX, "/tmp/bnet-fuzz-XXXXXX");
            fd = mkstemp(path);
        }
        if (fd < 0)
            fuzz_fail("cannot create a temporary file");
        close(fd);
        atexit(fuzz_remove_file);
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        fuzz_fail("cannot write %s", path);
    return path;
}

/* Set `path` to the value bn_scenario_get gives for it, and read it back:
 * what bnet holds as a key's value must be accepted as that value again
 * (a scenario written out from bnet's keys is a scenario bnet reads). A
 * derived key's 0 ("same as another key", shown as "=" in `bnet keys`)
 * cannot be written, nor a string with blanks around it (YAML can quote
 * them; --set trims them on purpose, so `--set 'k = v'` works). */
static inline void fuzz_check_key(struct bn_scenario *sc, const struct bn_key_row *k,
                                  const char *path)
{
    char before[BN_PATH_MAX + 64], after[BN_PATH_MAX + 64], set[2 * BN_PATH_MAX];
    struct bn_error err = {0};
    if (bn_scenario_get(sc, path, before, sizeof before) != BN_OK)
        fuzz_fail("bn_scenario_get: no key %s", path);
    if ((k->flags & BN_KEY_DERIVED) && strcmp(before, "0") == 0)
        return;
    size_t n = strlen(before);
    if (k->kind == BN_KEY_STRING && n > 0 &&
        (before[0] == ' ' || before[0] == '\t' || before[n - 1] == ' ' || before[n - 1] == '\t'))
        return;
    snprintf(set, sizeof set, "%s=%s", path, before);
    if (bn_scenario_set(sc, set, &err) != BN_OK)
        fuzz_fail("key %s: its own value '%s' is refused: %s", path, before, err.msg);
    bn_scenario_get(sc, path, after, sizeof after);
    if (strcmp(before, after) != 0)
        fuzz_fail("key %s: '%s' set reads back as '%s'", path, before, after);
}

/* A valid scenario's every key survives the round trip above, and the
 * result is still valid. `fabric` is left out: setting it applies its
 * preset again over the other keys, on purpose. */
static inline void fuzz_check_keys(const struct bn_scenario *sc)
{
    static struct bn_scenario copy; /* tens of KB: not on the stack */
    char path[128];
    struct bn_error err = {0};
    copy = *sc;
    for (size_t i = 0; i < bn_scn_count(); i++) {
        const struct bn_key_row *k = bn_scn_at(i);
        const struct bn_scn_list *l = bn_scn_list_of(k);
        if (l) { /* each item's field: "faults.N.kind" */
            uint32_t items = *(const uint32_t *)(const void *)((const char *)sc + l->count_offset);
            for (uint32_t n = 0; n < items; n++) {
                snprintf(path, sizeof path, "%s.%u.%s", l->name, n, bn_scn_field_name(k));
                fuzz_check_key(&copy, k, path);
            }
        } else if (strcmp(k->info.path, "fabric") != 0) {
            fuzz_check_key(&copy, k, k->info.path);
        }
    }
    if (bn_scenario_validate(&copy, &err) != BN_OK)
        fuzz_fail("a valid scenario, its keys set again to their values, is refused: %s",
                  err.msg);
}

/* Run sc (a tiny fabric, its simulated time capped: the caller's part) and
 * render what it measured as `bnet run --json` does, into /dev/null. */
static inline void fuzz_run(const struct bn_scenario *sc)
{
    struct bn_results res;
    struct bn_error err = {0};
    int rc = bn_run(sc, NULL, &res, &err);
    fuzz_expect(rc, &err, "bn_run");
    if (rc != BN_OK)
        return;
    FILE *null = fopen("/dev/null", "w");
    if (!null)
        fuzz_fail("cannot open /dev/null");
    bn_results_print(null, &res);
    fclose(null);
    rc = bn_results_write_json(&res, "/dev/null", BN_JSON_REPRODUCIBLE, &err);
    if (rc != BN_OK)
        fuzz_fail("bn_results_write_json to /dev/null: %s", err.msg);
    bn_results_free(&res);
}

#define FUZZ_MAX_TIME_US 2000.0
#define FUZZ_MAX_MESSAGE_BYTES 65536u
#define FUZZ_MAX_MESSAGES 64u /* a flow's bytes in at most 64 posts: not a message per byte */
#define FUZZ_MIN_PERIOD_US 1.0

/* What keeps one run in milliseconds whatever the input set: the
 * topology a k=4 leaf-spine, simulated time at most 2000 us, Poisson
 * arrivals within it, messages at most 64 KiB in at most 64 posts a flow,
 * periods at least 1 us. */
static inline void fuzz_clamp(struct bn_scenario *sc)
{
    struct bn_error err = {0};
    static const char *const fixed[] = {"topology.kind=leaf_spine", "topology.k=4", NULL};
    for (const char *const *k = fixed; *k; k++)
        if (bn_scenario_set(sc, *k, &err) != BN_OK)
            fuzz_fail("harness key %s: %s", *k, err.msg);
    if (sc->sim.max_time_us == 0 || sc->sim.max_time_us > FUZZ_MAX_TIME_US)
        sc->sim.max_time_us = FUZZ_MAX_TIME_US;
    if (sc->workload.message_bytes > FUZZ_MAX_MESSAGE_BYTES)
        sc->workload.message_bytes = FUZZ_MAX_MESSAGE_BYTES;
    if (sc->workload.messages > FUZZ_MAX_MESSAGES)
        sc->workload.messages = FUZZ_MAX_MESSAGES;
    /* poisson's window (its flows, not millions), in its block: through the registry */
    char dur[64];
    if (bn_scenario_get(sc, "workload.duration_us", dur, sizeof dur) == BN_OK &&
        strtod(dur, NULL) > FUZZ_MAX_TIME_US) {
        snprintf(dur, sizeof dur, "workload.duration_us=%g", FUZZ_MAX_TIME_US);
        if (bn_scenario_set(sc, dur, &err) != BN_OK)
            fuzz_fail("harness key %s: %s", dur, err.msg);
    }
    if (sc->observe.sample_us > 0 && sc->observe.sample_us < FUZZ_MIN_PERIOD_US)
        sc->observe.sample_us = FUZZ_MIN_PERIOD_US;
    /* a flap's periods live in its kind's block: through the registry */
    static const char *const periods[] = {"down_us", "up_us"};
    for (uint32_t i = 0; i < sc->nfaults; i++)
        for (size_t p = 0; p < 2; p++) {
            char key[48], val[64];
            struct bn_error e;
            snprintf(key, sizeof key, "faults.%u.%s", i, periods[p]);
            if (bn_scenario_get(sc, key, val, sizeof val) == BN_OK &&
                strtod(val, NULL) < FUZZ_MIN_PERIOD_US) {
                snprintf(val, sizeof val, "%s=%g", key, FUZZ_MIN_PERIOD_US);
                (void)bn_scenario_set(sc, val, &e);
            }
        }
}

/* sc, unless it needs a flow file (which has its own harness), put back in
 * the frame of fuzz_clamp, validated and run. */
static inline void fuzz_run_clamped(struct bn_scenario *sc)
{
    struct bn_error err = {0};
    if (bn_workload_at(sc->workload.kind)->needs_flow_file)
        return;
    fuzz_clamp(sc);
    int rc = bn_scenario_validate(sc, &err);
    fuzz_expect(rc, &err, "bn_scenario_validate");
    if (rc == BN_OK)
        fuzz_run(sc);
}

/* The defaults with each "key=value" of the NULL-terminated list set: a
 * harness's fixed frame around its input (a refusal is the harness's bug). */
static inline void fuzz_scenario(struct bn_scenario *sc, const char *const *keys)
{
    struct bn_error err = {0};
    bn_scenario_defaults(sc);
    snprintf(sc->source, sizeof sc->source, "<fuzz>");
    for (; *keys; keys++)
        if (bn_scenario_set(sc, *keys, &err) != BN_OK)
            fuzz_fail("harness key %s: %s", *keys, err.msg);
}

/* The input as the topology file of topology.kind `kind` (file,
 * ibnetdiscover): plan it as `bnet topo --paths 0,1 --dot FILE` does
 * (reader, tiers, routing tables, planner figures, minimal paths, DOT),
 * print and write that; if it plans, run a permutation of one small message
 * per host for at most 200 simulated us. */
static inline void fuzz_topology(const uint8_t *data, size_t size, const char *kind)
{
    static struct bn_scenario scenario; /* tens of KB: not on the stack */
    struct bn_scenario *sc = &scenario;
    const char *const keys[] = {kind, "workload.message_bytes=4096", "sim.max_time_us=200", NULL};
    struct bn_topo_info info;
    struct bn_error err = {0};
    struct bn_topo_query q = {.paths = true, .src = 0, .dst = 1, .dot_path = "/dev/null"};
    char file[BN_PATH_MAX];
    snprintf(file, sizeof file, "topology.file=%s", fuzz_file(data, size));
    fuzz_scenario(sc, keys);
    if (bn_scenario_set(sc, file, &err) != BN_OK)
        fuzz_fail("%s: %s", file, err.msg);
    int rc = bn_scenario_validate(sc, &err);
    if (rc != BN_OK)
        fuzz_fail("harness scenario refused: %s", err.msg);
    rc = bn_plan_topology(sc, &q, &info, &err);
    fuzz_expect(rc, &err, "bn_plan_topology");
    if (rc != BN_OK)
        return;
    FILE *null = fopen("/dev/null", "w");
    if (!null)
        fuzz_fail("cannot open /dev/null");
    bn_topo_info_print(null, &info);
    fclose(null);
    if (bn_topo_info_write_json(&info, "/dev/null", &err) != BN_OK)
        fuzz_fail("bn_topo_info_write_json to /dev/null: %s", err.msg);
    fuzz_run(sc);
}

/* The scenario's jobs[0] given the workload file `set` (a --set line)
 * and run: the reader, the job builder and the jobs driver meet the input;
 * the results are printed and written as JSON to /dev/null. */
static inline void fuzz_run_job(struct bn_scenario *sc, const char *set)
{
    struct bn_error err = {0};
    if (bn_scenario_set(sc, set, &err) != BN_OK || bn_scenario_validate(sc, &err) != BN_OK)
        fuzz_fail("%s: %s", set, err.msg);
    struct bn_job_results res;
    int rc = bn_job_run(sc, NULL, &res, &err);
    fuzz_expect(rc, &err, "bn_job_run");
    if (rc != BN_OK)
        return;
    FILE *null = fopen("/dev/null", "w");
    if (!null)
        fuzz_fail("cannot open /dev/null");
    bn_job_print(null, &res);
    fclose(null);
    if (bn_job_write_json(&res, "/dev/null", &err) != BN_OK)
        fuzz_fail("bn_job_write_json to /dev/null: %s", err.msg);
    bn_job_results_free(&res);
}

#endif
