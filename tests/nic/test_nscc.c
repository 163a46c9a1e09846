/*
 * The NSCC-style window (cc_nscc.c) against its quadrant rule, computed by
 * hand: with MTU 4096, target D = 10 us and beta 0.5,
 *   unmarked, d = 4 us:   cwnd += 4096 * (10 - 4) / 10 = 2457.6
 *   unmarked, d = 20 us:  cwnd += 4096^2 / cwnd
 *   marked,   d = 4 us:   unchanged
 *   marked,   d = 20 us:  cwnd -= cwnd * 0.5 * (20 - 10) / 20, once per round trip
 * and the window stays within [MTU, max].
 */
#include <math.h>

#include "cc_rig.h"

/* nscc's keys (max_cwnd: the ceiling's). */
static void rig_init_with(struct rig *r, const char *max_cwnd)
{
    const char *sets[] = {"nic.congestion_control=nscc", max_cwnd, "nscc.target_delay_us=10",
                          "nscc.beta=0.5", NULL};
    rig_setup(r, sets, "nscc");
}

static void rig_init(struct rig *r)
{
    rig_init_with(r, "nscc.max_cwnd_bytes=200000");
}


static void test_quadrants(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    assert_true(rig_cwnd(&r) == 200000); /* starts at the largest window */
    r.f.now = 1000000000;
    rig_ack(&r, true, 20); /* marked and late: one cut */
    double w = 200000 - 200000 * 0.5 * (20.0 - 10) / 20;
    assert_true(fabs(rig_cwnd(&r) - w) < 1e-6);
    rig_ack(&r, true, 20); /* again within the same round trip: no second cut */
    assert_true(fabs(rig_cwnd(&r) - w) < 1e-6);
    rig_ack(&r, true, 4); /* marked but early: hold */
    assert_true(fabs(rig_cwnd(&r) - w) < 1e-6);
    rig_ack(&r, false, 4); /* unmarked, early: proportional increase */
    w += 4096 * (10.0 - 4) / 10;
    assert_true(fabs(rig_cwnd(&r) - w) < 1e-6);
    rig_ack(&r, false, 20); /* unmarked, late: additive */
    w += 4096.0 * 4096 / w;
    assert_true(fabs(rig_cwnd(&r) - w) < 1e-6);
    r.f.now += 30000000; /* a round trip later a cut is allowed again */
    rig_ack(&r, true, 20);
    w -= w * 0.5 * 0.5;
    assert_true(fabs(rig_cwnd(&r) - w) < 1e-6);
    free(r.params);
}

static void test_bounds(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    for (int i = 0; i < 1000; i++)
        rig_ack(&r, false, 1);
    assert_true(rig_cwnd(&r) == 200000); /* never above the maximum */
    for (int i = 0; i < 1000; i++) {
        r.f.now += 1000000000;
        rig_ack(&r, true, 1000);
    }
    assert_true(rig_cwnd(&r) == 4096); /* never below one MTU */
    free(r.params);
}

/* nscc.max_cwnd_bytes 0: 1.5 BDP at 100 Gb/s, first of the fabric's 12 us
 * round trip (225 kB), then of the least one the flow measures (8 us:
 * 150 kB); a longer sample later does not raise it. */
static void test_bdp_ceiling(void **state)
{
    (void)state;
    struct rig r;
    rig_init_with(&r, "nscc.max_cwnd_bytes=0");
    assert_float_equal(rig_cwnd(&r), 1.5 * 12.5e9 * 12e-6, 1e-6);
    rig_ack(&r, false, 8);
    assert_float_equal(rig_cwnd(&r), 1.5 * 12.5e9 * 8e-6, 1e-6);
    for (int i = 0; i < 1000; i++)
        rig_ack(&r, false, 9);
    assert_float_equal(rig_cwnd(&r), 1.5 * 12.5e9 * 8e-6, 1e-6);
    free(r.params);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quadrants),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_bdp_ceiling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
