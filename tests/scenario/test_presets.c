/*
 * Technology presets: `fabric: NAME` sets its keys under the scenario's own
 * (a key the file gives wins whatever its place in the file), --set
 * fabric=NAME applies them at that point; an unknown preset is an error
 * naming the key. nvlink5 sets up NVL72-sized NVLink domains.
 */
#include "support.h"

static int load(struct bn_scenario *sc, const char *yaml, struct bn_error *err)
{
    return bn_scenario_load_string(sc, yaml, "p.yaml", err);
}

static void test_preset_under_file_keys(void **state)
{
    (void)state;
    struct bn_scenario sc;
    struct bn_error err = {0};
    /* the file's rate comes before its fabric line, and still wins */
    assert_int_equal(load(&sc, "link:\n  rate_gbps: 200\nfabric: ib-ndr\n", &err), BN_OK);
    assert_true(sc.link.rate_gbps == 200.0);
    assert_key(&sc, "nic.encap", "ib");
    assert_key(&sc, "link.flow_control", "credit");
    assert_key(&sc, "nic.congestion_control", "ib_cc");
    assert_key(&sc, "switch.load_balancing", "adaptive");
    assert_true(sc.sw.latency_ns == 130.0);
    assert_int_equal(load(&sc, "fabric: roce-800g\n", &err), BN_OK);
    assert_true(sc.link.rate_gbps == 800.0);
    assert_key(&sc, "link.flow_control", "pfc");
    assert_key(&sc, "nic.congestion_control", "dcqcn");
    assert_int_equal(load(&sc, "fabric: uec-800g\n", &err), BN_OK);
    assert_true(sc.sw.trim);
    assert_key(&sc, "nic.entropy", "per_packet");
    assert_key(&sc, "nic.congestion_control", "nscc");
}

static void test_set_and_refusal(void **state)
{
    (void)state;
    struct bn_scenario sc;
    struct bn_error err = {0};
    bn_scenario_defaults(&sc);
    assert_int_equal(bn_scenario_set(&sc, "fabric=ib-xdr", &err), BN_OK);
    assert_true(sc.link.rate_gbps == 800.0);
    assert_int_equal(bn_scenario_set(&sc, "link.rate_gbps=400", &err), BN_OK);
    assert_true(sc.link.rate_gbps == 400.0);
    assert_int_equal(load(&sc, "\nfabric: nvlink5\n", &err), BN_OK);
    assert_int_equal(sc.scale_up.domain_gpus, 72);
    assert_true(sc.scale_up.rate_gbps == 7200.0);
    assert_int_equal(load(&sc, "fabric: infiniband\n", &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, "p.yaml:1: key 'fabric'"));
}

static void test_presets_run(void **state)
{
    (void)state;
    static const char *const names[] = {"ib-ndr", "ib-xdr", "roce-400g", "roce-800g", "uec-800g"};
    for (size_t i = 0; i < 5; i++) {
        char f[64];
        snprintf(f, sizeof f, "fabric=%s", names[i]);
        const char *sets[] = {f, "topology.k=4", "workload.message_bytes=1MB", NULL};
        struct bn_scenario sc;
        test_scenario(&sc, sets);
        struct bn_results r;
        test_run(&sc, &r);
        assert_ledger_balanced(&r);
        /* every flow done at the preset's rate: a mean that only the preset's
         * link rate allows (per-flow ECMP collisions keep RoCE's near 0.4) */
        assert_int_equal(r.flows_completed, r.nflows);
        assert_true(r.throughput_gbps.mean > 0.3 * sc.link.rate_gbps);
        assert_true(r.throughput_gbps.max <= sc.link.rate_gbps);
        bn_results_free(&r);
    }
}

/* bn_scenario_preset_describe: NULL past the last preset; a short buffer
 * holds a cut, terminated description and nothing is written past it. */
static void test_describe_bounds(void **state)
{
    (void)state;
    char buf[32];
    size_t n = bn_scenario_preset_count();
    assert_null(bn_scenario_preset_describe(n, buf, sizeof buf));
    for (size_t len = 1; len < 24; len++) {
        memset(buf, 'x', sizeof buf);
        assert_string_equal(bn_scenario_preset_describe(0, buf, len), "ib-ndr");
        assert_int_equal(strlen(buf), len - 1);
        for (size_t k = len; k < sizeof buf; k++)
            assert_int_equal(buf[k], 'x');
    }
}

/* bn_interrupt stops a run at its first check and stays until cleared. */
/* bn_scenario_preset_find is bn_scenario_preset_name's inverse; the count
 * for a name that is none. */
static void test_find(void **state)
{
    (void)state;
    size_t n = bn_scenario_preset_count();
    for (size_t i = 0; i < n; i++)
        assert_int_equal(bn_scenario_preset_find(bn_scenario_preset_name(i)), i);
    assert_int_equal(bn_scenario_preset_find("ib-ndrx"), n);
    assert_int_equal(bn_scenario_preset_find(""), n);
}

static void test_interrupt_clear(void **state)
{
    (void)state;
    /* enough events (about 2 M) to reach the loop's first check */
    const char *sets[] = {"topology.k=4", "workload.message_bytes=8MB", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    struct bn_error err = {0};
    bn_interrupt();
    for (int i = 0; i < 2; i++) /* heard in set-up (the routes): nothing measured */
        assert_int_equal(bn_run(&sc, NULL, &r, &err), BN_EINTR);
    bn_interrupt_clear();
    test_run(&sc, &r);
    assert_false(r.interrupted);
    assert_int_equal(r.flows_completed, r.nflows);
    bn_results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_preset_under_file_keys),
        cmocka_unit_test(test_set_and_refusal),
        cmocka_unit_test(test_presets_run),
        cmocka_unit_test(test_describe_bounds),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_interrupt_clear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
