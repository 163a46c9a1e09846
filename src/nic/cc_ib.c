/*
 * InfiniBand congestion control as a module (model in nic/ibcc.h): switches
 * mark FECN (the ECN marker of link/port.c, with switch.ecn.* as the threshold), the
 * receiver returns a BECN (a congestion-notification packet, nic.c), and the
 * sender's CCT index sets its injection rate and recovers on a timer.
 */
#include "nic/ibcc.h"
#include "nic/nic.h"

BN_CC_PRIV_CHECK(struct bn_ibcc);

/* ibcc.*: each 0 = ibcc.h's default. */
struct ibcc_keys {
    double ccti_timer_us;        /* the CCT index falls by one per period */
    uint32_t ccti_increase, ccti_limit; /* index added per BECN; highest index (slowest) */
};
BN_CC_KEYS_CHECK(struct ibcc_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "ibcc.ccti_timer_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "= default",
      .info.doc = "CCTI_Timer: the CCT index falls by one per period (see docs/model.md).",
      BN_ROW_CC(struct ibcc_keys, ccti_timer_us), .lo = 0, .hi = 1e9,
      .flags = BN_KEY_LO | BN_KEY_LO_EXCL | BN_KEY_HI | BN_KEY_DERIVED },
    { .info.path = "ibcc.ccti_increase", BN_ROW_INT, .info.unit = "", .info.def = "= default",
      .info.doc = "CCTI_Increase: index added per BECN.",
      BN_ROW_CC(struct ibcc_keys, ccti_increase), .lo = 1, .hi = 1000,
      .flags = BN_KEY_LO | BN_KEY_HI | BN_KEY_DERIVED },
    { .info.path = "ibcc.ccti_limit", BN_ROW_INT, .info.unit = "", .info.def = "= default",
      .info.doc = "CCTI_Limit: the highest CCT index (slowest rate).",
      BN_ROW_CC(struct ibcc_keys, ccti_limit), .lo = 1, .hi = 65535,
      .flags = BN_KEY_LO | BN_KEY_HI | BN_KEY_DERIVED },
};

/* The defaults of ibcc.h, then every ibcc.* key the scenario sets (0 = the
 * default's). BECNs are not rate-limited at the receiver. */
static int ib_setup(const void *keys_, const char *source, double line_gbps, void *params,
                    bn_time_t *cnp_interval, struct bn_error *err)
{
    const struct ibcc_keys *k = keys_;
    struct bn_ibcc_params *p = params;
    *p = bn_ibcc_params_default(line_gbps);
    if (k->ccti_timer_us > 0)
        p->ccti_timer = bn_time_from_us(k->ccti_timer_us);
    if (k->ccti_increase > 0)
        p->ccti_increase = (uint16_t)k->ccti_increase;
    if (k->ccti_limit > 0)
        p->ccti_limit = (uint16_t)k->ccti_limit;
    if (bn_ibcc_params_check(p, err) != BN_OK)
        return bn_cc_params_error(err, source, "ibcc");
    *cnp_interval = 0;
    return BN_OK;
}

static struct bn_ibcc *cc(struct bn_qp *qp) { return (struct bn_ibcc *)(void *)qp->cc_priv; }

static void apply(struct bn_qp *qp)
{
    qp->rate_bps = (uint64_t)(bn_ibcc_rate_gbps(cc(qp)) * 1e9 + 0.5);
    qp->cc_timer = bn_ibcc_next_timer(cc(qp));
}

static void ib_init(struct bn_nics *n, struct bn_qp *qp)
{
    bn_ibcc_init(cc(qp), bn_nic_cc_params(n, qp), n->fab->now);
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
    .summary = "InfiniBand: FECN/BECN, CCT index",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .notifies = true,
    .notice = "BECNs", /* InfiniBand's congestion notifications */
    .params_size = sizeof(struct bn_ibcc_params),
    .setup = ib_setup,
    .init = ib_init,
    .on_notify = ib_on_notify,
    .on_timer = ib_on_timer,
};
