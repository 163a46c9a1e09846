/*
 * Fuzz target: a SimAI/AICB workload file (jobs[].workload_file,
 * src/job/aicb.c). The input is the file, read as a job on a 16-host
 * fat-tree (k=4) and run, at most 2000 simulated us: headers with odd
 * degrees, short or long layer lines, unknown communication types, huge
 * times and sizes meet the reader, the pipeline builder and the jobs
 * driver. Seeds: the .txt files of scenarios/, a small one in fuzz/corpus/,
 * and the files tests/cli/test_errors.sh writes.
 */
#include "fuzz.h"

#include "bnet/job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct bn_scenario sc; /* tens of KB: not on the stack */
    static const char *const keys[] = {"topology.k=4", "sim.max_time_us=2000", NULL};
    struct bn_error err = {0};
    char file[BN_PATH_MAX];
    snprintf(file, sizeof file, "jobs.0.workload_file=%s", fuzz_file(data, size));
    fuzz_scenario(&sc, keys);
    if (bn_scenario_set(&sc, file, &err) != BN_OK || bn_scenario_validate(&sc, &err) != BN_OK)
        fuzz_fail("%s: %s", file, err.msg);
    struct bn_job_results res;
    int rc = bn_job_run(&sc, NULL, &res, &err);
    fuzz_expect(rc, &err, "bn_job_run");
    if (rc != BN_OK)
        return 0;
    FILE *null = fopen("/dev/null", "w");
    if (!null)
        fuzz_fail("cannot open /dev/null");
    bn_job_print(null, &res);
    fclose(null);
    if (bn_job_write_json(&res, "/dev/null", &err) != BN_OK)
        fuzz_fail("bn_job_write_json to /dev/null: %s", err.msg);
    bn_job_results_free(&res);
    return 0;
}
