/*
 * Fuzz target: a topology in bnet's text format (topology.kind: file,
 * docs/topologies.md). The input is the file: host, switch and link lines
 * read into a draft graph (src/topo/file.c, import.c: names, tiers, rates,
 * cable lengths), turned into a fabric with routing tables and planned as
 * `bnet topo --paths 0,1 --dot` does; a fabric that plans then runs a
 * permutation of one small message per host for at most 200 simulated us.
 * Seeds: the .topo files of scenarios/ and tests/topo/data/.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_topology(data, size, "topology.kind=file");
    return 0;
}
