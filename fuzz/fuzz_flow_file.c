/*
 * Fuzz target: a flow file (workload.kind: flow_list), one flow per line,
 * `src dst bytes start_us` (src/workload/flow_list.c). The input is the
 * file, read for an 8-host leaf-spine fabric (k=4); a list that reads is
 * then run, at most 2000 simulated us: flows to oneself, repeated pairs,
 * huge or late flows and start times at the cap meet the flows driver.
 * Seeds: the .flows files of scenarios/.
 */
#include "fuzz.h"

#include "workload/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct bn_scenario sc; /* tens of KB: not on the stack */
    static const char *const keys[] = {
        "topology.kind=leaf_spine", "topology.k=4", "workload.kind=flow_list",
        "sim.max_time_us=2000", NULL,
    };
    struct bn_error err = {0};
    char file[BN_PATH_MAX];
    snprintf(file, sizeof file, "workload.flow_file=%s", fuzz_file(data, size));
    fuzz_scenario(&sc, keys);
    if (bn_scenario_set(&sc, file, &err) != BN_OK || bn_scenario_validate(&sc, &err) != BN_OK)
        fuzz_fail("%s: %s", file, err.msg);
    struct bn_flow_list flows = {0};
    int rc = bn_workload_generate(&sc, 8, &flows, &err);
    fuzz_expect(rc, &err, "bn_workload_generate");
    bn_flow_list_free(&flows);
    if (rc == BN_OK)
        fuzz_run(&sc);
    return 0;
}
