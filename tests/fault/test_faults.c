/*
 * Failures end to end, each against a figure computed apart from the
 * simulation:
 *  - a link dying under a lone line-rate flow loses what was on its wire
 *    and queued at its ends: (latency + a frame's head) / frame spacing in
 *    each direction (data one way, its ACKs the other), when the switches
 *    reroute at once and nothing is sent into it afterwards;
 *  - each control plane converges when its published timing says: local
 *    at detect + hops x notify, ethernet at BFD interval x multiplier +
 *    hops x hop + install, ib_sm at trap + switches x sweep + switches x
 *    hosts x route + blocks x SMP / in flight; none never; and on a
 *    leaf-spine the switches rerouted are the two at the link and every
 *    other leaf;
 *  - a partition (every spine down) ends: flows across it fail when their
 *    queue pairs' retries run out, (retry_cnt + 1) local ACK timeouts
 *    after their last progress, the rest complete, the ledger balances;
 *  - on lossless links too (credits), a queue pair whose destination NIC
 *    died fails after (retry_cnt + 1) local ACK timeouts, not after bnet's
 *    longer last-resort timer (IBTA 1.4 vol. 1, 9.7.6.1.3, C9-140/141);
 *  - a reroute slower than routing.stuck_us but within the queue pairs'
 *    retry budget kills no flow, on every transport: the watchdog is for
 *    queue pairs that would retry for ever;
 *  - local repair (SHIELD) takes milliseconds, not microseconds: NVIDIA
 *    states 5,000x faster than the subnet manager's 10-20 s, i.e. 2-4 ms;
 *    and local < BFD (ethernet) on the same fault;
 *  - a collective that cannot finish names the rank and step it failed at;
 *  - faults are deterministic (same seed, same JSON), and random links
 *    follow the seed;
 *  - an optical circuit switch moving two circuits (scenarios/fault_ocs.yaml)
 *    delivers every flow: packets whose first switch stamped their path on
 *    the old wiring are looked up on the new (they crashed bnet, routed
 *    to a port of another switch);
 *  - one uplink of a leaf slowed to a tenth: a flow ECMP pins to it takes
 *    at least 1 MB / 10 Gb/s, while adaptive routing steers around it
 *    (the asymmetry result of CONGA, SIGCOMM 2014).
 */
#include <math.h>
#include <stdlib.h>

#include "support.h"

#include "bnet/coll.h"
#include "nic/encap.h"

static void run_sets(const char *const *sets, struct bn_results *r)
{
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, r);
    assert_ledger_balanced(r);
}

/* h0 - s0 = s1 - h1, the switches 1 km apart. */
static const char single_path_topo[] =
    "host h0\nhost h1\nswitch s0 tier 1\nswitch s1 tier 1\n"
    "link h0 s0 400 2 copper\nlink h1 s1 400 2 copper\nlink s0 s1 400 1000 fiber\n";

