/*
 * The seed's report against the figures it is built from: every figure
 * of a run is its result's own value with the seed's target applied (the
 * P99.9 within 10 us, AllReduce busbw at least 90 % of line rate, failure
 * convergence under 100 ms, over 200 M messages/s), and what a run cannot
 * measure says what would.
 */
#include "support.h"
#include <math.h>

#include "bnet/coll.h"
#include "bnet/p2p.h"

static const struct bn_seed_figure *fig(const struct bn_seed_report *s, const char *key)
{
    for (int i = 0; i < BN_SEED_FIGURES; i++)
        if (strcmp(s->fig[i].key, key) == 0)
            return &s->fig[i];
    fail_msg("no seed figure %s", key);
    return NULL;
}

static void test_run_figures(void **state)
{
    (void)state;
    struct bn_scenario sc;
    struct bn_results r;
    struct bn_seed_report s;
    /* 2 MB flows: their messages take far over 10 us */
    const char *const slow[] = {"topology.k=4", NULL};
    test_scenario(&sc, slow);
    test_run(&sc, &r);
    bn_seed_of_run(&r, &s);
    assert_true(fig(&s, "port_rate_gbps")->value == r.topo.host_rate_gbps);
    assert_int_equal(fig(&s, "diameter_hops")->value, r.topo.diameter_hops);
    assert_true(fig(&s, "latency_p999_us")->value == r.msg_lat_p999_us);
    assert_int_equal(fig(&s, "latency_p999_us")->verdict, BN_SEED_MISSED);
    assert_int_equal(fig(&s, "allreduce_busbw_pct")->verdict, BN_SEED_UNMEASURED);
    assert_non_null(strstr(fig(&s, "allreduce_busbw_pct")->measure, "bnet coll"));
    assert_int_equal(fig(&s, "convergence_ms")->verdict, BN_SEED_UNMEASURED);
    assert_int_equal(fig(&s, "gbps_per_pflops")->verdict, BN_SEED_UNMEASURED);
    bn_results_free(&r);
    /* 4 KiB messages on NDR: well within; the GPUs' compute stated */
    const char *const fast[] = {"topology.k=4", "fabric=ib-ndr", "workload.message_bytes=4096",
                                "topology.gpu_tflops=1000", NULL};
    test_scenario(&sc, fast);
    test_run(&sc, &r);
    bn_seed_of_run(&r, &s);
    assert_true(r.msg_lat_p999_us < 10);
    assert_int_equal(fig(&s, "latency_p999_us")->verdict, BN_SEED_MET);
    /* a run measures it too: 400 Gb/s per GPU over 1000 TFLOPS = 400 */
    assert_int_equal(fig(&s, "gbps_per_pflops")->verdict, BN_SEED_NO_TARGET);
    assert_float_equal(fig(&s, "gbps_per_pflops")->value, 400.0, 1e-9);
    assert_float_equal(r.topo.bisection_gbps_per_pflops, r.topo.bisection_gbps / 16.0, 1e-9);
    bn_results_free(&r);
}

static void test_convergence(void **state)
{
    (void)state;
    struct bn_scenario sc;
    struct bn_results r;
    struct bn_seed_report s;
    struct bn_error err = {0};
    if (bn_scenario_load_file(&sc, "scenarios/fault_link_ib_sm.yaml", &err) != BN_OK ||
        bn_scenario_validate(&sc, &err) != BN_OK)
        fail_msg("%s", err.msg);
    test_run(&sc, &r);
    bn_seed_of_run(&r, &s);
    double worst = 0;
    for (uint32_t i = 0; i < r.nfaults; i++)
        worst = r.faults[i].converged_us > worst ? r.faults[i].converged_us : worst;
    assert_true(r.nfaults > 0 && worst > 0);
    assert_true(fig(&s, "convergence_ms")->value == worst / 1e3);
    assert_int_equal(fig(&s, "convergence_ms")->verdict,
                     worst < 100e3 ? BN_SEED_MET : BN_SEED_MISSED);
    bn_results_free(&r);
}

static void test_coll_busbw(void **state)
{
    (void)state;
    struct bn_scenario sc;
    const char *const sets[] = {"topology.k=4", "fabric=ib-ndr", "link.rate_gbps=100",
                                "nic.congestion_control=none", "coll.min_bytes=1048576",
                                "coll.max_bytes=4194304", "coll.algo=ring", NULL};
    test_scenario(&sc, sets);
    struct bn_error err = {0};
    struct bn_coll_results r;
    if (bn_coll_sweep(&sc, &r, &err) != BN_OK)
        fail_msg("%s", err.msg);
    struct bn_seed_report s;
    bn_seed_of_coll(&r, &s);
    const struct bn_coll_row *big = &r.rows[r.nrows - 1];
    /* a ring over the NICs: its line-rate busbw is the NIC's line rate */
    assert_true(fabs(big->line_busbw_gbs - 100.0 / 8) < 1e-9);
    /* across servers the NICs' goodput bound, as NCCL users count it:
     * the ring's, one NIC's goodput */
    double goodput = r.nic_goodput_gbps / 8;
    assert_true(fabs(big->nic_busbw_gbs - goodput) < 1e-9 * goodput);
    double pct = 100 * big->busbw_gbs / big->nic_busbw_gbs;
    assert_true(fig(&s, "allreduce_busbw_pct")->value == pct);
    assert_int_equal(fig(&s, "allreduce_busbw_pct")->verdict,
                     pct >= 90 ? BN_SEED_MET : BN_SEED_MISSED);
    assert_int_equal(fig(&s, "latency_p999_us")->verdict, BN_SEED_UNMEASURED);
    bn_coll_results_free(&r);
}

static void test_p2p_rate(void **state)
{
    (void)state;
    struct bn_scenario sc;
    const char *const sets[] = {"fabric=ib-ndr", "topology.kind=leaf_spine", "topology.k=8",
                                "p2p.test=write_bw", "p2p.bytes=64", "p2p.qps=16",
                                "p2p.iterations=1000", NULL};
    test_scenario(&sc, sets);
    struct bn_error err = {0};
    struct bn_p2p_results r;
    if (bn_p2p_run(&sc, NULL, NULL, &r, &err) != BN_OK)
        fail_msg("%s", err.msg);
    struct bn_seed_report s;
    bn_seed_of_p2p(&r, &s);
    /* ConnectX-7's 330 M/s ceiling is over the seed's 200 */
    assert_true(fig(&s, "message_rate_mpps")->value == r.pairs[0].rows[0].msg_rate_mpps);
    assert_int_equal(fig(&s, "message_rate_mpps")->verdict, BN_SEED_MET);
    bn_p2p_results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_figures),
        cmocka_unit_test(test_convergence),
        cmocka_unit_test(test_coll_busbw),
        cmocka_unit_test(test_p2p_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
