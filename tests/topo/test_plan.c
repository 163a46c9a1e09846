/*
 * The planner (`bnet topo`) against first principles and published tables:
 * - oversubscribed fat-trees and leaf-spines: sizes, per-tier ratios and the
 *   bisection worked out by hand from the port split;
 * - rail_optimized against the DGX SuperPOD B200 reference-architecture
 *   table (docs.nvidia.com/dgx-superpod): nodes, GPUs, leaf/spine/core counts and cables;
 * - minimal paths in a k=8 fat-tree: 16 between pods, 4 within a pod, 1
 *   under one ToR (k/2 aggs x k/2 cores, k/2 aggs, the ToR);
 * - a small permutation run on rail-optimized fabrics balances its ledger;
 * - --dot output is accepted by Graphviz's dot.
 */
#include <jansson.h>
#include <math.h>

#include "support.h"
#include "topo/topo.h"

static struct bn_topo_info plan(const char *const *sets, const struct bn_topo_query *q)
{
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_topo_info t;
    struct bn_error err = {0};
    if (bn_plan_topology(&sc, q, &t, &err) != BN_OK)
        fail_msg("%s", err.msg);
    return t;
}

static void plan_fails(const char *const *sets, const char *want)
{
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_topo_info t;
    struct bn_error err = {0};
    assert_int_equal(bn_plan_topology(&sc, NULL, &t, &err), BN_EINPUT);
    if (!strstr(err.msg, want))
        fail_msg("error '%s' lacks '%s'", err.msg, want);
}

static void test_fat_tree_oversubscribed(void **state)
{
    (void)state;
    /* k=8, 3:1 at the ToR: 6 hosts + 2 uplinks per ToR, so 2 aggs per pod;
     * an agg has 4 ToR ports and 4 core ports; 8 pods of 4 ToRs x 6 hosts =
     * 192 hosts; cores = 2 planes x 4 = 8. Cutting the pods in half, 4 pods
     * x 4 ToRs x 2 uplinks x 100 G = 3.2 Tb/s = a third of 192/2 x 100 G. */
    const char *s1[] = {"topology.oversubscription=3", NULL};
    struct bn_topo_info t = plan(s1, NULL);
    assert_int_equal(t.hosts, 192);
    assert_int_equal(t.switches_per_tier[1], 32);
    assert_int_equal(t.switches_per_tier[2], 16);
    assert_int_equal(t.switches_per_tier[3], 8);
    assert_true(t.bisection_gbps == 3200.0);
    assert_true(t.tier[1].oversubscription == 3.0);
    assert_true(t.tier[2].oversubscription == 1.0);
    assert_int_equal(t.tier[1].ports_max, 8);
    assert_int_equal(t.tier[3].ports_max, 8);

    /* 3:1 at the agg instead: 6 ToRs x 4 hosts per pod, 4 aggs with 2 core
     * links each: 192 hosts, 48 ToR, 32 agg, 8 core; the core layer carries
     * 4 pods x 4 aggs x 2 x 100 G = 3.2 Tb/s across the cut. */
    const char *s2[] = {"topology.agg_oversubscription=3", NULL};
    t = plan(s2, NULL);
    assert_int_equal(t.hosts, 192);
    assert_int_equal(t.switches_per_tier[1], 48);
    assert_int_equal(t.switches_per_tier[2], 32);
    assert_int_equal(t.switches_per_tier[3], 8);
    assert_true(t.bisection_gbps == 3200.0);
    assert_true(t.tier[1].oversubscription == 1.0);
    assert_true(t.tier[2].oversubscription == 3.0);

    /* Non-blocking default: every tier 1:1, bisection hosts/2 x rate. */
    t = plan(NULL, NULL);
    for (int i = 1; i <= 2; i++)
        assert_true(t.tier[i].oversubscription == 1.0);
    assert_true(t.tier[3].up_links == 0 && t.tier[3].oversubscription == 0);
    assert_true(t.bisection_gbps == 128 / 2 * 100.0);

    const char *bad[] = {"topology.oversubscription=2", NULL};
    plan_fails(bad, "key 'topology.oversubscription': 2 does not split a radix-8 switch");
}

/* The builders' bisection, from their construction, equals the generic
 * tier-by-tier Clos figure the imported fabrics get (metrics.c). */
