/* nic_down: a host's (target) backend link goes down, as a NIC that
 * fails or resets. */
#include "fault/kind.h"

static int resolve(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    return bn_fault_resolve_node(ft, fa, BN_NODE_HOST, err);
}

const struct bn_fault_kind_ops bn_fault_nic_down = {
    .name = "nic_down",
    .summary = "the target host's backend link goes down",
    .resolve = resolve,
    .strike = bn_fault_strike_down,
    .end = bn_fault_end_up,
};
