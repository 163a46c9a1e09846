/*
 * Conservation in every kind of run: packets and bytes injected = delivered
 * + dropped + in flight, every flow completes (go-back-N recovers every
 * loss), and no flow beats the line-rate bound. Lossy configurations are
 * chosen so drops, NAKs and timeouts really happen.
 */
#include "support.h"

static void check(const char *const *sets, int expect_drops)
{
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    test_run(&sc, &r);
    assert_ledger_balanced(&r);
    if (expect_drops) {
        assert_true(r.pkts_dropped > 0);
        assert_true(r.retransmits > 0);
    }
    double bound = sc.link.rate_gbps;
    for (uint32_t i = 0; i < r.nflows; i++) {
        assert_true(r.flows[i].done);
        assert_true(r.flows[i].throughput_gbps < bound);
        assert_true(r.flows[i].ack_us >= r.flows[i].fct_us);
    }
    bn_results_free(&r);
}

static void test_permutation_lossy(void **state)
{
    (void)state;
    const char *sets[] = {"switch.buffer_bytes=65536", NULL};
    check(sets, 1);
}

static void test_incast_with_timeouts(void **state)
{
    (void)state;
    const char *sets[] = {"workload.kind=incast", "workload.incast_senders=32",
                          "workload.message_bytes=256KB", "switch.buffer_bytes=32768",
                          "nic.rto_us=20", NULL};
    check(sets, 1);
}

static void test_all_to_all_ib_store_and_forward(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=4", "workload.kind=all_to_all",
                          "workload.message_bytes=100000", "nic.encap=ib",
                          "switch.forwarding=store_and_forward", "nic.ack_every=4", NULL};
    check(sets, 0);
}

static void test_leaf_spine_send_small_mtu(void **state)
{
    (void)state;
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=8", "nic.mtu_bytes=1024",
                          "workload.verb=send", "workload.message_bytes=300000",
                          "switch.buffer_bytes=100000", NULL};
    check(sets, 0);
}

static void test_stopped_early_counts_in_flight(void **state)
{
    (void)state;
    const char *sets[] = {"sim.max_time_us=20", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    test_run(&sc, &r);
    assert_true(r.stopped_early);
    assert_true(r.pkts_in_flight > 0);
    assert_true(r.flows_completed < r.nflows);
    assert_ledger_balanced(&r);
    bn_results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_permutation_lossy),
        cmocka_unit_test(test_incast_with_timeouts),
        cmocka_unit_test(test_all_to_all_ib_store_and_forward),
        cmocka_unit_test(test_leaf_spine_send_small_mtu),
        cmocka_unit_test(test_stopped_early_counts_in_flight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
