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

/* routing.ethernet.detect: a failure noticed by BFD (interval x multiplier)
 * or by loss of signal (los_us); the key's choices, in this order. */
enum { DETECT_BFD = 0, DETECT_LOS };
static const char *detect_choice(size_t i)
{
    static const char *const v[] = {"bfd", "los"};
    return i < sizeof v / sizeof v[0] ? v[i] : NULL;
}

/* routing.ethernet.* */
struct eth_keys {
    double bfd_interval_us;      /* BFD transmit interval */
    double los_us;               /* loss of signal to link down (carrier delay) */
    double hop_us;               /* a withdrawal's processing, per hop */
    double install_us;           /* next-hop group update in hardware */
    uint32_t bfd_multiplier;     /* BFD detect multiplier */
    uint8_t detect;              /* DETECT_BFD, DETECT_LOS */
};
BN_CP_KEYS_CHECK(struct eth_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "routing.ethernet.detect", BN_ROW_ENUM, .info.unit = "", .info.def = "bfd",
      .info.choice = detect_choice,
      .info.doc = "ethernet: how a link's failure is noticed: BFD (interval x multiplier) or "
                  "loss of signal (routing.ethernet.los_us).",
      BN_ROW_CP(struct eth_keys, detect) },
    { .info.path = "routing.ethernet.bfd_interval_us", BN_ROW_FLOAT, .info.unit = "us",
      .info.def = "300000",
      .info.doc = "ethernet: BFD control-packet interval.",
      BN_ROW_CP(struct eth_keys, bfd_interval_us), BN_ROW_RANGE(1, 1e9) },
    { .info.path = "routing.ethernet.bfd_multiplier", BN_ROW_INT, .info.unit = "packets",
      .info.def = "3",
      .info.doc = "ethernet: BFD detect multiplier (missed packets that declare the session down).",
      BN_ROW_CP(struct eth_keys, bfd_multiplier), BN_ROW_RANGE(1, 255) },
    { .info.path = "routing.ethernet.los_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "10",
      .info.doc = "ethernet: loss of signal to the link declared down (carrier delay).",
      BN_ROW_CP(struct eth_keys, los_us), BN_ROW_RANGE(0, 1e9) },
    { .info.path = "routing.ethernet.hop_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "1000",
      .info.doc = "ethernet: a BGP withdrawal's processing and sending, per hop.",
      BN_ROW_CP(struct eth_keys, hop_us), BN_ROW_RANGE(0, 1e9) },
    { .info.path = "routing.ethernet.install_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "1000",
      .info.doc = "ethernet: programming the new next-hop group into the switch ASIC.",
      BN_ROW_CP(struct eth_keys, install_us), BN_ROW_RANGE(0, 1e9) },
};

static void eth_plan(const void *keys_, const struct bn_cp_change *c, bn_time_t *at)
{
    const struct eth_keys *k = keys_;
    double detect_us = k->detect == DETECT_BFD ? k->bfd_interval_us * k->bfd_multiplier
                                               : k->los_us;
    for (uint32_t sw = 0; sw < c->nswitches; sw++)
        if (c->blocks[sw])
            at[sw] = c->dist[sw] == UINT32_MAX
                         ? BN_TIME_NEVER
                         : c->now + bn_time_from_us(detect_us + c->dist[sw] * k->hop_us +
                                                    k->install_us);
}

const struct bn_cp_ops bn_cp_ethernet = {
    .name = "ethernet",
    .summary = "BFD or loss of signal, BGP withdrawals hop by hop",
    .reroutes = true,
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .plan = eth_plan,
};
