/*
 * Load balancing end to end on the k=8 fat-tree (100 Gb/s, 2 MB permutation,
 * RoCE, MTU 4096), against independent figures:
 *  - ECMP keeps every flow on one path; packets sprayed over the 16 minimal
 *    paths between pods (4 ToR uplinks x 4 aggregation uplinks) use every
 *    one, uniformly by a chi-square test (15 df, 0.001: 37.70); on k=16,
 *    the 64 paths (a flow's path counts hold 64) too (63 df: 103.44);
 *  - permutation: spraying and adaptive routing with selective repeat reach
 *    a mean per-flow throughput of at least 0.80 of line rate and beat
 *    per-flow ECMP by at least 1.6x; adaptive routing, which sees the
 *    queues, does at least as well as oblivious spraying (it did not
 *    while it compared loads to the byte: 81.9 against 88.4);
 *  - polarization: when every switch hashes alike, an aggregation switch
 *    only ever forwards to one core in four, leaving 3/4 of the core links
 *    idle; different salts per switch use nearly all of them;
 *  - no policy with either transport loses a byte or leaves a flow unfinished.
 */
#include "support.h"

static void run_sets(const char *const *sets, struct bn_results *r)
{
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, r);
    assert_ledger_balanced(r);
}

static double permutation_mean(const char *lb, const char *entropy, const char *tp)
{
    char a[64], b[64], c[64];
    snprintf(a, sizeof a, "switch.load_balancing=%s", lb);
    snprintf(b, sizeof b, "nic.entropy=%s", entropy);
    snprintf(c, sizeof c, "nic.transport=%s", tp);
    const char *sets[] = {a, b, c, "observe.sample_us=0", NULL};
    struct bn_results r;
    run_sets(sets, &r);
    double mean = r.throughput_gbps.mean;
    printf("%-12s %-10s %-16s: mean %.2f Gb/s, %llu out of order, reorder p99 %.0f\n", lb,
           entropy, tp, mean, (unsigned long long)r.out_of_order, r.reorder_depth_p99);
    bn_results_free(&r);
    return mean;
}

static void test_permutation_ordering(void **state)
{
    (void)state;
    double ecmp = permutation_mean("ecmp", "per_flow", "selective_repeat");
    double spray = permutation_mean("ecmp", "per_packet", "selective_repeat");
    double ar = permutation_mean("adaptive", "per_flow", "selective_repeat");
    assert_true(spray >= 80.0 && ar >= 80.0);
    assert_true(spray >= 1.6 * ecmp && ar >= 1.6 * ecmp);
    assert_true(ar >= spray);
}

/* One flow from the first host to the last (another pod) on a k-ary
 * fat-tree; chi2_max: the chi-square bound its path counts must meet
 * (0: not tested). */
static void check_paths_k(const char *lb, const char *entropy, uint32_t k, uint32_t want_paths,
                          double chi2_max)
{
    char line[64], ff[128], a[64], b[64], kk[32];
    snprintf(line, sizeof line, "0 %u 2000000 0\n", k * k * k / 4 - 1);
    const char *flows = test_tmpfile(line);
    snprintf(ff, sizeof ff, "workload.flow_file=%s", flows);
    snprintf(a, sizeof a, "switch.load_balancing=%s", lb);
    snprintf(b, sizeof b, "nic.entropy=%s", entropy);
    snprintf(kk, sizeof kk, "topology.k=%u", k);
    const char *sets[] = {"workload.kind=flow_list", ff, a, b, kk,
                          "nic.transport=selective_repeat", NULL};
    struct bn_results r;
    run_sets(sets, &r);
    remove(flows);
    const struct bn_flow_result *f = &r.flows[0];
    assert_int_equal(f->paths, want_paths);
    double total = 0, chi2 = 0;
    for (uint32_t i = 0; i < f->paths; i++)
        total += f->path_packets[i];
    for (uint32_t i = 0; i < f->paths; i++) {
        double e = total / f->paths;
        chi2 += (f->path_packets[i] - e) * (f->path_packets[i] - e) / e;
    }
    printf("%-12s %-10s k=%u: %u paths, chi-square %.2f\n", lb, entropy, k, f->paths, chi2);
    if (chi2_max > 0)
        assert_true(chi2 < chi2_max);
    bn_results_free(&r);
}

static void check_paths(const char *lb, const char *entropy, uint32_t want_paths)
{
    check_paths_k(lb, entropy, 8, want_paths, want_paths == 16 ? 37.70 : 0);
}

static void test_paths_per_flow(void **state)
{
    (void)state;
    check_paths("ecmp", "per_flow", 1);
    check_paths("ecmp", "per_packet", 16);
    check_paths("spray_random", "per_flow", 16);
    check_paths("spray_rr", "per_flow", 16);
    check_paths_k("ecmp", "per_packet", 16, 64, 103.44);
    /* and every flow of a permutation under ECMP sticks to one path */
    const char *sets[] = {"nic.transport=selective_repeat", NULL};
    struct bn_results r;
    run_sets(sets, &r);
    for (uint32_t i = 0; i < r.nflows; i++)
        assert_int_equal(r.flows[i].paths, 1);
    bn_results_free(&r);
}

