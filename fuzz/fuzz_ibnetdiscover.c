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
    fuzz_topology(data, size, "topology.kind=ibnetdiscover");
    return 0;
}
