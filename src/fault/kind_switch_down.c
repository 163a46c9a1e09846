/* switch_down: every backend link of a switch (target) goes down, as a
 * switch that reboots or loses power. */
#include "fault/kind.h"

static int resolve(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    return bn_fault_resolve_node(ft, fa, BN_NODE_SWITCH, err);
}

const struct bn_fault_kind_ops bn_fault_switch_down = {
    .name = "switch_down",
    .summary = "every link of the target switch goes down",
    .resolve = resolve,
    .strike = bn_fault_strike_down,
    .end = bn_fault_end_up,
};
