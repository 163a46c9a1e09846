/* The encapsulation table; byte counts and sources in encap.h / docs/model.md. */

#include "nic/encap.h"

static const struct bn_encap encaps[] = {
    {
        .name = "roce",
        .hdr_bytes = 14 + 20 + 8 + 12 + 4 + 4,
        .reth_bytes = 16,
        .aeth_bytes = 4,
        .wire_overhead = 8 + 12,
        .min_frame = 64,
        /* preamble+SFD, then Ethernet+IPv4+UDP: the 5-tuple ECMP hashes on */
        .head_bytes = 8 + 14 + 20 + 8,
        .max_mtu = 9000,
        .link_layer = BN_LL_ETHERNET,
    },
    {
        .name = "ib",
        .hdr_bytes = 8 + 12 + 4 + 2,
        .reth_bytes = 16,
        .aeth_bytes = 4,
        .wire_overhead = 0,
        .min_frame = 0,
        /* LRH (destination LID) + BTH (destination QP) */
        .head_bytes = 8 + 12,
        .max_mtu = 4096,
        .link_layer = BN_LL_INFINIBAND,
    },
};

#define NENCAPS (sizeof encaps / sizeof encaps[0])

const struct bn_encap *bn_encap_at(size_t i)
{
    return i < NENCAPS ? &encaps[i] : NULL;
}

const char *bn_encap_name(size_t i)
{
    return i < NENCAPS ? encaps[i].name : NULL;
}
