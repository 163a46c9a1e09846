/*
 * A one-packet message's latency equals, to the picosecond, the sum of
 * serialization, propagation (+FEC) and switch forwarding latency along its
 * path, computed here by hand for a k=4 fat-tree path that crosses the core
 * (host-ToR-agg-core-agg-ToR-host: 6 links, 5 switches).
 */
#include "support.h"

#define HOST_PROP_PS 8600   /* 2 m copper at 4.3 ns/m */
#define FAB_PROP_PS 50000   /* 10 m fiber at 5.0 ns/m */
#define FEC_PS 100000       /* link.fec_ns = 100 */
#define SW_PS 300000        /* switch.latency_ns = 300 */

static int64_t ser_ps(int64_t bytes, int64_t gbps) { return bytes * 8 * 1000 / gbps; }

static int64_t simulate(const char *forwarding, const char *encap, const char *fabric_rate)
{
    char fwd[64], enc[64];
    snprintf(fwd, sizeof fwd, "switch.forwarding=%s", forwarding);
    snprintf(enc, sizeof enc, "nic.encap=%s", encap);
    const char *flows = test_tmpfile("# src dst bytes start_us\n0 15 1000 3.5\n");
    char ff[128];
    snprintf(ff, sizeof ff, "workload.flow_file=%s", flows);
    const char *sets[] = {"topology.k=4", "workload.kind=flow_list", ff, "workload.verb=send",
                          "link.fec_ns=100", fwd, enc, fabric_rate, NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    test_run(&sc, &r);
    remove(flows);
    assert_int_equal(r.nflows, 1);
    assert_true(r.flows[0].done);
    int64_t ps = (int64_t)(r.flows[0].fct_us * 1e6 + 0.5);
    bn_results_free(&r);
    return ps;
}

static int64_t fixed_ps(void) { return 2 * HOST_PROP_PS + 4 * FAB_PROP_PS + 6 * FEC_PS + 5 * SW_PS; }

static void test_store_and_forward(void **state)
{
    (void)state;
    /* RoCEv2 SEND of 1000 B: 1000 + 62 header bytes + 20 wire overhead */
    int64_t want = 6 * ser_ps(1082, 100) + fixed_ps();
    assert_int_equal(simulate("store_and_forward", "roce", "link.fabric_rate_gbps=100"), want);
    /* InfiniBand: 1000 + 26 header bytes, no framing overhead */
    want = 6 * ser_ps(1026, 100) + fixed_ps();
    assert_int_equal(simulate("store_and_forward", "ib", "link.fabric_rate_gbps=100"), want);
}

static void test_cut_through(void **state)
{
    (void)state;
    /* each switch forwards once preamble + Ethernet + IPv4 + UDP (50 B) arrived */
    int64_t want = 5 * ser_ps(50, 100) + ser_ps(1082, 100) + fixed_ps();
    assert_int_equal(simulate("cut_through", "roce", "link.fabric_rate_gbps=100"), want);
    /* IB: after LRH + BTH (20 B) */
    want = 5 * ser_ps(20, 100) + ser_ps(1026, 100) + fixed_ps();
    assert_int_equal(simulate("cut_through", "ib", "link.fabric_rate_gbps=100"), want);
}

static void test_cut_through_onto_faster_link(void **state)
{
    (void)state;
    /* 100G hosts, 400G fabric: the ToR cannot cut through onto the faster
     * uplink and waits for the tail; the other four hops cut through. */
    int64_t want = ser_ps(1082, 100) + 4 * ser_ps(50, 400) + ser_ps(1082, 100) + fixed_ps();
    assert_int_equal(simulate("cut_through", "roce", "link.fabric_rate_gbps=400"), want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_and_forward),
        cmocka_unit_test(test_cut_through),
        cmocka_unit_test(test_cut_through_onto_faster_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
