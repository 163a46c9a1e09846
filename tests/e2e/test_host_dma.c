/*
 * The receive side of the endpoint model (docs/endpoints.md): a host NIC
 * writes received payload to memory at its PCIe goodput, in arrival
 * order, and takes a packet in as its write starts. PCIe Gen3 x8 carries
 * 8 GT/s x 128/130 x 256/280 x 8 lanes = 57.6 Gb/s of payload, below the
 * 100 Gb/s links: a 2-to-1 incast of 4 MB then runs at the DMA's rate,
 * 28.8 Gb/s a flow, and the data waits in the receiver's NIC. Swift's
 * endpoint window (Kumar et al., SIGCOMM 2020) holds that wait near its
 * target at the same throughput; PCIe faster than the link (the presets)
 * leaves only a small packet behind a full one waiting, for tens of ns.
 * On a lossy link the NIC's receive buffer (nic.rx_buffer_bytes) bounds
 * the wait: what would overflow it is dropped, so no packet waits longer
 * than the buffer takes to drain at the DMA's rate, and the flows still
 * complete (go-back-N resends).
 */
#include "support.h"

static void incast(const char *cc, struct bn_results *r)
{
    char c[64];
    snprintf(c, sizeof c, "nic.congestion_control=%s", cc);
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=8", "host.pcie_gen=3",
                          "host.pcie_lanes=8", "workload.kind=incast",
                          "workload.incast_senders=2", "workload.message_bytes=4MB",
                          "link.flow_control=pfc", c, NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, r);
    assert_int_equal(r->flows_completed, 2);
    assert_ledger_balanced(r);
}

static void test_dma_bound(void **state)
{
    (void)state;
    struct bn_results none, swift;
    incast("none", &none);
    incast("swift", &swift);
    printf("2-to-1 into PCIe Gen3 x8: %.2f Gb/s a flow, host wait mean %.1f max %.1f us "
           "(none); %.2f Gb/s, mean %.2f max %.2f us (swift)\n", none.throughput_gbps.mean,
           none.host_wait_mean_us, none.host_wait_max_us, swift.throughput_gbps.mean,
           swift.host_wait_mean_us, swift.host_wait_max_us);
    /* both flows share the DMA's 57.6 Gb/s and end together */
    assert_float_equal(none.throughput_gbps.mean, 28.8, 0.01 * 28.8);
    assert_float_equal(none.throughput_gbps.min, none.throughput_gbps.max, 0.01 * 28.8);
    /* without congestion control the surplus piles up in the NIC */
    assert_true(none.host_wait_mean_us > 100);
    /* Swift's endpoint window: the same rate, the wait near its target */
    assert_true(swift.throughput_gbps.mean > 0.98 * 28.8);
    assert_true(swift.host_wait_mean_us < 10 && swift.host_wait_max_us < 50);
    bn_results_free(&none);
    bn_results_free(&swift);
}

static void test_lossy_receive_buffer_bounds_the_wait(void **state)
{
    (void)state;
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=8", "host.pcie_gen=3",
                          "host.pcie_lanes=8", "workload.kind=incast",
                          "workload.incast_senders=2", "workload.message_bytes=1MB",
                          "link.flow_control=lossy", "nic.rx_buffer_bytes=65536",
                          "switch.buffer_bytes=16777216", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    test_run(&sc, &r);
    assert_ledger_balanced(&r);
    assert_int_equal(r.flows_completed, 2);
    double drain_us = 65536 * 8 / 57.6e3; /* the buffer at the DMA's 57.6 Gb/s */
    printf("lossy 2-to-1 into Gen3 x8, 64 KiB receive buffer: %llu drops, host wait max "
           "%.2f us (buffer drains in %.2f us)\n", (unsigned long long)r.pkts_dropped,
           r.host_wait_max_us, drain_us);
    assert_true(r.pkts_dropped > 0);
    assert_true(r.host_wait_max_us <= drain_us + 0.01);
    bn_results_free(&r);
}

static void test_fast_pcie(void **state)
{
    (void)state;
    struct bn_results r;
    const char *sets[] = {"fabric=ib-ndr", "topology.k=8", "workload.kind=incast",
                          "workload.incast_senders=16", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, &r);
    printf("ib-ndr, 16-to-1: host wait mean %.6f max %.3f us\n", r.host_wait_mean_us,
           r.host_wait_max_us);
    /* Gen5 x16 (460.8 Gb/s) above 400 Gb/s: a last packet behind a full
     * one waits at most one full payload's write, 4096 B at 460.8 Gb/s */
    assert_true(r.host_wait_max_us <= 4096 * 8 / 460.8e3 + 1e-6);
    bn_results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dma_bound),
        cmocka_unit_test(test_lossy_receive_buffer_bounds_the_wait),
        cmocka_unit_test(test_fast_pcie),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
