/*
 * The flow-file reader (workload.kind: flow_list): lines become flows in
 * order, and a malformed line is one error naming FILE:LINE; bnet's
 * `after`, htsim's connection matrices with their triggers and HPCC's
 * flow.txt become flows, triggers and signals; a flow that can never start
 * is refused.
 */
#include "support.h"

#include "workload/workload.h"

/* One more --set for read_flows (NULL: none). */
static const char *extra_set;

/* Flows read from a file of n bytes (NULs allowed) on a 16-host fabric. */
static int read_flows(const char *body, size_t n, struct bn_flow_list *out, struct bn_error *err,
                      char *path, size_t cap)
{
    snprintf(path, cap, "%s", test_tmpfile_n(body, n));
    char file[128];
    snprintf(file, sizeof file, "workload.flow_file=%s", path);
    const char *sets[] = {"topology.k=4", "workload.kind=flow_list", file, extra_set, NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    memset(out, 0, sizeof *out);
    int rc = bn_workload_generate(&sc, 16, out, err);
    remove(path);
    return rc;
}

static void test_reads_flows(void **state)
{
    (void)state;
    static const char body[] = "# src dst bytes start_us\n0 1 1000 0\n\n2 3 5000 1.5 # late\n";
    struct bn_flow_list l;
    struct bn_error err = {0};
    char path[64];
    if (read_flows(body, sizeof body - 1, &l, &err, path, sizeof path) != BN_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.flows[1].src, 2);
    assert_int_equal(l.flows[1].bytes, 5000);
    bn_flow_list_free(&l);
}

/* A NUL in the middle of a line silently dropped the rest of it: here the
 * second flow vanished and the run went on with one. */
static void test_nul_byte(void **state)
{
    (void)state;
    static const char body[] = "0 1 1000 0\n2 3 1000 0\0 4 5 1000 0\n";
    struct bn_flow_list l;
    struct bn_error err = {0};
    char path[64];
    assert_int_equal(read_flows(body, sizeof body - 1, &l, &err, path, sizeof path), BN_EINPUT);
    char want[128];
    snprintf(want, sizeof want, "%s:2: the line contains a NUL byte", path);
    assert_string_equal(err.msg, want);
    bn_flow_list_free(&l);
}

static void read_ok(const char *body, struct bn_flow_list *l)
{
    struct bn_error err = {0};
    char path[64];
    if (read_flows(body, strlen(body), l, &err, path, sizeof path) != BN_OK)
        fail_msg("%s", err.msg);
}

static void read_bad(const char *body, const char *want)
{
    struct bn_flow_list l;
    struct bn_error err = {0};
    char path[64], line[160];
    assert_int_equal(read_flows(body, strlen(body), &l, &err, path, sizeof path), BN_EINPUT);
    snprintf(line, sizeof line, "%s:%s", path, want);
    if (!strstr(err.msg, line))
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, line);
    bn_flow_list_free(&l);
}

static void test_after(void **state)
{
    (void)state;
    struct bn_flow_list l;
    read_ok("0 1 1000 0\n2 3 1000 0\n4 5 500 2.5 after 0,1\n", &l);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.flows[0].gate, BN_NO_TRIGGER);
    assert_int_equal(l.ntrig, 1);
    assert_int_equal(l.flows[2].gate, 0);
    assert_int_equal(l.trig[0].need, 2);
    assert_false(l.trig[0].multishot);
    assert_int_equal(l.nsig, 2);
    assert_int_equal(l.sig[1].flow, 1);
    assert_false(l.sig[1].on_sent);
    assert_int_equal(l.flows[2].start, bn_time_from_us(2.5));
    bn_flow_list_free(&l);
    read_bad("0 1 1000 0\n2 3 1000 0 after 1\n", "2: field 'after': '1' is not an earlier flow");
    read_bad("0 1 1000 0\n2 3 1000 0 after 0,,1\n", "2: field 'after'");
    read_bad("0 1 1000 0\n2 3 1000 0 before 0\n", "2: expected 4 fields");
}

