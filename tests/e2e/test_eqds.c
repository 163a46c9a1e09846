/*
 * Receiver-driven credit (eqds, docs/model.md) on a fabric. An 8-to-1
 * incast of 4 MB on a leaf-spine of 100 Gb/s links: after the first
 * windows drain, the receiver's queue stays under a packet, its link busy
 * all the time and the senders equal, as EQDS claims (Olteanu et al.,
 * NSDI 2022: the queue moves into the senders). Every packet past a
 * sender's first window went on a credit. With shallow buffers and
 * trimming, and over ECMP collisions that drop packets, every flow still
 * finishes (the recovery paths). On csg-htsim's own EQDS setting
 * (datacenter/main_eqds.cpp: k=8 fat-tree, 100 Gb/s, 1 us a hop, trimming
 * queues of 35 packets of 4150 B, sprayed), a 2 MB permutation averages
 * within 5 % of htsim's 82.2 Gb/s a flow.
 */
#include "support.h"
#include <math.h>

#define SENDERS 8
#define PKTS 977 /* 4 MB in 4096-byte packets */
#define FIRST 10 /* eqds.first_window_bytes 40960 */

static void incast(struct bn_results *r)
{
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=8", "workload.kind=incast",
                          "workload.incast_senders=8", "workload.message_bytes=4MB",
                          "nic.congestion_control=eqds", "eqds.first_window_bytes=40960",
                          "observe.sample_us=5", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, r);
    assert_int_equal(r->flows_completed, SENDERS);
}

static void test_incast(void **state)
{
    (void)state;
    struct bn_results r;
    incast(&r);
    double q = test_queue_mean(&r, 0);
    printf("8-to-1 incast of 4 MB: queue mean %.0f B, link busy %.4f, per flow %.3f .. %.3f "
           "Gb/s, %llu credits\n", q, r.link_util_max, r.throughput_gbps.min,
           r.throughput_gbps.max, (unsigned long long)r.cnps);
    assert_true(q < 4096);
    assert_true(r.link_util_max > 0.99);
    assert_true(r.throughput_gbps.min > 0.99 * r.throughput_gbps.max);
    assert_int_equal(r.pkts_dropped, 0);
    assert_int_equal(r.cnps, SENDERS * (PKTS - FIRST));
    bn_results_free(&r);
}

static void test_trimmed(void **state)
{
    (void)state;
    struct bn_results r;
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=8", "workload.kind=incast",
                          "workload.incast_senders=8", "workload.message_bytes=4MB",
                          "nic.congestion_control=eqds", "eqds.first_window_bytes=40960",
                          "switch.buffer_bytes=65536", "switch.trim=true",
                          "nic.transport=selective_repeat", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, &r);
    printf("64 KiB buffers, trimming: %llu trimmed, %llu resent, %llu timeouts, %llu credits\n",
           (unsigned long long)r.trimmed, (unsigned long long)r.retransmits,
           (unsigned long long)r.timeouts, (unsigned long long)r.cnps);
    assert_int_equal(r.flows_completed, SENDERS);
    assert_true(r.trimmed > 0); /* the first windows, 80 packets into 16 */
    assert_int_equal(r.retransmits, r.trimmed);
    assert_int_equal(r.pkts_dropped, 0);
    assert_true(r.throughput_gbps.min > 0.95 * r.throughput_gbps.max);
    bn_results_free(&r);
}

/* ECMP collisions overload core links the receivers cannot see: packets
 * drop, and the timeouts and probes still finish every flow. */
static void test_drops_recover(void **state)
{
    (void)state;
    struct bn_results r;
    const char *sets[] = {"topology.k=4", "workload.message_bytes=1MB",
                          "nic.congestion_control=eqds", "switch.buffer_bytes=65536", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, &r);
    printf("k=4 permutation, ECMP, 64 KiB buffers: %llu dropped, %llu timeouts, %u of %u done\n",
           (unsigned long long)r.pkts_dropped, (unsigned long long)r.timeouts,
           r.flows_completed, r.nflows);
    assert_true(r.pkts_dropped > 0);
    assert_int_equal(r.flows_completed, r.nflows);
    bn_results_free(&r);
}

/* htsim's main_eqds: queues of 35 packets of 4150 B (145,250 B) that trim,
 * per-packet spraying, 1 us per hop (200 m of fiber, no switch latency),
 * 100 Gb/s. There htsim's EQDS gets 82.2 Gb/s a flow on a 2 MB
 * permutation. While every first-window packet took a credit's slot, bnet
 * got 76.9: a lone sender's first window held its credits back until it
 * had all arrived, and the receiver's link then idled for a round trip. */
static void test_htsim_permutation(void **state)
{
    (void)state;
    struct bn_results r;
    const char *sets[] = {"topology.k=8", "workload.kind=permutation",
                          "workload.message_bytes=2MB", "nic.congestion_control=eqds",
                          "nic.transport=selective_repeat", "nic.entropy=per_packet",
                          "switch.trim=true", "switch.buffer_bytes=145250",
                          "switch.latency_ns=0", "link.host_cable=fiber",
                          "link.host_cable_m=200", "link.fabric_cable_m=200", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, &r);
    printf("htsim's EQDS setting, k=8 permutation of 2 MB: %.2f Gb/s a flow (htsim 82.2), "
           "%llu trimmed, %llu timeouts\n", r.throughput_gbps.mean,
           (unsigned long long)r.trimmed, (unsigned long long)r.timeouts);
    assert_int_equal(r.flows_completed, r.nflows);
    assert_int_equal(r.pkts_dropped, 0);
    assert_true(fabs(r.throughput_gbps.mean - 82.2) < 0.05 * 82.2);
    bn_results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_incast),
        cmocka_unit_test(test_trimmed),
        cmocka_unit_test(test_drops_recover),
        cmocka_unit_test(test_htsim_permutation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
