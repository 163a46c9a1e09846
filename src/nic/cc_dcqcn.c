/*
 * DCQCN as a congestion-control module: the reaction point of nic/dcqcn.c
 * drives each queue pair's pacing rate. Switches are the congestion points
 * (ECN marking, link/port.c); receivers are the notification points (CNPs at
 * most once per nic.cnp_interval per queue pair, nic.c).
 */
#include "nic/dcqcn.h"
#include "nic/nic.h"

BN_CC_PRIV_CHECK(struct bn_dcqcn);

/* dcqcn.preset's values, then every dcqcn.* key the scenario sets (0 =
 * the preset's). The notification point's CNP interval goes with the
 * preset: NVIDIA's firmware default min_time_between_cnps is 4 us (NVIDIA
 * DOCA, "DCQCN CC Parameters"); the paper-style model uses 50 us (Zhu et
 * al., SIGCOMM 2015, as uet-htsim's dcqcn.cpp sets it). */
static int dcqcn_setup(const struct bn_scenario *sc, double line_gbps, void *params,
                       bn_time_t *cnp_interval, struct bn_error *err)
{
    const struct bn_scenario_dcqcn *d = &sc->dcqcn;
    bool paper = d->preset == BN_SC_DCQCN_PAPER;
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
        return bn_cc_params_error(err, sc->source, "dcqcn");
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
