/*
 * Ethernet priority flow control (IEEE 802.1Qbb) for the one lossless
 * priority: a switch counts the bytes that entered by each port and are
 * still inside; past the XOFF threshold it sends a PAUSE out of that port,
 * and once below XON a resume (pause with zero quanta). PFC frames go ahead
 * of queued data, occupy the link like any frame and act when they arrive.
 * Above XOFF sits the headroom, which must absorb what is already on the way
 * when the pause takes effect; a frame that would not fit even there is a
 * lossless violation, counted and turned into a run error by the engine.
 * A pause here lasts until the resume (no quanta expiry is modelled).
 */
#include "link/fabric.h"

static bool pfc_may_send(const struct bn_fabric *f, uint32_t p, uint32_t bytes)
{
    (void)bytes;
    return !f->fcs[p].paused;
}

static void pfc_on_transmit(struct bn_fabric *f, uint32_t p, uint32_t bytes)
{
    (void)f;
    (void)p;
    (void)bytes;
}

/* Queue a PFC frame on port p; a pause and a resume that have not gone out
 * yet cancel each other. */
static void queue_frame(struct bn_fabric *f, uint32_t p, uint8_t sig)
{
    struct bn_port_fc *fc = &f->fcs[p];
    fc->pending = fc->pending && fc->pending != sig ? 0 : sig;
    if (fc->pending && !bn_port_send_control(f, p))
        bn_port_want_wake(f, p);
}

static void pfc_on_arrive(struct bn_fabric *f, uint32_t in, uint32_t bytes)
{
    struct bn_port_fc *fc = &f->fcs[in];
    fc->ingress_bytes += bytes;
    if (fc->ingress_bytes > fc->xoff + fc->headroom)
        f->lossless_overflows++;
    if (!fc->xoff_sent && fc->ingress_bytes >= fc->xoff) {
        fc->xoff_sent = 1;
        queue_frame(f, in, BN_FC_XOFF);
    }
}

static void pfc_on_depart(struct bn_fabric *f, uint32_t in, uint32_t bytes)
{
    struct bn_port_fc *fc = &f->fcs[in];
    fc->ingress_bytes -= bytes;
    if (fc->xoff_sent && fc->ingress_bytes <= fc->xon) {
        fc->xoff_sent = 0;
        queue_frame(f, in, BN_FC_XON);
    }
}

static void pfc_on_signal(struct bn_fabric *f, uint32_t p, uint32_t signal, uint32_t amount)
{
    (void)amount;
    struct bn_port_fc *fc = &f->fcs[p];
    if (signal == BN_FC_XOFF && !fc->paused) {
        fc->paused = 1;
        fc->paused_since = f->now;
        fc->pause_received++;
    } else if (signal == BN_FC_XON && fc->paused) {
        fc->paused = 0;
        fc->paused_ps += f->now - fc->paused_since;
    }
}

const struct bn_fc_ops bn_fc_pfc = {
    .name = "pfc",
    .lossless = true,
    .may_send = pfc_may_send,
    .on_transmit = pfc_on_transmit,
    .on_arrive = pfc_on_arrive,
    .on_depart = pfc_on_depart,
    .on_signal = pfc_on_signal,
};
