/*
 * Swift (Kumar et al., "Swift: Delay is Simple and Effective for
 * Congestion Control in the Datacenter", SIGCOMM 2020), the fabric
 * window: a delay target of a base, a part per hop and a flow-scaled part
 * that lets small windows queue more,
 *   target = base + hops h + max(0, min(fs_alpha / sqrt(cwnd) + fs_beta, fs_range)),
 *   fs_alpha = fs_range / (1/sqrt(fs_min_cwnd) - 1/sqrt(fs_max_cwnd)),
 *   fs_beta = -fs_alpha / sqrt(fs_max_cwnd)          (cwnd in packets);
 * below it each ACK adds ai / cwnd packets (ai per round trip), above it
 * the window falls, at most once per round trip, by
 *   max(1 - beta (delay - target) / delay, 1 - max_mdf).
 * A window under one packet is paced: one packet per rtt / cwnd. Defaults
 * as csg-htsim's model of it sets them (ai 1, beta 0.8, max_mdf 0.5,
 * fs_min_cwnd 0.1, fs_max_cwnd 100 packets, fs_range 5 x base, h = base /
 * 6.55), the base being the fabric's longest idle round trip unless
 * swift.base_target_us sets it; hops are the fabric's longest path's
 * switches. Not modelled: per-flow hop counts.
 *
 * The endpoint window: the endpoint delay is how long the data an ACK
 * answers waited for the receiver's DMA (the endpoint model's PCIe rate;
 * 0 without it), and the fabric delay is the round trip less it. A second
 * window follows the endpoint delay against swift.endpoint_target_us (0:
 * the fabric base target; the paper gives no number) by the same rules,
 * and the flow sends within the smaller of the two, as Swift's
 * cwnd = min(fcwnd, ecwnd).
 */
#include <math.h>

#include "nic/nic.h"

/* swift.*: the fabric window's target and gains. */
struct swift_keys {
    double base_target_us;       /* 0: the fabric's longest idle round trip */
    double endpoint_target_us;   /* the endpoint window's target; 0: the base */
    double hop_divisor;          /* per-hop part of the target: base / this */
    double fs_range_x;           /* flow-scaled part's range: this x base */
    double fs_min_cwnd, fs_max_cwnd; /* packets: where the flow-scaled part is range, 0 */
    double ai;                   /* packets added per round trip */
    double beta, max_mdf;        /* decrease gain, largest cut */
    double min_cwnd, max_cwnd;   /* packets: the window's bounds (its start: max) */
};
BN_CC_KEYS_CHECK(struct swift_keys);

#define KEY(m) BN_ROW_CC(struct swift_keys, m)
static const struct bn_key_row keys[] = {
    { .info.path = "swift.base_target_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "0",
      .info.doc = "swift: the delay target's base; 0 = the fabric's longest idle round trip.",
      KEY(base_target_us), BN_ROW_RANGE(0, 1e6) },
    { .info.path = "swift.endpoint_target_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "0",
      .info.doc = "swift: the endpoint window's target for how long data waits for the "
                  "receiver's DMA; 0 = the base target.",
      KEY(endpoint_target_us), BN_ROW_RANGE(0, 1e6) },
    { .info.path = "swift.hop_divisor", BN_ROW_FLOAT, .info.unit = "", .info.def = "6.55",
      .info.doc = "swift: the target adds base / this per switch on the path.",
      KEY(hop_divisor), BN_ROW_RANGE(0.001, 1e6) },
    { .info.path = "swift.fs_range_x", BN_ROW_FLOAT, .info.unit = "", .info.def = "5",
      .info.doc = "swift: the flow-scaled part of the target spans 0 .. this x base.",
      KEY(fs_range_x), BN_ROW_RANGE(0, 1e3) },
    { .info.path = "swift.fs_min_cwnd", BN_ROW_FLOAT, .info.unit = "packets", .info.def = "0.1",
      .info.doc = "swift: at this window the flow-scaled part is its whole range.",
      KEY(fs_min_cwnd), BN_ROW_RANGE(0.001, 1e6) },
    { .info.path = "swift.fs_max_cwnd", BN_ROW_FLOAT, .info.unit = "packets", .info.def = "100",
      .info.doc = "swift: at this window the flow-scaled part is 0.",
      KEY(fs_max_cwnd), BN_ROW_RANGE(0.001, 1e6) },
    { .info.path = "swift.ai", BN_ROW_FLOAT, .info.unit = "packets", .info.def = "1",
      .info.doc = "swift: additive increase per round trip below the target.",
      KEY(ai), BN_ROW_RANGE(0, 1e6) },
    { .info.path = "swift.beta", BN_ROW_FLOAT, .info.unit = "", .info.def = "0.8",
      .info.doc = "swift: multiplicative-decrease gain above the target.",
      KEY(beta), BN_ROW_RANGE(0, 1) },
    { .info.path = "swift.max_mdf", BN_ROW_FLOAT, .info.unit = "", .info.def = "0.5",
      .info.doc = "swift: the largest cut, a fraction of the window, once per round trip.",
      KEY(max_mdf), BN_ROW_RANGE(0, 1) },
    { .info.path = "swift.min_cwnd", BN_ROW_FLOAT, .info.unit = "packets", .info.def = "0.001",
      .info.doc = "swift: the smallest window; under one packet the flow is paced.",
      KEY(min_cwnd), BN_ROW_RANGE(1e-6, 1e6) },
    { .info.path = "swift.max_cwnd", BN_ROW_FLOAT, .info.unit = "packets", .info.def = "100",
      .info.doc = "swift: the largest window, and the one a flow starts with.",
      KEY(max_cwnd), BN_ROW_RANGE(1, 1e9) },
};
#undef KEY

