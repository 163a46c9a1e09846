/*
 * Congestion-control set-up: the module named by nic.congestion_control and
 * its parameters — a preset (dcqcn.preset, or IB CC's defaults) with every
 * value the scenario gives laid over it — and the receivers' CNP pacing.
 */
#include <string.h>

#include "sim/sim.h"

/* "SOURCE: dcqcn parameters: why", without reading the buffer being written. */
static int prefix_error(struct bn_error *err, const char *source, const char *module)
{
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    return bn_fail(err, BN_EINPUT, "%s: %s parameters: %s", source, module, why);
}

static void dcqcn_overrides(const struct bn_scenario_dcqcn *d, struct bn_dcqcn_params *p)
{
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
}

static int setup_dcqcn(struct bn_sim *s, double line_gbps, struct bn_nic_params *np,
                       struct bn_error *err)
{
    const struct bn_scenario *sc = s->sc;
    bool paper = strcmp(sc->dcqcn.preset, "paper") == 0;
    s->dcqcn = paper ? bn_dcqcn_params_paper(line_gbps) : bn_dcqcn_params_nvidia(line_gbps);
    dcqcn_overrides(&sc->dcqcn, &s->dcqcn);
    if (bn_dcqcn_params_check(&s->dcqcn, err) != BN_OK)
        return prefix_error(err, sc->source, "dcqcn");
    np->cc_params = &s->dcqcn;
    np->cnp_interval = bn_time_from_us(paper ? 50.0 : 4.0); /* FACTS 2.1 / 2.3 */
    return BN_OK;
}

static int setup_ibcc(struct bn_sim *s, double line_gbps, struct bn_nic_params *np,
                      struct bn_error *err)
{
    const struct bn_scenario *sc = s->sc;
    s->ibcc = bn_ibcc_params_default(line_gbps);
    if (sc->ibcc.ccti_timer_us > 0)
        s->ibcc.ccti_timer = bn_time_from_us(sc->ibcc.ccti_timer_us);
    if (sc->ibcc.ccti_increase > 0)
        s->ibcc.ccti_increase = (uint16_t)sc->ibcc.ccti_increase;
    if (sc->ibcc.ccti_limit > 0)
        s->ibcc.ccti_limit = (uint16_t)sc->ibcc.ccti_limit;
    if (bn_ibcc_params_check(&s->ibcc, err) != BN_OK)
        return prefix_error(err, sc->source, "ibcc");
    np->cc_params = &s->ibcc;
    np->cnp_interval = 0;
    return BN_OK;
}

int bn_sim_build_cc(struct bn_sim *s, struct bn_nic_params *np, struct bn_error *err)
{
    const struct bn_scenario *sc = s->sc;
    double line_gbps = sc->link.rate_gbps;
    int rc = BN_OK;
    if (strcmp(np->cc->name, "dcqcn") == 0)
        rc = setup_dcqcn(s, line_gbps, np, err);
    else if (strcmp(np->cc->name, "ib_cc") == 0)
        rc = setup_ibcc(s, line_gbps, np, err);
    else if (strcmp(np->cc->name, "nscc") == 0) {
        s->nscc = (struct bn_nscc_params){sc->nscc.max_cwnd_bytes,
                                          bn_time_from_us(sc->nscc.target_delay_us), sc->nscc.beta};
        np->cc_params = &s->nscc;
    }
    if (rc == BN_OK && sc->nic.cnp_interval_us > 0)
        np->cnp_interval = bn_time_from_us(sc->nic.cnp_interval_us);
    return rc;
}
