/*
 * Errors raised below the scenario layer name their key only
 * (core/fail_key.h: "key 'workload.load': ..."); bn_scenario_locate, at the
 * scenario layer's callers, puts where the key got its value in front, as
 * bn_scenario_where says: the file's line, "--set KEY", or the source alone
 * for a default; a list item's field by its item's line. Errors without a
 * key are left as they are, and bn_fail forgets a key raised before.
 */
#include "support.h"

#include "core/fail_key.h"

static const char yaml[] = "seed: 1\n"
                           "workload:\n"
                           "  load: 0.3\n"
                           "jobs:\n"
                           "  - gpus: 8\n"
                           "    tp: 2\n";

static void test_locate(void **state)
{
    (void)state;
    struct bn_scenario *sc = calloc(1, sizeof *sc);
    struct bn_error err = {0};
    assert_non_null(sc);
    assert_int_equal(bn_scenario_load_string(sc, yaml, "t.yaml", &err), BN_OK);

    assert_int_equal(bn_fail_key(&err, BN_EINPUT, "workload.load", "%g is %s", 0.3, "bad"),
                     BN_EINPUT);
    assert_string_equal(err.msg, "key 'workload.load': 0.3 is bad");
    assert_string_equal(err.key, "workload.load");
    assert_int_equal(bn_scenario_locate(sc, BN_EINPUT, &err), BN_EINPUT);
    assert_string_equal(err.msg, "t.yaml:3: key 'workload.load': 0.3 is bad");
    assert_string_equal(err.key, "");
    assert_int_equal(err.status, BN_EINPUT);
    /* twice: nothing more */
    bn_scenario_locate(sc, BN_EINPUT, &err);
    assert_string_equal(err.msg, "t.yaml:3: key 'workload.load': 0.3 is bad");

    bn_fail_item(&err, BN_EINPUT, "jobs", 0, "tp", "%u heads", 3u);
    assert_string_equal(err.msg, "key 'jobs[0].tp': 3 heads");
    bn_scenario_locate(sc, BN_EINPUT, &err);
    assert_string_equal(err.msg, "t.yaml:6: key 'jobs[0].tp': 3 heads");

    bn_fail_key(&err, BN_EINPUT, "topology.k", "odd");
    bn_scenario_locate(sc, BN_EINPUT, &err); /* a default: the source alone */
    assert_string_equal(err.msg, "t.yaml: key 'topology.k': odd");

    assert_int_equal(bn_scenario_set(sc, "topology.k=6", &err), BN_OK);
    bn_fail_key(&err, BN_EINPUT, "topology.k", "odd");
    bn_scenario_locate(sc, BN_EINPUT, &err);
    assert_string_equal(err.msg, "--set topology.k: key 'topology.k': odd");

    bn_fail_key(&err, BN_EINPUT, "topology.k", "odd");
    bn_fail(&err, BN_EINTERNAL, "something else");
    assert_string_equal(err.key, "");
    bn_scenario_locate(sc, BN_EINTERNAL, &err);
    assert_string_equal(err.msg, "something else");
    assert_int_equal(bn_scenario_locate(sc, BN_OK, NULL), BN_OK);
    free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_locate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
