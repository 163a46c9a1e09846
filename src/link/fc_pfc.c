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
 * Headroom and in-flight sizing: link/pfc.h.
 */
#include <stdlib.h>

#include "core/bigmem.h"
#include "core/fail_key.h"
#include "link/fabric.h"
#include "link/pfc.h"

struct pfc_port {
    uint64_t ingress_bytes; /* bytes that entered the switch by this port, still inside */
    uint64_t xoff, xon;     /* static thresholds on ingress_bytes */
    uint64_t headroom;      /* bytes reserved above xoff for frames in flight */
    uint64_t hr_used;       /* bytes taken in since this port sent XOFF */
    bn_time_t prop_ps;      /* one-way propagation to the peer (control frames) */
    bn_time_t paused_since;
    bn_time_t paused_ps;    /* total time this port was held by the peer's pause */
    uint64_t pause_sent, pause_received, resume_sent;
    uint8_t paused;         /* the peer asked this port to stop */
    uint8_t xoff_sent;      /* this port asked its peer to stop */
    uint8_t pending;        /* frame waiting to be sent: 0, BN_FC_XOFF or BN_FC_XON */
};

/* One block: the ports' state follows the header, so a port's is found
 * without loading a pointer first. */
struct pfc_state {
    /* dynamic thresholds (shared == NULL: static), per node */
    uint64_t *shared;       /* shared pool (buffer minus headroom reserves) */
    uint64_t *used;         /* bytes in the switch */
    uint32_t shift;         /* alpha = 2^-shift */
    uint32_t resume_gap;    /* resume once this far below the threshold (one frame) */
    struct pfc_port port[];
};

static struct pfc_state *st(const struct bn_fabric *f) { return f->fc_state; }
static struct pfc_port *pp(const struct bn_fabric *f, uint32_t p) { return &st(f)->port[p]; }

#define NEVER (UINT64_MAX / 2) /* thresholds of ports that never pause */

/* pfc.threshold: XOFF at buffer - headroom per port, or a shared buffer
 * per switch (pause at free shared bytes / 2^pfc.dt_shift). */
enum pfc_threshold { PFC_STATIC = 0, PFC_DYNAMIC };

static const char *threshold_choice(size_t i)
{
    static const char *const v[] = {"static", "dynamic"}; /* enum pfc_threshold's order */
    return i < sizeof v / sizeof v[0] ? v[i] : NULL;
}

/* pfc.* */
struct pfc_keys {
    uint64_t headroom_bytes; /* per ingress port above XOFF; 0 = mlx5 formula */
    uint8_t threshold;       /* enum pfc_threshold */
    uint32_t dt_shift;       /* dynamic: pause at free shared buffer / 2^shift */
};
BN_FC_KEYS_CHECK(struct pfc_keys);

#define KEY(m) BN_ROW_FC(struct pfc_keys, m)
static const struct bn_key_row keys[] = {
    { .info.path = "pfc.headroom_bytes", BN_ROW_INT, .info.unit = "bytes",
      .info.def = "= mlx5 formula",
      .info.doc = "PFC headroom per ingress port above XOFF; unset = mlx5's "
                  "(301 + 2.16 x cable m) x Gb/s + 2.72 x MTU. Must cover the bytes in flight.",
      KEY(headroom_bytes), .lo = 1, .hi = 1099511627776.0,
      .flags = BN_KEY_LO | BN_KEY_HI | BN_KEY_DERIVED },
    { .info.path = "pfc.threshold", BN_ROW_ENUM, .info.unit = "", .info.def = "static",
      .info.choice = threshold_choice,
      .info.doc = "XOFF rule: static (buffer - headroom per port) or dynamic (a shared buffer "
                  "per switch; pause at free shared bytes / 2^pfc.dt_shift).",
      KEY(threshold) },
    { .info.path = "pfc.dt_shift", BN_ROW_INT, .info.unit = "", .info.def = "3",
      .info.doc = "Dynamic threshold: alpha = 1/2^shift of the free shared buffer (3: 1/8).",
      KEY(dt_shift), BN_ROW_RANGE(0, 16) },
};
#undef KEY

extern const struct bn_fc_ops bn_fc_pfc; /* below: its keys' block is found by it */
static const struct pfc_keys *keys_of(const struct bn_fc_setup *in)
{
    return bn_fc_keys(in->sc, &bn_fc_pfc);
}

