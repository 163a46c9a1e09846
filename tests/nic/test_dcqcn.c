/*
 * DCQCN reaction point against its published sources: every expected number is
 * computed here from the published rules (alpha EWMA, RC(1 - alpha/2) cut,
 * fast recovery / additive / hyper increase), not taken from the model.
 * NVIDIA: g = 5/1024, alpha period 1 us, reduce period 4 us, RP timer 300 us,
 * F = 1, AI 5 Mb/s, HAI 50 Mb/s (NVIDIA DOCA "DCQCN CC Parameters", Mellanox
 * DOC-2790; HPCC ns-3 rdma-hw.cc). Paper (htsim): g = 1/256, 55 us,
 * B = 10 MB, F = 5, RAI = line/20, RHAI = line/10 (uet-htsim sim/dcqcn.cpp).
 */
#include <math.h>

#include "support.h"

#include "nic/dcqcn.h"

#define US BN_PS_PER_US
#define LINE 100.0
#define EPS 1e-9

/* cmocka's assert_float_equal rounds to float; compare doubles here. */
#define assert_near(a, b, eps) assert_near_at((a), (b), (eps), #a)
static void assert_near_at(double a, double b, double eps, const char *what)
{
    if (!(fabs(a - b) <= eps))
        fail_msg("%s = %.17g, expected %.17g", what, a, b);
}

static const double NV_KEEP = 1019.0 / 1024.0;  /* G/1024 */
static const double NV_G = 5.0 / 1024.0;
static const double NV_A0 = 1023.0 / 1024.0;     /* INITIAL_ALPHA_VALUE */
static const double PA_KEEP = 255.0 / 256.0;
static const double PA_G = 1.0 / 256.0;
static const double PA_B = 10000000.0;

/* Run the model's own timers up to and including `until`. */
static int run_timers(struct bn_dcqcn *st, bn_time_t until)
{
    int n = 0;
    while (bn_dcqcn_next_timer(st) <= until) {
        bn_dcqcn_on_timer(st, bn_dcqcn_next_timer(st));
        n++;
    }
    return n;
}

static void test_presets(void **state)
{
    (void)state;
    struct bn_error err = {0};
    struct bn_dcqcn_params nv = bn_dcqcn_params_nvidia(LINE), pa = bn_dcqcn_params_paper(LINE);
    assert_int_equal(bn_dcqcn_params_check(&nv, &err), BN_OK);
    assert_int_equal(bn_dcqcn_params_check(&pa, &err), BN_OK);
    assert_true(1.0 - nv.alpha_gain == NV_KEEP);
    assert_int_equal(nv.rate_increase_period, 300 * US);
    assert_int_equal(nv.byte_counter_bytes, 0);
    assert_true(pa.ai_gbps == 5.0 && pa.hai_gbps == 10.0);
    nv.alpha_gain = 0;
    assert_int_equal(bn_dcqcn_params_check(&nv, &err), BN_EINPUT);
}

/* NVIDIA: N CNP-free periods after the first CNP give alpha0 (G/1024)^N exactly. */
static void test_nvidia_alpha_decay(void **state)
{
    (void)state;
    struct bn_dcqcn_params p = bn_dcqcn_params_nvidia(LINE);
    struct bn_dcqcn st;
    bn_dcqcn_init(&st, &p, 0);
    assert_true(bn_dcqcn_alpha(&st, 0) == 0.0);
    const bn_time_t t0 = 7 * US + 300;
    bn_dcqcn_on_cnp(&st, t0);
    assert_true(bn_dcqcn_alpha(&st, t0) == NV_A0);
    const int ns[] = {1, 10, 1000};
    for (int i = 0; i < 3; i++) {
        double want = NV_A0 * pow(NV_KEEP, ns[i]);
        assert_true(bn_dcqcn_alpha(&st, t0 + ns[i] * US) == want);
        assert_true(bn_dcqcn_alpha(&st, t0 + ns[i] * US + US / 2) == want);
        assert_true(bn_dcqcn_alpha(&st, t0 + ns[i] * US - 1) ==
                    NV_A0 * pow(NV_KEEP, ns[i] - 1));
    }
    /* The engine's timer calls in between leave the closed form intact. */
    run_timers(&st, t0 + 1000 * US);
    assert_true(bn_dcqcn_alpha(&st, t0 + 1000 * US) == NV_A0 * pow(NV_KEEP, 1000));
}

