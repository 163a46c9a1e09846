/*
 * Link-level flow control, one module per file behind this table:
 *   lossy   drop-tail output queues (fc_lossy.c)
 *   credit  InfiniBand credit-based flow control per virtual lane (fc_credit.c)
 *   pfc     Ethernet priority flow control with XOFF/XON thresholds (fc_pfc.c)
 * The port code calls only through the table. Lossless modes account every
 * frame to the ingress port it entered a switch by, until it leaves the
 * switch; that is what credits and pause thresholds are counted against.
 * bnet carries all traffic in one lossless class (one VL / one priority).
 */
#ifndef BN_LINK_FC_H
#define BN_LINK_FC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/time.h"

struct bn_fabric;

enum bn_fc_signal { BN_FC_CREDIT = 0, BN_FC_XOFF = 1, BN_FC_XON = 2 };

/* Per-port flow-control state (same index as the port), touched only by
 * lossless modes. */
struct bn_port_fc {
    int64_t credits;        /* credit: bytes the peer can still accept from this port */
    uint64_t ingress_bytes; /* bytes that entered the switch by this port, still inside */
    uint64_t xoff, xon;     /* pfc: thresholds on ingress_bytes (static mode) */
    uint64_t headroom;      /* pfc: bytes reserved above xoff for frames in flight */
    uint64_t hr_used;       /* pfc: bytes taken in since this port sent XOFF */
    bn_time_t prop_ps;      /* one-way propagation to the peer (control frames) */
    bn_time_t paused_since;
    bn_time_t paused_ps;    /* total time this port was held by the peer's pause */
    uint64_t pause_sent, pause_received, resume_sent;
    uint8_t paused;         /* the peer asked this port to stop */
    uint8_t xoff_sent;      /* this port asked its peer to stop */
    uint8_t pending;        /* pfc frame waiting to be sent: 0, BN_FC_XOFF or BN_FC_XON */
};

/* PFC with a shared buffer and dynamic thresholds (Choudhury & Hahne): an
 * ingress port pauses its peer once its bytes reach alpha x the switch's free
 * shared buffer, alpha = 2^-shift, instead of a fixed XOFF. */
struct bn_pfc_shared {
    uint64_t *shared;       /* per node: shared pool (buffer minus headroom reserves) */
    uint64_t *used;         /* per node: bytes in the switch */
    uint32_t shift;
    uint32_t resume_gap;    /* resume once this far below the threshold (one frame) */
};

struct bn_fc_ops {
    const char *name;
    bool lossless;
    /* May port p start a frame of `bytes` now? */
    bool (*may_send)(const struct bn_fabric *f, uint32_t p, uint32_t bytes);
    /* Port p starts sending a frame of `bytes`. */
    void (*on_transmit)(struct bn_fabric *f, uint32_t p, uint32_t bytes);
    /* A frame entered a switch by port `in`. */
    void (*on_arrive)(struct bn_fabric *f, uint32_t in, uint32_t bytes);
    /* A frame that entered by port `in` left its switch (or reached its NIC). */
    void (*on_depart)(struct bn_fabric *f, uint32_t in, uint32_t bytes);
    /* A flow-control signal (credit, XOFF, XON) reached port p. */
    void (*on_signal)(struct bn_fabric *f, uint32_t p, uint32_t signal, uint32_t arg);
};

/* NULL if unknown. */
const struct bn_fc_ops *bn_fc_find(const char *name);

#endif
