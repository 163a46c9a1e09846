/*
 * An aggregate schedule's longest chain (coll/sched.h), hop by hop, as an
 * executor ran it: per hop the step's software latency, the endpoints'
 * fixed costs (none over NVLink), the path's latency, and a piece at the
 * rate its connection's flow had while it ran. Flows of whole connections
 * cannot show this time; the collective takes it at least.
 */
#include "driver/coll/coll.h"
#include "flow/flow.h"

double bn_coll_chain_us(const struct bn_sim *s, const struct bn_sched *sc, const bn_time_t *at,
                        bn_chain_leg_fn leg_of, void *ctx, double *head_us)
{
    const struct bn_flow_engine *fe = s->flow;
    double ps = 0, ends = (double)bn_ep_fixed_ps(&s->nics.ep_params);
    *head_us = 0;
    for (uint32_t i = 0; fe && i < sc->ncrit; i++) {
        if (i == sc->crit_head)
            *head_us = ps / 1e6;
        uint32_t xi = sc->crit[i].xfer;
        struct bn_xfer_view t;
        bn_sched_view(sc, xi, &t);
        struct bn_chain_leg leg = {.relay_qp = UINT32_MAX};
        leg_of(ctx, &t, &leg);
        double lat = (double)fe->q[leg.qp].lat_a + fe->q[leg.qp].lat_b * fe->full_wire;
        if (leg.relay_qp != UINT32_MAX) /* a relay's NVLink leg first */
            lat += (double)fe->q[leg.relay_qp].lat_a + fe->q[leg.relay_qp].lat_b * fe->full_wire;
        double busy = (double)(at[2 * (size_t)xi + 1] - at[2 * (size_t)xi]) - lat;
        double piece = busy > 0 ? busy * (double)sc->crit_piece_bytes / (double)t.bytes : 0;
        ps += sc->crit[i].times *
              ((double)leg.step_ps + (s->nics.qp[leg.qp].nvlink ? 0 : ends) + lat + piece);
    }
    if (sc->crit_head >= sc->ncrit)
        *head_us = ps / 1e6;
    return ps / 1e6;
}