/* Paper: alpha starts at 1 and decays (1 - 1/256) per 55 us; a CNP adds g. */
static void test_paper_alpha_decay(void **state)
{
    (void)state;
    struct bn_dcqcn_params p = bn_dcqcn_params_paper(LINE);
    struct bn_dcqcn st;
    bn_dcqcn_init(&st, &p, 0);
    const int ns[] = {1, 10, 1000};
    for (int i = 0; i < 3; i++)
        assert_true(bn_dcqcn_alpha(&st, ns[i] * 55 * US) == pow(PA_KEEP, ns[i]));
    const bn_time_t t = 3 * 55 * US + 5;
    double before = pow(PA_KEEP, 3), after = PA_KEEP * before + PA_G;
    bn_dcqcn_on_cnp(&st, t);
    assert_true(bn_dcqcn_alpha(&st, t) == after);
    assert_true(bn_dcqcn_alpha(&st, t + 10 * 55 * US) == after * pow(PA_KEEP, 10));
    /* The cut used the alpha in force before the update. */
    assert_near(bn_dcqcn_rate_gbps(&st), LINE * (1 - before / 2), EPS);
    assert_true(bn_dcqcn_target_gbps(&st) == LINE);
}

/* One cut is RC (1 - alpha/2) with the alpha in force at the cut. */
static void test_cut_uses_alpha_in_force(void **state)
{
    (void)state;
    struct bn_dcqcn_params p = bn_dcqcn_params_nvidia(LINE);
    struct bn_dcqcn st;
    bn_dcqcn_init(&st, &p, 0);
    const bn_time_t t0 = 10 * US;
    bn_dcqcn_on_cnp(&st, t0);
    double rc1 = LINE * (1 - NV_A0 / 2);  /* = 50.048828125 */
    assert_true(bn_dcqcn_rate_gbps(&st) == 50.048828125);
    assert_true(bn_dcqcn_rate_gbps(&st) == rc1);
    assert_true(bn_dcqcn_target_gbps(&st) == LINE);
    bn_dcqcn_on_cnp(&st, t0 + 10 * US);
    double a = NV_A0 * pow(NV_KEEP, 10);
    assert_near(bn_dcqcn_rate_gbps(&st), rc1 * (1 - a / 2), EPS);
    /* No timer increase since the last cut: CLAMP_TGT_RATE_AFTER_TIME_INC keeps RT. */
    assert_true(bn_dcqcn_target_gbps(&st) == LINE);

    /* Paper: RT <- RC at every CNP. */
    struct bn_dcqcn_params pp = bn_dcqcn_params_paper(LINE);
    bn_dcqcn_init(&st, &pp, 0);
    bn_dcqcn_on_cnp(&st, 0);
    assert_true(bn_dcqcn_rate_gbps(&st) == 50.0);
    assert_true(bn_dcqcn_alpha(&st, 0) == 1.0);
    /* Timer T at 55 and 110 us (fast recovery): RC 75, then 87.5. */
    bn_dcqcn_on_cnp(&st, 2 * 55 * US + 3);
    assert_true(bn_dcqcn_target_gbps(&st) == 87.5);
    assert_near(bn_dcqcn_rate_gbps(&st), 87.5 * (1 - pow(PA_KEEP, 2) / 2), EPS);
}

/* RPG_MIN_DEC_FAC caps one cut; RPG_MIN_RATE floors every cut. */
static void test_nvidia_floors(void **state)
{
    (void)state;
    struct bn_dcqcn_params p = bn_dcqcn_params_nvidia(LINE);
    struct bn_dcqcn st;
    p.max_dec_pct = 20;
    bn_dcqcn_init(&st, &p, 0);
    bn_dcqcn_on_cnp(&st, 0);
    assert_near(bn_dcqcn_rate_gbps(&st), 80.0, EPS);

    p = bn_dcqcn_params_nvidia(LINE);
    p.min_rate_gbps = 60;
    bn_dcqcn_init(&st, &p, 0);
    bn_dcqcn_on_cnp(&st, 0);
    assert_true(bn_dcqcn_rate_gbps(&st) == 60.0);

    /* Defaults: a CNP every 4 us roughly halves RC each time, down to 1 Mb/s. */
    p = bn_dcqcn_params_nvidia(LINE);
    bn_dcqcn_init(&st, &p, 0);
    double prev = LINE;
    for (int i = 0; i < 40; i++) {
        bn_dcqcn_on_cnp(&st, (bn_time_t)i * 4 * US);
        double r = bn_dcqcn_rate_gbps(&st);
        assert_true(r >= prev * 0.5 && r >= 0.001);
        prev = r;
    }
    assert_true(bn_dcqcn_rate_gbps(&st) == 0.001);
}

