/*
 * HPCC on a fabric (docs/model.md): a 3-to-1 incast of 4 MB on a
 * leaf-spine of 100 Gb/s links. HPCC holds the receiver's queue near zero
 * with the link busy about eta (0.95) of the time, the paper's claim
 * ("near-zero in-network queues", SIGCOMM 2019, section 5), where DCQCN
 * lets a queue of a hundred kilobytes stand and leaves the link idler.
 * The INT header is on the wire: 42 bytes a data packet and ACK.
 */
#include "support.h"

static void incast(const char *cc, const char *int_bytes, struct bn_results *r)
{
    char c[64], ib[64];
    snprintf(c, sizeof c, "nic.congestion_control=%s", cc);
    snprintf(ib, sizeof ib, "hpcc.int_header_bytes=%s", int_bytes);
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=8", "workload.kind=incast",
                          "workload.incast_senders=3", "workload.message_bytes=4MB", c, ib,
                          "observe.sample_us=5", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, r);
    assert_int_equal(r->flows_completed, 3);
}

static void test_near_zero_queue(void **state)
{
    (void)state;
    struct bn_results dcqcn, hpcc;
    incast("dcqcn", "42", &dcqcn);
    incast("hpcc", "42", &hpcc);
    double q = test_queue_mean(&hpcc, 0), qd = test_queue_mean(&dcqcn, 0);
    printf("3-to-1 incast of 4 MB: queue mean %.0f B with hpcc (bottleneck busy %.3f), "
           "%.0f B with dcqcn (busy %.3f)\n", q, hpcc.link_util_max, qd, dcqcn.link_util_max);
    assert_true(q < 2 * 4096);       /* under two packets */
    assert_true(qd > 10 * q);
    assert_true(hpcc.link_util_max > 0.88 && hpcc.link_util_max < 0.97);
    assert_true(hpcc.link_util_max > dcqcn.link_util_max);
    assert_int_equal(hpcc.pkts_dropped, 0);
    bn_results_free(&dcqcn);
    bn_results_free(&hpcc);
}

/* Every frame, data and ACK, carries the INT header. */
static void test_header_on_the_wire(void **state)
{
    (void)state;
    struct bn_results with, without;
    incast("hpcc", "42", &with);
    incast("hpcc", "0", &without);
    printf("%llu packets: %llu bytes with the INT header, %llu without\n",
           (unsigned long long)with.pkts_injected, (unsigned long long)with.bytes_injected,
           (unsigned long long)without.bytes_injected);
    assert_int_equal(with.pkts_injected, without.pkts_injected);
    assert_int_equal(with.bytes_injected - without.bytes_injected, 42 * with.pkts_injected);
    bn_results_free(&with);
    bn_results_free(&without);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_near_zero_queue),
        cmocka_unit_test(test_header_on_the_wire),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