/* Headroom (pfc.headroom_bytes, or mlx5's formula) must hold what is in
 * flight when a pause takes effect: a frame counts against this port only
 * after propagation, FEC and the switch's forwarding latency (the peer's
 * port latency); XOFF sits that far below the port's buffer, XON a frame
 * lower. */
static int setup_port(const struct bn_fc_setup *in, const struct bn_fc_link *l,
                      uint32_t peer_lat_ps, struct pfc_port *fc, struct bn_error *err)
{
    const struct bn_scenario *sc = in->sc;
    const struct pfc_keys *k = keys_of(in);
    uint64_t head = k->headroom_bytes
                        ? k->headroom_bytes
                        : bn_pfc_headroom_bytes(l->rate_gbps, l->cable_m, sc->nic.mtu_bytes);
    uint64_t inflight = bn_pfc_inflight_bytes(l->rate_gbps, peer_lat_ps, in->max_wire, 0);
    if (head < inflight)
        return bn_fail_key(err, BN_EINPUT, "pfc.headroom_bytes",
                           "%llu bytes cannot hold the %llu bytes in "
                           "flight on a %g Gb/s, %g m link when a pause takes effect",
                           (unsigned long long)head, (unsigned long long)inflight,
                           l->rate_gbps, l->cable_m);
    if (sc->sw.buffer_bytes < head + 2ull * in->max_wire)
        return bn_fail_key(err, BN_EINPUT, "switch.buffer_bytes",
                           "%llu bytes leave no room for XOFF/XON "
                           "above %llu bytes of PFC headroom",
                           (unsigned long long)sc->sw.buffer_bytes,
                           (unsigned long long)head);
    fc->headroom = head;
    fc->xoff = sc->sw.buffer_bytes - head;
    fc->xon = fc->xoff - in->max_wire;
    return BN_OK;
}

/* Dynamic thresholds: each switch pools its ports' buffers, less the
 * headroom every port keeps for itself. */
static int setup_shared(struct bn_fabric *f, const struct bn_fc_setup *in, struct bn_error *err)
{
    struct pfc_state *s = st(f);
    uint32_t nnodes = 0;
    for (uint32_t p = 0; p < f->nports; p++)
        nnodes = f->ports[p].node + 1 > nnodes ? f->ports[p].node + 1 : nnodes;
    s->shared = calloc(nnodes + 1, sizeof *s->shared);
    s->used = calloc(nnodes + 1, sizeof *s->used);
    if (!s->shared || !s->used)
        return bn_fail(err, BN_ENOMEM, "out of memory for shared buffers");
    s->shift = keys_of(in)->dt_shift;
    s->resume_gap = in->max_wire;
    for (uint32_t p = 0; p < f->nports; p++) /* > 0: each buffer exceeds its headroom */
        if (in->link[p].switch_port)
            s->shared[f->ports[p].node] += in->sc->sw.buffer_bytes - s->port[p].headroom;
    return BN_OK;
}

static int pfc_setup(struct bn_fabric *f, const struct bn_fc_setup *in, struct bn_error *err)
{
    struct pfc_state *s = bn_big_calloc(1, sizeof *s + (f->nports + 1) * sizeof s->port[0]);
    if (!s)
        return bn_fail(err, BN_ENOMEM, "out of memory for flow-control state");
    f->fc_state = s;
    for (uint32_t p = 0; p < f->nports; p++) {
        struct pfc_port *fc = &s->port[p];
        fc->prop_ps = in->link[p].prop_ps;
        if (in->link[p].never_pauses) {
            fc->xoff = fc->xon = NEVER;
            continue;
        }
        int rc = setup_port(in, &in->link[p], f->ports[f->ports[p].peer].lat_ps, fc, err);
        if (rc != BN_OK)
            return rc;
    }
    return keys_of(in)->threshold == PFC_DYNAMIC ? setup_shared(f, in, err) : BN_OK;
}

static void pfc_free(struct bn_fabric *f)
{
    struct pfc_state *s = st(f);
    if (s) {
        free(s->shared);
        free(s->used);
        bn_big_free(s);
    }
    f->fc_state = NULL;
}

static bool pfc_may_send(const struct bn_fabric *f, uint32_t p, uint32_t bytes)
{
    (void)bytes;
    return !pp(f, p)->paused;
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
    struct pfc_port *fc = pp(f, p);
    fc->pending = fc->pending && fc->pending != sig ? 0 : sig;
    if (fc->pending && !bn_port_send_control(f, p))
        bn_port_want_wake(f, p);
}

/* The XOFF threshold of ingress port `in` now, and whether the dynamic
 * (shared-buffer) rule applies to it; ports that never pause keep theirs. */
