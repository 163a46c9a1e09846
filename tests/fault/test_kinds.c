/*
 * The fault kinds' registry (src/fault/kind_registry.c) is the one list of
 * kinds: every kind has a name, a summary and its set-up hooks; its names
 * are faults[].kind's choices in registry order; each kind's own keys are
 * faults[] fields the scenario registry offers (bnet keys), after
 * faults[].target and within the room it keeps for them, each a field of
 * the kind's own block of an item; and nic_degrade
 * (the kind added through that recipe) slows a host's link: a 1 MB flow
 * from a host whose link runs at 10 Gb/s takes at least 1 MB / 10 Gb/s
 * = 800 us, where at 400 Gb/s it takes some 20 us.
 */
#include <string.h>

#include "support.h"

#include "fault/kind.h"

static void test_every_kind_is_complete(void **state)
{
    (void)state;
    size_t n = 0;
    for (; bn_fault_kind_at(n); n++) {
        const struct bn_fault_kind_ops *k = bn_fault_kind_at(n);
        assert_non_null(k->name);
        assert_non_null(k->summary);
        assert_true(strlen(k->summary) > 0 && strlen(k->summary) < 80);
        assert_non_null(k->resolve);
        assert_non_null(k->strike);
        assert_non_null(k->end);
        assert_true(k->nkeys == 0 || k->keys != NULL);
        for (size_t j = 0; j < n; j++)
            assert_string_not_equal(bn_fault_kind_at(j)->name, k->name);
        assert_string_equal(bn_scenario_choice("faults[].kind", (unsigned)n), k->name);
    }
    assert_true(n >= 9);
    assert_null(bn_scenario_choice("faults[].kind", (unsigned)n));
    assert_null(bn_fault_kind_name(n));
    assert_true(bn_key_modules_nrows(&bn_fault_kind_key_modules) <= BN_FAULT_KIND_KEYS_MAX);
}

/* A kind's key is in the scenario registry as a faults[] field, placed
 * after faults[].target, and its default applies. */
static void test_kind_keys_reach_the_registry(void **state)
{
    (void)state;
    size_t target = SIZE_MAX;
    for (size_t i = 0; bn_scenario_key(i); i++)
        if (strcmp(bn_scenario_key(i)->path, "faults[].target") == 0)
            target = i;
    assert_int_not_equal(target, SIZE_MAX);
    size_t m = bn_key_modules_nrows(&bn_fault_kind_key_modules);
    for (size_t j = 0; j < m; j++) {
        const struct bn_key_row *r = bn_key_modules_row(&bn_fault_kind_key_modules, j);
        assert_non_null(r);
        assert_int_equal(r->list, BN_KEY_LIST_FAULTS);
        assert_memory_equal(r->info.path, "faults[].", strlen("faults[]."));
        assert_ptr_equal(bn_scenario_key(target + 1 + j), &r->info);
    }
    assert_null(bn_key_modules_row(&bn_fault_kind_key_modules, m));
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);
    char buf[64];
    assert_int_equal(bn_scenario_get(&sc, "faults.0.dark_us", buf, sizeof buf), BN_OK);
    assert_string_equal(buf, "10000");
}

/* A kind's key is a field of its own block of the item it is set on
 * (issue 54): faults.2.down_us changes link_flap's block of item 2 and
 * nothing else; its set-up hooks read it there. */
static void test_kind_keys_live_in_their_block(void **state)
{
    (void)state;
    struct bn_scenario def, sc;
    struct bn_error err;
    bn_scenario_defaults(&def);
    sc = def;
    assert_int_equal(bn_scenario_set(&sc, "faults.2.down_us=7", &err), BN_OK);
    const struct bn_fault_kind_ops *flap = NULL;
    for (size_t i = 0; bn_fault_kind_at(i); i++)
        if (strcmp(bn_fault_kind_at(i)->name, "link_flap") == 0)
            flap = bn_fault_kind_at(i);
    assert_non_null(flap);
    assert_true(*(const double *)bn_fault_keys(&sc.faults[2], flap) == 7);
    for (uint32_t f = 0; f < BN_SC_FAULTS_MAX; f++)
        for (size_t i = 0; bn_fault_kind_at(i); i++) {
            const void *a = bn_fault_keys(&sc.faults[f], bn_fault_kind_at(i)),
                       *b = bn_fault_keys(&def.faults[f], bn_fault_kind_at(i));
            bool changed = memcmp(a, b, sizeof(struct bn_scenario_fault_kind_block)) != 0;
            assert_int_equal(changed, f == 2 && bn_fault_kind_at(i) == flap);
        }
    assert_true(bn_key_modules_nrows(&bn_fault_kind_key_modules) > 0);
    for (size_t j = 0; bn_key_modules_row(&bn_fault_kind_key_modules, j); j++)
        assert_int_equal(bn_key_modules_row(&bn_fault_kind_key_modules, j)->block,
                         BN_KEY_BLOCK_FAULT);
}

/* h0 - s0 - h1, 400 Gb/s; one 1 MB flow h0 -> h1. */
static double one_flow_us(const char *kind)
{
    char topo[80], flows[80], file[120], tf[120], k[64];
    snprintf(topo, sizeof topo, "%s",
             test_tmpfile("host h0\nhost h1\nswitch s0 tier 1\n"
                          "link h0 s0 400 2 copper\nlink h1 s0 400 2 copper\n"));
    snprintf(flows, sizeof flows, "%s", test_tmpfile("0 1 1000000 0\n"));
    snprintf(file, sizeof file, "topology.file=%s", topo);
    snprintf(tf, sizeof tf, "workload.flow_file=%s", flows);
    snprintf(k, sizeof k, "faults.0.kind=%s", kind ? kind : "");
    const char *sets[] = {"topology.kind=file", file, "workload.kind=flow_list", tf,
                          "link.rate_gbps=400", k, "faults.0.target=h0",
                          "faults.0.rate_gbps=10", NULL};
    if (!kind)
        sets[5] = NULL; /* no fault */
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    test_run(&sc, &r);
    assert_ledger_balanced(&r);
    assert_int_equal(r.nflows, 1);
    assert_true(r.flows[0].done);
    if (kind) {
        assert_int_equal(r.nfaults, 1);
        assert_string_equal(r.faults[0].kind, kind);
        assert_true(r.faults[0].converged_us == 0); /* nothing to reroute */
        assert_int_equal(r.faults[0].pkts_lost, 0);
    }
    double fct = r.flows[0].fct_us;
    bn_results_free(&r);
    return fct;
}

static void test_nic_degrade_slows_the_hosts_link(void **state)
{
    (void)state;
    double healthy = one_flow_us(NULL), slow = one_flow_us("nic_degrade");
    printf("1 MB from h0: %.1f us at 400 Gb/s, %.1f us at 10 Gb/s\n", healthy, slow);
    assert_true(healthy < 100);
    assert_true(slow >= 1e6 * 8 / 10e9 * 1e6);
    assert_true(slow < 1.2 * 1e6 * 8 / 10e9 * 1e6 + healthy); /* framing overhead, no more */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_is_complete),
        cmocka_unit_test(test_kind_keys_reach_the_registry),
        cmocka_unit_test(test_kind_keys_live_in_their_block),
        cmocka_unit_test(test_nic_degrade_slows_the_hosts_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
