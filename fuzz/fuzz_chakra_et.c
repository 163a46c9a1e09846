/*
 * Fuzz target: Chakra execution traces (jobs[].workload_file naming rank
 * 0's PREFIX.0.et, src/job/chakra_et.c and chakra.c). The input is 1 to 4
 * ranks' .et files (protobuf-c's reading of et_def.proto: a varint-length
 * GlobalMetadata, then varint-length Nodes), cut at each "@rank@": each
 * part is written as PREFIX.r.et, and the ranks past them removed (bnet
 * counts the files that follow on). Read as job 0 on a 16-host fat-tree
 * (k = 4) and run for at most 2000 simulated us, printed and written as
 * JSON: truncated varints and messages, unknown fields and node types,
 * dependencies on missing or later nodes, cycles, collectives whose
 * groups disagree across ranks and sends without their receive meet the
 * reader, the graph builder and the jobs driver. Seeds: fuzz/corpus/
 * chakra_et/ (traces written with protobuf-c as tests/job/test_chakra.c
 * writes them).
 */
#include <sys/stat.h>

#include "fuzz.h"

#define RANKS_MAX 4
#define CUT "@rank@"

static char dir[FUZZ_PATH_MAX];

static void cleanup(void)
{
    char p[FUZZ_PATH_MAX + 16];
    for (int r = 0; r <= RANKS_MAX; r++) {
        snprintf(p, sizeof p, "%s/t.%d.et", dir, r);
        unlink(p);
    }
    rmdir(dir);
}

static void write_rank(int r, const uint8_t *data, size_t size)
{
    char p[FUZZ_PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/t.%d.et", dir, r);
    FILE *f = fopen(p, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        fuzz_fail("cannot write %s", p);
}

/* The first "@rank@" in data[at..size), or NULL. */
static const uint8_t *find_cut(const uint8_t *data, size_t at, size_t size)
{
    size_t n = strlen(CUT);
    for (size_t i = at; i + n <= size; i++)
        if (data[i] == '@' && memcmp(data + i, CUT, n) == 0)
            return data + i;
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct bn_scenario sc; /* tens of KB: not on the stack */
    static const char *const keys[] = {"topology.k=4", "sim.max_time_us=2000", NULL};
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/dev/shm/bnet-fuzz-et-XXXXXX");
        if (!mkdtemp(dir)) {
            snprintf(dir, sizeof dir, "/tmp/bnet-fuzz-et-XXXXXX");
            if (!mkdtemp(dir))
                fuzz_fail("cannot create a temporary folder");
        }
        atexit(cleanup);
    }
    int r = 0;
    size_t at = 0, cut = strlen(CUT);
    while (r < RANKS_MAX - 1) {
        const uint8_t *m = find_cut(data, at, size);
        if (!m)
            break;
        write_rank(r++, data + at, (size_t)(m - (data + at)));
        at = (size_t)(m - data) + cut;
    }
    write_rank(r++, data + at, size - at);
    char p[FUZZ_PATH_MAX + 16];
    for (int k = r; k <= RANKS_MAX; k++) {
        snprintf(p, sizeof p, "%s/t.%d.et", dir, k);
        unlink(p);
    }
    char file[BN_PATH_MAX];
    snprintf(file, sizeof file, "jobs.0.workload_file=%s/t.0.et", dir);
    fuzz_scenario(&sc, keys);
    fuzz_run_job(&sc, file);
    return 0;
}
