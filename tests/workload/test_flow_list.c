/*
 * The flow-file reader (workload.kind: flow_list): lines become flows in
 * order, and a malformed line is one error naming FILE:LINE.
 */
#include "support.h"

#include "workload/workload.h"

/* Flows read from a file of n bytes (NULs allowed) on a 16-host fabric. */
static int read_flows(const char *body, size_t n, struct bn_flow_list *out, struct bn_error *err,
                      char *path, size_t cap)
{
    snprintf(path, cap, "%s", test_tmpfile_n(body, n));
    char file[128];
    snprintf(file, sizeof file, "workload.flow_file=%s", path);
    const char *sets[] = {"topology.k=4", "workload.kind=flow_list", file, NULL};
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_flows),
        cmocka_unit_test(test_nul_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