static void test_htsim(void **state)
{
    (void)state;
    struct bn_flow_list l;
    read_ok("# an htsim matrix\nNodes 16\nConnections 3\nTriggers 1\n"
            "0->5 id 1 start 1.5 size 4000 send_done_trigger 7\n"
            "1->6 id 2 trigger 7 size 2000 prio 3 recv_done_trigger 7\n"
            "2->7 id 3 trigger 7 size 2000\n"
            "trigger id 7 multishot\n", &l);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.flows[0].start, bn_time_from_us(1.5));
    assert_int_equal(l.flows[1].gate, 0);
    assert_int_equal(l.flows[2].gate, 0);
    assert_true(l.trig[0].multishot);
    assert_int_equal(l.nsig, 2);
    assert_true(l.sig[0].on_sent);
    assert_false(l.sig[1].on_sent);
    assert_int_equal(l.flows[1].line, 6);
    bn_flow_list_free(&l);
    read_ok("Nodes 4\nConnections 2\n0->1 start 0 size 10 recv_done_trigger 1 send_done_trigger 2\n"
            "1->2 trigger 2 size 10\ntrigger id 2 barrier count 1\ntrigger id 1 oneshot\n", &l);
    bn_flow_list_free(&l);
    read_bad("Nodes 4\nConnections 2\n0->1 start 0 size 10\n", "2: Connections 2 declared, 1 given");
    read_bad("Nodes 99\n", "1: Nodes 99, but the fabric has 16 hosts");
    read_bad("0->1 start 0 size 10 color red\n", "1: unknown field 'color'");
    read_bad("0->1 size 10\n", "1: a connection needs a 'start' or a 'trigger', not neither");
    read_bad("0->1 start 0 size 10 trigger 3\ntrigger id 3 oneshot\n",
             "1: a connection needs a 'start' or a 'trigger', not both");
    read_bad("0->1 start 0\n", "1: a connection needs 'size'");
    read_bad("0->1 start 0 size 10\n1->2 trigger 4 size 10\n",
             "2: trigger 4 is used here but no 'trigger id 4' line defines it");
    read_bad("0->1 start 0 size 10\ntrigger id 4 barrier\n", "2: a barrier needs 'count N'");
    read_ok("Nodes 4\nConnections 1\nFailures 2\n0->1 start 0 size 10\n"
            "failure switch_type AGG switch_id 3 link_id 1\n"
            "failure link_id 0 switch_id 5 switch_type AGG\n", &l);
    assert_int_equal(l.nfail, 2);
    assert_int_equal(l.fail[0].switch_id, 3);
    assert_int_equal(l.fail[0].link_id, 1);
    assert_int_equal(l.fail[0].line, 5);
    assert_int_equal(l.fail[1].switch_id, 5);
    assert_int_equal(l.fail[1].link_id, 0);
    bn_flow_list_free(&l);
    read_bad("0->1 start 0 size 10\nfailure switch_type TOR switch_id 0 link_id 1\n",
             "2: switch_type 'TOR': htsim fails only aggregation switches' core uplinks");
    read_bad("0->1 start 0 size 10\nfailure switch_type AGG switch_id 0\n",
             "2: a failure needs switch_type AGG, switch_id and link_id");
    read_bad("0->1 start 0 size 10\nfailure switch_type AGG switch_id x link_id 0\n",
             "2: switch_id 'x' is not a switch number");
    read_bad("0->1 start 0 size 10\nfailure switch_type AGG switch_id 0 link_id 0 color 1\n",
             "2: failure field 'color' unknown or repeated");
    read_bad("Failures 2\n0->1 start 0 size 10\nfailure switch_type AGG switch_id 0 link_id 0\n",
             "1: Failures 2 declared, 1 given");
    /* a barrier of 2 that only one flow signals: its flow never starts */
    read_bad("0->1 start 0 size 10 recv_done_trigger 1\n1->2 trigger 1 size 10\n"
             "trigger id 1 barrier count 2\n", "2: this flow can never start");
    /* two flows waiting on each other's triggers */
    read_bad("0->1 trigger 1 size 10 recv_done_trigger 2\n1->2 trigger 2 size 10 "
             "recv_done_trigger 1\ntrigger id 1 oneshot\ntrigger id 2 oneshot\n",
             "1: this flow can never start");
}

/* htsim's `size 0` (its shipped sim/EXAMPLES): the flow sends until the
 * run ends, which needs sim.max_time_us (htsim's -end); it can signal no
 * trigger, since it never finishes. */
static void test_htsim_size_zero(void **state)
{
    (void)state;
    struct bn_flow_list l;
    read_bad("Nodes 16\nConnections 1\n0->5 start 0.000000 size 0\n",
             "3: 'size 0' sends until the simulation ends, and sim.max_time_us is 0");
    extra_set = "sim.max_time_us=100";
    read_ok("Nodes 16\nConnections 2\n0->5 start 0.000000 size 0\n1->6 start 0 size 10\n", &l);
    assert_int_equal(l.n, 2);
    assert_true(l.flows[0].unbounded && l.flows[0].bytes == BN_MAX_MESSAGE_BYTES);
    assert_true(!l.flows[1].unbounded && l.flows[1].bytes == 10);
    bn_flow_list_free(&l);
    read_bad("0->5 start 0 size 0 send_done_trigger 1\n1->2 trigger 1 size 10\n"
             "trigger id 1 oneshot\n", "1: a 'size 0' flow never finishes");
    extra_set = NULL;
}

static void test_hpcc(void **state)
{
    (void)state;
    struct bn_flow_list l;
    read_ok("2\n0 5 3 100 4000 2.000001\n3 1 3 100 12 2.5\n", &l);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.flows[0].dst, 5);
    assert_int_equal(l.flows[0].bytes, 4000);
    assert_int_equal(l.flows[0].start, bn_time_from_us(2000001));
    assert_int_equal(l.flows[1].start, bn_time_from_us(2.5e6));
    bn_flow_list_free(&l);
    read_bad("3\n0 5 3 100 4000 2.0\n", "1: 3 flows declared, 1 given");
    read_bad("1\n0 5 3 100 4000\n", "2: expected 6 fields");
    read_bad("1\n0 5 x 100 4000 2\n", "2: field 'priority'");
    read_bad("1\n0 99 3 100 4000 2\n", "2: field 'dst': host 99 does not exist");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_flows),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_after),
        cmocka_unit_test(test_htsim),
        cmocka_unit_test(test_htsim_size_zero),
        cmocka_unit_test(test_hpcc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
