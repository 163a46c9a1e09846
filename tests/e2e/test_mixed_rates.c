/*
 * Cut-through onto a faster link, decided on the egress the switch actually
 * picks: two spines, one on 400G links and one on 100G, 100G hosts. A
 * one-packet message (RoCE SEND of 1000 B: 1082 wire bytes; the switch
 * decides after 50 head bytes) arrives after exactly
 *   via the 400G spine: ser100(1082) + lat at the leaf (it must wait for the
 *     tail before going onto the faster link), then two cut-through hops at
 *     400G, then ser100(1082) to the host;
 *   via the 100G spine: cut-through all the way: three head times at 100G.
 * Many flows with different entropies take both spines; each must match
 * one formula to the picosecond.
 */
#include "sim_support.h"

#include "nic/dcqcn.h"

#define HOST_PROP 8600    /* 2 m copper, ps */
#define FAB_PROP 50000    /* 10 m fiber */
#define SW 300000         /* switch.latency_ns = 300 */

static int64_t ser(int64_t bytes, int64_t gbps) { return bytes * 8 * 1000 / gbps; }

static void test_both_spines_exact(void **state)
{
    (void)state;
    const char *topo = test_tmpfile(
        "host h0\nhost h1\nhost h2\nhost h3\n"
        "switch l0 tier 1\nswitch l1 tier 1\nswitch s0 tier 2\nswitch s1 tier 2\n"
        "link h0 l0 100 2 copper\nlink h1 l0 100 2 copper\n"
        "link h2 l1 100 2 copper\nlink h3 l1 100 2 copper\n"
        "link l0 s0 400 10 fiber\nlink l1 s0 400 10 fiber\n"
        "link l0 s1 100 10 fiber\nlink l1 s1 100 10 fiber\n");
    char topo_path[64];
    snprintf(topo_path, sizeof topo_path, "%s", topo);
    char flows_text[4096] = "";
    for (int i = 0; i < 40; i++) /* one packet each, spaced so they never meet */
        snprintf(flows_text + strlen(flows_text), sizeof flows_text - strlen(flows_text),
                 "0 2 1000 %d\n", i * 10);
    const char *flows = test_tmpfile(flows_text);
    char tf[128], ff[128];
    snprintf(tf, sizeof tf, "topology.file=%s", topo_path);
    snprintf(ff, sizeof ff, "workload.flow_file=%s", flows);
    const char *sets[] = {"topology.kind=file", tf, "workload.kind=flow_list", ff,
                          "workload.verb=send", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    test_run(&sc, &r);
    remove(flows);
    remove(topo_path);
    int64_t fast = ser(1082, 100) + HOST_PROP + SW + 2 * (ser(50, 400) + FAB_PROP + SW) +
                   ser(1082, 100) + HOST_PROP;
    int64_t slow = ser(50, 100) + HOST_PROP + SW + 2 * (ser(50, 100) + FAB_PROP + SW) +
                   ser(1082, 100) + HOST_PROP;
    int n_fast = 0, n_slow = 0;
    for (uint32_t i = 0; i < r.nflows; i++) {
        int64_t ps = (int64_t)(r.flows[i].fct_us * 1e6 + 0.5);
        if (ps == fast)
            n_fast++;
        else if (ps == slow)
            n_slow++;
        else
            fail_msg("flow %u: %lld ps is neither %lld (400G spine) nor %lld (100G spine)", i,
                     (long long)ps, (long long)fast, (long long)slow);
    }
    printf("%d flows via the 400G spine, %d via the 100G one\n", n_fast, n_slow);
    assert_true(n_fast > 0 && n_slow > 0);
    bn_results_free(&r);
}

/* Links on a path, from a one-packet message's latency on an idle uniform
 * 100G fabric: cut-through at every switch, 2 m copper host links, 10 m
 * fiber between switches. */
static int links_of(int64_t ps)
{
    for (int n = 2; n <= 12; n++) {
        int64_t t = (n - 1) * (ser(50, 100) + SW) + 2 * HOST_PROP + (n - 2) * FAB_PROP +
                    ser(1082, 100);
        if (ps == t)
            return n;
    }
    return -1;
}

/* Dragonfly+ k=8 (17 groups): minimal routes between groups take 5 links;
 * Valiant ones 5 (intermediate = source group) to 8 (via the intermediate
 * group's leaf); every packet arrives, none by a longer path. */
/* A NIC sends at its own port's rate: hosts on 400G links from a topology
 * file, link.rate_gbps left at 100. Queue pairs were paced at 100 Gb/s
 * (without congestion control) and DCQCN capped them there. One 8 MB
 * flow alone, then two into one receiver under DCQCN: each alone near
 * 400 Gb/s goodput, the pair sharing the receiver's 400G. */
static void test_nic_rate_is_its_port(void **state)
{
    (void)state;
    char topo[64], one[64], two[64]; /* test_tmpfile's buffer is reused */
    char tset[BN_PATH_MAX + 32];
    snprintf(topo, sizeof topo, "%s", test_tmpfile(
        "host h0\nhost h1\nhost h2\nswitch l0 tier 1\n"
        "link h0 l0 400 2 copper\nlink h1 l0 400 2 copper\nlink h2 l0 400 2 copper\n"));
    snprintf(one, sizeof one, "%s", test_tmpfile("0 2 8000000 0\n"));
    snprintf(two, sizeof two, "%s", test_tmpfile("0 2 8000000 0\n1 2 8000000 0\n"));
    /* the parameters and first rate of a queue pair on a 400G NIC */
    snprintf(tset, sizeof tset, "topology.file=%s", topo);
    const char *build[] = {"topology.kind=file", tset, "nic.encap=roce",
                           "link.flow_control=pfc", "nic.congestion_control=dcqcn", NULL};
    struct bn_sim *s = test_sim_build(build);
    uint32_t q = bn_qp_create(&s->nics, 0, 2);
    assert_true(s->nics.qp[q].rate_bps == 400000000000ULL);
    const struct bn_dcqcn_params *dp = bn_nic_cc_params(&s->nics, &s->nics.qp[q]);
    assert_true(dp->line_rate_gbps == 400);
    test_sim_free(s);
    for (int k = 0; k < 2; k++) {
        char tf[BN_PATH_MAX + 32], ff[BN_PATH_MAX + 32];
        snprintf(tf, sizeof tf, "topology.file=%s", topo);
        snprintf(ff, sizeof ff, "workload.flow_file=%s", k ? two : one);
        const char *sets[] = {"topology.kind=file", tf, "workload.kind=flow_list", ff,
                              "nic.encap=roce", "link.flow_control=pfc",
                              "nic.congestion_control=dcqcn", NULL};
        struct bn_scenario sc;
        test_scenario(&sc, sets);
        struct bn_results res;
        test_run(&sc, &res);
        double sum = 0;
        for (uint32_t f = 0; f < res.nflows; f++)
            sum += res.flows[f].throughput_gbps;
        if (k == 0)
            assert_true(res.flows[0].throughput_gbps > 350);
        else /* DCQCN's slow recovery (NVIDIA's 5 Mb/s steps) keeps them below
              * 200 each, but no longer under the 100 Gb/s of link.rate_gbps */
            assert_true(sum > 180 && res.flows[0].throughput_gbps > 90 &&
                        res.flows[1].throughput_gbps > 90);
        bn_results_free(&res);
    }
}

static void test_dragonfly_route_lengths(void **state)
{
    (void)state;
    char text[8192] = "";
    for (int i = 0; i < 64; i++) /* host 0 (group 0) to hosts of groups 1..16 */
        snprintf(text + strlen(text), sizeof text - strlen(text), "0 %d 1000 %d\n",
                 16 + (i * 61) % 256, i * 10);
    const char *flows = test_tmpfile(text);
    char ff[128];
    snprintf(ff, sizeof ff, "workload.flow_file=%s", flows);
    static const char *const modes[] = {"switch.nonminimal=none", "switch.nonminimal=valiant"};
    for (int m = 0; m < 2; m++) {
        const char *sets[] = {"topology.kind=dragonfly_plus", "topology.k=8",
                              "workload.kind=flow_list", ff, "workload.verb=send", modes[m],
                              "nic.entropy=per_packet", NULL};
        struct bn_scenario sc;
        test_scenario(&sc, sets);
        struct bn_results r;
        test_run(&sc, &r);
        int count[13] = {0};
        for (uint32_t i = 0; i < r.nflows; i++) {
            int n = links_of((int64_t)(r.flows[i].fct_us * 1e6 + 0.5));
            assert_true(n >= 5 && n <= (m ? 8 : 5));
            count[n]++;
        }
        printf("%s: links 5:%d 6:%d 7:%d 8:%d\n", modes[m], count[5], count[6], count[7],
               count[8]);
        if (m)
            assert_true(count[6] + count[7] + count[8] > 32);
        bn_results_free(&r);
    }
    remove(flows);
}

/* Adaptive routing steers around a path a background flow saturates: on
 * leaf l0, two background hosts send at line rate to l2, which hangs only
 * off spine s0, so l0's uplink to s0 is overloaded; a test flow from l0 to
 * l1 has two minimal paths (via s0 or s1). Adaptive routing must send
 * almost none of it via s0 (its minority path carries < 5 %), where random
 * spraying splits it about evenly. */
static double minority_share(const char *policy, double *gbps)
{
    const char *topo = test_tmpfile(
        "host h0\nhost h1\nhost h2\nhost h3\nhost h4\nhost h5\n"
        "switch l0 tier 1\nswitch l1 tier 1\nswitch l2 tier 1\n"
        "switch s0 tier 2\nswitch s1 tier 2\n"
        "link h0 l0 100 2 copper\nlink h1 l0 100 2 copper\nlink h2 l0 100 2 copper\n"
        "link h3 l1 100 2 copper\nlink h4 l2 100 2 copper\nlink h5 l2 100 2 copper\n"
        "link l0 s0 100 10 fiber\nlink l0 s1 100 10 fiber\n"
        "link l1 s0 100 10 fiber\nlink l1 s1 100 10 fiber\nlink l2 s0 100 10 fiber\n");
    char topo_path[64];
    snprintf(topo_path, sizeof topo_path, "%s", topo);
    /* test flow first (followed), background from t=0, test from t=20 us */
    const char *flows = test_tmpfile("0 3 2000000 20\n1 4 8000000 0\n2 5 8000000 0\n");
    char tf[128], ff[128], lb[64];
    snprintf(tf, sizeof tf, "topology.file=%s", topo_path);
    snprintf(ff, sizeof ff, "workload.flow_file=%s", flows);
    snprintf(lb, sizeof lb, "switch.load_balancing=%s", policy);
    const char *sets[] = {"topology.kind=file", tf, "workload.kind=flow_list", ff, lb,
                          "nic.transport=selective_repeat", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    test_run(&sc, &r);
    remove(flows);
    remove(topo_path);
    assert_ledger_balanced(&r);
    const struct bn_flow_result *f = &r.flows[0];
    assert_int_equal(f->dst, 3);
    double total = 0, least = 1e18;
    for (uint32_t i = 0; i < f->paths; i++) {
        total += f->path_packets[i];
        least = f->path_packets[i] < least ? f->path_packets[i] : least;
    }
    double share = f->paths < 2 ? 0 : least / total;
    *gbps = f->throughput_gbps;
    printf("%-12s: test flow over %u paths, the lesser carries %.1f %%\n", policy, f->paths,
           100 * share);
    bn_results_free(&r);
    return share;
}

static void test_adaptive_avoids_saturated_path(void **state)
{
    (void)state;
    double ar_gbps, spray_gbps;
    assert_true(minority_share("adaptive", &ar_gbps) < 0.05);
    assert_true(minority_share("spray_random", &spray_gbps) > 0.35);
    /* and the path it kept is the free one: close to the idle-path goodput */
    printf("test flow: %.1f Gb/s adaptive, %.1f sprayed\n", ar_gbps, spray_gbps);
    assert_true(ar_gbps > 0.9 * 98.04);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_both_spines_exact),
                                       cmocka_unit_test(test_nic_rate_is_its_port),
        cmocka_unit_test(test_dragonfly_route_lengths),
                                       cmocka_unit_test(test_adaptive_avoids_saturated_path)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