static void test_lost_equals_what_was_on_the_link(void **state)
{
    (void)state;
    char topo[80], flows[80], file[120], tf[120];
    snprintf(topo, sizeof topo, "%s", test_tmpfile(single_path_topo));
    snprintf(flows, sizeof flows, "%s", test_tmpfile("0 1 20000000 0\n"));
    snprintf(file, sizeof file, "topology.file=%s", topo);
    snprintf(tf, sizeof tf, "workload.flow_file=%s", flows);
    const char *sets[] = {"topology.kind=file", file, "workload.kind=flow_list", tf,
                          "link.rate_gbps=400", "routing.control_plane=local",
                          "routing.local.detect_us=0", "routing.local.notify_us=0",
                          "faults.0.kind=link_down", "faults.0.target=s0 s1",
                          "faults.0.at_us=200", "nic.ack_timeout=5", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    test_run(&sc, &r);
    assert_ledger_balanced(&r);
    assert_int_equal(r.nfaults, 1);
    assert_int_equal(r.flows_failed, 1); /* no other path: its retries run out */
    /* on the wire s0 -> s1: propagation + FEC + s1's forwarding, and the
     * head a cut-through switch waits for; frames leave every spacing */
    const struct bn_encap *e = bn_encap_at(sc.nic.encap);
    double frame_bits = 8.0 * bn_encap_wire_frame(e, sc.nic.mtu_bytes);
    double spacing_ns = frame_bits / 400.0;
    double lat_ns = 1000 * sc.link.fiber_ns_per_m + sc.link.fec_ns + sc.sw.latency_ns +
                    8.0 * e->head_bytes / 400.0;
    double each_way = lat_ns / spacing_ns;
    printf("lost on the link %llu, expected 2 x %.1f (+ what was queued)\n",
           (unsigned long long)r.faults[0].pkts_lost, each_way);
    assert_true(r.faults[0].pkts_lost >= (uint64_t)floor(2 * each_way) - 2);
    assert_true(r.faults[0].pkts_lost <= (uint64_t)ceil(2 * each_way) + 4);
    assert_true(r.faults[0].converged_us == 0);
    bn_results_free(&r);
}

/* Leaf-spine k=8 (8 leaves, 4 spines, 32 hosts), leaf0-spine0 down at
 * 20 us under `plane`: what the report says of it. */
static void leaf_spine_fault(const char *plane, struct bn_results *r)
{
    char cp[64];
    snprintf(cp, sizeof cp, "routing.control_plane=%s", plane);
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=8", "workload.message_bytes=500000",
                          cp, "faults.0.kind=link_down", "faults.0.target=leaf0 spine0",
                          "faults.0.at_us=20", "nic.ack_timeout=0", NULL};
    run_sets(sets, r);
    assert_int_equal(r->nfaults, 1);
    assert_string_equal(r->control_plane, plane);
}

/* A default key's value (the planes keep theirs in their own blocks). */
static double def_key(const char *path)
{
    struct bn_scenario d;
    char buf[64];
    bn_scenario_defaults(&d);
    assert_int_equal(bn_scenario_get(&d, path, buf, sizeof buf), BN_OK);
    return strtod(buf, NULL);
}

static void test_convergence_follows_each_plane(void **state)
{
    (void)state;
    const double switches = 12, hosts = 32, changed = 9;
    /* leaf0 and spine0 at the link (0 hops), the 7 other leaves 1 hop away */
    const double hops = 1;
    struct bn_results r;

    leaf_spine_fault("local", &r);
    assert_int_equal(r.faults[0].switches_changed, changed);
    assert_true(fabs(r.faults[0].converged_us - (def_key("routing.local.detect_us") +
                                                 hops * def_key("routing.local.notify_us"))) < 1e-6);
    bn_results_free(&r);

    leaf_spine_fault("ethernet", &r);
    assert_int_equal(r.faults[0].switches_changed, changed);
    double eth = def_key("routing.ethernet.bfd_interval_us") *
                     def_key("routing.ethernet.bfd_multiplier") +
                 hops * def_key("routing.ethernet.hop_us") + def_key("routing.ethernet.install_us");
    assert_true(fabs(r.faults[0].converged_us - eth) < 1e-6);
    bn_results_free(&r);

    /* every changed switch's table changes for leaf0's hosts or (leaf0
     * itself) everyone's: 32 hosts, one 64-LID block each */
    leaf_spine_fault("ib_sm", &r);
    assert_int_equal(r.faults[0].switches_changed, changed);
    double sm = def_key("routing.ib_sm.trap_us") + switches * def_key("routing.ib_sm.sweep_us") +
                switches * hosts * def_key("routing.ib_sm.route_ns") / 1e3 +
                changed * 1 * def_key("routing.ib_sm.lft_block_us") /
                    def_key("routing.ib_sm.mads_in_flight");
    assert_true(fabs(r.faults[0].converged_us - sm) < 1e-6);
    bn_results_free(&r);

    leaf_spine_fault("none", &r);
    assert_true(r.faults[0].converged_us < 0);
    assert_int_equal(r.faults[0].switches_changed, 0);
    bn_results_free(&r);
}

