/*
 * Topology sizes against their closed forms: a k-ary fat-tree has k^3/4
 * hosts, 5k^2/4 switches (k^2/2 ToR, k^2/2 agg, k^2/4 core), k^3/4 * 3 links
 * and diameter 6 links; a radix-k leaf-spine has k^2/2 hosts, k leaves, k/2
 * spines and diameter 4. Full bisection = hosts/2 x link rate.
 */
#include "support.h"

static struct bn_topo_info describe(const char *kind, unsigned k, double fabric_rate)
{
    char kk[64], kd[64], fr[64];
    snprintf(kk, sizeof kk, "topology.k=%u", k);
    snprintf(kd, sizeof kd, "topology.kind=%s", kind);
    snprintf(fr, sizeof fr, "link.fabric_rate_gbps=%g", fabric_rate);
    const char *sets[] = {kk, kd, fr, NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_topo_info t;
    struct bn_error err = {0};
    if (bn_describe_topology(&sc, &t, &err) != BN_OK)
        fail_msg("%s", err.msg);
    return t;
}

static void test_fat_tree(void **state)
{
    (void)state;
    static const unsigned ks[] = {2, 4, 6, 8, 12, 16, 24};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        unsigned k = ks[i];
        struct bn_topo_info t = describe("fat_tree", k, 100);
        assert_int_equal(t.hosts, k * k * k / 4);
        assert_int_equal(t.switches, 5 * k * k / 4);
        assert_int_equal(t.switches_per_tier[1], k * k / 2);
        assert_int_equal(t.switches_per_tier[2], k * k / 2);
        assert_int_equal(t.switches_per_tier[3], k * k / 4);
        assert_int_equal(t.links, 3 * k * k * k / 4);
        assert_int_equal(t.diameter_hops, 6);
        assert_true(t.bisection_gbps == k * k * k / 8.0 * 100);
    }
}

static void test_leaf_spine(void **state)
{
    (void)state;
    static const unsigned ks[] = {2, 4, 8, 16, 32, 64};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        unsigned k = ks[i];
        struct bn_topo_info t = describe("leaf_spine", k, 100);
        assert_int_equal(t.hosts, k * k / 2);
        assert_int_equal(t.switches_per_tier[1], k);
        assert_int_equal(t.switches_per_tier[2], k / 2);
        assert_int_equal(t.switches, 3 * k / 2);
        assert_int_equal(t.links, k * k / 2 + k * k / 2);
        assert_int_equal(t.diameter_hops, 4);
        assert_true(t.bisection_gbps == k * k / 4.0 * 100);
    }
}

static void test_bisection_slower_fabric(void **state)
{
    (void)state;
    /* 400G hosts on a 100G fabric: the core, not the hosts, bounds the cut */
    struct bn_topo_info t = describe("fat_tree", 8, 100);
    assert_true(t.bisection_gbps == 64 * 100.0);
    char rate[] = "link.rate_gbps=400";
    const char *sets[] = {rate, "link.fabric_rate_gbps=100", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_error err = {0};
    assert_int_equal(bn_describe_topology(&sc, &t, &err), BN_OK);
    assert_true(t.bisection_gbps == 8 * 8 * 8 / 8.0 * 100);
}

/* Dragonfly+ from its definition: G groups of k/2 leaves and k/2 spines,
 * (k/2)^2 hosts each, one global link per pair of groups; every host pair
 * reachable (the routing build fails otherwise) within 5 links. */
static void test_dragonfly_plus(void **state)
{
    (void)state;
    static const unsigned ks[] = {4, 6, 8, 12, 16};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        unsigned k = ks[i], h = k / 2;
        for (unsigned pick = 0; pick < 2; pick++) {
            unsigned groups = pick ? 3 : h * h + 1;
            char kk[64], gg[64];
            snprintf(kk, sizeof kk, "topology.k=%u", k);
            snprintf(gg, sizeof gg, "topology.groups=%u", pick ? 3u : 0u);
            const char *sets[] = {"topology.kind=dragonfly_plus", kk, gg, NULL};
            struct bn_scenario sc;
            test_scenario(&sc, sets);
            struct bn_topo_info t;
            struct bn_error err = {0};
            if (bn_describe_topology(&sc, &t, &err) != BN_OK)
                fail_msg("%s", err.msg);
            assert_int_equal(t.hosts, groups * h * h);
            assert_int_equal(t.switches_per_tier[1], groups * h);
            assert_int_equal(t.switches_per_tier[2], groups * h);
            assert_int_equal(t.links, 2 * groups * h * h + groups * (groups - 1) / 2);
            assert_int_equal(t.diameter_hops, 5);
        }
    }
    /* beyond (k/2)^2 + 1 groups a spine runs out of global ports */
    const char *bad[] = {"topology.kind=dragonfly_plus", "topology.k=4", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, bad);
    struct bn_error err = {0};
    assert_int_equal(bn_scenario_set(&sc, "topology.groups=6", &err), BN_OK);
    struct bn_topo_info t;
    assert_int_equal(bn_describe_topology(&sc, &t, &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, "topology.groups"));
    /* and traffic flows: a permutation over 272 hosts completes */
    const char *run[] = {"topology.kind=dragonfly_plus", "topology.k=8",
                         "workload.message_bytes=200000", "nic.transport=selective_repeat",
                         "switch.load_balancing=adaptive", NULL};
    test_scenario(&sc, run);
    struct bn_results r;
    test_run(&sc, &r);
    assert_ledger_balanced(&r);
    assert_int_equal(r.nflows, 272);
    bn_results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fat_tree),
        cmocka_unit_test(test_leaf_spine),
        cmocka_unit_test(test_bisection_slower_fabric),
        cmocka_unit_test(test_dragonfly_plus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
