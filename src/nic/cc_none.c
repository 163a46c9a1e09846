/* No congestion control: every queue pair sends at line rate, always. */
#include "nic/nic.h"

static void none_init(struct bn_nics *n, struct bn_qp *qp)
{
    qp->rate_bps = n->nic[qp->snic].line_bps;
    qp->cc_timer = BN_TIME_NEVER;
}

const struct bn_cc_ops bn_cc_none = {
    .name = "none",
    .summary = "line rate",
    .notifies = false,
    .passive = true,
    .init = none_init,
    .on_notify = bn_cc_ignore,
    .on_timer = bn_cc_ignore,
};
