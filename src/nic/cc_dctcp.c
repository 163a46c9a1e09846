/*
 * DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257) as a window over RDMA
 * queue pairs: switches mark CE past their ECN threshold (switch.ecn.*:
 * DCTCP wants kmin = kmax = K), receivers echo each mark on the ACK, and
 * once per round trip the sender folds the fraction F of marked ACKs into
 * alpha = (1 - g) alpha + g F. At the first marked ACK of a round trip the
 * window shrinks to cwnd (1 - alpha / 2); otherwise it grows as TCP's:
 * by the bytes acknowledged in slow start (until the first cut), by one
 * MTU per window after. It starts at dctcp.init_cwnd_pkts packets
 * (RFC 6928's 10) with alpha = 1, as Linux's tcp_dctcp.c starts it.
 * Simplification: each ACK counts for nic.ack_every packets (F is the
 * fraction of marked ACKs, not of marked bytes).
 */
#include "nic/nic.h"

/* dctcp.* */
struct dctcp_keys {
    double g;                    /* alpha's gain per round trip */
    uint32_t init_cwnd_pkts;     /* the window it starts with, in packets */
};
BN_CC_KEYS_CHECK(struct dctcp_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "dctcp.g", BN_ROW_FLOAT, .info.unit = "", .info.def = "0.0625",
      .info.doc = "dctcp: the gain of alpha's moving average per round trip (RFC 8257: 1/16).",
      BN_ROW_CC(struct dctcp_keys, g), BN_ROW_RANGE(1e-6, 1) },
    { .info.path = "dctcp.init_cwnd_pkts", BN_ROW_INT, .info.unit = "packets", .info.def = "10",
      .info.doc = "dctcp: the window a flow starts with, in MTU packets (RFC 6928's 10); slow "
                  "start doubles it each round trip until the first mark.",
      BN_ROW_CC(struct dctcp_keys, init_cwnd_pkts), BN_ROW_RANGE(1, 1e8) },
};

struct dctcp_params {
    double g;
    uint32_t init_pkts;
};

struct dctcp {
    double cwnd, ssthresh;  /* bytes */
    double alpha;
    uint32_t acks, marked;  /* this round trip's */
    bn_time_t rtt;          /* latest sample (the fabric's longest until one) */
    bn_time_t window_end;   /* when this round trip's observation ends */
    bn_time_t cut_until;    /* no second cut before */
};
BN_CC_PRIV_CHECK(struct dctcp);

static struct dctcp *st(struct bn_qp *qp) { return (struct dctcp *)(void *)qp->cc_priv; }

static const struct dctcp_params *params(const struct bn_nics *n) { return n->cc_params; }

static int dctcp_setup(const void *keys_, const char *source, double line_gbps, void *out,
                       bn_time_t *cnp_interval, struct bn_error *err)
{
    const struct dctcp_keys *k = keys_;
    (void)source;
    (void)line_gbps;
    (void)err;
    *(struct dctcp_params *)out = (struct dctcp_params){k->g, k->init_cwnd_pkts};
    *cnp_interval = 0;
    return BN_OK;
}

static void dctcp_init(struct bn_nics *n, struct bn_qp *qp)
{
    *st(qp) = (struct dctcp){.cwnd = (double)params(n)->init_pkts * n->mtu,
                             .ssthresh = 1e18, .alpha = 1, .rtt = n->fabric_rtt};
    qp->rate_bps = n->nic[qp->snic].line_bps;
    qp->cc_timer = BN_TIME_NEVER;
}

static bool dctcp_can_send(const struct bn_nics *n, const struct bn_qp *qp)
{
    return bn_cc_window_allows(n, qp, ((const struct dctcp *)(const void *)qp->cc_priv)->cwnd);
}

static void dctcp_on_ack(struct bn_nics *n, struct bn_qp *qp, bool ece, bn_time_t rtt)
{
    struct dctcp *s = st(qp);
    const struct dctcp_params *p = params(n);
    bn_time_t now = n->fab->now;
    double mtu = n->mtu, acked = (double)n->ack_every * mtu;
    if (rtt > 0)
        s->rtt = rtt;
    s->acks++;
    s->marked += ece;
    if (now >= s->window_end) { /* a round trip observed: update alpha */
        s->alpha = (1 - p->g) * s->alpha + p->g * (double)s->marked / s->acks;
        s->acks = s->marked = 0;
        s->window_end = now + s->rtt;
    }
    if (ece) {
        if (now >= s->cut_until) {
            s->cwnd *= 1 - s->alpha / 2;
            s->ssthresh = s->cwnd < mtu ? mtu : s->cwnd;
            s->cut_until = now + s->rtt;
        }
    } else if (s->cwnd < s->ssthresh) {
        s->cwnd += acked;
    } else {
        s->cwnd += mtu * acked / s->cwnd;
    }
    s->cwnd = s->cwnd < mtu ? mtu : s->cwnd > 1e12 ? 1e12 : s->cwnd;
}

static double dctcp_window(const struct bn_nics *n, const struct bn_qp *qp)
{
    (void)n;
    return ((const struct dctcp *)(const void *)qp->cc_priv)->cwnd;
}

static double dctcp_alpha(const struct bn_nics *n, const struct bn_qp *qp)
{
    (void)n;
    return ((const struct dctcp *)(const void *)qp->cc_priv)->alpha;
}

const struct bn_cc_ops bn_cc_dctcp = {
    .name = "dctcp",
    .summary = "window cut by the fraction of marked ACKs",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .notifies = false,
    .params_size = sizeof(struct dctcp_params),
    .setup = dctcp_setup,
    .init = dctcp_init,
    .on_notify = bn_cc_ignore,
    .on_timer = bn_cc_ignore,
    .alpha = dctcp_alpha,
    .can_send = dctcp_can_send,
    .on_ack = dctcp_on_ack,
    .window = dctcp_window,
};