static void test_builder_bisection_is_clos_figure(void **state)
{
    (void)state;
    static const struct { const char *kind; double r1, r2, fab; } cases[] = {
        {"fat_tree", 1, 1, 100},   {"fat_tree", 3, 1, 100},  {"fat_tree", 1, 3, 100},
        {"fat_tree", 3, 7, 400},   {"fat_tree", 0.6, 1, 25}, {"leaf_spine", 3, 1, 100},
        {"leaf_spine", 1, 1, 50},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char k[64], r1[64], r2[64], fab[64];
        snprintf(k, sizeof k, "topology.kind=%s", cases[i].kind);
        snprintf(r1, sizeof r1, "topology.oversubscription=%g", cases[i].r1);
        snprintf(r2, sizeof r2, "topology.agg_oversubscription=%g", cases[i].r2);
        snprintf(fab, sizeof fab, "link.fabric_rate_gbps=%g", cases[i].fab);
        const char *sets[] = {k, r1, r2, fab, NULL};
        struct bn_scenario sc;
        test_scenario(&sc, sets);
        struct bn_topo t;
        struct bn_error err = {0};
        if (bn_topo_build(&t, &sc, &err) != BN_OK)
            fail_msg("case %zu: %s", i, err.msg);
        double clos = bn_topo_clos_bisection(&t);
        if (fabs(t.bisection_gbps - clos) > 1e-6)
            fail_msg("case %zu: builder %g != Clos %g", i, t.bisection_gbps, clos);
        bn_topo_free(&t);
    }
}

static void test_leaf_spine_oversubscribed(void **state)
{
    (void)state;
    /* k=8, 3:1: 8 leaves x 6 hosts, 2 spines; the cut crosses 4 leaves x
     * 2 uplinks x 100 G = 800 G = (48/2 x 100 G) / 3. */
    const char *s[] = {"topology.kind=leaf_spine", "topology.oversubscription=3", NULL};
    struct bn_topo_info t = plan(s, NULL);
    assert_int_equal(t.hosts, 48);
    assert_int_equal(t.switches_per_tier[1], 8);
    assert_int_equal(t.switches_per_tier[2], 2);
    assert_true(t.bisection_gbps == 800.0);
    assert_true(t.tier[1].oversubscription == 3.0);
    assert_true(t.tier[1].down_gbps == 4800.0 && t.tier[1].up_gbps == 1600.0);
}

/* NVIDIA DGX SuperPOD B200 RA table (docs.nvidia.com/dgx-superpod), radix 64 (QM9700). */
static void test_superpod_b200_table(void **state)
{
    (void)state;
    static const struct { unsigned su, nodes, gpus, leaf, spine, core; } rows[] = {
        {2, 64, 512, 16, 8, 0},         {4, 128, 1024, 32, 16, 0},
        {8, 256, 2048, 64, 32, 0},      {16, 512, 4096, 128, 128, 64},
        {32, 1024, 8192, 256, 256, 128}, {64, 2048, 16384, 512, 512, 256},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char su[64];
        snprintf(su, sizeof su, "topology.scalable_units=%u", rows[i].su);
        const char *s[] = {"topology.kind=rail_optimized", "topology.k=64", su,
                           "link.rate_gbps=400", NULL};
        struct bn_topo_info t = plan(s, NULL);
        assert_int_equal(t.hosts, rows[i].gpus);
        assert_int_equal(t.hosts / 8, rows[i].nodes);
        assert_int_equal(t.switches_per_tier[1], rows[i].leaf);
        assert_int_equal(t.switches_per_tier[2], rows[i].spine);
        assert_int_equal(t.tiers, rows[i].core ? 3 : 2);
        assert_int_equal(t.switches_per_tier[3], rows[i].core);
        /* cables: node-leaf = leaf-spine = spine-core = GPUs */
        assert_int_equal(t.tier[0].up_links, rows[i].gpus);
        assert_int_equal(t.tier[1].up_links, rows[i].gpus);
        assert_int_equal(t.tier[2].up_links, rows[i].core ? rows[i].gpus : 0);
        assert_int_equal(t.tier[1].ports_max, 64);
        assert_int_equal(t.tier[2].ports_max, 64);
        assert_true(t.bisection_gbps == rows[i].gpus / 2 * 400.0);
        assert_int_equal(t.diameter_hops, rows[i].core ? 6 : 4);
    }
    /* a rail: GPU i of every server hangs off leaf i of its SU */
    const char *s[] = {"topology.kind=rail_optimized", "topology.k=64", NULL};
    struct bn_topo_query q = {.paths = true, .src = 3, .dst = 8 * 31 + 3}; /* same rail */
    struct bn_topo_info t = plan(s, &q);
    assert_int_equal(t.path_hops, 2);
    assert_true(t.minimal_paths == 1);
}

