/*
 * Fuzz target: the ns-3 topology text of HPCC, ASTRA-sim and SimAI
 * (topology.kind: ns3, docs/topologies.md). The input is the file: its
 * counts line, switch ids and link lines with ns-3 rates and times
 * (src/topo/ns3.c), then the shared draft graph (import.c), routing
 * tables and the planner, as `bnet topo --paths 0,1 --dot` does; a fabric
 * that plans then runs a permutation of one small message per host for at
 * most 200 simulated us. Seeds: the ns3_*.txt files of tests/topo/data/.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_topology(data, size, "topology.kind=ns3");
    return 0;
}