struct swift_params {
    double base_ps, h_ps, fs_range_ps, fs_alpha, fs_beta;
    double endpoint_ps;     /* the endpoint target (0: the base) */
    double ai, beta, max_mdf, min_cwnd_pkts, max_cwnd_pkts;
    bool derive;            /* base from the fabric (set at a queue pair's start) */
    double fs_min, fs_max;  /* fs_min_cwnd, fs_max_cwnd (packets) */
    double range_x, h_div;  /* fs_range = range_x base, h = base / h_div when derived */
};

struct swift {
    double cwnd;            /* the fabric window, packets (may be below 1) */
    double ecwnd;           /* the endpoint window, packets */
    bn_time_t rtt;          /* latest sample */
    bn_time_t last_decrease;
    double base_ps, h_ps, fs_range_ps, fs_alpha, fs_beta; /* this flow's target terms */
};
BN_CC_PRIV_CHECK(struct swift);

static struct swift *st(struct bn_qp *qp) { return (struct swift *)(void *)qp->cc_priv; }

static int swift_setup(const void *keys_, const char *source, double line_gbps, void *out,
                       bn_time_t *cnp_interval, struct bn_error *err)
{
    (void)line_gbps;
    const struct swift_keys *w = keys_;
    if (w->fs_min_cwnd >= w->fs_max_cwnd)
        return bn_fail(err, BN_EINPUT, "%s: key 'swift.fs_min_cwnd': %g must be below "
                       "swift.fs_max_cwnd (%g)", source, w->fs_min_cwnd, w->fs_max_cwnd);
    *(struct swift_params *)out = (struct swift_params){
        .base_ps = w->base_target_us * 1e6, .endpoint_ps = w->endpoint_target_us * 1e6,
        .ai = w->ai, .beta = w->beta,
        .max_mdf = w->max_mdf, .min_cwnd_pkts = w->min_cwnd, .max_cwnd_pkts = w->max_cwnd,
        .derive = w->base_target_us == 0, .fs_min = w->fs_min_cwnd, .fs_max = w->fs_max_cwnd,
        .range_x = w->fs_range_x, .h_div = w->hop_divisor};
    *cnp_interval = 0;
    return BN_OK;
}

