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
 *
 * Thresholds are static (XOFF/XON per port) or dynamic: with a shared buffer,
 * a port pauses at alpha x (free shared bytes) and resumes one frame below
 * it, so a lone congested port may take much of the buffer while many must
 * share it (Choudhury & Hahne 1998, as switch MMUs and HPCC's simulator do).
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

/* The XOFF threshold of ingress port `in` now, and whether the dynamic
 * (shared-buffer) rule applies to it; ports that never pause (NICs,
 * NVSwitches, a switch's SHARP unit: xoff set out of reach) keep that. */
static bool dynamic_xoff(const struct bn_fabric *f, uint32_t in, uint64_t *xoff)
{
    const struct bn_pfc_shared *dt = &f->pfc_dt;
    if (!dt->shared || (f->ports[in].flags & BN_PORT_AT_HOST) ||
        f->fcs[in].xoff >= UINT64_MAX / 2)
        return false;
    uint32_t node = f->ports[in].node;
    uint64_t free = dt->shared[node] > dt->used[node] ? dt->shared[node] - dt->used[node] : 0;
    *xoff = free >> dt->shift;
    return true;
}

static void account(struct bn_fabric *f, uint32_t in, int64_t bytes)
{
    f->fcs[in].ingress_bytes += (uint64_t)bytes;
    if (f->pfc_dt.shared)
        f->pfc_dt.used[f->ports[in].node] += (uint64_t)bytes;
}

static void pfc_on_arrive(struct bn_fabric *f, uint32_t in, uint32_t bytes)
{
    struct bn_port_fc *fc = &f->fcs[in];
    account(f, in, bytes);
    if (fc->xoff_sent && (fc->hr_used += bytes) > fc->headroom)
        f->lossless_overflows++; /* more arrived after XOFF than the headroom holds */
    uint64_t xoff = fc->xoff;
    dynamic_xoff(f, in, &xoff);
    if (!fc->xoff_sent && fc->ingress_bytes >= xoff) {
        fc->xoff_sent = 1;
        fc->hr_used = 0;
        queue_frame(f, in, BN_FC_XOFF);
    }
}

static void pfc_on_depart(struct bn_fabric *f, uint32_t in, uint32_t bytes)
{
    struct bn_port_fc *fc = &f->fcs[in];
    account(f, in, -(int64_t)bytes);
    if (!fc->xoff_sent)
        return;
    uint64_t xoff, xon = fc->xon;
    if (dynamic_xoff(f, in, &xoff))
        xon = xoff > f->pfc_dt.resume_gap ? xoff - f->pfc_dt.resume_gap : 0;
    if (fc->ingress_bytes <= xon) {
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