static uint32_t busy_core_links(const char *salt, uint32_t *total)
{
    char a[64];
    snprintf(a, sizeof a, "switch.ecmp_salt=%s", salt);
    const char *sets[] = {a, "workload.kind=all_to_all", "workload.message_bytes=20000",
                          "link.flow_control=pfc", "observe.sample_us=0", NULL};
    struct bn_results r;
    run_sets(sets, &r);
    uint32_t busy = 0;
    *total = 0;
    for (uint32_t i = 0; i < r.nports; i++)
        if (strncmp(r.ports[i].name, "agg", 3) == 0 && strncmp(r.ports[i].peer, "core", 4) == 0) {
            (*total)++;
            busy += r.ports[i].tx_bytes > 0;
        }
    bn_results_free(&r);
    return busy;
}

static void test_polarization(void **state)
{
    (void)state;
    uint32_t total, same = busy_core_links("same", &total);
    uint32_t total2, salted = busy_core_links("per_switch", &total2);
    printf("agg->core links carrying traffic: %u of %u with one hash, %u of %u salted\n", same,
           total, salted, total2);
    assert_int_equal(total, 128);
    assert_true(same <= total / 4);
    assert_true(salted >= 0.95 * total);
}

static void test_every_scheme_and_transport_delivers(void **state)
{
    (void)state;
    static const char *const lbs[][2] = {
        {"ecmp", "per_flow"},    {"ecmp", "per_packet"},   {"adaptive", "per_flow"},
        {"flowlet", "per_flow"}, {"spray_random", "per_flow"}, {"spray_rr", "per_flow"},
    };
    static const char *const tps[] = {"go_back_n", "selective_repeat"};
    for (size_t i = 0; i < sizeof lbs / sizeof lbs[0]; i++)
        for (size_t t = 0; t < 2; t++) {
            char a[64], b[64], c[64];
            snprintf(a, sizeof a, "switch.load_balancing=%s", lbs[i][0]);
            snprintf(b, sizeof b, "nic.entropy=%s", lbs[i][1]);
            snprintf(c, sizeof c, "nic.transport=%s", tps[t]);
            const char *sets[] = {"topology.k=4", "workload.message_bytes=500000",
                                  "switch.buffer_bytes=100000", a, b, c,
                                  t ? "nic.congestion_control=nscc" : "nic.congestion_control=none",
                                  NULL};
            struct bn_results r;
            run_sets(sets, &r); /* every flow done, ledger balanced */
            assert_int_equal(r.bytes_in_flight, 0);
            bn_results_free(&r);
        }
}

/* A sprayed 32-to-1 incast on lossy links: the sender window must cut the
 * drops that line-rate senders cause by more than ten times. */
static uint64_t incast_drops(const char *cc)
{
    char c[64];
    snprintf(c, sizeof c, "nic.congestion_control=%s", cc);
    const char *sets[] = {"workload.kind=incast", "workload.incast_senders=32",
                          "workload.message_bytes=1MB", "nic.transport=selective_repeat",
                          "nic.entropy=per_packet", c, NULL};
    struct bn_results r;
    run_sets(sets, &r);
    uint64_t drops = r.pkts_dropped;
    printf("incast, %s: %llu drops, p99 FCT %.0f us\n", cc, (unsigned long long)drops, r.fct_p99_us);
    bn_results_free(&r);
    return drops;
}

static void test_nscc_window_tames_incast(void **state)
{
    (void)state;
    uint64_t none = incast_drops("none"), nscc = incast_drops("nscc");
    assert_true(nscc * 10 < none);
}

/* Trimming turns drops into header-only frames that come back as NAKs:
 * the byte ledger still balances (the cut payload counts as dropped bytes),
 * nearly nothing is dropped outright, and fewer losses wait for a timeout. */
static void permutation_trim(const char *trim, uint64_t *timeouts, uint64_t *trimmed,
                             uint64_t *drops)
{
    char t[64];
    snprintf(t, sizeof t, "switch.trim=%s", trim);
    const char *sets[] = {t, "nic.transport=selective_repeat", "observe.sample_us=0", NULL};
    struct bn_results r;
    run_sets(sets, &r);
    *timeouts = r.timeouts;
    *trimmed = r.trimmed;
    *drops = r.data_pkts_dropped;
    printf("ECMP permutation, trim %s: %llu timeouts, %llu trimmed, %llu data drops\n", trim,
           (unsigned long long)r.timeouts, (unsigned long long)r.trimmed,
           (unsigned long long)r.data_pkts_dropped);
    bn_results_free(&r);
}

static void test_trimming(void **state)
{
    (void)state;
    uint64_t to_off, tr_off, d_off, to_on, tr_on, d_on;
    permutation_trim("false", &to_off, &tr_off, &d_off);
    permutation_trim("true", &to_on, &tr_on, &d_on);
    assert_int_equal(tr_off, 0);
    assert_true(tr_on > 0);
    assert_true(d_on * 5 < d_off);
    assert_true(to_on < to_off);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_permutation_ordering),
        cmocka_unit_test(test_paths_per_flow),
        cmocka_unit_test(test_polarization),
        cmocka_unit_test(test_every_scheme_and_transport_delivers),
        cmocka_unit_test(test_nscc_window_tames_incast),
        cmocka_unit_test(test_trimming),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
