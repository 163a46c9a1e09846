/*
 * HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM
 * 2019, Algorithm 1): switches stamp each data packet with in-band
 * telemetry (link/telemetry.h), the receiver returns it on the ACK, and
 * the sender estimates each hop's normalized inflight bytes from two
 * consecutive records of the same hop,
 *   u_j = min(qlen, qlen') / (B_j T) + txRate_j / B_j,
 * keeps U = the largest, smoothed over the base round trip T by the time
 * the records span (tau <= T): U = (1 - tau/T) U + (tau/T) u. The window
 * follows a reference Wc, updated once per round trip (an ACK past the
 * last update's snd_nxt), each ACK reacting at once:
 *   U >= eta or incStage >= maxStage:  W = Wc / (U / eta) + W_AI
 *   otherwise:                         W = Wc + W_AI
 * and the NIC paces at W / T. W starts at, and never exceeds, B_NIC T.
 * Defaults: eta 0.95 and maxStage 5 (the paper's, section 3.3, and its
 * ns-3 simulator's TargetUtil and MiThresh), W_AI = 50 Mb/s x T (the
 * paper's rule W_init (1 - eta) / N for about 100 flows at 100 Gb/s),
 * a 42-byte INT header (5 hops of 8 bytes and 2 of its own, as the
 * simulator's) on every data packet and ACK. A hop whose port differs
 * from the one the last record named (a new path: adaptive routing,
 * spraying) gives no sample.
 */
#include "link/fabric.h"
#include "link/telemetry.h"
#include "nic/nic.h"

/* hpcc.* */
struct hpcc_keys {
    double eta;                  /* target utilization */
    double ai_mbps;              /* additive step W_AI, as a rate over the base round trip */
    double base_rtt_us;          /* T; 0: the fabric's longest idle round trip */
    uint32_t max_stage;          /* additive steps before a multiplicative one */
    uint32_t int_header_bytes;   /* the INT header on every data frame and ACK */
};
BN_CC_KEYS_CHECK(struct hpcc_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "hpcc.eta", BN_ROW_FLOAT, .info.unit = "", .info.def = "0.95",
      .info.doc = "hpcc: the target utilization of the most loaded link on the path.",
      BN_ROW_CC(struct hpcc_keys, eta), .lo = 0, .hi = 1,
      .flags = BN_KEY_LO | BN_KEY_LO_EXCL | BN_KEY_HI },
    { .info.path = "hpcc.max_stage", BN_ROW_INT, .info.unit = "", .info.def = "5",
      .info.doc = "hpcc: additive round trips below the target before a multiplicative step.",
      BN_ROW_CC(struct hpcc_keys, max_stage), BN_ROW_RANGE(0, 1000) },
    { .info.path = "hpcc.ai_mbps", BN_ROW_FLOAT, .info.unit = "Mb/s", .info.def = "50",
      .info.doc = "hpcc: the additive step W_AI, this rate times the base round trip.",
      BN_ROW_CC(struct hpcc_keys, ai_mbps), BN_ROW_RANGE(0.001, 1e6) },
    { .info.path = "hpcc.base_rtt_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "0",
      .info.doc = "hpcc: the base round trip T; 0 = the fabric's longest idle round trip.",
      BN_ROW_CC(struct hpcc_keys, base_rtt_us), BN_ROW_RANGE(0, 1e6) },
    { .info.path = "hpcc.int_header_bytes", BN_ROW_INT, .info.unit = "bytes", .info.def = "42",
      .info.doc = "hpcc: the in-band telemetry header every data frame and ACK carries.",
      BN_ROW_CC(struct hpcc_keys, int_header_bytes), BN_ROW_RANGE(0, 1024) },
};

struct hpcc_params {
    double eta, ai_bps, t_ps;     /* t_ps 0: the fabric's longest idle round trip */
    uint32_t max_stage;
};

struct hpcc {
    double w, wc;                 /* window and its reference (bytes) */
    double u;                     /* smoothed normalized inflight */
    uint32_t last_update;         /* snd_nxt when Wc was last updated */
    uint8_t stage, nhop, seen;    /* incStage; hops remembered; a record seen */
    struct bn_int_hop prev[BN_INT_HOPS];
};
BN_CC_PRIV_CHECK(struct hpcc);

static struct hpcc *st(struct bn_qp *qp)
{
    void *p = qp->cc_priv;
    return p;
}
static const struct hpcc *cst(const struct bn_qp *qp)
{
    const void *p = qp->cc_priv;
    return p;
}

static int hpcc_setup(const void *keys_, const char *source, double line_gbps, void *out,
                      bn_time_t *cnp_interval, struct bn_error *err)
{
    const struct hpcc_keys *k = keys_;
    (void)source;
    (void)line_gbps;
    (void)err;
    *(struct hpcc_params *)out = (struct hpcc_params){
        .eta = k->eta, .ai_bps = k->ai_mbps * 1e6,
        .t_ps = k->base_rtt_us * 1e6, .max_stage = k->max_stage};
    *cnp_interval = 0;
    return BN_OK;
}