/* Two or three CNPs within the 4 us rate-reduce period cut once, then once more at 4 us. */
static void test_nvidia_reduce_period(void **state)
{
    (void)state;
    struct bn_dcqcn_params p = bn_dcqcn_params_nvidia(LINE);
    struct bn_dcqcn st;
    bn_dcqcn_init(&st, &p, 0);
    const bn_time_t t0 = 20 * US;
    bn_dcqcn_on_cnp(&st, t0);
    double rc1 = bn_dcqcn_rate_gbps(&st);
    assert_int_equal(bn_dcqcn_next_timer(&st), t0 + 300 * US);
    bn_dcqcn_on_cnp(&st, t0 + 1 * US);
    assert_true(bn_dcqcn_rate_gbps(&st) == rc1);
    assert_int_equal(bn_dcqcn_next_timer(&st), t0 + 4 * US);
    bn_dcqcn_on_cnp(&st, t0 + 2 * US);
    assert_true(bn_dcqcn_rate_gbps(&st) == rc1);
    assert_int_equal(bn_dcqcn_next_timer(&st), t0 + 4 * US);
    bn_dcqcn_on_timer(&st, t0 + 4 * US - 1);
    assert_true(bn_dcqcn_rate_gbps(&st) == rc1);

    /* Alpha by periods: [t0,+1) none, [+1,+2) CNP, [+2,+3) CNP, [+3,+4) none. */
    double a1 = NV_A0 * NV_KEEP, a2 = NV_KEEP * a1 + NV_G, a3 = NV_KEEP * a2 + NV_G;
    double a4 = a3 * NV_KEEP;
    assert_true(bn_dcqcn_alpha(&st, t0 + 4 * US) == a4);
    bn_dcqcn_on_timer(&st, t0 + 4 * US);
    assert_near(bn_dcqcn_rate_gbps(&st), rc1 * (1 - a4 / 2), EPS);
    /* The cut restarted the RP timer. */
    assert_int_equal(bn_dcqcn_next_timer(&st), t0 + 304 * US);
    /* A CNP 1 us later is again deferred to 4 us after that cut. */
    double rc2 = bn_dcqcn_rate_gbps(&st);
    bn_dcqcn_on_cnp(&st, t0 + 5 * US);
    assert_true(bn_dcqcn_rate_gbps(&st) == rc2);
    assert_int_equal(bn_dcqcn_next_timer(&st), t0 + 8 * US);
}

/* Fast recovery halves the distance to RT; with F = 3 that is three events. */
static void test_nvidia_fast_recovery(void **state)
{
    (void)state;
    struct bn_dcqcn_params p = bn_dcqcn_params_nvidia(LINE);
    p.fast_recovery = 3;
    struct bn_dcqcn st;
    bn_dcqcn_init(&st, &p, 0);
    bn_dcqcn_on_cnp(&st, 0);
    const double want[] = {75.0244140625, 87.51220703125, 93.756103515625};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(bn_dcqcn_next_timer(&st), (k + 1) * 300 * US);
        bn_dcqcn_on_timer(&st, (k + 1) * 300 * US);
        assert_true(bn_dcqcn_rate_gbps(&st) == want[k]);
        assert_true(bn_dcqcn_target_gbps(&st) == LINE);
    }
    /* Stage F: additive, but RT is already at the line rate and stays capped there. */
    bn_dcqcn_on_timer(&st, 1200 * US);
    assert_true(bn_dcqcn_target_gbps(&st) == LINE);
    assert_true(bn_dcqcn_rate_gbps(&st) == (93.756103515625 + LINE) / 2);
}