static void test_partition_ends_with_failed_flows(void **state)
{
    (void)state;
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=8", "workload.message_bytes=500000",
                          "routing.control_plane=local", "nic.ack_timeout=5",
                          "faults.0.kind=switch_down", "faults.0.target=spine0",
                          "faults.1.kind=switch_down", "faults.1.target=spine1",
                          "faults.2.kind=switch_down", "faults.2.target=spine2",
                          "faults.3.kind=switch_down", "faults.3.target=spine3",
                          "faults.0.at_us=10", "faults.1.at_us=10", "faults.2.at_us=10",
                          "faults.3.at_us=10", NULL};
    struct bn_results r;
    run_sets(sets, &r);
    const double timeout_us = 4.096 * 32, budget_us = 8 * timeout_us; /* retry_cnt 7 */
    uint32_t cross = 0;
    for (uint32_t i = 0; i < r.nflows; i++) {
        const struct bn_flow_result *f = &r.flows[i];
        bool crosses = f->src / 4 != f->dst / 4; /* 4 hosts a leaf */
        cross += crosses;
        assert_true(crosses ? f->failed_us >= 0 && !f->done : f->done && f->failed_us < 0);
        if (crosses) /* its last progress was before the partition, its failure a budget later */
            assert_true(f->failed_us >= budget_us && f->failed_us <= 10 + budget_us + 100 + 1);
    }
    assert_int_equal(r.flows_failed, cross);
    assert_true(cross > 0);
    assert_int_equal(r.faults[0].links, 8);
    bn_results_free(&r);
}

/* IB credits, ack_timeout 5 (131 us), retry_cnt 7: host3's NIC dies at
 * 5 us; the flows to and from it fail 8 x 131 us after their last
 * progress, not at the 10 ms last-resort timer of lossless links. */
static void test_lossless_error_after_local_ack_timeouts(void **state)
{
    (void)state;
    const char *sets[] = {"fabric=ib-ndr", "topology.kind=leaf_spine", "topology.k=4",
                          "workload.message_bytes=1MB", "nic.ack_timeout=5",
                          "faults.0.kind=nic_down", "faults.0.target=host3", "faults.0.at_us=5",
                          NULL};
    struct bn_results r;
    run_sets(sets, &r);
    const double timeout_us = 4.096 * 32, budget_us = 8 * timeout_us;
    assert_int_equal(r.flows_failed, 2); /* host3's flow out and the flow into it */
    for (uint32_t i = 0; i < r.nflows; i++) {
        const struct bn_flow_result *f = &r.flows[i];
        if (f->src != 3 && f->dst != 3)
            continue;
        printf("flow %u -> %u failed at %.1f us (budget %.1f us)\n", f->src, f->dst,
               f->failed_us, budget_us);
        assert_true(f->failed_us >= budget_us && f->failed_us <= 5 + budget_us + timeout_us);
    }
    bn_results_free(&r);
}

/* leaf0-spine0 dies; the control plane reroutes well after
 * routing.stuck_us (50 us) but long before the retry budget runs out:
 * every flow completes, whatever the transport. */
static void reroute_outlasts_watchdog(const char *const *extra)
{
    const char *sets[16] = {"topology.kind=leaf_spine", "topology.k=8",
                            "workload.message_bytes=1MB", "routing.stuck_us=50",
                            "faults.0.kind=link_down", "faults.0.target=leaf0 spine0",
                            "faults.0.at_us=20"};
    size_t n = 7;
    for (size_t i = 0; extra[i]; i++)
        sets[n++] = extra[i];
    sets[n] = NULL;
    struct bn_results r;
    run_sets(sets, &r);
    printf("%s: converged at %.1f us, %u of %u flows completed, %u failed\n", extra[0],
           r.faults[0].converged_us, r.flows_completed, r.nflows, r.flows_failed);
    assert_true(r.faults[0].converged_us > 50);
    assert_int_equal(r.flows_failed, 0);
    assert_int_equal(r.flows_completed, r.nflows);
    bn_results_free(&r);
}

