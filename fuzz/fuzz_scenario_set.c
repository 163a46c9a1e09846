/*
 * Fuzz target: --set overrides. Each line of the input is one
 * "dotted.key=value" assignment applied over the defaults, as the CLI
 * applies `--set` (bn_scenario_set: key lookup, faults.N.field items,
 * number parsing and bounds, enum names, presets by `fabric=`). A refused
 * line is skipped and the next applied, so one input explores many keys;
 * then the scenario is checked across keys and, if valid, every key must
 * survive being set again to its own value (fuzz_check_keys).
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct bn_scenario sc; /* tens of KB: not on the stack */
    struct bn_error err = {0};
    char *text = fuzz_text(data, size);
    bn_scenario_defaults(&sc);
    snprintf(sc.source, sizeof sc.source, "<fuzz>");
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        fuzz_expect(bn_scenario_set(&sc, line, &err), &err, "bn_scenario_set");
    }
    int rc = bn_scenario_validate(&sc, &err);
    fuzz_expect(rc, &err, "bn_scenario_validate");
    if (rc == BN_OK)
        fuzz_check_keys(&sc);
    free(text);
    return 0;
}
