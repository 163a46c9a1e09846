/*
 * The fault kinds' registry (src/fault/kind_registry.c) is the one list of
 * kinds: every kind has a name, a summary and its set-up hooks; its names
 * are faults[].kind's choices in registry order; each kind's own keys are
 * faults[] fields the scenario registry offers (bnet keys), after
 * faults[].target and within the room it keeps for them.
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
    assert_true(n >= 8);
    assert_null(bn_scenario_choice("faults[].kind", (unsigned)n));
    assert_null(bn_fault_kind_name(n));
    assert_true(bn_fault_kind_nkeys() <= BN_FAULT_KIND_KEYS_MAX);
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
    size_t m = bn_fault_kind_nkeys();
    for (size_t j = 0; j < m; j++) {
        const struct bn_key_row *r = bn_fault_kind_key(j);
        assert_non_null(r);
        assert_int_equal(r->list, BN_KEY_LIST_FAULTS);
        assert_memory_equal(r->info.path, "faults[].", strlen("faults[]."));
        assert_ptr_equal(bn_scenario_key(target + 1 + j), &r->info);
    }
    assert_null(bn_fault_kind_key(m));
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);
    char buf[64];
    assert_int_equal(bn_scenario_get(&sc, "faults.0.dark_us", buf, sizeof buf), BN_OK);
    assert_string_equal(buf, "10000");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_is_complete),
        cmocka_unit_test(test_kind_keys_reach_the_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
