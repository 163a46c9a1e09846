/*
 * TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the
 * Datacenter", SIGCOMM 2015), a rate set from round-trip samples: with
 * each new sample the gradient, an EWMA of successive differences over the
 * minimum RTT, steers the rate:
 *   rtt < T_low:           rate += delta                (additive)
 *   rtt > T_high:          rate *= 1 - beta (1 - T_high / rtt)
 *   gradient <= 0:         rate += N delta, N = 5 after five such samples
 *                          in a row (hyperactive increase), else 1
 *   gradient > 0:          rate *= 1 - beta gradient
 * Parameters as the paper gives them and HPCC's ns-3 code uses them (T_low
 * 50 us, T_high 500 us, minimum RTT 20 us, alpha 0.875, beta 0.8): the
 * timely.* keys. The rate steps scale with the line rate as HPCC's
 * evaluation scales them for 25-100G (simulation/run.py: additive
 * increase 10 Mb/s per 10 Gb/s, the paper's 10 Mb/s at 10 Gb/s; minimum
 * rate 1 Gb/s at 100 Gb/s): with the 10 Gb/s step a 100G flow cut to its
 * floor took ~25 ms to come back.
 *
 * TIMELY updates once per completion of a segment (16-64 KB); bnet times
 * one packet per round trip. Between two samples, k = the time between
 * them over a segment's time at the current rate completions would have
 * come; the update is applied as k completions each seeing 1/k of the
 * difference (the RTT taken to move linearly between the samples): the
 * EWMA takes k steps, a decrease compounds k times, an increase adds k
 * steps. With k = 1 it is the paper's rule exactly.
 */
#include <math.h>

#include "nic/nic.h"

#define HAI_AFTER 5 /* gradients <= 0 in a row before the increase goes five-fold */

/* timely.* */
struct timely_keys {
    double t_low_us, t_high_us;  /* below: additive increase; above: decrease by how far */
    double min_rtt_us;           /* normalizes the gradient */
    double alpha;                /* the gradient's EWMA weight of a new difference */
    double beta;                 /* multiplicative-decrease gain */
    double delta_mbps;           /* additive increase step; 0 = line rate / 1000 */
    double min_rate_mbps;        /* no decrease goes below it; 0 = line rate / 100 */
    uint32_t segment_bytes;      /* a completion's worth: TIMELY updates once per segment */
};
BN_CC_KEYS_CHECK(struct timely_keys);

#define KEY(m) BN_ROW_CC(struct timely_keys, m)
static const struct bn_key_row keys[] = {
    { .info.path = "timely.t_low_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "50",
      .info.doc = "timely: below this round trip the rate grows additively (TIMELY's T_low).",
      KEY(t_low_us), BN_ROW_RANGE(0, 1e6) },
    { .info.path = "timely.t_high_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "500",
      .info.doc = "timely: above this round trip the rate falls by beta (1 - T_high / rtt).",
      KEY(t_high_us), BN_ROW_RANGE(0.001, 1e6) },
    { .info.path = "timely.min_rtt_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "20",
      .info.doc = "timely: the minimum round trip the RTT gradient is divided by.",
      KEY(min_rtt_us), BN_ROW_RANGE(0.001, 1e6) },
    { .info.path = "timely.alpha", BN_ROW_FLOAT, .info.unit = "", .info.def = "0.875",
      .info.doc = "timely: the weight of a new difference in the gradient's moving average.",
      KEY(alpha), BN_ROW_RANGE(0, 1) },
    { .info.path = "timely.beta", BN_ROW_FLOAT, .info.unit = "", .info.def = "0.8",
      .info.doc = "timely: multiplicative-decrease gain.",
      KEY(beta), BN_ROW_RANGE(0, 1) },
    { .info.path = "timely.delta_mbps", BN_ROW_FLOAT, .info.unit = "Mb/s", .info.def = "= line/1000",
      .info.doc = "timely: the additive increase per segment completed (five-fold after five "
                  "non-positive gradients in a row); unset = the line rate / 1000: the paper's "
                  "10 Mb/s at 10 Gb/s, 100 Mb/s at 100 Gb/s as HPCC's evaluation scales it.",
      KEY(delta_mbps), .lo = 0.001, .hi = 1e6,
      .flags = BN_KEY_LO | BN_KEY_HI | BN_KEY_DERIVED },
    { .info.path = "timely.min_rate_mbps", BN_ROW_FLOAT, .info.unit = "Mb/s", .info.def = "= line/100",
      .info.doc = "timely: no decrease goes below this rate; unset = the line rate / 100 (1 Gb/s "
                  "at 100 Gb/s, HPCC's evaluation setting).",
      KEY(min_rate_mbps), .lo = 0.001, .hi = 1e7,
      .flags = BN_KEY_LO | BN_KEY_HI | BN_KEY_DERIVED },
    { .info.path = "timely.segment_bytes", BN_ROW_INT, .info.unit = "bytes", .info.def = "16384",
      .info.doc = "timely: the segment whose completion is one update (the paper's 16-64 KB); "
                  "between two round-trip samples, as many updates as segments went.",
      KEY(segment_bytes), BN_ROW_RANGE(1, 1e9) },
};
#undef KEY

