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

/* routing.ib_sm.* */
struct sm_keys {
    double trap_us;              /* the trap's trip to the SM and its handling */
    double sweep_us;             /* the sweep's discovery, per switch */
    double route_ns;             /* route computation, per (switch, host) entry */
    double lft_block_us;         /* one LFT block (64 LIDs) set by a MAD */
    uint32_t mads_in_flight;     /* MADs the SM keeps outstanding */
};
BN_CP_KEYS_CHECK(struct sm_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "routing.ib_sm.trap_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "100",
      .info.doc = "ib_sm: from a port's state change to the subnet manager starting a sweep "
                  "(the switch's trap and its handling).",
      BN_ROW_CP(struct sm_keys, trap_us), BN_ROW_RANGE(0, 1e9) },
    { .info.path = "routing.ib_sm.sweep_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "50",
      .info.doc = "ib_sm: the sweep's discovery cost per switch (its SMPs).",
      BN_ROW_CP(struct sm_keys, sweep_us), BN_ROW_RANGE(0, 1e9) },
    { .info.path = "routing.ib_sm.route_ns", BN_ROW_FLOAT, .info.unit = "ns", .info.def = "500",
      .info.doc = "ib_sm: route computation per forwarding-table entry (switch x destination "
                  "host): the whole fabric is recomputed (500 ns: a 16k-host fabric in 10 s, as "
                  "large fabrics are quoted to take).",
      BN_ROW_CP(struct sm_keys, route_ns), BN_ROW_RANGE(0, 1e9) },
    { .info.path = "routing.ib_sm.lft_block_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "10",
      .info.doc = "ib_sm: one SMP setting a 64-LID block of a switch's forwarding table "
                  "(a round trip).",
      BN_ROW_CP(struct sm_keys, lft_block_us), BN_ROW_RANGE(0, 1e9) },
    { .info.path = "routing.ib_sm.mads_in_flight", BN_ROW_INT, .info.unit = "MADs", .info.def = "4",
      .info.doc = "ib_sm: SMPs the subnet manager keeps outstanding (OpenSM max_wire_smps).",
      BN_ROW_CP(struct sm_keys, mads_in_flight), BN_ROW_RANGE(1, 4096) },
};

static void sm_plan(const void *keys_, const struct bn_cp_change *c, bn_time_t *at)
{
    const struct sm_keys *k = keys_;
    double start_us = k->trap_us + c->nswitches * k->sweep_us +
                      (double)c->nswitches * c->nhosts * k->route_ns * 1e-3;
    double per_block_us = k->lft_block_us / k->mads_in_flight;
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
    .summary = "an InfiniBand subnet manager sweeps, recomputes, uploads",
    .reroutes = true,
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .plan = sm_plan,
};
