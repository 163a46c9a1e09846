/*
 * ECMP: hash the flow's identity with the switch's salt and pick a next hop
 * from the hash; every packet of a flow takes the same path. Which fields
 * enter the hash (switch.ecmp_fields: the destination, the entropy value
 * standing for the UDP source port, or both) and whether every switch
 * salts alike (switch.ecmp_salt) are the user's: identical hashing at every
 * tier makes choices correlate (polarization), leaving paths unused.
 */
#include "switch/lb.h"

static uint32_t ecmp_pick(struct bn_lb_ctx *ctx, struct bn_lb_switch_state *sw,
                          const uint32_t *ports, uint32_t nports, const struct bn_packet *pk)
{
    return bn_lb_hash_pick(ctx, sw->salt, ports, nports, pk);
}

const struct bn_lb_ops bn_lb_ecmp = {
    .name = "ecmp",
    .summary = "per-flow hash",
    .pure = true,
    .hashes = true,
    .pick = ecmp_pick,
};
