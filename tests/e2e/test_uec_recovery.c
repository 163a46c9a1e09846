/*
 * Ultra Ethernet-style runs against their ideal FCT (docs/load_balancing.md):
 *  - NSCC's window ceiling follows the path's bandwidth-delay product: on
 *    100 Gb/s links with 1 us hops a fixed 150 kB window held a sprayed
 *    permutation to about 61 Gb/s (mean slowdown 1.54); 1.5 BDP lifts it;
 *  - with trimming and shallow (35-packet) queues, trimmed headers, ACKs
 *    and NAKs have the control class's room: without it some are dropped
 *    and their flows wait for the retransmission timeout (a tail at 1.76x
 *    the ideal); with it nothing is dropped and no flow times out.
 */
#include "support.h"

static void run(const char *const *sets, struct bn_results *r)
{
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, r);
    assert_int_equal(r->flows_completed, r->nflows);
}

static void test_nscc_window_follows_bdp(void **state)
{
    (void)state;
    struct bn_results fixed, bdp;
    const char *a[] = {"fabric=uec-800g", "link.rate_gbps=100", "link.host_cable=fiber",
                       "link.host_cable_m=200", "link.fabric_cable_m=200",
                       "nscc.max_cwnd_bytes=150000", NULL};
    const char *b[] = {"fabric=uec-800g", "link.rate_gbps=100", "link.host_cable=fiber",
                       "link.host_cable_m=200", "link.fabric_cable_m=200", NULL};
    run(a, &fixed);
    run(b, &bdp);
    printf("1 us hops, 100G: 150 kB window %.1f Gb/s (slowdown %.2f); 1.5 BDP %.1f Gb/s "
           "(slowdown %.2f)\n", fixed.throughput_gbps.mean, fixed.fct_slowdown.mean,
           bdp.throughput_gbps.mean, bdp.fct_slowdown.mean);
    assert_true(fixed.fct_slowdown.mean > 1.4);
    assert_true(bdp.fct_slowdown.mean < 1.2);
    assert_true(bdp.throughput_gbps.mean > 80);
    bn_results_free(&fixed);
    bn_results_free(&bdp);
}

static void test_control_frames_not_lost(void **state)
{
    (void)state;
    struct bn_results shared, reserved;
    const char *a[] = {"topology.k=16", "fabric=uec-800g", "link.rate_gbps=100",
                       "switch.buffer_bytes=146230", "nic.congestion_control=none",
                       "observe.sample_us=0", "switch.control_reserve_bytes=0", NULL};
    const char *b[] = {"topology.k=16", "fabric=uec-800g", "link.rate_gbps=100",
                       "switch.buffer_bytes=146230", "nic.congestion_control=none",
                       "observe.sample_us=0", NULL};
    run(a, &shared);
    run(b, &reserved);
    printf("35-packet queues, trimming: shared %llu drops, %llu timeouts, worst slowdown %.2f; "
           "control class %llu drops, %llu timeouts, worst slowdown %.2f\n",
           (unsigned long long)shared.pkts_dropped, (unsigned long long)shared.timeouts,
           shared.fct_slowdown.max, (unsigned long long)reserved.pkts_dropped,
           (unsigned long long)reserved.timeouts, reserved.fct_slowdown.max);
    assert_true(shared.pkts_dropped > 0 && shared.timeouts > 0);
    assert_true(shared.fct_slowdown.max > 1.5);
    assert_int_equal(reserved.pkts_dropped, 0);
    assert_int_equal(reserved.timeouts, 0);
    assert_true(reserved.trimmed > 0);
    assert_true(reserved.fct_slowdown.max < 1.3);
    bn_results_free(&shared);
    bn_results_free(&reserved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nscc_window_follows_bdp),
        cmocka_unit_test(test_control_frames_not_lost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
