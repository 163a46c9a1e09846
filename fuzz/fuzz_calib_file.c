/*
 * Fuzz target: a calibration input (bnet calibrate FILE, src/calib/): the
 * output of nccl-tests (all_reduce_perf ...) or of a perftest tool
 * (ib_write_bw ...), told apart by its lines. The input is the file, read
 * by bn_calib_read; what it read must hold together (each row's input,
 * each input's rows, positive finite times). A small one (at most 4 rows
 * of at most 1 MiB, at most 4 nodes of at most 8 GPUs) then runs through
 * the simulation as `bnet calibrate --no-fit` runs its rows, at flow
 * level, and is printed and written as JSON. Seeds: tests/data/calib/
 * (published nccl-tests and perftest outputs) and the files
 * tests/cli/test_errors.sh writes.
 */
#include <math.h>

#include "fuzz.h"

#include "bnet/calib.h"

static void check(const struct bn_calib_data *d)
{
    for (uint32_t i = 0; i < d->nrows; i++) {
        const struct bn_calib_row *r = &d->rows[i];
        if (r->input >= d->ninputs)
            fuzz_fail("row %u names input %u of %u", i, r->input, d->ninputs);
        if (!(r->time_us > 0) || !isfinite(r->time_us) || !r->op[0])
            fuzz_fail("row %u (line %u): time %g us, op '%s'", i, r->line, r->time_us, r->op);
    }
    for (uint32_t i = 0; i < d->ninputs; i++) {
        const struct bn_calib_input *in = &d->inputs[i];
        if ((uint64_t)in->first_row + in->nrows > d->nrows || strlen(in->sha256) != 64)
            fuzz_fail("input %u: rows %u+%u of %u, sha256 '%s'", i, in->first_row, in->nrows,
                      d->nrows, in->sha256);
    }
}

static bool small(const struct bn_calib_data *d)
{
    if (d->nrows == 0 || d->nrows > 4)
        return false;
    for (uint32_t i = 0; i < d->nrows; i++)
        if (d->rows[i].bytes > (1u << 20))
            return false;
    for (uint32_t i = 0; i < d->ninputs; i++)
        if (d->inputs[i].nodes > 4 || d->inputs[i].gpus_per_node > 8)
            return false;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct bn_scenario sc; /* tens of KB: not on the stack */
    static const char *const keys[] = {"sim.fidelity=flow", "sim.max_time_us=2000", NULL};
    struct bn_error err = {0};
    const char *path = fuzz_file(data, size);
    struct bn_calib_data d;
    int rc = bn_calib_read(&path, 1, &d, &err);
    fuzz_expect(rc, &err, "bn_calib_read");
    if (rc != BN_OK)
        return 0;
    check(&d);
    if (small(&d)) {
        fuzz_scenario(&sc, keys);
        if (bn_scenario_validate(&sc, &err) != BN_OK)
            fuzz_fail("harness scenario refused: %s", err.msg);
        struct bn_calib_opts o = {.fit = false, .max_evals = 1};
        struct bn_calib_results res;
        rc = bn_calibrate(&sc, &d, &o, &res, &err);
        fuzz_expect(rc, &err, "bn_calibrate");
        if (rc == BN_OK) {
            FILE *null = fopen("/dev/null", "w");
            if (!null)
                fuzz_fail("cannot open /dev/null");
            bn_calib_print(null, &res);
            fclose(null);
            if (bn_calib_write_json(&res, "/dev/null", &err) != BN_OK)
                fuzz_fail("bn_calib_write_json to /dev/null: %s", err.msg);
            bn_calib_results_free(&res);
        }
    }
    bn_calib_data_free(&d);
    return 0;
}