/* Default F = 1: stage 0 fast recovery, stage 1 RT += AI, stage >= 2 RT += HAI. */
static void test_nvidia_additive_hyper(void **state)
{
    (void)state;
    struct bn_dcqcn_params p = bn_dcqcn_params_nvidia(LINE);
    struct bn_dcqcn st;
    bn_dcqcn_init(&st, &p, 0);
    bn_dcqcn_on_cnp(&st, 0);
    double rc = LINE * (1 - NV_A0 / 2);
    bn_dcqcn_on_timer(&st, 300 * US);
    rc = (rc + LINE) / 2;
    assert_true(bn_dcqcn_rate_gbps(&st) == rc);
    /* A timer increase happened, so this cut clamps RT to RC. Alpha: 301 quiet periods. */
    bn_dcqcn_on_cnp(&st, 301 * US);
    double rt = rc;
    rc = rc * (1 - NV_A0 * pow(NV_KEEP, 301) / 2);
    assert_true(bn_dcqcn_target_gbps(&st) == rt);
    assert_near(bn_dcqcn_rate_gbps(&st), rc, EPS);
    const double add[] = {0, 0.005, 0.050, 0.050};  /* FR, AI, HAI, HAI */
    for (int k = 0; k < 4; k++) {
        bn_time_t t = 301 * US + (k + 1) * 300 * US;
        assert_int_equal(bn_dcqcn_next_timer(&st), t);
        bn_dcqcn_on_timer(&st, t);
        rt += add[k];
        rc = (rc + rt) / 2;
        assert_near(bn_dcqcn_target_gbps(&st), rt, EPS);
        assert_near(bn_dcqcn_rate_gbps(&st), rc, EPS);
    }
}

/* Back at line rate: no timer; alpha below 1/1024 then means the next CNP is a first CNP. */
static void test_nvidia_recovery_and_release(void **state)
{
    (void)state;
    struct bn_dcqcn_params p = bn_dcqcn_params_nvidia(LINE);
    struct bn_dcqcn st;
    bn_dcqcn_init(&st, &p, 0);
    assert_int_equal(bn_dcqcn_next_timer(&st), BN_TIME_NEVER);
    bn_dcqcn_on_cnp(&st, 0);
    /* Gap 49.951171875 halves per event; below 1 Mb/s after 16 (2^16 > 49951). */
    int events = run_timers(&st, 1000 * 300 * US);
    assert_int_equal(events, 16);
    assert_true(bn_dcqcn_rate_gbps(&st) == LINE && bn_dcqcn_target_gbps(&st) == LINE);
    assert_int_equal(bn_dcqcn_next_timer(&st), BN_TIME_NEVER);
    /* 5000 periods later alpha = (1023/1024)(1019/1024)^5000 << 1/1024: released. */
    bn_dcqcn_on_cnp(&st, 5000 * US);
    assert_true(bn_dcqcn_rate_gbps(&st) == 50.048828125);
    assert_true(bn_dcqcn_alpha(&st, 5000 * US) == NV_A0);

    /* Recovered within 16 us (1 us timer): alpha still high, the limiter is kept. */
    p.rate_increase_period = 1 * US;
    bn_dcqcn_init(&st, &p, 0);
    bn_dcqcn_on_cnp(&st, 0);
    assert_int_equal(run_timers(&st, 100 * US), 16);
    assert_int_equal(bn_dcqcn_next_timer(&st), BN_TIME_NEVER);
    bn_dcqcn_on_cnp(&st, 20 * US);
    double a = NV_A0 * pow(NV_KEEP, 20);
    assert_near(bn_dcqcn_rate_gbps(&st), LINE * (1 - a / 2), EPS);
}

/* Paper: five fast-recovery timer events, then additive; RC capped at the line. */
static void test_paper_timer_increase(void **state)
{
    (void)state;
    struct bn_dcqcn_params p = bn_dcqcn_params_paper(LINE);
    struct bn_dcqcn st;
    bn_dcqcn_init(&st, &p, 0);
    bn_dcqcn_on_cnp(&st, 0);
    const double want[] = {75, 87.5, 93.75, 96.875, 98.4375};
    for (int k = 0; k < 5; k++) {
        assert_int_equal(bn_dcqcn_next_timer(&st), (k + 1) * 55 * US);
        bn_dcqcn_on_timer(&st, (k + 1) * 55 * US);
        assert_true(bn_dcqcn_rate_gbps(&st) == want[k]);
    }
    /* T = 6 > F, BC = 0: RT += line/20 = 105; (98.4375 + 105)/2 > 100: capped. */
    bn_dcqcn_on_timer(&st, 6 * 55 * US);
    assert_true(bn_dcqcn_rate_gbps(&st) == LINE);
    assert_int_equal(bn_dcqcn_next_timer(&st), BN_TIME_NEVER);
}

