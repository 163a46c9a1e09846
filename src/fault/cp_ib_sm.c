/*
 * An InfiniBand subnet manager (OpenSM's behaviour, opensm(8)): a port's
 * state change sends a trap, which starts a heavy sweep; the sweep
 * rediscovers every switch, the routing engine recomputes every switch's
 * linear forwarding table (LFT) for every destination, and the SM then
 * sets the changed 64-LID blocks of each switch's LFT with SMPs, at most
 * routing.ib_sm.mads_in_flight outstanding (OpenSM's max_wire_smps,
 * default 4), switch after switch. So a switch installs at
 *   fault + trap + switches x sweep_us + switches x hosts x route_ns
 *         + (blocks set up to and including its own) x lft_block_us / in flight.
 * route_ns = 500 ns per (switch, destination) reproduces the 10-20 s that
 * large fabrics are quoted to take (EnterpriseAI, 2017-06-15, on SM
 * recalculation): a 16k-host, 1280-switch fat-tree computes 21 M entries
 * in 10.5 s. SMP and sweep costs are not published: the defaults (10 us a
 * round trip, 50 us of SMPs per switch) are this model's assumptions.
 */
#include "fault/fault.h"

static void sm_plan(const struct bn_scenario *sc, const struct bn_cp_change *c, bn_time_t *at)
{
    const struct bn_scenario_routing *k = &sc->routing;
    double start_us = k->sm_trap_us + c->nswitches * k->sm_sweep_us +
                      (double)c->nswitches * c->nhosts * k->sm_route_ns * 1e-3;
    double per_block_us = k->sm_lft_block_us / k->sm_mads_in_flight;
    uint64_t blocks = 0;
    for (uint32_t sw = 0; sw < c->nswitches; sw++) {
        if (!c->blocks[sw])
            continue;
        blocks += c->blocks[sw];
        at[sw] = c->now + bn_time_from_us(start_us + (double)blocks * per_block_us);
    }
}

const struct bn_cp_ops bn_cp_ib_sm = {
    .name = "ib_sm",
    .reroutes = true,
    .plan = sm_plan,
};
