/*
 * The endpoint model: what a message costs in the host and the NIC before
 * its first byte leaves and after its last byte arrives (docs/endpoints.md).
 *
 *   post      doorbell over PCIe, a slot of the NIC's work-request engine
 *             (its message-rate ceiling), the work request and its data
 *             fetched over PCIe (not when inline), send processing
 *   send      the NIC's DMA reads payload at the PCIe link's rate; a queue
 *             pair whose context is not cached stalls the send pipeline
 *             for a PCIe round trip (the QP-scalability cliff)
 *   complete  receive processing, then the data (and completion entry)
 *             written over PCIe, to host or GPU memory
 *
 * All zero (the default): an ideal NIC, and messages go at once.
 */
#ifndef BN_NIC_ENDPOINT_H
#define BN_NIC_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "bnet/error.h"
#include "bnet/scenario.h"
#include "core/time.h"

/* Per NIC. */
struct bn_nic_ep {
    bn_time_t wqe_next;     /* its work-request engine's next free slot */
    bn_time_t dma_ready;    /* its send DMA is free again (PCIe rate, context misses) */
    bn_time_t rx_ready;     /* its receive DMA is free again (PCIe rate) */
    uint32_t lru_head, lru_tail, lru_n; /* cached queue-pair contexts, most recent first */
    uint32_t pad;
    uint64_t msgs;          /* messages it sent (work requests and responses) */
    uint64_t qp_misses;     /* sends that found their context uncached */
};

/* The scenario's endpoint keys in picoseconds. */
struct bn_ep_params {
    bool on;                /* some send-side cost is modelled (DMA rate, cache) */
    bn_time_t tx, rx;       /* NIC send and receive processing */
    bn_time_t pcie;         /* one way, NIC <-> host memory */
    bn_time_t data;         /* one way, NIC <-> the memory message data lives in */
    bn_time_t wqe_gap;      /* 1 / message rate (0: no ceiling) */
    uint64_t dma_bps;       /* PCIe goodput for payload (0: no limit) */
    uint32_t qp_cache;      /* contexts cached (0: all) */
    uint32_t max_rd;        /* READs/atomics outstanding per queue pair */
    uint32_t inline_bytes;
};

/* PCIe goodput of `lanes` lanes of generation `gen` for DMA of 256-byte
 * payloads, in bit/s (0 for gen 0). */
uint64_t bn_pcie_goodput_bps(uint32_t gen, uint32_t lanes);
/* The endpoints' part of a message's latency when nothing queues: the
 * doorbell, the work request and data fetched, send and receive
 * processing, the data written (a message not pushed with its doorbell). */
bn_time_t bn_ep_fixed_ps(const struct bn_ep_params *p);
/* The keys (nic.tx_ns, ..., host.*) into p; BN_EINPUT names a bad one. */
int bn_ep_setup(struct bn_ep_params *p, const struct bn_scenario *sc, struct bn_error *err);

#endif