struct timely_params {
    bn_time_t t_low, t_high, min_rtt;
    double alpha, beta, delta_bps, min_bps, segment_bits;
};

struct timely {
    double rate;           /* bits per second */
    double rtt_diff;       /* ps, the EWMA of successive completions' differences */
    bn_time_t prev_rtt;    /* 0: none yet */
    bn_time_t prev_at;     /* when it came */
    double negatives;      /* completions in a row with a gradient <= 0 */
};
BN_CC_PRIV_CHECK(struct timely);

static struct timely *st(struct bn_qp *qp) { return (struct timely *)(void *)qp->cc_priv; }

static int timely_setup(const void *keys_, const char *source, double line_gbps, void *out,
                        bn_time_t *cnp_interval, struct bn_error *err)
{
    const struct timely_keys *t = keys_;
    if (t->t_low_us >= t->t_high_us)
        return bn_fail(err, BN_EINPUT, "%s: key 'timely.t_low_us': %g us must be below "
                       "timely.t_high_us (%g us)", source, t->t_low_us, t->t_high_us);
    double delta = t->delta_mbps > 0 ? t->delta_mbps * 1e6 : line_gbps * 1e9 / 1000;
    double floor_bps = t->min_rate_mbps > 0 ? t->min_rate_mbps * 1e6 : line_gbps * 1e9 / 100;
    if (floor_bps > line_gbps * 1e9)
        return bn_fail(err, BN_EINPUT, "%s: key 'timely.min_rate_mbps': %g Mb/s is above the "
                       "line rate (%g Gb/s)", source, floor_bps / 1e6, line_gbps);
    *(struct timely_params *)out = (struct timely_params){
        bn_time_from_us(t->t_low_us), bn_time_from_us(t->t_high_us),
        bn_time_from_us(t->min_rtt_us), t->alpha, t->beta, delta, floor_bps,
        (double)t->segment_bytes * 8};
    *cnp_interval = 0;
    return BN_OK;
}

static void timely_init(struct bn_nics *n, struct bn_qp *qp)
{
    *st(qp) = (struct timely){.rate = (double)n->nic[qp->snic].line_bps};
    qp->rate_bps = n->nic[qp->snic].line_bps;
    qp->cc_timer = BN_TIME_NEVER;
}

static void timely_on_ack(struct bn_nics *n, struct bn_qp *qp, bool ece, bn_time_t rtt)
{
    (void)ece;
    struct timely *s = st(qp);
    const struct timely_params *p = bn_nic_cc_params(n, qp);
    bn_time_t now = n->fab->now;
    if (rtt <= 0)
        return;
    if (!s->prev_rtt) {
        s->prev_rtt = rtt;
        s->prev_at = now;
        return;
    }
    /* the completions since the last sample, at least one */
    double seg_ps = p->segment_bits / s->rate * (double)BN_PS_PER_S;
    double k = floor((double)(now - s->prev_at) / seg_ps);
    k = k < 1 ? 1 : k > 1e6 ? 1e6 : k;
    double diff = (double)(rtt - s->prev_rtt) / k, line = (double)n->nic[qp->snic].line_bps;
    s->prev_rtt = rtt;
    s->prev_at = now;
    double keep = pow(1 - p->alpha, k);
    s->rtt_diff = keep * s->rtt_diff + (1 - keep) * diff;
    double gradient = s->rtt_diff / (double)p->min_rtt;
    if (rtt < p->t_low) {
        s->negatives = 0;
        s->rate += k * p->delta_bps;
    } else if (rtt > p->t_high) {
        s->negatives = 0;
        s->rate *= pow(1 - p->beta * (1 - (double)p->t_high / (double)rtt), k);
    } else if (gradient <= 0) { /* five-fold once five completions in a row saw it */
        double before = s->negatives,
               plain = before < HAI_AFTER - 1 ? fmin(k, HAI_AFTER - 1 - before) : 0;
        s->negatives += k;
        s->rate += (plain + HAI_AFTER * (k - plain)) * p->delta_bps;
    } else {
        s->negatives = 0;
        double f = 1 - p->beta * gradient;
        s->rate *= f > 0 ? pow(f, k) : 0;
    }
    s->rate = s->rate > line ? line : s->rate < p->min_bps ? p->min_bps : s->rate;
    qp->rate_bps = (uint64_t)s->rate; /* the NIC applies it (window_ack) */
}

const struct bn_cc_ops bn_cc_timely = {
    .name = "timely",
    .summary = "rate from the round-trip gradient",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .notifies = false,
    .params_size = sizeof(struct timely_params),
    .setup = timely_setup,
    .init = timely_init,
    .on_notify = bn_cc_ignore,
    .on_timer = bn_cc_ignore,
    .on_ack = timely_on_ack,
};
