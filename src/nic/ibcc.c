/*
 * InfiniBand congestion control, sender index and switch marking; see ibcc.h
 * for the model (IBTA vol. 1 annex A10, OpenSM cc_* parameters) and the
 * choices bnet made where the sources are silent.
 *
 * The CCTI timer runs only while the index is above CCTI_Min: it starts when a
 * BECN lifts the index off the minimum and restarts on each expiry. BECNs do
 * not restart it (the annex resets the timer on expiry only), so a steady BECN
 * stream and the timer pull against each other.
 */
#include "nic/ibcc.h"

#include <assert.h>
#include <stddef.h>
#include <stddef.h>

struct bn_ibcc_params bn_ibcc_params_default(double line_rate_gbps)
{
    return (struct bn_ibcc_params){
        .line_rate_gbps = line_rate_gbps,
        .ccti_timer = 128 * BN_IBCC_TIMER_UNIT_PS,
        .ccti_increase = 1,
        .ccti_limit = 127,
        .ccti_min = 0,
        .ipd_step = 0.5,
        .cct = NULL,
    };
}

static int check_table(const struct bn_ibcc_params *p, struct bn_error *err)
{
    if (!(p->cct[0] >= 0))
        return bn_fail(err, BN_EINPUT, "ibcc: CCT entry 0 must be >= 0");
    for (uint32_t i = 1; i <= p->ccti_limit; i++)
        if (!(p->cct[i] >= p->cct[i - 1]))
            return bn_fail(err, BN_EINPUT, "ibcc: CCT entry %u below entry %u", i, i - 1);
    return BN_OK;
}

int bn_ibcc_params_check(const struct bn_ibcc_params *p, struct bn_error *err)
{
    if (!(p->line_rate_gbps > 0))
        return bn_fail(err, BN_EINPUT, "ibcc: line rate must be > 0 Gb/s");
    if (p->ccti_timer <= 0)
        return bn_fail(err, BN_EINPUT, "ibcc: CCTI_Timer must be > 0");
    if (p->ccti_min > p->ccti_limit)
        return bn_fail(err, BN_EINPUT, "ibcc: CCTI_Min %u above CCTI_Limit %u",
                       (unsigned)p->ccti_min, (unsigned)p->ccti_limit);
    if (p->cct)
        return check_table(p, err);
    if (!(p->ipd_step >= 0))
        return bn_fail(err, BN_EINPUT, "ibcc: IPD step must be >= 0");
    return BN_OK;
}

void bn_ibcc_init(struct bn_ibcc *st, const struct bn_ibcc_params *p, bn_time_t now)
{
    (void)now;  /* the timer is idle at CCTI_Min; kept for symmetry with the other models */
    *st = (struct bn_ibcc){.p = p, .ccti = p->ccti_min, .next_dec = BN_TIME_NEVER};
}

void bn_ibcc_on_timer(struct bn_ibcc *st, bn_time_t now)
{
    while (st->next_dec <= now && st->next_dec != BN_TIME_NEVER) {
        st->ccti--;
        if (st->ccti > st->p->ccti_min)
            st->next_dec += st->p->ccti_timer;
        else
            st->next_dec = BN_TIME_NEVER;
    }
}

void bn_ibcc_on_becn(struct bn_ibcc *st, bn_time_t now)
{
    const struct bn_ibcc_params *p = st->p;
    bn_ibcc_on_timer(st, now);
    uint32_t idx = st->ccti + p->ccti_increase;
    st->ccti = idx < p->ccti_limit ? idx : p->ccti_limit;
    if (st->ccti > p->ccti_min && st->next_dec == BN_TIME_NEVER)
        st->next_dec = now + p->ccti_timer;
}

double bn_ibcc_rate_for_index(const struct bn_ibcc_params *p, uint32_t ccti)
{
    assert(ccti <= p->ccti_limit);
    double ipd = p->cct ? p->cct[ccti] : (double)ccti * p->ipd_step;
    return p->line_rate_gbps / (1.0 + ipd);
}

double bn_ibcc_rate_gbps(const struct bn_ibcc *st)
{
    return bn_ibcc_rate_for_index(st->p, st->ccti);
}

bool bn_ibcc_should_mark(const struct bn_ibcc_marking *m, uint64_t queue_bytes,
                         uint32_t *since_mark)
{
    if (queue_bytes <= m->threshold_bytes)
        return false;
    if (*since_mark < m->marking_rate) {
        (*since_mark)++;
        return false;
    }
    *since_mark = 0;
    return true;
}
