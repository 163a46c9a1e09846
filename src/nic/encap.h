/*
 * Encapsulations: the header bytes every RDMA packet carries on the wire.
 * Byte counts and their sources are tabulated in docs/model.md.
 *   InfiniBand: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26 B (IBTA spec vol. 1, ch. 5/9)
 *   RoCEv2:     Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 = 62 B
 *               (IBTA RoCEv2 annex A17), plus preamble/SFD 8 + inter-frame gap 12
 *               = 20 B of wire overhead per frame (IEEE 802.3), min frame 64 B.
 * RDMA WRITE's first packet adds RETH (16 B); ACK/NAK add AETH (4 B).
 * A READ request carries a RETH, an atomic request an AtomicETH (28 B),
 * responses an AETH on their first and last packets (IBTA vol. 1, 9.4).
 */
#ifndef BN_NIC_ENCAP_H
#define BN_NIC_ENCAP_H

#include <stddef.h>
#include <stdint.h>

#include "link/fc.h"

#define BN_ATOMIC_ETH_BYTES 28

struct bn_encap {
    const char *name;
    uint16_t hdr_bytes;      /* per data packet, incl. trailers (CRCs, FCS) */
    uint16_t reth_bytes;     /* RDMA Extended Transport Header, WRITE first packet */
    uint16_t aeth_bytes;     /* ACK Extended Transport Header */
    uint16_t wire_overhead;  /* preamble + SFD + IFG per frame; 0 on IB */
    uint16_t min_frame;      /* frames are padded up to this */
    uint16_t head_bytes;     /* wire bytes up to what a switch routes on */
    uint16_t max_mtu;
    uint8_t link_layer;      /* enum bn_link_layer */
};

/* The registry (nic.encap): the i-th encapsulation and its name, NULL past
 * the last. */
const struct bn_encap *bn_encap_at(size_t i);
const char *bn_encap_name(size_t i);

static inline uint16_t bn_encap_frame(const struct bn_encap *e, uint32_t extra_hdr, uint32_t payload)
{
    uint32_t f = e->hdr_bytes + extra_hdr + payload;
    return (uint16_t)(f < e->min_frame ? e->min_frame : f);
}

/* Wire bytes of a full data packet (WRITE's RETH included, as the first
 * packet of a message carries it): the largest frame NICs send. */
static inline uint32_t bn_encap_wire_frame(const struct bn_encap *e, uint32_t mtu)
{
    return bn_encap_frame(e, e->reth_bytes, mtu) + e->wire_overhead;
}

/* Payload rate of a link of `gbps` carrying a long RDMA WRITE in full
 * packets of `mtu` bytes: only a message's first packet carries the RETH,
 * so the bound a long message approaches is set by the packets without it. */
static inline double bn_encap_goodput_gbps(const struct bn_encap *e, uint32_t mtu, double gbps)
{
    return gbps * mtu / (double)(bn_encap_frame(e, 0, mtu) + e->wire_overhead);
}

#endif
