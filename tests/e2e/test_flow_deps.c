/*
 * Flows that wait for others (docs/traffic.md#flow-files): a flow `after`
 * others starts its delay after the last of them is received; htsim's
 * barrier starts its flows at its count-th activation and its multishot
 * one flow per activation, a send_done signal at the sender's completion;
 * a failed flow fails the flows that wait for it, and the run still ends.
 */
#include "support.h"

static void run_file(const char *body, const char *const *extra, struct bn_results *r)
{
    const char *f = test_tmpfile(body);
    char ff[160];
    snprintf(ff, sizeof ff, "workload.flow_file=%s", f);
    const char *sets[16] = {"topology.k=4", "workload.kind=flow_list", ff};
    size_t n = 3;
    for (; extra && extra[n - 3]; n++)
        sets[n] = extra[n - 3];
    sets[n] = NULL;
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, r);
    remove(f);
}

static double received(const struct bn_flow_result *f) { return f->start_us + f->fct_us; }
static double acked(const struct bn_flow_result *f) { return f->start_us + f->ack_us; }

static void test_after(void **state)
{
    (void)state;
    struct bn_results r;
    run_file("0 5 100000 0\n1 6 100000 2\n2 7 50000 3 after 0,1\n3 4 10000 0 after 2\n", NULL, &r);
    assert_int_equal(r.flows_completed, 4);
    const struct bn_flow_result *f = r.flows;
    double last = received(&f[0]) > received(&f[1]) ? received(&f[0]) : received(&f[1]);
    assert_float_equal(f[2].start_us, last + 3, 1e-6);
    assert_float_equal(f[3].start_us, received(&f[2]), 1e-6);
    bn_results_free(&r);
}

static void test_htsim_triggers(void **state)
{
    (void)state;
    struct bn_results r;
    run_file("Nodes 16\nConnections 5\nTriggers 2\n"
             "0->5 id 1 start 0 size 100000 recv_done_trigger 1 send_done_trigger 2\n"
             "1->6 id 2 start 2.5 size 100000 recv_done_trigger 1\n"
             "2->7 id 3 trigger 1 size 50000 send_done_trigger 2\n"
             "3->4 id 4 trigger 2 size 10000\n"
             "4->3 id 5 trigger 2 size 10000\n"
             "trigger id 1 barrier count 2\ntrigger id 2 multishot\n", NULL, &r);
    assert_int_equal(r.flows_completed, 5);
    const struct bn_flow_result *f = r.flows;
    /* the barrier: both receivers done */
    double both = received(&f[0]) > received(&f[1]) ? received(&f[0]) : received(&f[1]);
    assert_float_equal(f[2].start_us, both, 1e-6);
    /* the multishot: flow 3 at the first activation (flow 0's sender
     * done), flow 4 at the second (flow 2's) */
    assert_true(acked(&f[0]) < acked(&f[2]));
    assert_float_equal(f[3].start_us, acked(&f[0]), 1e-6);
    assert_float_equal(f[4].start_us, acked(&f[2]), 1e-6);
    bn_results_free(&r);
}

/* htsim's failure lines: agg 0's second core uplink (agg0 core1 in a
 * k=4 fat-tree) is down from the start and every route avoids it at once,
 * as in htsim, which builds its routes without it: nothing is lost on the
 * way out of pod 0, where the flows would otherwise hash onto it. A
 * failure on another topology, or past the fat-tree, is refused. */
static void test_htsim_failures(void **state)
{
    (void)state;
    struct bn_results r;
    const char *body = "Nodes 16\nConnections 4\nFailures 1\n"
                       "0->8 id 1 start 0 size 200000\n1->9 id 2 start 0 size 200000\n"
                       "2->12 id 3 start 0 size 200000\n3->13 id 4 start 0 size 200000\n"
                       "failure switch_type AGG switch_id 0 link_id 1\n";
    run_file(body, NULL, &r);
    assert_int_equal(r.flows_completed, 4);
    assert_int_equal(r.nfaults, 1);
    assert_string_equal(r.faults[0].kind, "link_down");
    assert_string_equal(r.faults[0].target, "agg0 core1");
    assert_true(r.faults[0].switches_changed > 0);
    assert_float_equal(r.faults[0].converged_us, 0, 0);
    assert_int_equal(r.pkts_lost, 0);
    bn_results_free(&r);

    const char *f = test_tmpfile(body);
    char ff[160];
    snprintf(ff, sizeof ff, "workload.flow_file=%s", f);
    const char *spine[] = {"topology.kind=leaf_spine", "topology.k=8", "workload.kind=flow_list",
                           ff, NULL};
    struct bn_scenario sc;
    struct bn_error err;
    test_scenario(&sc, spine);
    memset(&r, 0, sizeof r);
    assert_int_equal(bn_run(&sc, NULL, &r, &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, ":8: htsim's failure lines name fat-tree links"));
    remove(f);
    f = test_tmpfile("0->8 start 0 size 1000\nfailure switch_type AGG switch_id 8 link_id 0\n");
    snprintf(ff, sizeof ff, "workload.flow_file=%s", f);
    const char *far[] = {"topology.k=4", "workload.kind=flow_list", ff, NULL};
    test_scenario(&sc, far);
    assert_int_equal(bn_run(&sc, NULL, &r, &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, ":2: switch_id 8 link_id 0: the fat-tree has 8 aggregation "
                                    "switches of 2 core uplinks"));
    remove(f);
}

/* Host 0's link goes down for good and nothing reroutes: flow 0 runs out of
 * retries, flows 1 and 2 (after 0, after 1) can never start and fail with
 * it; flow 3 is unaffected. */
static void test_failure_cascades(void **state)
{
    (void)state;
    const char *extra[] = {"faults.0.kind=link_down", "faults.0.target=tor0/0",
                           "faults.0.at_us=1", "routing.control_plane=none", "nic.retry_cnt=1",
                           NULL};
    struct bn_results r;
    run_file("0 5 100000 0\n1 6 1000 0 after 0\n2 7 1000 0 after 1\n3 4 1000 0\n", extra, &r);
    assert_int_equal(r.flows_failed, 3);
    assert_int_equal(r.flows_completed, 1);
    assert_false(r.flows[0].dep_failed);
    assert_true(r.flows[1].dep_failed && r.flows[2].dep_failed);
    assert_float_equal(r.flows[1].failed_us, r.flows[0].failed_us, 0);
    assert_true(r.flows[3].done);
    bn_results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_after),
        cmocka_unit_test(test_htsim_triggers),
        cmocka_unit_test(test_failure_cascades),
        cmocka_unit_test(test_htsim_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
