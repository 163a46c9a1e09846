/*
 * nic_degrade: a host's (target) backend link comes up, or stays, at a
 * fraction of its rate (rate_gbps): an InfiniBand port trained at reduced
 * width (4x -> 1x after a lane fault; ibdiagnet reports "link width is not
 * optimal") or an Ethernet port that autonegotiated a lower speed. Unlike
 * link_degrade it names the host, as an operator's report does, and slows
 * both ways of its one link; it loses nothing, so nothing reroutes.
 */
#include "fault/kind.h"

/* The rate is link_degrade's key (faults[].rate_gbps), as are the strike
 * and end that read it. */
static int validate(const struct bn_scenario_fault *sf, const void *keys, const char *src,
                    uint32_t index, struct bn_error *err)
{
    (void)keys;
    return bn_fault_rate_validate(sf, src, index, "nic_degrade", "the host's link falls to", err);
}

static int resolve(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    return bn_fault_resolve_node(ft, fa, BN_NODE_HOST, err);
}

const struct bn_fault_kind_ops bn_fault_nic_degrade = {
    .name = "nic_degrade",
    .summary = "the target host's backend link runs at rate_gbps, reduced width",
    .loses_nothing = true,
    .validate = validate,
    .resolve = resolve,
    .strike = bn_fault_rate_strike,
    .end = bn_fault_rate_end,
};
