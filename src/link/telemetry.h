/*
 * In-band network telemetry (INT) as HPCC uses it (Li et al., "HPCC: High
 * Precision Congestion Control", SIGCOMM 2019, section 3.1): every switch
 * a data packet leaves pushes one record of the egress port (a timestamp,
 * the bytes the port has sent, its queue length, its rate) onto the
 * packet, up to BN_INT_HOPS; the receiver copies the records onto the ACK.
 * The records live beside the packet pool, one per packet slot, and exist
 * only when the congestion-control module asks for them: a packet stays
 * 32 bytes. Counters are 32 bits and wrap, as the hardware's do. An ACK's
 * record also says how long its data waited at the receiver's NIC (the
 * endpoint delay Swift reads).
 */
#ifndef BN_LINK_TELEMETRY_H
#define BN_LINK_TELEMETRY_H

#include <stdbool.h>
#include <stdint.h>

#include "bnet/error.h"

/* HPCC's ns-3 model carries 5 hops (a three-tier fat-tree's longest path). */
#define BN_INT_HOPS 5

struct bn_int_hop {
    uint32_t ts_ns;      /* when the packet left the port (ns, wrapping) */
    uint32_t tx_bytes;   /* frame bytes the port had sent before it (wrapping) */
    uint32_t qlen;       /* bytes queued behind it at the port */
    uint32_t port;       /* the port (its rate, and whether the path changed) */
};

struct bn_int_rec {
    struct bn_int_hop hop[BN_INT_HOPS];
    uint32_t nhop;
    uint32_t host_ns;    /* an ACK's: how long its data waited for the receiver's DMA */
};

struct bn_fabric;

struct bn_telemetry {
    struct bn_int_rec *rec;  /* one per packet slot, grown with the pool */
    size_t reserved;         /* bytes of address space */
    uint32_t cap;            /* records committed */
};

/* Records beside the pool from now on, and switches stamp data packets
 * if `stamps`; BN_ENOMEM if the address space cannot be had. */
int bn_telemetry_init(struct bn_fabric *f, bool stamps, struct bn_error *err);
void bn_telemetry_free(struct bn_fabric *f);
/* Packet slot pkt's record, committed if the pool grew past it (NULL: out
 * of memory, and the fabric's oom flag is set). */
struct bn_int_rec *bn_telemetry_at(struct bn_fabric *f, uint32_t pkt);
/* Port p (a switch's) starts sending data packet pkt: push its record. */
void bn_telemetry_stamp(struct bn_fabric *f, uint32_t p, uint32_t pkt);

#endif
