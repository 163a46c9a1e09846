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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct bn_scenario sc; /* tens of KB: not on the stack */
    static const char *const keys[] = {"topology.k=4", "sim.max_time_us=2000", NULL};
    char file[BN_PATH_MAX];
    snprintf(file, sizeof file, "jobs.0.workload_file=%s", fuzz_file(data, size));
    fuzz_scenario(&sc, keys);
    fuzz_run_job(&sc, file);
    return 0;
}
