/*
 * Lossless links and congestion control, end to end, against independent
 * figures:
 *  - two DCQCN flows on one 100 Gb/s bottleneck each get half of its goodput
 *    bound (100 x 4096/4178 / 2 = 49.02 Gb/s) within 10 % over every 10 ms
 *    window after the first 10 ms;
 *  - a 32-to-1 incast in each lossless mode (credits; PFC with static and
 *    with dynamic shared-buffer thresholds; with and without CC) drops nothing and keeps the
 *    bottleneck delivering >= 95 % of its goodput bound while its queue is
 *    backlogged;
 *  - PFC head-of-line blocking: a victim flow that never crosses the
 *    congested port loses more than half of its alone-throughput when
 *    pauses spread into the queues it shares with the incast.
 */
#include "support.h"

#define GOODPUT_GBPS (100.0 * 4096 / (4096 + 62 + 20)) /* RoCE, MTU 4096 */

static void run_sets(const char *const *sets, struct bn_results *r)
{
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, r);
    assert_ledger_balanced(r);
    assert_int_equal(r->pkts_dropped, 0);
}

static double window_gbps(const struct bn_series *s, uint32_t flow, double t0, double t1)
{
    uint32_t a = (uint32_t)(t0 / s->interval_us), b = (uint32_t)(t1 / s->interval_us);
    assert_true(b < s->nsamples);
    double bytes = s->delivered_bytes[(size_t)b * s->nflows + flow] -
                   s->delivered_bytes[(size_t)a * s->nflows + flow];
    return bytes * 8 / ((t1 - t0) * 1e3);
}

static void test_dcqcn_fair_share(void **state)
{
    (void)state;
    const char *flows = test_tmpfile("0 7 250000000 0\n2 7 250000000 0\n");
    char ff[128];
    snprintf(ff, sizeof ff, "workload.flow_file=%s", flows);
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=4", "link.flow_control=pfc",
                          "nic.congestion_control=dcqcn", "workload.kind=flow_list", ff,
                          "observe.sample_us=100", NULL};
    struct bn_results r;
    run_sets(sets, &r);
    remove(flows);
    double end = r.flows[0].fct_us < r.flows[1].fct_us ? r.flows[0].fct_us : r.flows[1].fct_us;
    int windows = 0;
    for (double t = 10000; t + 10000 <= end; t += 10000, windows++)
        for (uint32_t f = 0; f < 2; f++) {
            double g = window_gbps(&r.series, f, t, t + 10000);
            printf("flow %u, %5.0f-%5.0f us: %.2f Gb/s (fair %.2f)\n", f, t, t + 10000, g,
                   GOODPUT_GBPS / 2);
            assert_true(g > 0.9 * GOODPUT_GBPS / 2 && g < 1.1 * GOODPUT_GBPS / 2);
        }
    assert_true(windows >= 2);
    assert_true(r.cnps > 0);
    bn_results_free(&r);
}

/* Goodput delivered while the bottleneck queue stayed non-empty, as a share
 * of what the link could deliver in that time. */
static double backlogged_share(const struct bn_results *r, double goodput_gbps)
{
    const struct bn_series *s = &r->series;
    double bytes = 0, us = 0;
    for (uint32_t k = 0; k + 1 < s->nsamples; k++) {
        if (s->queue_bytes[(size_t)k * s->nqueues] <= 0 ||
            s->queue_bytes[(size_t)(k + 1) * s->nqueues] <= 0)
            continue;
        for (uint32_t f = 0; f < s->nflows; f++)
            bytes += s->delivered_bytes[(size_t)(k + 1) * s->nflows + f] -
                     s->delivered_bytes[(size_t)k * s->nflows + f];
        us += s->t_us[k + 1] - s->t_us[k];
    }
    assert_true(us > 100);
    return bytes * 8 / (us * 1e3) / goodput_gbps;
}

static void incast(const char *fc, const char *encap, const char *cc, const char *threshold,
                   double goodput)
{
    char a[64], b[64], c[64], d[64];
    snprintf(a, sizeof a, "link.flow_control=%s", fc);
    snprintf(b, sizeof b, "nic.encap=%s", encap);
    snprintf(c, sizeof c, "nic.congestion_control=%s", cc);
    snprintf(d, sizeof d, "pfc.threshold=%s", threshold);
    const char *sets[] = {a, b, c, d, "workload.kind=incast", "workload.incast_senders=32",
                          "workload.message_bytes=1MB", NULL};
    struct bn_results r;
    run_sets(sets, &r);
    assert_int_equal(r.flows_completed, 32);
    double share = backlogged_share(&r, goodput);
    printf("%-6s %-5s %-6s %-8s: bottleneck delivers %.1f %% while backlogged, %llu pauses\n",
           fc, encap, cc, threshold, 100 * share, (unsigned long long)r.pause_frames);
    assert_true(share >= 0.95);
    assert_true(share <= 1.01);
    bn_results_free(&r);
}