static void swift_init(struct bn_nics *n, struct bn_qp *qp)
{
    const struct swift_params *p = n->cc_params;
    struct swift *s = st(qp);
    double base = p->derive ? (double)n->fabric_rtt : p->base_ps;
    double range = p->range_x * base;
    double alpha = range / (1 / sqrt(p->fs_min) - 1 / sqrt(p->fs_max));
    *s = (struct swift){.cwnd = p->max_cwnd_pkts, .ecwnd = p->max_cwnd_pkts,
                        .rtt = n->fabric_rtt, .base_ps = base,
                        .h_ps = base / p->h_div, .fs_range_ps = range, .fs_alpha = alpha,
                        .fs_beta = -alpha / sqrt(p->fs_max)};
    qp->rate_bps = n->nic[qp->snic].line_bps;
    qp->cc_timer = BN_TIME_NEVER;
}

/* The fabric target for a window of cwnd packets (ps). */
static double target(const struct swift *s, uint32_t hops)
{
    double fs = s->fs_alpha / sqrt(s->cwnd) + s->fs_beta;
    fs = fs > s->fs_range_ps ? s->fs_range_ps : fs < 0 ? 0 : fs;
    return s->base_ps + hops * s->h_ps + fs;
}

/* The window the flow sends within: the smaller of the two. */
static double window_pkts(const struct swift *s)
{
    return s->cwnd < s->ecwnd ? s->cwnd : s->ecwnd;
}

static bool swift_can_send(const struct bn_nics *n, const struct bn_qp *qp)
{
    double w = window_pkts((const struct swift *)(const void *)qp->cc_priv);
    return bn_cc_window_allows(n, qp, (w < 1 ? 1 : w) * n->mtu); /* paced under 1 */
}

/* One window's rule: below its target each ACK adds ai / w packets (ai
 * under one packet); above it, at most once per round trip (`cut`), a
 * decrease by how far above, bounded by max_mdf; then its bounds. */
static bool adjust(double *w, double delay, double target, bool cut, double acked,
                   const struct swift_params *p)
{
    bool decreased = false;
    if (delay < target)
        *w += *w >= 1 ? p->ai * acked / *w : p->ai * acked;
    else if (cut) {
        double f = 1 - p->beta * (delay - target) / delay;
        *w *= f > 1 - p->max_mdf ? f : 1 - p->max_mdf;
        decreased = true;
    }
    *w = *w < p->min_cwnd_pkts ? p->min_cwnd_pkts : *w > p->max_cwnd_pkts ? p->max_cwnd_pkts : *w;
    return decreased;
}

static void swift_on_ack(struct bn_nics *n, struct bn_qp *qp, bool ece, bn_time_t rtt)
{
    (void)ece;
    struct swift *s = st(qp);
    const struct swift_params *p = n->cc_params;
    bn_time_t now = n->fab->now;
    bool can_decrease = now - s->last_decrease >= s->rtt; /* by the round trip known so far */
    if (rtt > 0)
        s->rtt = rtt;
    double host = n->cc_int ? n->cc_int->host_ns * 1e3 : 0; /* the endpoint delay (ps) */
    double fabric = (double)s->rtt > host ? (double)s->rtt - host : 0;
    double acked = n->ack_every;
    bool cut = adjust(&s->cwnd, fabric, target(s, n->fabric_switches), can_decrease, acked, p);
    cut |= adjust(&s->ecwnd, host, p->endpoint_ps > 0 ? p->endpoint_ps : s->base_ps,
                  can_decrease, acked, p);
    if (cut)
        s->last_decrease = now;
    /* under one packet: paced, one packet per rtt / cwnd */
    double w = window_pkts(s);
    uint64_t line = n->nic[qp->snic].line_bps;
    double paced = w * n->mtu * 8 / ((double)s->rtt / BN_PS_PER_S);
    qp->rate_bps = w < 1 && paced < (double)line ? (uint64_t)paced : line;
}

static double swift_window(const struct bn_nics *n, const struct bn_qp *qp)
{
    return window_pkts((const struct swift *)(const void *)qp->cc_priv) * n->mtu;
}

const struct bn_cc_ops bn_cc_swift = {
    .name = "swift",
    .summary = "window against a delay target",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .notifies = false,
    .host_delay = true,
    .params_size = sizeof(struct swift_params),
    .setup = swift_setup,
    .init = swift_init,
    .on_notify = bn_cc_ignore,
    .on_timer = bn_cc_ignore,
    .can_send = swift_can_send,
    .on_ack = swift_on_ack,
    .window = swift_window,
};
