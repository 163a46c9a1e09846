/*
 * DCQCN as a congestion-control module: the reaction point of nic/dcqcn.c
 * drives each queue pair's pacing rate. Switches are the congestion points
 * (ECN marking, link/port.c); receivers are the notification points (CNPs at
 * most once per nic.cnp_interval per queue pair, nic.c).
 */
#include "nic/dcqcn.h"
#include "nic/nic.h"

BN_CC_PRIV_CHECK(struct bn_dcqcn);

static struct bn_dcqcn *rp(struct bn_qp *qp) { return (struct bn_dcqcn *)(void *)qp->cc_priv; }

static void apply(struct bn_qp *qp)
{
    const struct bn_dcqcn *st = rp(qp);
    qp->rate_bps = (uint64_t)(bn_dcqcn_rate_gbps(st) * 1e9 + 0.5);
    qp->cc_timer = bn_dcqcn_next_timer(st);
}

static void dcqcn_init(struct bn_nics *n, struct bn_qp *qp)
{
    bn_dcqcn_init(rp(qp), n->cc_params, n->fab->now);
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
    .init = dcqcn_init,
    .on_sent = dcqcn_on_sent,
    .on_notify = dcqcn_on_notify,
    .on_timer = dcqcn_on_timer,
    .alpha = dcqcn_alpha,
};
