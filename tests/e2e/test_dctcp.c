/*
 * DCTCP on a fabric (docs/model.md): an 8-to-1 incast of 1 MB over 100
 * Gb/s with ECN marking at K = 64 KiB (kmin = kmax, as DCTCP wants). The
 * receiver's queue settles around K, where without congestion control it
 * fills its 1 MiB and drops; nothing is lost and the flows share fairly
 * (Alizadeh et al., SIGCOMM 2010, section 3: the queue oscillates about K).
 * The time series follows each flow's window (series.cwnd_bytes): its rate
 * is the line rate throughout, so the window is what shows the control.
 */
#include "support.h"

static void incast(const char *cc, struct bn_results *r)
{
    char c[64];
    snprintf(c, sizeof c, "nic.congestion_control=%s", cc);
    const char *sets[] = {"topology.k=4", "workload.kind=incast", "workload.incast_senders=8",
                          "workload.message_bytes=1MB", c, "switch.ecn.kmin_bytes=65536",
                          "switch.ecn.kmax_bytes=65536", "switch.ecn.pmax=1",
                          "observe.sample_us=5", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, r);
    assert_int_equal(r->flows_completed, 8);
}

static void test_queue_near_k(void **state)
{
    (void)state;
    struct bn_results none, dctcp;
    incast("none", &none);
    incast("dctcp", &dctcp);
    double q = test_queue_mean(&dctcp, 20), q0 = test_queue_mean(&none, 20);
    printf("8-to-1 incast, K = 64 KiB: queue %.0f B with dctcp, %.0f B without; drops %llu / "
           "%llu; min %.2f Gb/s of mean %.2f\n", q, q0, (unsigned long long)dctcp.pkts_dropped,
           (unsigned long long)none.pkts_dropped, dctcp.throughput_gbps.min,
           dctcp.throughput_gbps.mean);
    assert_true(q > 0.25 * 65536 && q < 2 * 65536);
    assert_true(q0 > 8 * 65536);
    assert_int_equal(dctcp.pkts_dropped, 0);
    assert_true(none.pkts_dropped > 0);
    assert_true(dctcp.throughput_gbps.min > 0.75 * dctcp.throughput_gbps.mean);
    bn_results_free(&none);
    bn_results_free(&dctcp);
}

/* The window while a flow sends: at least a packet, cut below the initial
 * 10 packets (8 flows share about BDP + K, some 6 packets each) and moving;
 * 0 once it is done, and 0 throughout for a rate module. */
static void test_window_series(void **state)
{
    (void)state;
    struct bn_results none, dctcp;
    incast("none", &none);
    incast("dctcp", &dctcp);
    const struct bn_series *sr = &dctcp.series;
    assert_true(sr->nsamples > 10 && sr->nflows == 8);
    for (uint32_t i = 0; i < sr->nflows; i++) {
        double lo = 1e18, hi = 0;
        for (uint32_t k = 0; k < sr->nsamples; k++) {
            size_t at = (size_t)k * sr->nflows + i;
            double w = sr->cwnd_bytes[at];
            if (sr->rate_gbps[at] == 0) {
                assert_true(w == 0);
                continue;
            }
            assert_true(sr->rate_gbps[at] == 100); /* a window module paces at line rate */
            assert_true(w >= 4096);
            lo = w < lo ? w : lo;
            hi = w > hi ? w : hi;
        }
        printf("flow %u: window %.0f .. %.0f B\n", i, lo, hi);
        assert_true(lo < 10 * 4096 && hi > lo);
    }
    for (size_t k = 0; k < (size_t)none.series.nsamples * none.series.nflows; k++)
        assert_true(none.series.cwnd_bytes[k] == 0);
    bn_results_free(&none);
    bn_results_free(&dctcp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue_near_k),
        cmocka_unit_test(test_window_series),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
