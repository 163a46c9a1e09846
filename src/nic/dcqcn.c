/*
 * DCQCN reaction point, NVIDIA firmware and paper forms; see dcqcn.h for what
 * is modelled and the sources (NVIDIA DOCA "DCQCN CC Parameters", Mellanox
 * DOC-2790, HPCC ns-3 rdma-hw.cc, uet-htsim dcqcn.cpp).
 *
 * Timeline of the NVIDIA form, all anchored at events rather than at a global
 * clock: alpha periods start at the first CNP; the RP timer restarts at every
 * reduction; a reduction runs at once if the previous one is at least a
 * rate-reduce period old, else it is deferred to exactly that age. The paper
 * form restarts its timer, counters and alpha decay at every CNP.
 */
#include "nic/dcqcn.h"

#include <assert.h>
#include <math.h>

#include "core/time.h"

enum inc_source { INC_TIMER, INC_BYTES };

struct bn_dcqcn_params bn_dcqcn_params_nvidia(double line_rate_gbps)
{
    return (struct bn_dcqcn_params){
        .variant = BN_DCQCN_NVIDIA,
        .line_rate_gbps = line_rate_gbps,
        .min_rate_gbps = 0.001,
        .ai_gbps = 0.005,
        .hai_gbps = 0.050,
        .alpha_gain = (1024.0 - 1019.0) / 1024.0,
        .initial_alpha = 1023.0 / 1024.0,
        .rate_on_first_cnp_gbps = 0,
        .max_dec_pct = 50,
        .fast_recovery = 1,
        .byte_counter_bytes = 0,
        .alpha_period = 1 * BN_PS_PER_US,
        .rate_reduce_period = 4 * BN_PS_PER_US,
        .rate_increase_period = 300 * BN_PS_PER_US,
        .clamp_target = false,
        .clamp_target_after_time_inc = true,
    };
}

struct bn_dcqcn_params bn_dcqcn_params_paper(double line_rate_gbps)
{
    return (struct bn_dcqcn_params){
        .variant = BN_DCQCN_PAPER,
        .line_rate_gbps = line_rate_gbps,
        .min_rate_gbps = 0.001,
        .ai_gbps = line_rate_gbps / 20,
        .hai_gbps = line_rate_gbps / 10,
        .alpha_gain = 1.0 / 256.0,
        .initial_alpha = 1.0,
        .rate_on_first_cnp_gbps = 0,
        .max_dec_pct = 50,
        .fast_recovery = 5,
        .byte_counter_bytes = 10000000,
        .alpha_period = 55 * BN_PS_PER_US,
        .rate_reduce_period = 0,
        .rate_increase_period = 55 * BN_PS_PER_US,
        .clamp_target = true,
        .clamp_target_after_time_inc = false,
    };
}

int bn_dcqcn_params_check(const struct bn_dcqcn_params *p, struct bn_error *err)
{
    if (p->variant != BN_DCQCN_NVIDIA && p->variant != BN_DCQCN_PAPER)
        return bn_fail(err, BN_EINPUT, "dcqcn: unknown variant %d", (int)p->variant);
    if (!(p->line_rate_gbps > 0))
        return bn_fail(err, BN_EINPUT, "dcqcn: line rate must be > 0 Gb/s");
    if (!(p->min_rate_gbps > 0 && p->min_rate_gbps <= p->line_rate_gbps))
        return bn_fail(err, BN_EINPUT, "dcqcn: min rate must be in (0, line rate]");
    if (!(p->ai_gbps >= 0 && p->hai_gbps >= 0))
        return bn_fail(err, BN_EINPUT, "dcqcn: AI and HAI must be >= 0");
    if (!(p->alpha_gain > 0 && p->alpha_gain <= 1))
        return bn_fail(err, BN_EINPUT, "dcqcn: alpha gain g must be in (0, 1]");
    if (!(p->initial_alpha >= 0 && p->initial_alpha <= 1))
        return bn_fail(err, BN_EINPUT, "dcqcn: initial alpha must be in [0, 1]");
    if (!(p->max_dec_pct > 0 && p->max_dec_pct <= 100))
        return bn_fail(err, BN_EINPUT, "dcqcn: max decrease must be in (0, 100] %%");
    if (!(p->rate_on_first_cnp_gbps >= 0))
        return bn_fail(err, BN_EINPUT, "dcqcn: rate on first CNP must be >= 0");
    if (p->alpha_period <= 0 || p->rate_increase_period <= 0)
        return bn_fail(err, BN_EINPUT, "dcqcn: alpha and rate-increase periods must be > 0");
    if (p->rate_reduce_period < 0)
        return bn_fail(err, BN_EINPUT, "dcqcn: rate-reduce period must be >= 0");
    return BN_OK;
}