static void test_incast_lossless_modes(void **state)
{
    (void)state;
    double ib_goodput = 100.0 * 4096 / (4096 + 26);
    incast("pfc", "roce", "none", "static", GOODPUT_GBPS);
    incast("pfc", "roce", "none", "dynamic", GOODPUT_GBPS);
    incast("pfc", "roce", "dcqcn", "static", GOODPUT_GBPS);
    incast("pfc", "roce", "dcqcn", "dynamic", GOODPUT_GBPS);
    incast("credit", "ib", "none", "static", ib_goodput);
    incast("credit", "ib", "ib_cc", "static", ib_goodput);
}

static double victim_gbps(const char *flow_text, const char *cc, uint64_t *pauses)
{
    const char *flows = test_tmpfile(flow_text);
    char ff[128], c[64];
    snprintf(ff, sizeof ff, "workload.flow_file=%s", flows);
    snprintf(c, sizeof c, "nic.congestion_control=%s", cc);
    const char *sets[] = {"link.flow_control=pfc", c, "workload.kind=flow_list", ff,
                          "observe.sample_us=0", NULL};
    struct bn_results r;
    run_sets(sets, &r);
    remove(flows);
    double g = r.flows[0].throughput_gbps;
    *pauses = r.pause_frames;
    bn_results_free(&r);
    return g;
}

static void test_pfc_head_of_line_victim(void **state)
{
    (void)state;
    /* victim: host 64 (pod 4) -> host 1 under tor0; incast: 24 hosts of
     * pods 1-3 -> host 0 under the same tor0 */
    char text[2048] = "64 1 20000000 0\n";
    for (int h = 16; h < 40; h++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%d 0 8000000 0\n", h);
    uint64_t p_alone, p_incast, p_dcqcn;
    double alone = victim_gbps("64 1 20000000 0\n", "none", &p_alone);
    double blocked = victim_gbps(text, "none", &p_incast);
    double dcqcn = victim_gbps(text, "dcqcn", &p_dcqcn);
    printf("victim alone %.1f Gb/s; behind the incast %.1f (%llu pauses); with DCQCN %.1f "
           "(%llu pauses)\n",
           alone, blocked, (unsigned long long)p_incast, dcqcn, (unsigned long long)p_dcqcn);
    assert_true(alone > 0.98 * GOODPUT_GBPS);
    assert_int_equal(p_alone, 0);
    /* its own path has spare capacity (its egress port is idle but for it),
     * so everything it loses is head-of-line blocking in paused queues */
    assert_true(blocked < 0.5 * alone);
    assert_true(p_incast > 0);
    assert_true(p_dcqcn < p_incast);
}

/* The default permutation on lossless links, in both forwarding modes and
 * with both PFC threshold rules: it completes and drops nothing (a lost
 * wake-up or an overflowed headroom would fail the run). */
static void test_permutation_lossless(void **state)
{
    (void)state;
    static const char *const modes[][4] = {
        {"link.flow_control=pfc", "nic.encap=roce", "pfc.threshold=static", "switch.forwarding=cut_through"},
        {"link.flow_control=pfc", "nic.encap=roce", "pfc.threshold=dynamic", "switch.forwarding=store_and_forward"},
        {"link.flow_control=pfc", "nic.encap=roce", "pfc.threshold=dynamic", "switch.forwarding=cut_through"},
        {"link.flow_control=credit", "nic.encap=ib", "pfc.threshold=static", "switch.forwarding=cut_through"},
        {"link.flow_control=credit", "nic.encap=ib", "pfc.threshold=static", "switch.forwarding=store_and_forward"},
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        const char *sets[] = {modes[i][0], modes[i][1], modes[i][2], modes[i][3],
                              "observe.sample_us=0", NULL};
        struct bn_results r;
        run_sets(sets, &r);
        assert_int_equal(r.flows_completed, r.nflows);
        bn_results_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dcqcn_fair_share),
        cmocka_unit_test(test_incast_lossless_modes),
        cmocka_unit_test(test_pfc_head_of_line_victim),
        cmocka_unit_test(test_permutation_lossless),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
