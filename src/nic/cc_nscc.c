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
 * The window starts at, and never exceeds, nscc.max_cwnd_bytes (about one
 * bandwidth-delay product and a half), and never drops below one MTU.
 * Simplifications (documented in docs/load_balancing.md): one delay sample
 * per round trip instead of per packet; no quick adapt or fast loss signals.
 */
#include "nic/nic.h"

struct nscc_params {
    uint64_t max_cwnd_bytes;
    bn_time_t target_delay;
    double beta;
};

struct nscc {
    double cwnd;           /* bytes */
    bn_time_t delay;       /* latest round-trip sample (0: none yet) */
    bn_time_t last_cut;
};
BN_CC_PRIV_CHECK(struct nscc);

static struct nscc *st(struct bn_qp *qp) { return (struct nscc *)(void *)qp->cc_priv; }

static const struct nscc_params *params(const struct bn_nics *n) { return n->cc_params; }

static int nscc_setup(const struct bn_scenario *sc, double line_gbps, void *out,
                      bn_time_t *cnp_interval, struct bn_error *err)
{
    (void)line_gbps;
    (void)err;
    *(struct nscc_params *)out = (struct nscc_params){
        sc->nscc.max_cwnd_bytes, bn_time_from_us(sc->nscc.target_delay_us), sc->nscc.beta};
    *cnp_interval = 0;
    return BN_OK;
}

static void nscc_init(struct bn_nics *n, struct bn_qp *qp)
{
    *st(qp) = (struct nscc){.cwnd = (double)params(n)->max_cwnd_bytes};
    qp->rate_bps = n->nic[qp->snic].line_bps;
    qp->cc_timer = BN_TIME_NEVER;
}

static bool nscc_can_send(const struct bn_nics *n, const struct bn_qp *qp)
{
    double inflight = (double)n->tp->in_flight(n, qp) * n->mtu;
    return inflight + n->mtu <= ((const struct nscc *)(const void *)qp->cc_priv)->cwnd;
}

static void nscc_on_ack(struct bn_nics *n, struct bn_qp *qp, bool ece, bn_time_t rtt)
{
    struct nscc *s = st(qp);
    const struct nscc_params *p = params(n);
    if (rtt > 0)
        s->delay = rtt;
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
    double max = (double)p->max_cwnd_bytes;
    s->cwnd = s->cwnd > max ? max : s->cwnd < mtu ? mtu : s->cwnd;
}

static void nscc_ignore(struct bn_nics *n, struct bn_qp *qp)
{
    (void)n;
    (void)qp;
}

static double nscc_window(const struct bn_nics *n, const struct bn_qp *qp)
{
    (void)n;
    return ((const struct nscc *)(const void *)qp->cc_priv)->cwnd;
}

const struct bn_cc_ops bn_cc_nscc = {
    .name = "nscc",
    .notifies = false,
    .params_size = sizeof(struct nscc_params),
    .setup = nscc_setup,
    .init = nscc_init,
    .on_notify = nscc_ignore,
    .on_timer = nscc_ignore,
    .can_send = nscc_can_send,
    .on_ack = nscc_on_ack,
    .window = nscc_window,
};