static void test_watchdog_spares_queue_pairs_with_retries(void **state)
{
    (void)state;
    const char *gbn[] = {"fabric=roce-400g", NULL};
    const char *sr[] = {"fabric=roce-400g", "nic.transport=selective_repeat", NULL};
    const char *eqds[] = {"nic.congestion_control=eqds", "nic.transport=selective_repeat",
                          "routing.control_plane=ethernet", NULL};
    const char *ib[] = {"fabric=ib-ndr", NULL};
    reroute_outlasts_watchdog(gbn);
    reroute_outlasts_watchdog(sr);
    reroute_outlasts_watchdog(eqds);
    reroute_outlasts_watchdog(ib);
}

/* k=8 fat-tree, tor0-agg0 down under local repair and under BFD. */
static void test_local_repair_takes_milliseconds(void **state)
{
    (void)state;
    const char *loc[] = {"topology.k=8", "workload.message_bytes=4MB", "routing.control_plane=local",
                         "faults.0.kind=link_down", "faults.0.target=tor0 agg0",
                         "faults.0.at_us=1", NULL};
    struct bn_results r;
    run_sets(loc, &r);
    double local_us = r.faults[0].converged_us;
    bn_results_free(&r);
    const char *eth[] = {"topology.k=8", "workload.message_bytes=4MB",
                         "routing.control_plane=ethernet", "faults.0.kind=link_down",
                         "faults.0.target=tor0 agg0", "faults.0.at_us=1", NULL};
    run_sets(eth, &r);
    double eth_us = r.faults[0].converged_us;
    bn_results_free(&r);
    printf("local repair %.1f us, BFD %.1f us\n", local_us, eth_us);
    assert_true(local_us >= 1000 && local_us <= 10000);
    assert_true(local_us < eth_us);
}

