/*
 * Swift's fabric window (cc_swift.c) against the paper's rules, by hand:
 * base 12 us (the rig's fabric round trip), 0 switches, fs_range 60 us,
 * fs_min 0.1 and fs_max 100 packets, ai 1, beta 0.8, max_mdf 0.5; the
 * window starts at 100 packets, where the flow-scaled part is 0, so the
 * target is 12 us.
 */
#include <math.h>

#include "cc_rig.h"

#define RTT_PS 12000000LL

static void test_rules(void **state)
{
    (void)state;
    struct rig r;
    const char *sets[] = {"nic.congestion_control=swift", NULL};
    rig_setup(&r, sets, "swift");
    double w = 100 * 4096.0;
    assert_float_equal(rig_cwnd(&r), w, 1e-6);
    r.f.now += 3 * RTT_PS; /* a round trip (20 us) after the start */
    rig_ack(&r, false, 20); /* above: 20 > 12, cut by max(1 - 0.8 x 8/20, 0.5) = 0.68 */
    w *= 1 - 0.8 * 8.0 / 20;
    assert_float_equal(rig_cwnd(&r), w, 1e-6);
    rig_ack(&r, false, 20); /* the same round trip: no second cut */
    assert_float_equal(rig_cwnd(&r), w, 1e-6);
    /* now the target has a flow-scaled part: alpha / sqrt(68) + beta with
     * alpha = 60 / (1/sqrt(0.1) - 1/sqrt(100)), beta = -alpha / 10 */
    double alpha = 60.0 / (1 / sqrt(0.1) - 0.1), fs = alpha / sqrt(68) - alpha / 10;
    double t_us = 12 + fs;
    assert_true(t_us > 12 && t_us < 20);
    rig_ack(&r, false, t_us - 0.5); /* below it: + 1/68 packet */
    w += 4096.0 / 68;
    assert_float_equal(rig_cwnd(&r), w, 1e-3);
    /* far above, a round trip later: the cut is at most max_mdf */
    r.f.now += 3 * RTT_PS;
    rig_ack(&r, false, 1000);
    w *= 0.5;
    assert_float_equal(rig_cwnd(&r), w, 1e-3);
    free(r.params);
}

/* Under one packet the window paces: rate = cwnd x MTU / rtt. */
static void test_paced(void **state)
{
    (void)state;
    struct rig r;
    const char *sets[] = {"nic.congestion_control=swift", NULL};
    rig_setup(&r, sets, "swift");
    for (int i = 0; i < 20; i++) {
        r.f.now += 1000 * RTT_PS;
        rig_ack(&r, false, 1000);
    }
    double pkts = rig_cwnd(&r) / 4096;
    assert_true(pkts < 1);
    assert_float_equal((double)r.qp.rate_bps, floor(pkts * 4096 * 8 / 1000e-6), 2);
    free(r.params);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_paced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