void bn_dcqcn_init(struct bn_dcqcn *st, const struct bn_dcqcn_params *p, bn_time_t now)
{
    *st = (struct bn_dcqcn){
        .p = p,
        .rc = p->line_rate_gbps,
        .rt = p->line_rate_gbps,
        /* NVIDIA has no alpha before the first CNP; report 0 (no congestion). */
        .alpha0 = p->variant == BN_DCQCN_PAPER ? p->initial_alpha : 0,
        .alpha_t = now,
        .next_inc = BN_TIME_NEVER,
        .next_cut = BN_TIME_NEVER,
        .last_cut = BN_TIME_NEVER,
    };
}

/*
 * Alpha after the whole periods elapsed since alpha_t. The first period gets
 * the CNP update if one arrived in it; the rest decay, all at once with pow so
 * that N CNP-free periods give exactly alpha0 * (1-g)^N.
 */
double bn_dcqcn_alpha(const struct bn_dcqcn *st, bn_time_t now)
{
    const struct bn_dcqcn_params *p = st->p;
    assert(now >= st->alpha_t);
    int64_t n = (now - st->alpha_t) / p->alpha_period;
    if (n == 0)
        return st->alpha0;
    double keep = 1.0 - p->alpha_gain, a = st->alpha0;
    if (st->alpha_cnp) {
        a = keep * a + p->alpha_gain;
        n--;
    }
    return a * pow(keep, (double)n);
}

/* Fold the completed periods into alpha0 so a new CNP flag starts clean. */
static void alpha_note_cnp(struct bn_dcqcn *st, bn_time_t now)
{
    int64_t n = (now - st->alpha_t) / st->p->alpha_period;
    if (n > 0) {
        st->alpha0 = bn_dcqcn_alpha(st, now);
        st->alpha_t += n * st->p->alpha_period;
    }
    st->alpha_cnp = true;
}

static void set_alpha(struct bn_dcqcn *st, double a, bn_time_t now)
{
    st->alpha0 = a;
    st->alpha_t = now;
    st->alpha_cnp = false;
}

/* RC * (1 - alpha/2), floored by the max decrease per cut and the min rate. */
static double reduced_rate(const struct bn_dcqcn_params *p, double rc, double alpha)
{
    double r = rc * (1.0 - alpha / 2.0);
    double floor_dec = rc * (1.0 - p->max_dec_pct / 100.0);
    if (r < floor_dec)
        r = floor_dec;
    if (r < p->min_rate_gbps)
        r = p->min_rate_gbps;
    return r;
}

/* One reduction at time t; restarts the increase machinery (stage 0). */
static void cut(struct bn_dcqcn *st, bn_time_t t)
{
    const struct bn_dcqcn_params *p = st->p;
    double a = bn_dcqcn_alpha(st, t);
    if (p->clamp_target || (p->clamp_target_after_time_inc && st->t_events > 0))
        st->rt = st->rc;
    st->rc = reduced_rate(p, st->rc, a);
    st->t_events = 0;
    st->bc_events = 0;
    st->bytes = 0;
    st->last_cut = t;
    st->next_cut = BN_TIME_NEVER;
    st->next_inc = t + p->rate_increase_period;
}

static bool recovered(const struct bn_dcqcn *st)
{
    return st->rc >= st->p->line_rate_gbps;
}

/* HPCC *Mlx rule: stage < F fast recovery, == F additive, > F hyper. */
static void raise_target_nvidia(struct bn_dcqcn *st)
{
    const struct bn_dcqcn_params *p = st->p;
    if (st->t_events == p->fast_recovery)
        st->rt += p->ai_gbps;
    else if (st->t_events > p->fast_recovery)
        st->rt += p->hai_gbps;
    if (st->rt > p->line_rate_gbps)
        st->rt = p->line_rate_gbps;
    st->t_events++;
}

/* htsim rule, counters already incremented: max(T,BC) <= F fast recovery. */
static void raise_target_paper(struct bn_dcqcn *st)
{
    const struct bn_dcqcn_params *p = st->p;
    uint32_t hi = st->t_events > st->bc_events ? st->t_events : st->bc_events;
    uint32_t lo = st->t_events < st->bc_events ? st->t_events : st->bc_events;
    if (hi <= p->fast_recovery)
        return;
    if (lo > p->fast_recovery)
        st->rt += (double)(lo - p->fast_recovery) * p->hai_gbps;
    else
        st->rt += p->ai_gbps;
}

