/*
 * TIMELY's rate (cc_timely.c) against the rules of its paper's Algorithm 1,
 * by hand, on a 100 Gb/s NIC with the paper's parameters: T_low 50 us,
 * T_high 500 us, minimum RTT 20 us, alpha 0.875, beta 0.8; delta scaled to
 * the line as HPCC's evaluation does, 100 Mb/s at 100 Gb/s.
 */
#include <math.h>

#include "cc_rig.h"

static double rate(struct rig *r) { return (double)r->qp.rate_bps; }

static void test_rules(void **state)
{
    (void)state;
    struct rig r;
    const char *sets[] = {"nic.congestion_control=timely", NULL};
    rig_setup(&r, sets, "timely");
    double line = 100e9, want = line;
    assert_float_equal(rate(&r), line, 0);
    rig_ack(&r, false, 60); /* the first sample only primes */
    assert_float_equal(rate(&r), want, 0);
    /* gradient > 0 inside [T_low, T_high]: 60 -> 65 us, diff 5 us, EWMA
     * 0.875 x 5 = 4.375 us, gradient 4.375 / 20 */
    rig_ack(&r, false, 65);
    want *= 1 - 0.8 * 4.375 / 20;
    assert_float_equal(rate(&r), want, 1);
    /* above T_high: rate *= 1 - beta (1 - 500 / 700) */
    rig_ack(&r, false, 700);
    want *= 1 - 0.8 * (1 - 500.0 / 700);
    assert_float_equal(rate(&r), want, 2);
    /* below T_low: + delta */
    rig_ack(&r, false, 40);
    want += 100e6;
    assert_float_equal(rate(&r), want, 3);
    /* falling RTTs inside the band: + delta each, five-fold from the fifth */
    double rtts[] = {300, 200, 150, 120, 100, 90, 80};
    for (size_t i = 0; i < sizeof rtts / sizeof rtts[0]; i++) {
        double before = rate(&r);
        rig_ack(&r, false, rtts[i]);
        if (i == 0)
            continue; /* 40 -> 300: a rise */
        double step = rate(&r) - before;
        assert_float_equal(step, i >= 5 ? 500e6 : 100e6, 2);
    }
    free(r.params);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
