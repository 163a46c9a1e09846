/*
 * Fuzz target: a whole run on a tiny fabric. Each line of the input is a
 * `--set` assignment applied over an 8-host leaf-spine (k=4) with small
 * messages; faults.N.* lines add link downs, flaps, bit errors, degraded
 * links, switch and NIC failures on its links ("leaf0 spine0", "host3"...).
 * Then the frame is put back where the input may have widened it, so each
 * input runs in milliseconds: the topology stays k=4 leaf-spine, simulated
 * time at most 2000 us, Poisson arrivals within it, messages at most
 * 64 KiB, no flow file (the flow file has its own target), samples and
 * flap periods at least 1 us. The
 * scenario is validated and run (bn_run: build, flows driver, NICs, links,
 * switches, faults, rerouting, the baseline run) and its results printed
 * and written as JSON. Refused input is fine; a crash, a sanitizer report,
 * a leak, any other error status or a timeout is a finding.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct bn_scenario sc; /* tens of KB: not on the stack */
    static const char *const frame[] = {
        "topology.kind=leaf_spine", "topology.k=4", "workload.message_bytes=16384",
        "sim.max_time_us=2000", NULL,
    };
    struct bn_error err = {0};
    char *text = fuzz_text(data, size);
    fuzz_scenario(&sc, frame);
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        fuzz_expect(bn_scenario_set(&sc, line, &err), &err, "bn_scenario_set");
    }
    free(text);
    fuzz_run_clamped(&sc);
    return 0;
}
