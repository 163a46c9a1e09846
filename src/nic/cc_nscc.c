/*
 * A sender-based, window-based congestion control in the spirit of Ultra
 * Ethernet's NSCC, following the quadrant rule of SMaRTT (Bonato et al.,
 * "SMaRTT-REPS", 2024), the design NSCC grew from. One congestion window
 * covers a flow however its packets are sprayed; every ACK says whether
 * the packet it acknowledges was ECN-marked, and once per round trip a
 * packet is timed. With the latest delay d and the target delay D:
 *   no mark, d < D:  increase fast: cwnd += MTU * (D - d) / D      (room left)
 *   no mark, d >= D: increase fairly: cwnd += MTU * MTU / cwnd       (additive)
 *   mark, d < D:     hold: the mark came from a queue on one path only
 *   mark, d >= D:    decrease, at most once per round trip:
 *                    cwnd -= cwnd * beta * (d - D) / d
 * The window starts at, and never exceeds, 1.5 bandwidth-delay products:
 * the line rate times the path's base round trip, as UEC's NSCC and its
 * htsim model size it (csg-htsim uec.cpp: maxwnd = 1.5 x BDP), the base
 * round trip being the fabric's longest idle one until the flow measures
 * a shorter one of its own; or nscc.max_cwnd_bytes when set. It never
 * drops below one MTU.
 * Simplifications (documented in docs/load_balancing.md): one delay sample
 * per round trip instead of per packet; no quick adapt or fast loss signals.
 */
#include "nic/nic.h"

/* nscc.* */
struct nscc_keys {
    uint64_t max_cwnd_bytes;     /* starting and largest congestion window */
    double target_delay_us;      /* round-trip delay above which the window stops growing fast */
    double beta;                 /* multiplicative-decrease gain on marked, late ACKs */
};
BN_CC_KEYS_CHECK(struct nscc_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "nscc.max_cwnd_bytes", BN_ROW_INT, .info.unit = "bytes", .info.def = "0",
      .info.doc = "NSCC: starting and largest congestion window; 0 = 1.5 bandwidth-delay "
                  "products (line rate x the fabric's longest idle round trip, then the "
                  "flow's least measured one).",
      BN_ROW_CC(struct nscc_keys, max_cwnd_bytes), BN_ROW_RANGE(0, 1e12) },
    { .info.path = "nscc.target_delay_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "10",
      .info.doc = "NSCC: round-trip delay above which the window stops growing fast.",
      BN_ROW_CC(struct nscc_keys, target_delay_us), BN_ROW_RANGE(0.001, 1e6) },
    { .info.path = "nscc.beta", BN_ROW_FLOAT, .info.unit = "", .info.def = "0.5",
      .info.doc = "NSCC: multiplicative-decrease gain on marked, late ACKs.",
      BN_ROW_CC(struct nscc_keys, beta), BN_ROW_RANGE(0, 1) },
};

struct nscc_params {
    uint64_t max_cwnd_bytes;
    bn_time_t target_delay;
    double beta;
};

struct nscc {
    double cwnd;           /* bytes */
    double maxwnd;         /* bytes: its ceiling */
    bn_time_t delay;       /* latest round-trip sample (0: none yet) */
    bn_time_t last_cut;
    bn_time_t base_rtt;    /* the least round trip seen (the fabric's longest at first) */
};
BN_CC_PRIV_CHECK(struct nscc);

static struct nscc *st(struct bn_qp *qp) { return (struct nscc *)(void *)qp->cc_priv; }

static const struct nscc_params *params(const struct bn_nics *n) { return n->cc_params; }

static int nscc_setup(const void *keys_, const char *source, double line_gbps, void *out,
                      bn_time_t *cnp_interval, struct bn_error *err)
{
    const struct nscc_keys *k = keys_;
    (void)source;
    (void)line_gbps;
    (void)err;
    *(struct nscc_params *)out = (struct nscc_params){
        k->max_cwnd_bytes, bn_time_from_us(k->target_delay_us), k->beta};
    *cnp_interval = 0;
    return BN_OK;
}

#define BDP_CEILING 1.5 /* windows of bandwidth-delay products */

/* 1.5 BDP at the queue pair's line rate over round trip `rtt`, or the key. */
static double ceiling(const struct bn_nics *n, const struct bn_qp *qp, bn_time_t rtt)
{
    uint64_t key = params(n)->max_cwnd_bytes;
    double bdp = (double)n->nic[qp->snic].line_bps / 8 * (double)rtt / BN_PS_PER_S;
    double w = key ? (double)key : BDP_CEILING * bdp;
    return w > n->mtu ? w : n->mtu;
}

static void nscc_init(struct bn_nics *n, struct bn_qp *qp)
{
    double w = ceiling(n, qp, n->fabric_rtt);
    *st(qp) = (struct nscc){.cwnd = w, .maxwnd = w, .base_rtt = n->fabric_rtt};
    qp->rate_bps = n->nic[qp->snic].line_bps;
    qp->cc_timer = BN_TIME_NEVER;
}

static bool nscc_can_send(const struct bn_nics *n, const struct bn_qp *qp)
{
    return bn_cc_window_allows(n, qp, ((const struct nscc *)(const void *)qp->cc_priv)->cwnd);
}

static void nscc_on_ack(struct bn_nics *n, struct bn_qp *qp, bool ece, bn_time_t rtt)
{
    struct nscc *s = st(qp);
    const struct nscc_params *p = params(n);
    if (rtt > 0)
        s->delay = rtt;
    if (rtt > 0 && (rtt < s->base_rtt || !s->base_rtt)) { /* shorter than the fabric's longest */
        s->base_rtt = rtt;
        s->maxwnd = ceiling(n, qp, rtt);
    }
    double d = (double)s->delay, target = (double)p->target_delay, mtu = n->mtu;
    bool late = s->delay > 0 && d >= target;
    if (!ece && !late)
        s->cwnd += s->delay > 0 ? mtu * (target - d) / target : mtu;
    else if (!ece)
        s->cwnd += mtu * mtu / s->cwnd;
    else if (late && n->fab->now - s->last_cut >= s->delay) {
        s->cwnd -= s->cwnd * p->beta * (d - target) / d;
        s->last_cut = n->fab->now;
    }
    s->cwnd = s->cwnd > s->maxwnd ? s->maxwnd : s->cwnd < mtu ? mtu : s->cwnd;
}

static double nscc_window(const struct bn_nics *n, const struct bn_qp *qp)
{
    (void)n;
    return ((const struct nscc *)(const void *)qp->cc_priv)->cwnd;
}

const struct bn_cc_ops bn_cc_nscc = {
    .name = "nscc",
    .summary = "Ultra Ethernet-style window: ECN and delay",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .notifies = false,
    .params_size = sizeof(struct nscc_params),
    .setup = nscc_setup,
    .init = nscc_init,
    .on_notify = bn_cc_ignore,
    .on_timer = bn_cc_ignore,
    .can_send = nscc_can_send,
    .on_ack = nscc_on_ack,
    .window = nscc_window,
};