/* Paper: every B bytes is one increase event; both counters past F give hyper increase. */
static void test_paper_byte_counter(void **state)
{
    (void)state;
    struct bn_dcqcn_params p = bn_dcqcn_params_paper(LINE);
    struct bn_dcqcn st;
    bn_dcqcn_init(&st, &p, 0);
    bn_dcqcn_on_cnp(&st, 0);      /* RC 50, RT 100, alpha stays 1 */
    bn_dcqcn_on_cnp(&st, 1 * US); /* RT 50, RC 25 */
    assert_true(bn_dcqcn_rate_gbps(&st) == 25.0 && bn_dcqcn_target_gbps(&st) == 50.0);
    assert_int_equal(bn_dcqcn_next_timer(&st), 56 * US);
    run_timers(&st, 280 * US);    /* T = 1..5: RC = 50 - 25/32 */
    assert_true(bn_dcqcn_rate_gbps(&st) == 50.0 - 25.0 / 32);

    const uint64_t B = (uint64_t)PA_B;
    bn_dcqcn_on_sent(&st, B - 1, 300 * US);
    assert_true(bn_dcqcn_rate_gbps(&st) == 50.0 - 25.0 / 32);
    bn_dcqcn_on_sent(&st, 1, 300 * US);  /* BC = 1, fast recovery */
    assert_true(bn_dcqcn_rate_gbps(&st) == 50.0 - 25.0 / 64);
    bn_dcqcn_on_sent(&st, 4 * B, 300 * US);  /* BC = 2..5 */
    assert_true(bn_dcqcn_rate_gbps(&st) == 50.0 - 25.0 / 1024);
    bn_dcqcn_on_sent(&st, B, 300 * US);  /* BC = 6, T = 5: additive */
    assert_true(bn_dcqcn_target_gbps(&st) == 55.0);
    assert_true(bn_dcqcn_rate_gbps(&st) == 52.48779296875);
    bn_dcqcn_on_timer(&st, 331 * US);    /* T = 6, BC = 6: hyper, RT += 1 * 10 */
    assert_true(bn_dcqcn_target_gbps(&st) == 65.0);
    assert_true(bn_dcqcn_rate_gbps(&st) == 58.743896484375);
    bn_dcqcn_on_sent(&st, B, 340 * US);  /* BC = 7, min = 6: RT += 1 * 10 */
    assert_true(bn_dcqcn_target_gbps(&st) == 75.0);
    assert_true(bn_dcqcn_rate_gbps(&st) == 66.8719482421875);
    bn_dcqcn_on_timer(&st, 386 * US);    /* T = 7, min = 7: RT += 2 * 10 */
    assert_true(bn_dcqcn_target_gbps(&st) == 95.0);
    assert_true(bn_dcqcn_rate_gbps(&st) == 80.93597412109375);

    /* The NVIDIA form has no byte counter. */
    struct bn_dcqcn_params nv = bn_dcqcn_params_nvidia(LINE);
    bn_dcqcn_init(&st, &nv, 0);
    bn_dcqcn_on_cnp(&st, 0);
    bn_dcqcn_on_sent(&st, 100 * B, 1 * US);
    assert_true(bn_dcqcn_rate_gbps(&st) == 50.048828125);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_nvidia_alpha_decay),
        cmocka_unit_test(test_paper_alpha_decay),
        cmocka_unit_test(test_cut_uses_alpha_in_force),
        cmocka_unit_test(test_nvidia_floors),
        cmocka_unit_test(test_nvidia_reduce_period),
        cmocka_unit_test(test_nvidia_fast_recovery),
        cmocka_unit_test(test_nvidia_additive_hyper),
        cmocka_unit_test(test_nvidia_recovery_and_release),
        cmocka_unit_test(test_paper_timer_increase),
        cmocka_unit_test(test_paper_byte_counter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
