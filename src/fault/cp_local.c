/*
 * Local repair in the switches, as NVIDIA's SHIELD (Fast Link Fault
 * Recovery) does on InfiniBand: a switch whose port leaves the Active
 * state picks another output port without the subnet manager, and where it
 * has none it notifies its neighbours (Fast Link Fault Notification), hop
 * by hop, until switches with an alternative route around it (NVIDIA,
 * "InfiniBand Cluster Bring-up Procedure: SHIELD"). A switch installs at
 * failure + routing.local.detect_us + hops x routing.local.notify_us.
 * NVIDIA publishes no absolute time, only "5,000 times" faster than the
 * subnet manager's 10-20 s on very large fabrics (EnterpriseAI, 2017-06-15),
 * i.e. 2-4 ms: the 1 ms defaults (detect, and per hop) repair a fat-tree
 * edge link in 4 ms (3 hops); a measured figure goes in the keys.
 */
#include "fault/fault.h"

static void local_plan(const struct bn_scenario *sc, const struct bn_cp_change *c, bn_time_t *at)
{
    bn_time_t detect = bn_time_from_us(sc->routing.local_detect_us);
    bn_time_t hop = bn_time_from_us(sc->routing.local_notify_us);
    for (uint32_t sw = 0; sw < c->nswitches; sw++)
        if (c->blocks[sw])
            at[sw] = c->dist[sw] == UINT32_MAX ? BN_TIME_NEVER
                                               : c->now + detect + (bn_time_t)c->dist[sw] * hop;
}

const struct bn_cp_ops bn_cp_local = {
    .name = "local",
    .reroutes = true,
    .plan = local_plan,
};
