/*
 * Fuzz target: a scenario file. The input is YAML text, loaded over the
 * defaults as `bnet run FILE` loads it (bn_scenario_load_string: libyaml's
 * parser, the nesting cap, keys, values, bounds, presets, fault lists),
 * then checked across keys (bn_scenario_validate). A scenario that passes
 * must also survive setting each key again to the value bnet reports for it
 * (fuzz_check_keys), and then run in fuzz_e2e's frame (a k=4 leaf-spine,
 * 2000 simulated us: fuzz_run_clamped) so that what the YAML set reaches
 * the model. Seeds: the .yaml files of scenarios/ and tests/.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct bn_scenario sc; /* tens of KB: not on the stack */
    struct bn_error err = {0};
    char *yaml = fuzz_text(data, size);
    int rc = bn_scenario_load_string(&sc, yaml, "fuzz.yaml", &err);
    fuzz_expect(rc, &err, "bn_scenario_load_string");
    if (rc == BN_OK) {
        rc = bn_scenario_validate(&sc, &err);
        fuzz_expect(rc, &err, "bn_scenario_validate");
    }
    if (rc == BN_OK) {
        fuzz_check_keys(&sc);
        fuzz_run_clamped(&sc); /* and through the simulation, on a tiny fabric */
    }
    free(yaml);
    return 0;
}
