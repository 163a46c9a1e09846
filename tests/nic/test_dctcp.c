/*
 * DCTCP's window (cc_dctcp.c) against RFC 8257's rules, by hand, with MTU
 * 4096, one ACK per packet, g = 1/16 and a 10-packet start:
 *   slow start:            each unmarked ACK adds 4096 bytes
 *   a round trip's end:    alpha = (1 - g) alpha + g F, F = marked / ACKs
 *   a marked ACK:          cwnd *= 1 - alpha / 2, once per round trip; then
 *   congestion avoidance:  each unmarked ACK adds 4096^2 / cwnd
 */
#include <math.h>

#include "cc_rig.h"

#define RTT_PS 10000000 /* 10 us */

static void rig_init(struct rig *r)
{
    const char *sets[] = {"nic.congestion_control=dctcp", "dctcp.g=0.0625",
                          "dctcp.init_cwnd_pkts=10", NULL};
    rig_setup(r, sets, "dctcp");
}

static void test_rules(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    assert_float_equal(rig_cwnd(&r), 10 * 4096.0, 0);
    assert_float_equal(r.cc->alpha(&r.n, &r.qp), 1, 0); /* Linux's start */
    /* the first ACK ends the first observation (window_end 0): F = 0 */
    rig_ack(&r, false, 10);
    double alpha = 15.0 / 16;
    assert_float_equal(r.cc->alpha(&r.n, &r.qp), alpha, 1e-12);
    assert_float_equal(rig_cwnd(&r), 11 * 4096.0, 0); /* slow start */
    for (int i = 0; i < 9; i++)
        rig_ack(&r, false, 0);
    assert_float_equal(rig_cwnd(&r), 20 * 4096.0, 0);
    /* one round trip later */
    r.f.now += RTT_PS;
    rig_ack(&r, false, 0); /* ends the window of 9 + 1 unmarked ACKs: F = 0 */
    alpha *= 15.0 / 16;
    assert_float_equal(r.cc->alpha(&r.n, &r.qp), alpha, 1e-12);
    double w = 21 * 4096.0;
    rig_ack(&r, true, 0); /* the cut, at this alpha */
    w *= 1 - alpha / 2;
    assert_float_equal(rig_cwnd(&r), w, 1e-6);
    rig_ack(&r, true, 0); /* the same round trip: no second cut */
    assert_float_equal(rig_cwnd(&r), w, 1e-6);
    rig_ack(&r, false, 0); /* congestion avoidance now */
    w += 4096.0 * 4096.0 / w;
    assert_float_equal(rig_cwnd(&r), w, 1e-6);
    /* the next: this round trip's ACKs, 2 marked of 4, give F = 1/2 */
    r.f.now += RTT_PS;
    rig_ack(&r, false, 0);
    alpha = 15.0 / 16 * alpha + 1.0 / 16 * 2.0 / 4;
    assert_float_equal(r.cc->alpha(&r.n, &r.qp), alpha, 1e-12);
    free(r.params);
}

/* Marked every round trip for long, alpha goes to 1 and each cut halves;
 * never below one MTU. */
static void test_bounds(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    for (int i = 0; i < 2000; i++) {
        r.f.now += RTT_PS;
        rig_ack(&r, true, 10);
    }
    assert_true(r.cc->alpha(&r.n, &r.qp) > 0.999);
    assert_float_equal(rig_cwnd(&r), 4096, 0);
    free(r.params);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
