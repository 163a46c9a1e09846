/*
 * A routed Ethernet fabric (eBGP in the Clos, RFC 7938): the switches at a
 * dead link notice it by BFD (routing.ethernet.bfd_interval_us x
 * bfd_multiplier; FRRouting's defaults, 300 ms x 3 = 900 ms, are ours) or
 * by loss of signal (routing.ethernet.los_us), shrink their ECMP
 * next-hop groups, and withdraw the routes it carried; each further hop
 * processes the withdrawal (routing.ethernet.hop_us) before passing it on.
 * Every switch whose next hops change then programs them into its ASIC
 * (routing.ethernet.install_us). So a switch installs at
 *   fault + detection + hops x hop_us + install_us.
 * Per-hop BGP processing and hardware programming times are not
 * published for these fabrics: the 1 ms defaults are assumptions.
 */
#include "fault/fault.h"

static void eth_plan(const struct bn_scenario *sc, const struct bn_cp_change *c, bn_time_t *at)
{
    const struct bn_scenario_routing *k = &sc->routing;
    double detect_us = k->eth_detect == BN_SC_DETECT_BFD
                           ? k->eth_bfd_interval_us * k->eth_bfd_multiplier
                           : k->eth_los_us;
    for (uint32_t sw = 0; sw < c->nswitches; sw++)
        if (c->blocks[sw])
            at[sw] = c->dist[sw] == UINT32_MAX
                         ? BN_TIME_NEVER
                         : c->now + bn_time_from_us(detect_us + c->dist[sw] * k->eth_hop_us +
                                                    k->eth_install_us);
}

const struct bn_cp_ops bn_cp_ethernet = {
    .name = "ethernet",
    .reroutes = true,
    .plan = eth_plan,
};
