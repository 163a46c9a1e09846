/*
 * Fuzz target: an InfiniBand fabric as `ibnetdiscover` prints it
 * (topology.kind: ibnetdiscover, docs/topologies.md). The input is the
 * dump: switch and CA headers, port lines with their GUIDs, peers and
 * widths x speeds (src/topo/ibnetdiscover.c), then the shared draft graph
 * (import.c), routing tables and the planner, as `bnet topo --paths 0,1
 * --dot` does; a fabric that plans then runs a permutation of one small
 * message per host for at most 200 simulated us.
 * Seeds: the .ibnet files of tests/topo/data/.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct bn_scenario sc; /* tens of KB: not on the stack */
    static const char *const keys[] = {
        "topology.kind=ibnetdiscover", "workload.message_bytes=4096", "sim.max_time_us=200", NULL,
    };
    struct bn_error err = {0};
    char file[BN_PATH_MAX];
    snprintf(file, sizeof file, "topology.file=%s", fuzz_file(data, size));
    fuzz_scenario(&sc, keys);
    if (bn_scenario_set(&sc, file, &err) != BN_OK)
        fuzz_fail("%s: %s", file, err.msg);
    fuzz_topology(&sc);
    return 0;
}
