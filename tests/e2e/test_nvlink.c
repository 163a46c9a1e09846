/*
 * NVLink scale-up domains: a message between two GPUs of one domain crosses
 * GPU -> NVSwitch -> GPU at NVLink rate, with latency computed by hand to
 * the picosecond; a message between domains takes the backend NICs; and
 * two senders into one GPU share its NVLink port (contention is modelled,
 * not assumed away). The topology planner counts NVSwitches apart from the
 * backend tiers.
 */
#include "support.h"

#define HOST_PROP_PS 8600    /* 2 m copper at 4.3 ns/m */
#define FEC_PS 0             /* link.fec_ns = 0 */
#define NVSW_PS 250000       /* scale_up.latency_ns = 250 */

static int64_t ser_ps(int64_t bytes, int64_t gbps) { return bytes * 8 * 1000 / gbps; }

static void run_flows(const char *flows, struct bn_results *r)
{
    const char *path = test_tmpfile(flows);
    char ff[128];
    snprintf(ff, sizeof ff, "workload.flow_file=%s", path);
    const char *sets[] = {"topology.k=4", "workload.kind=flow_list", ff, "workload.verb=send",
                          "link.fec_ns=0", "scale_up.domain_gpus=4", "scale_up.rate_gbps=3200",
                          "scale_up.efficiency=1", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, r);
    remove(path);
    assert_ledger_balanced(r);
}

static void test_one_packet_latency(void **state)
{
    (void)state;
    struct bn_results r;
    run_flows("0 3 1000 1\n", &r);
    /* 1000 B SEND over RoCE framing: 1082 wire bytes; the NVSwitch cuts
     * through after the 50-byte head: head + whole frame at 3200 Gb/s, two
     * copper links, one NVSwitch latency */
    int64_t want = ser_ps(50, 3200) + ser_ps(1082, 3200) + 2 * HOST_PROP_PS + NVSW_PS;
    assert_int_equal((int64_t)(r.flows[0].fct_us * 1e6 + 0.5), want);
    bn_results_free(&r);
}

static void test_rates_and_contention(void **state)
{
    (void)state;
    struct bn_results r;
    /* 0->1 in one domain; 4->8 across domains (backend NIC at 100 Gb/s) */
    run_flows("0 1 10000000 0\n4 8 10000000 0\n", &r);
    double payload_eff = 4096.0 / (4096 + 82);
    assert_true(r.flows[0].throughput_gbps > 0.95 * 3200 * payload_eff);
    assert_true(r.flows[0].throughput_gbps <= 3200);
    assert_true(r.flows[1].throughput_gbps > 0.9 * 100 * payload_eff);
    assert_true(r.flows[1].throughput_gbps <= 100);
    bn_results_free(&r);
    /* two GPUs into GPU 2: they share its one NVLink port, and NVLink
     * loses nothing even on a lossy backend */
    run_flows("0 2 10000000 0\n1 2 10000000 0\n", &r);
    assert_int_equal(r.pkts_dropped, 0);
    for (int i = 0; i < 2; i++) {
        assert_true(r.flows[i].throughput_gbps < 0.55 * 3200);
        assert_true(r.flows[i].throughput_gbps > 0.40 * 3200);
    }
    bn_results_free(&r);
}

/* A domain may span servers (GB200 NVL72: 18 trays of 4 GPUs): GPUs of
 * different servers in one domain talk over NVLink, not their NICs. */
static void test_domain_spans_servers(void **state)
{
    (void)state;
    const char *path = test_tmpfile("0 13 10000000 0\n");
    char ff[128];
    snprintf(ff, sizeof ff, "workload.flow_file=%s", path);
    const char *sets[] = {"topology.k=4", "topology.gpus_per_server=4", "fabric=nvlink5",
                          "workload.kind=flow_list", ff, NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    assert_int_equal(sc.scale_up.domain_gpus, 72);
    struct bn_results r;
    test_run(&sc, &r);
    remove(path);
    assert_ledger_balanced(&r);
    assert_int_equal(r.topo.scaleup_domains, 1); /* 16 GPUs, all in one */
    assert_true(r.flows[0].throughput_gbps > 10 * sc.link.rate_gbps);
    assert_true(r.flows[0].throughput_gbps <= 7200);
    bn_results_free(&r);
}

/* NVLink and SHARP units under lossless backends: they build (their ports
 * never pause) and lose nothing. */
/* (sim.prefetch=on: the engine's prefetch stage, off by default on fabrics
 * this small, runs here over NVSwitches, SHARP units and lossless ports,
 * so the sanitizer build covers it) */
static void test_lossless_backends(void **state)
{
    (void)state;
    const char *pfc[] = {"topology.k=4", "link.rate_gbps=400", "link.flow_control=pfc",
                         "nic.encap=roce", "pfc.threshold=dynamic", "scale_up.domain_gpus=4",
                         "sharp.enabled=true", "workload.message_bytes=1MB", "sim.prefetch=on",
                         NULL};
    const char *credit[] = {"topology.k=4", "fabric=ib-ndr", "scale_up.domain_gpus=4",
                            "sharp.enabled=true", "workload.message_bytes=1MB", "sim.prefetch=on",
                            NULL};
    const char *const *cases[] = {pfc, credit};
    for (int i = 0; i < 2; i++) {
        struct bn_scenario sc;
        test_scenario(&sc, cases[i]);
        struct bn_results r;
        test_run(&sc, &r);
        assert_ledger_balanced(&r);
        assert_int_equal(r.pkts_dropped, 0);
        bn_results_free(&r);
    }
}

static void test_planner_counts(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=4", "scale_up.domain_gpus=8", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_topo_info t;
    struct bn_error err = {0};
    assert_int_equal(bn_plan_topology(&sc, NULL, &t, &err), BN_OK);
    assert_int_equal(t.scaleup_domains, 2);
    assert_int_equal(t.scaleup_gpus_per_domain, 8);
    assert_int_equal(t.hosts, 16);
    assert_int_equal(t.switches, 20);   /* the backend's: NVSwitches apart */
    assert_int_equal(t.links, 48);
    assert_int_equal(t.host_copper, 16);
    assert_true(t.host_rate_gbps == 100.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_packet_latency),
        cmocka_unit_test(test_rates_and_contention),
        cmocka_unit_test(test_domain_spans_servers),
        cmocka_unit_test(test_lossless_backends),
        cmocka_unit_test(test_planner_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