static bool dynamic_xoff(const struct bn_fabric *f, uint32_t in, uint64_t *xoff)
{
    const struct pfc_state *s = st(f);
    if (!s->shared || (f->ports[in].flags & BN_PORT_AT_HOST) || s->port[in].xoff >= NEVER)
        return false;
    uint32_t node = f->ports[in].node;
    uint64_t free = s->shared[node] > s->used[node] ? s->shared[node] - s->used[node] : 0;
    *xoff = free >> s->shift;
    return true;
}

static void account(struct bn_fabric *f, uint32_t in, int64_t bytes)
{
    struct pfc_state *s = st(f);
    s->port[in].ingress_bytes += (uint64_t)bytes;
    if (s->shared)
        s->used[f->ports[in].node] += (uint64_t)bytes;
}

static void pfc_on_arrive(struct bn_fabric *f, uint32_t in, uint32_t bytes)
{
    struct pfc_port *fc = pp(f, in);
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
    struct pfc_port *fc = pp(f, in);
    account(f, in, -(int64_t)bytes);
    if (!fc->xoff_sent)
        return;
    uint64_t xoff, xon = fc->xon;
    if (dynamic_xoff(f, in, &xoff))
        xon = xoff > st(f)->resume_gap ? xoff - st(f)->resume_gap : 0;
    if (fc->ingress_bytes <= xon) {
        fc->xoff_sent = 0;
        queue_frame(f, in, BN_FC_XON);
    }
}

static void pfc_on_signal(struct bn_fabric *f, uint32_t p, uint32_t signal, uint32_t amount)
{
    (void)amount;
    struct pfc_port *fc = pp(f, p);
    if (signal == BN_FC_XOFF && !fc->paused) {
        fc->paused = 1;
        fc->paused_since = f->now;
        fc->pause_received++;
    } else if (signal == BN_FC_XON && fc->paused) {
        fc->paused = 0;
        fc->paused_ps += f->now - fc->paused_since;
    }
}

/* A PFC frame: minimum Ethernet frame, served before any queued data and
 * sent even while the port itself is paused (IEEE 802.1Qbb). */
static bool pfc_send_control(struct bn_fabric *f, uint32_t p)
{
    struct pfc_port *fc = pp(f, p);
    struct bn_port *port = &f->ports[p];
    if (!fc->pending || !bn_port_idle(f, port))
        return false;
    bn_time_t ser = bn_serialization_ps(64u + f->wire_overhead, port->rate_bps);
    port->busy_until = f->now + ser;
    port->busy_ps += ser;
    bn_fabric_signal(f, f->now + ser + fc->prop_ps, port->peer, fc->pending, 0);
    if (fc->pending == BN_FC_XOFF)
        fc->pause_sent++;
    else
        fc->resume_sent++;
    fc->pending = 0;
    return true;
}

/* A link going down or up: a pause from a dead peer is lifted (no resume
 * would come), and what this port asked of its peer is forgotten; the next
 * frame in past XOFF pauses the peer again. */
static void pfc_link_reset(struct bn_fabric *f, uint32_t p)
{
    struct pfc_port *fc = pp(f, p);
    if (fc->paused)
        fc->paused_ps += f->now - fc->paused_since;
    fc->paused = 0;
    fc->xoff_sent = 0;
    fc->hr_used = 0;
    fc->pending = 0;
}

static void pfc_port_stats(const struct bn_fabric *f, uint32_t p, struct bn_fc_port_stats *out)
{
    const struct pfc_port *fc = pp(f, p);
    *out = (struct bn_fc_port_stats){
        .pause_sent = fc->pause_sent, .pause_received = fc->pause_received,
        .resume_sent = fc->resume_sent,
        .paused_ps = fc->paused_ps + (fc->paused ? f->now - fc->paused_since : 0),
    };
}

const struct bn_fc_ops bn_fc_pfc = {
    .name = "pfc",
    .summary = "Ethernet PFC, needs nic.encap roce",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .lossless = true,
    .link_layer = BN_LL_ETHERNET,
    .pauses = true,
    .setup = pfc_setup,
    .fc_free = pfc_free,
    .may_send = pfc_may_send,
    .on_transmit = pfc_on_transmit,
    .on_arrive = pfc_on_arrive,
    .on_depart = pfc_on_depart,
    .on_signal = pfc_on_signal,
    .send_control = pfc_send_control,
    .link_reset = pfc_link_reset,
    .port_stats = pfc_port_stats,
};
