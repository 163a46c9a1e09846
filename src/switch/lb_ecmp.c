/*
 * ECMP: hash the flow's identity (the entropy the NIC stamps per queue pair,
 * standing for the 5-tuple) with the switch's own salt and take it modulo the
 * number of next hops. Every packet of a flow takes the same path; different
 * salts per switch keep tiers from making correlated choices (polarization).
 */
#include "core/rng.h"
#include "switch/lb.h"

static uint32_t ecmp_pick(const struct bn_fabric *f, const struct bn_lb_switch_state *sw,
                          const uint32_t *ports, uint32_t nports, const struct bn_packet *pk)
{
    (void)f;
    uint64_t h = bn_mix64((uint64_t)pk->entropy ^ sw->salt);
    return ports[(uint32_t)((h >> 32) * nports >> 32)];
}

const struct bn_lb_ops bn_lb_ecmp = {
    .name = "ecmp",
    .pick = ecmp_pick,
};