static void test_collective_failure_names_rank_and_step(void **state)
{
    (void)state;
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=8", "coll.min_bytes=1000000",
                          "coll.max_bytes=1000000", "coll.algo=ring", "nic.ack_timeout=5",
                          "faults.0.kind=nic_down", "faults.0.target=host5", "faults.0.at_us=5",
                          NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_coll_results res;
    struct bn_error err = {0};
    if (bn_coll_sweep(&sc, &res, &err) != BN_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(res.nrows, 1);
    const struct bn_coll_row *w = &res.rows[0];
    assert_true(w->failed);
    assert_true(w->failed_rank == 5 || w->failed_peer == 5); /* a send from or to the dead NIC */
    assert_true(w->failed_step >= 1);
    assert_true(w->failed_us > 5);
    assert_true(w->baseline_us > 0); /* the same row without the fault */
    bn_coll_results_free(&res);
}

static char *json_of(const char *const *sets)
{
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    test_run(&sc, &r);
    char *text = test_results_json(&r);
    bn_results_free(&r);
    return text;
}

static void test_faults_are_deterministic(void **state)
{
    (void)state;
    const char *a[] = {"topology.k=8", "workload.message_bytes=300000",
                       "nic.transport=selective_repeat", "faults.0.kind=random_links",
                       "faults.0.count=3", "faults.0.tier=2", "faults.0.at_us=10",
                       "faults.1.kind=link_flap", "faults.1.target=tor0 agg0",
                       "faults.1.at_us=5", "faults.1.down_us=20", "faults.1.up_us=20",
                       "faults.1.until_us=100", "faults.2.kind=link_ber", "faults.2.target=tor1/0",
                       "faults.2.ber=1e-6", "routing.control_plane=local", NULL};
    char *one = json_of(a), *two = json_of(a);
    assert_string_equal(one, two);
    assert_non_null(strstr(one, "\"flaps\": 3")); /* down at 5, 45 and 85 us */
    const char *b[] = {"seed=2", "topology.k=8", "workload.message_bytes=300000",
                       "routing.control_plane=local",
                       "faults.0.kind=random_links", "faults.0.count=3", "faults.0.tier=2",
                       "faults.0.at_us=10", NULL};
    const char *c[] = {"seed=3", "topology.k=8", "workload.message_bytes=300000",
                       "routing.control_plane=local",
                       "faults.0.kind=random_links", "faults.0.count=3", "faults.0.tier=2",
                       "faults.0.at_us=10", NULL};
    char *x = json_of(b), *y = json_of(c);
    /* the faults' targets (the seed's report has targets of its own) */
    const char *fx = strstr(x, "\"faults\""), *fy = strstr(y, "\"faults\"");
    assert_non_null(fx);
    assert_non_null(fy);
    const char *tx = strstr(fx, "\"target\""), *ty = strstr(fy, "\"target\"");
    assert_non_null(tx);
    assert_non_null(ty);
    assert_true(strncmp(tx, ty, strcspn(tx, "\n")) != 0); /* other seeds, other links */
    free(one);
    free(two);
    free(x);
    free(y);
}

static void test_ocs_rewire_delivers_every_flow(void **state)
{
    (void)state;
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=8", "workload.kind=permutation",
                          "workload.message_bytes=4MB", "nic.transport=selective_repeat",
                          "routing.control_plane=local", "faults.0.kind=ocs_reconfigure",
                          "faults.0.target=leaf0 spine0 leaf1 spine1", "faults.0.at_us=100",
                          "faults.0.dark_us=1000", NULL};
    struct bn_results r;
    run_sets(sets, &r);
    assert_int_equal(r.nflows, 32);
    assert_int_equal(r.flows_completed, 32);
    for (uint32_t i = 0; i < r.nflows; i++)
        assert_true(r.flows[i].done && r.flows[i].failed_us < 0 && r.flows[i].fct_us > 0);
    bn_results_free(&r);
}

static double makespan(const char *lb)
{
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=8", "workload.message_bytes=1MB",
                          "nic.transport=selective_repeat", lb, "faults.0.kind=link_degrade",
                          "faults.0.target=leaf0/4", "faults.0.rate_gbps=10", NULL};
    struct bn_results r;
    run_sets(sets, &r);
    double m = r.makespan_us;
    printf("%-32s makespan %.1f us (%.1f us without the fault)\n", lb, m, r.baseline_makespan_us);
    bn_results_free(&r);
    return m;
}

static void test_degraded_uplink_hurts_ecmp(void **state)
{
    (void)state;
    double ecmp = makespan("switch.load_balancing=ecmp");
    double adaptive = makespan("switch.load_balancing=adaptive");
    assert_true(ecmp >= 1e6 * 8 / 10e9 * 1e6); /* a pinned flow: 1 MB at 10 Gb/s */
    assert_true(adaptive < ecmp / 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lost_equals_what_was_on_the_link),
        cmocka_unit_test(test_convergence_follows_each_plane),
        cmocka_unit_test(test_partition_ends_with_failed_flows),
        cmocka_unit_test(test_lossless_error_after_local_ack_timeouts),
        cmocka_unit_test(test_watchdog_spares_queue_pairs_with_retries),
        cmocka_unit_test(test_local_repair_takes_milliseconds),
        cmocka_unit_test(test_collective_failure_names_rank_and_step),
        cmocka_unit_test(test_faults_are_deterministic),
        cmocka_unit_test(test_degraded_uplink_hurts_ecmp),
        cmocka_unit_test(test_ocs_rewire_delivers_every_flow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
