/*
 * DCQCN as a congestion-control module: the reaction point of nic/dcqcn.c
 * drives each queue pair's pacing rate. Switches are the congestion points
 * (ECN marking, link/port.c); receivers are the notification points (CNPs at
 * most once per nic.cnp_interval per queue pair, nic.c).
 */
#include "nic/dcqcn.h"
#include "nic/nic.h"

BN_CC_PRIV_CHECK(struct bn_dcqcn);

/* dcqcn.*: a preset, then any field overridden (0 = the preset's). */
enum { PRESET_NVIDIA = 0, PRESET_PAPER }; /* dcqcn.preset: ConnectX firmware's, the paper's */
struct dcqcn_keys {
    uint8_t preset;              /* PRESET_* */
    double g;                    /* alpha gain: alpha <- (1-g) alpha (+ g with a CNP) */
    /* alpha update period; least time between rate cuts; rate-increase timer */
    double alpha_period_us, rate_reduce_period_us, rate_increase_period_us;
    uint64_t byte_counter_bytes; /* bytes sent per byte-counter increase event */
    uint32_t fast_recovery;      /* increase events spent in fast recovery (F) */
    /* target rate's additive and hyper increase, Mb/s; no cut goes below min */
    double ai_mbps, hai_mbps, min_rate_mbps;
};
BN_CC_KEYS_CHECK(struct dcqcn_keys);

static const char *preset_choice(size_t i)
{
    static const char *const v[] = {"nvidia", "paper"};
    return i < sizeof v / sizeof v[0] ? v[i] : NULL;
}

#define OVERRIDE(key_, unit_, member_, doc_)                                             \
    { .info.path = "dcqcn." key_, BN_ROW_FLOAT, .info.unit = unit_, .info.def = "= preset", \
      .info.doc = doc_, BN_ROW_CC(struct dcqcn_keys, member_), .lo = 0, .hi = 1e9,         \
      .flags = BN_KEY_LO | BN_KEY_LO_EXCL | BN_KEY_HI | BN_KEY_DERIVED }
static const struct bn_key_row keys[] = {
    { .info.path = "dcqcn.preset", BN_ROW_ENUM, .info.unit = "", .info.def = "nvidia",
      .info.choice = preset_choice,
      .info.doc = "DCQCN parameter set: nvidia (ConnectX firmware defaults) or paper "
                  "(SIGCOMM'15 style, as htsim). Keys below override single values.",
      BN_ROW_CC(struct dcqcn_keys, preset) },
    OVERRIDE("g", "", g, "Alpha gain g: alpha <- (1-g) alpha (+ g with a CNP). nvidia 5/1024, paper 1/256."),
    OVERRIDE("alpha_period_us", "us", alpha_period_us, "Alpha update period. nvidia 1, paper 55."),
    OVERRIDE("rate_reduce_period_us", "us", rate_reduce_period_us,
             "Minimum time between rate cuts (nvidia 4)."),
    OVERRIDE("rate_increase_period_us", "us", rate_increase_period_us,
             "Rate-increase timer T. nvidia 300, paper 55."),
    OVERRIDE("ai_mbps", "Mb/s", ai_mbps, "Additive increase of the target rate. nvidia 5, paper line/20."),
    OVERRIDE("hai_mbps", "Mb/s", hai_mbps, "Hyper increase of the target rate. nvidia 50, paper line/10."),
    OVERRIDE("min_rate_mbps", "Mb/s", min_rate_mbps, "No cut goes below this rate. nvidia 1."),
    { .info.path = "dcqcn.byte_counter_bytes", BN_ROW_INT, .info.unit = "bytes", .info.def = "= preset",
      .info.doc = "Bytes per byte-counter increase event (paper 10000000; nvidia: timer only).",
      BN_ROW_CC(struct dcqcn_keys, byte_counter_bytes), .lo = 1, .hi = 1e15,
      .flags = BN_KEY_LO | BN_KEY_HI | BN_KEY_DERIVED },
    { .info.path = "dcqcn.fast_recovery", BN_ROW_INT, .info.unit = "steps", .info.def = "= preset",
      .info.doc = "Increase events spent in fast recovery, F (nvidia 1, paper 5).",
      BN_ROW_CC(struct dcqcn_keys, fast_recovery), .lo = 1, .hi = 1000,
      .flags = BN_KEY_LO | BN_KEY_HI | BN_KEY_DERIVED },
};

