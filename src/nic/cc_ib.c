/*
 * InfiniBand congestion control as a module (model in nic/ibcc.h): switches
 * mark FECN (the ECN marker of link/port.c, with switch.ecn.* as the threshold), the
 * receiver returns a BECN (a congestion-notification packet, nic.c), and the
 * sender's CCT index sets its injection rate and recovers on a timer.
 */
#include "nic/ibcc.h"
#include "nic/nic.h"

BN_CC_PRIV_CHECK(struct bn_ibcc);

static struct bn_ibcc *cc(struct bn_qp *qp) { return (struct bn_ibcc *)(void *)qp->cc_priv; }

static void apply(struct bn_qp *qp)
{
    qp->rate_bps = (uint64_t)(bn_ibcc_rate_gbps(cc(qp)) * 1e9 + 0.5);
    qp->cc_timer = bn_ibcc_next_timer(cc(qp));
}

static void ib_init(struct bn_nics *n, struct bn_qp *qp)
{
    bn_ibcc_init(cc(qp), n->cc_params, n->fab->now);
    apply(qp);
}

static void ib_on_notify(struct bn_nics *n, struct bn_qp *qp)
{
    bn_ibcc_on_becn(cc(qp), n->fab->now);
    apply(qp);
}

static void ib_on_timer(struct bn_nics *n, struct bn_qp *qp)
{
    bn_ibcc_on_timer(cc(qp), n->fab->now);
    apply(qp);
}

const struct bn_cc_ops bn_cc_ib = {
    .name = "ib_cc",
    .notifies = true,
    .init = ib_init,
    .on_notify = ib_on_notify,
    .on_timer = ib_on_timer,
};