static uint32_t hpcc_telemetry_bytes(const void *keys_)
{
    return ((const struct hpcc_keys *)keys_)->int_header_bytes;
}

static double base_rtt(const struct bn_nics *n)
{
    const struct hpcc_params *p = n->cc_params;
    return p->t_ps > 0 ? p->t_ps : (double)n->fabric_rtt;
}

/* W_init = B_NIC x T, the most a queue pair may have in flight. */
static double w_init(const struct bn_nics *n, const struct bn_qp *qp)
{
    return (double)n->nic[qp->snic].line_bps / 8 * base_rtt(n) / BN_PS_PER_S;
}

static void hpcc_init(struct bn_nics *n, struct bn_qp *qp)
{
    double w = w_init(n, qp);
    *st(qp) = (struct hpcc){.w = w, .wc = w};
    qp->rate_bps = n->nic[qp->snic].line_bps;
    qp->cc_timer = BN_TIME_NEVER;
}

static bool hpcc_can_send(const struct bn_nics *n, const struct bn_qp *qp)
{
    double w = cst(qp)->w;
    return bn_cc_window_allows(n, qp, w > n->mtu ? w : n->mtu); /* paced under one packet */
}

/* MeasureInflight: fold this ACK's records into U; false if none gave a
 * sample. */
static bool measure(const struct bn_nics *n, struct hpcc *s, const struct bn_int_rec *r,
                    double t_ps)
{
    double umax = 0, tau = 0;
    bool any = false;
    for (uint32_t i = 0; i < r->nhop && i < s->nhop; i++) {
        const struct bn_int_hop *c = &r->hop[i], *o = &s->prev[i];
        uint32_t dt_ns = c->ts_ns - o->ts_ns; /* the counters wrap */
        if (c->port != o->port || dt_ns == 0)
            continue;
        double b = (double)n->fab->ports[c->port].rate_bps;
        double tx_rate = (double)(uint32_t)(c->tx_bytes - o->tx_bytes) * 8 / (dt_ns * 1e-9);
        double q = c->qlen < o->qlen ? c->qlen : o->qlen;
        double u = q * 8 / (b * t_ps / BN_PS_PER_S) + tx_rate / b;
        if (u > umax) {
            umax = u;
            tau = dt_ns * 1e3;
        }
        any = true;
    }
    if (any) {
        tau = tau < t_ps ? tau : t_ps;
        s->u = (1 - tau / t_ps) * s->u + tau / t_ps * umax;
    }
    return any;
}

static void hpcc_on_ack(struct bn_nics *n, struct bn_qp *qp, bool ece, bn_time_t rtt)
{
    (void)ece;
    (void)rtt;
    const struct bn_int_rec *r = n->cc_int;
    if (!r || r->nhop == 0)
        return;
    const struct hpcc_params *p = n->cc_params;
    struct hpcc *s = st(qp);
    double t = base_rtt(n);
    if (s->seen && measure(n, s, r, t)) {
        bool update = qp->snd_una > s->last_update; /* once per round trip */
        double ai = p->ai_bps / 8 * t / BN_PS_PER_S, hi = w_init(n, qp), w;
        if (s->u >= p->eta || s->stage >= p->max_stage) {
            w = s->u > 0 ? s->wc * p->eta / s->u + ai : hi; /* an idle path: all of it */
            if (update)
                s->stage = 0;
        } else {
            w = s->wc + ai;
            if (update)
                s->stage++;
        }
        s->w = w > hi ? hi : w < ai ? ai : w;
        if (update) {
            s->wc = s->w;
            s->last_update = qp->snd_nxt;
        }
        qp->rate_bps = (uint64_t)(s->w * 8 / (t / BN_PS_PER_S));
    } else if (!s->seen) {
        s->last_update = qp->snd_nxt;
    }
    s->seen = 1;
    s->nhop = (uint8_t)(r->nhop < BN_INT_HOPS ? r->nhop : BN_INT_HOPS);
    for (uint32_t i = 0; i < s->nhop; i++)
        s->prev[i] = r->hop[i];
}

static double hpcc_alpha(const struct bn_nics *n, const struct bn_qp *qp)
{
    (void)n;
    return cst(qp)->u;
}

static double hpcc_window(const struct bn_nics *n, const struct bn_qp *qp)
{
    (void)n;
    return cst(qp)->w;
}

const struct bn_cc_ops bn_cc_hpcc = {
    .name = "hpcc",
    .summary = "window from in-band telemetry",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .notifies = false,
    .params_size = sizeof(struct hpcc_params),
    .setup = hpcc_setup,
    .telemetry_bytes = hpcc_telemetry_bytes,
    .init = hpcc_init,
    .on_notify = bn_cc_ignore,
    .on_timer = bn_cc_ignore,
    .alpha = hpcc_alpha,
    .can_send = hpcc_can_send,
    .on_ack = hpcc_on_ack,
    .window = hpcc_window,
};
