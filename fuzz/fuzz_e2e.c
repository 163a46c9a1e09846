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

#include "workload/workload.h"

#define E2E_MAX_TIME_US 2000.0
#define E2E_MAX_MESSAGE_BYTES 65536u
#define E2E_MIN_PERIOD_US 1.0

/* What keeps one run in milliseconds whatever the input set. */
static void clamp(struct bn_scenario *sc)
{
    struct bn_error err = {0};
    static const char *const fixed[] = {"topology.kind=leaf_spine", "topology.k=4", NULL};
    for (const char *const *k = fixed; *k; k++)
        if (bn_scenario_set(sc, *k, &err) != BN_OK)
            fuzz_fail("harness key %s: %s", *k, err.msg);
    if (sc->sim.max_time_us == 0 || sc->sim.max_time_us > E2E_MAX_TIME_US)
        sc->sim.max_time_us = E2E_MAX_TIME_US;
    if (sc->workload.message_bytes > E2E_MAX_MESSAGE_BYTES)
        sc->workload.message_bytes = E2E_MAX_MESSAGE_BYTES;
    if (sc->workload.duration_us > E2E_MAX_TIME_US) /* poisson: its flows, not millions */
        sc->workload.duration_us = E2E_MAX_TIME_US;
    if (sc->observe.sample_us > 0 && sc->observe.sample_us < E2E_MIN_PERIOD_US)
        sc->observe.sample_us = E2E_MIN_PERIOD_US;
    for (uint32_t i = 0; i < sc->nfaults; i++) {
        struct bn_scenario_fault *f = &sc->faults[i];
        if (f->down_us < E2E_MIN_PERIOD_US)
            f->down_us = E2E_MIN_PERIOD_US;
        if (f->up_us < E2E_MIN_PERIOD_US)
            f->up_us = E2E_MIN_PERIOD_US;
    }
}

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
    if (bn_workload_at(sc.workload.kind)->needs_flow_file)
        return 0;
    clamp(&sc);
    int rc = bn_scenario_validate(&sc, &err);
    fuzz_expect(rc, &err, "bn_scenario_validate");
    if (rc == BN_OK)
        fuzz_run(&sc);
    return 0;
}