/* One increase event at time t from the timer or the byte counter. */
static void increase(struct bn_dcqcn *st, enum inc_source src, bn_time_t t)
{
    const struct bn_dcqcn_params *p = st->p;
    double line = p->line_rate_gbps;
    if (p->variant == BN_DCQCN_NVIDIA) {
        raise_target_nvidia(st);
    } else {
        if (src == INC_TIMER)
            st->t_events++;
        else
            st->bc_events++;
        raise_target_paper(st);
    }
    st->rc = (st->rc + st->rt) / 2.0;
    if (st->rc > line || line - st->rc < BN_DCQCN_RATE_EPS_GBPS)
        st->rc = line;
    if (recovered(st)) {
        st->rt = line;  /* htsim lets RT run past the line; it is unused from here */
        st->next_inc = BN_TIME_NEVER;
        st->bytes = 0;
    } else if (src == INC_TIMER) {
        st->next_inc = t + p->rate_increase_period;
    }
}

bn_time_t bn_dcqcn_next_timer(const struct bn_dcqcn *st)
{
    return st->next_cut < st->next_inc ? st->next_cut : st->next_inc;
}

/* Run due events in time order; a cut wins a tie (it restarts the timer). */
static void advance(struct bn_dcqcn *st, bn_time_t now)
{
    for (;;) {
        bn_time_t t = bn_dcqcn_next_timer(st);
        if (t > now || t == BN_TIME_NEVER)
            return;
        if (st->next_cut <= st->next_inc)
            cut(st, st->next_cut);
        else
            increase(st, INC_TIMER, st->next_inc);
    }
}

void bn_dcqcn_on_timer(struct bn_dcqcn *st, bn_time_t now)
{
    advance(st, now);
}

/* NVIDIA: a CNP is "first" when no rate limiter is engaged (see dcqcn.h). */
static bool released(const struct bn_dcqcn *st, bn_time_t now)
{
    return !st->engaged ||
           (recovered(st) && bn_dcqcn_alpha(st, now) < BN_DCQCN_RELEASE_ALPHA);
}

static void first_cnp(struct bn_dcqcn *st, bn_time_t now)
{
    const struct bn_dcqcn_params *p = st->p;
    st->engaged = true;
    /* The first CNP is already counted by setting alpha, as in HPCC. */
    set_alpha(st, p->initial_alpha, now);
    st->t_events = 0;
    st->last_cut = BN_TIME_NEVER;
    st->next_cut = BN_TIME_NEVER;
    if (p->rate_on_first_cnp_gbps > 0) {
        double r = p->rate_on_first_cnp_gbps;
        st->rc = st->rt = r < p->line_rate_gbps ? r : p->line_rate_gbps;
    }
}

static void on_cnp_nvidia(struct bn_dcqcn *st, bn_time_t now)
{
    const struct bn_dcqcn_params *p = st->p;
    if (released(st, now))
        first_cnp(st, now);
    else
        alpha_note_cnp(st, now);
    if (st->next_cut != BN_TIME_NEVER)
        return;  /* a deferred cut will cover this CNP too */
    if (st->last_cut == BN_TIME_NEVER || now - st->last_cut >= p->rate_reduce_period)
        cut(st, now);
    else
        st->next_cut = st->last_cut + p->rate_reduce_period;
}

/* Paper: cut with the alpha in force, then raise alpha and restart its decay. */
static void on_cnp_paper(struct bn_dcqcn *st, bn_time_t now)
{
    const struct bn_dcqcn_params *p = st->p;
    double a = bn_dcqcn_alpha(st, now);
    cut(st, now);
    set_alpha(st, (1.0 - p->alpha_gain) * a + p->alpha_gain, now);
}

void bn_dcqcn_on_cnp(struct bn_dcqcn *st, bn_time_t now)
{
    advance(st, now);
    if (st->p->variant == BN_DCQCN_NVIDIA)
        on_cnp_nvidia(st, now);
    else
        on_cnp_paper(st, now);
}

void bn_dcqcn_on_sent(struct bn_dcqcn *st, uint64_t bytes, bn_time_t now)
{
    const struct bn_dcqcn_params *p = st->p;
    advance(st, now);
    if (p->variant != BN_DCQCN_PAPER || p->byte_counter_bytes == 0 || recovered(st))
        return;
    /* Keep the remainder (htsim zeroes it) so large batches count every B. */
    st->bytes += bytes;
    while (st->bytes >= p->byte_counter_bytes && !recovered(st)) {
        st->bytes -= p->byte_counter_bytes;
        increase(st, INC_BYTES, now);
    }
}