/* dcqcn.preset's values, then every dcqcn.* key the scenario sets (0 =
 * the preset's). The notification point's CNP interval goes with the
 * preset: NVIDIA's firmware default min_time_between_cnps is 4 us (NVIDIA
 * DOCA, "DCQCN CC Parameters"); the paper-style model uses 50 us (Zhu et
 * al., SIGCOMM 2015, as uet-htsim's dcqcn.cpp sets it). */
static int dcqcn_setup(const void *keys_, const char *source, double line_gbps, void *params,
                       bn_time_t *cnp_interval, struct bn_error *err)
{
    const struct dcqcn_keys *d = keys_;
    bool paper = d->preset == PRESET_PAPER;
    struct bn_dcqcn_params *p = params;
    *p = paper ? bn_dcqcn_params_paper(line_gbps) : bn_dcqcn_params_nvidia(line_gbps);
    if (d->g > 0)
        p->alpha_gain = d->g;
    if (d->alpha_period_us > 0)
        p->alpha_period = bn_time_from_us(d->alpha_period_us);
    if (d->rate_reduce_period_us > 0)
        p->rate_reduce_period = bn_time_from_us(d->rate_reduce_period_us);
    if (d->rate_increase_period_us > 0)
        p->rate_increase_period = bn_time_from_us(d->rate_increase_period_us);
    if (d->byte_counter_bytes > 0)
        p->byte_counter_bytes = d->byte_counter_bytes;
    if (d->fast_recovery > 0)
        p->fast_recovery = d->fast_recovery;
    if (d->ai_mbps > 0)
        p->ai_gbps = d->ai_mbps / 1e3;
    if (d->hai_mbps > 0)
        p->hai_gbps = d->hai_mbps / 1e3;
    if (d->min_rate_mbps > 0)
        p->min_rate_gbps = d->min_rate_mbps / 1e3;
    if (bn_dcqcn_params_check(p, err) != BN_OK)
        return bn_cc_params_error(err, source, "dcqcn");
    *cnp_interval = bn_time_from_us(paper ? 50.0 : 4.0);
    return BN_OK;
}

static struct bn_dcqcn *rp(struct bn_qp *qp) { return (struct bn_dcqcn *)(void *)qp->cc_priv; }

static void apply(struct bn_qp *qp)
{
    const struct bn_dcqcn *st = rp(qp);
    qp->rate_bps = (uint64_t)(bn_dcqcn_rate_gbps(st) * 1e9 + 0.5);
    qp->cc_timer = bn_dcqcn_next_timer(st);
}

static void dcqcn_init(struct bn_nics *n, struct bn_qp *qp)
{
    bn_dcqcn_init(rp(qp), bn_nic_cc_params(n, qp), n->fab->now);
    apply(qp);
}

static void dcqcn_on_sent(struct bn_nics *n, struct bn_qp *qp, uint32_t bytes)
{
    bn_dcqcn_on_sent(rp(qp), bytes, n->fab->now);
    apply(qp);
}

static void dcqcn_on_notify(struct bn_nics *n, struct bn_qp *qp)
{
    bn_dcqcn_on_cnp(rp(qp), n->fab->now);
    apply(qp);
}

static void dcqcn_on_timer(struct bn_nics *n, struct bn_qp *qp)
{
    bn_dcqcn_on_timer(rp(qp), n->fab->now);
    apply(qp);
}

static double dcqcn_alpha(const struct bn_nics *n, const struct bn_qp *qp)
{
    return bn_dcqcn_alpha((const struct bn_dcqcn *)(const void *)qp->cc_priv, n->fab->now);
}

const struct bn_cc_ops bn_cc_dcqcn = {
    .name = "dcqcn",
    .summary = "RoCE: ECN marks, CNPs, rate cuts by alpha",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .notifies = true,
    .notice = "CNPs",
    .params_size = sizeof(struct bn_dcqcn_params),
    .setup = dcqcn_setup,
    .init = dcqcn_init,
    .on_sent = dcqcn_on_sent,
    .on_notify = dcqcn_on_notify,
    .on_timer = dcqcn_on_timer,
    .alpha = dcqcn_alpha,
};