static void test_minimal_paths_k8(void **state)
{
    (void)state;
    static const struct { unsigned src, dst, hops, paths; } cases[] = {
        {0, 127, 6, 16}, /* different pods: 4 aggs x 4 cores */
        {0, 4, 4, 4},    /* same pod, different ToR: 4 aggs */
        {0, 1, 2, 1},    /* same ToR */
        {5, 5, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct bn_topo_query q = {.paths = true, .src = cases[i].src, .dst = cases[i].dst};
        struct bn_topo_info t = plan(NULL, &q);
        assert_int_equal(t.path_hops, cases[i].hops);
        assert_true(t.minimal_paths == cases[i].paths);
    }
    struct bn_scenario sc;
    test_scenario(&sc, NULL);
    struct bn_topo_info t;
    struct bn_error err = {0};
    struct bn_topo_query q = {.paths = true, .src = 0, .dst = 128};
    assert_int_equal(bn_plan_topology(&sc, &q, &t, &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, "host 128 is not in this topology"));
}

static void test_planner_figures(void **state)
{
    (void)state;
    const char *s[] = {"link.rate_gbps=400", "link.fabric_rate_gbps=800",
                       "topology.gpu_tflops=2250", NULL};
    struct bn_topo_info t = plan(s, NULL);
    assert_int_equal(t.nrates, 2);
    assert_true(t.rates[0].gbps == 800 && t.rates[0].links == 256);
    assert_true(t.rates[1].gbps == 400 && t.rates[1].links == 128);
    assert_int_equal(t.host_copper, 128);
    assert_int_equal(t.fabric_fiber, 256);
    assert_int_equal(t.transceivers, 512);
    /* 128 x 400 G over 128 x 2.25 PFLOPS */
    assert_true(fabs(t.gbps_per_pflops - 400 / 2.25) < 1e-9);
}

/* The price and power table over the counted devices, summed by hand: a
 * k=4 fat-tree has 20 switches, 16 NICs, 16 copper host links and 32
 * fiber switch links with 64 transceivers. Then a preset's table. */
static void test_planner_cost(void **state)
{
    (void)state;
    const char *none[] = {"topology.k=4", NULL};
    assert_false(plan(none, NULL).cost_stated);
    const char *s[] = {"topology.k=4", "cost.switch_usd=30000", "cost.switch_w=1000",
                       "cost.nic_usd=2000", "cost.nic_w=25", "cost.transceiver_usd=900",
                       "cost.transceiver_w=9", "cost.dac_usd=150", "cost.fiber_usd=60", NULL};
    struct bn_topo_info t = plan(s, NULL);
    assert_true(t.cost_stated);
    double usd = 20 * 30000.0 + 16 * 2000.0 + 64 * 900.0 + 16 * 150.0 + 32 * 60.0;
    double w = 20 * 1000.0 + 16 * 25.0 + 64 * 9.0;
    assert_true(fabs(t.cost_usd - usd) < 1e-6 && fabs(t.power_w - w) < 1e-6);
    assert_true(fabs(t.cost_per_gpu_usd - usd / 16) < 1e-6);
    assert_true(fabs(t.power_per_gpu_w - w / 16) < 1e-6);
    assert_string_equal(t.cost_unstated, "");

    /* ib-ndr's table, switches by their ports: 16 host ports and 2 x 32
     * fabric ports are 80 ports, 80 / 64 QM9700s; cables not stated */
    const char *ndr[] = {"topology.k=4", "fabric=ib-ndr", NULL};
    t = plan(ndr, NULL);
    usd = 80 / 64.0 * 32870 + 16 * 1599.0 + 64 * 700.0;
    w = 80 / 64.0 * 747 + 16 * 24.9 + 64 * 8.0;
    assert_true(fabs(t.cost_usd - usd) < 1e-6 && fabs(t.power_w - w) < 1e-6);
    assert_string_equal(t.cost_unstated, "DAC price, fiber price");
    /* a preset replaces another's table: ib-xdr states no switch */
    const char *xdr[] = {"topology.k=4", "fabric=ib-ndr", "fabric=ib-xdr", NULL};
    t = plan(xdr, NULL);
    assert_true(fabs(t.cost_usd - (16 * 2519.0 + 64 * 1250.0)) < 1e-6);
    assert_string_equal(t.cost_unstated,
                        "switch price, switch power, NIC power, DAC price, fiber price");
}

static void run_small(const char *const *sets)
{
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results res;
    test_run(&sc, &res);
    assert_ledger_balanced(&res);
    assert_int_equal(res.flows_completed, res.nflows);
    bn_results_free(&res);
}

static void test_planner_json(void **state)
{
    (void)state;
    struct bn_topo_query q = {.paths = true, .src = 0, .dst = 127};
    struct bn_topo_info t = plan(NULL, &q);
    char path[64];
    snprintf(path, sizeof path, "%s", test_tmpfile(""));
    struct bn_error err = {0};
    assert_int_equal(bn_topo_info_write_json(&t, path, &err), BN_OK);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    assert_non_null(root);
    json_t *topo = json_object_get(root, "topology");
    json_t *tor = json_array_get(json_object_get(topo, "tiers"), 0);
    assert_string_equal(json_string_value(json_object_get(tor, "name")), "tor");
    assert_true(json_real_value(json_object_get(tor, "oversubscription")) == 1.0);
    assert_int_equal(json_integer_value(json_object_get(tor, "radix")), 8);
    json_t *cables = json_object_get(topo, "cables");
    assert_int_equal(json_integer_value(json_object_get(cables, "transceivers")), 512);
    json_t *paths = json_object_get(topo, "paths");
    assert_int_equal(json_integer_value(json_object_get(paths, "minimal_paths")), 16);
    assert_int_equal(json_integer_value(json_object_get(paths, "hops")), 6);
    json_decref(root);
    remove(path);
}

static void test_rail_optimized_runs(void **state)
{
    (void)state;
    /* two tiers: 2 SU x 4 servers x 4 GPUs on radix 8 (8 leaves, 4 spines) */
    const char *two[] = {"topology.kind=rail_optimized", "topology.gpus_per_server=4",
                         "topology.servers_per_su=4", "topology.scalable_units=2",
                         "workload.message_bytes=65536", NULL};
    run_small(two);
    /* three tiers: 4 SU x 2 servers x 2 GPUs on radix 4: 8 leaves > 4 */
    const char *three[] = {"topology.kind=rail_optimized", "topology.k=4",
                           "topology.gpus_per_server=2", "topology.servers_per_su=2",
                           "topology.scalable_units=4", "workload.message_bytes=65536", NULL};
    struct bn_topo_info t = plan(three, NULL);
    assert_int_equal(t.tiers, 3);
    assert_int_equal(t.hosts, 16);
    run_small(three);
}

static void test_dot_accepted_by_graphviz(void **state)
{
    (void)state;
    if (system("command -v dot >/dev/null 2>&1") != 0) {
        print_message("dot (Debian package graphviz) not installed: skipping\n");
        skip();
    }
    char path[64], cmd[128];
    snprintf(path, sizeof path, "%s", test_tmpfile(""));
    snprintf(cmd, sizeof cmd, "dot -Tsvg -o /dev/null %s", path);
    struct bn_topo_query q = {.dot_path = path};
    const char *s[] = {"topology.k=4", NULL};
    plan(s, &q);
    assert_int_equal(system(cmd), 0);
    const char *f[] = {"topology.kind=file", "topology.file=tests/topo/data/small.topo", NULL};
    plan(f, &q);
    assert_int_equal(system(cmd), 0);
    const char *ib[] = {"topology.kind=ibnetdiscover",
                        "topology.file=tests/topo/data/ib_two_leaf.ibnet", NULL};
    plan(ib, &q);
    assert_int_equal(system(cmd), 0);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fat_tree_oversubscribed),
        cmocka_unit_test(test_leaf_spine_oversubscribed),
        cmocka_unit_test(test_builder_bisection_is_clos_figure),
        cmocka_unit_test(test_superpod_b200_table),
        cmocka_unit_test(test_minimal_paths_k8),
        cmocka_unit_test(test_planner_figures),
        cmocka_unit_test(test_planner_cost),
        cmocka_unit_test(test_planner_json),
        cmocka_unit_test(test_rail_optimized_runs),
        cmocka_unit_test(test_dot_accepted_by_graphviz),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
