/*
 * The load-balancing registry (src/switch/lb_registry.c) is the one list
 * of policies, and each policy carries its own keys (issue 54): every
 * policy has a name and a few words of summary; its rows are fields of its
 * own block of the scenario, spliced into the scenario registry after
 * switch.ecmp_salt, each once; and every list of their names written by
 * hand (switch.load_balancing's doc beside the registry, the default
 * scenario's comment, docs/scenario.md's row, docs/load_balancing.md's
 * table, the end-to-end test of every policy) says what the registry says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "scenario/keys.h"
#include "switch/lb.h"

static size_t npolicies(void)
{
    size_t n = 0;
    while (bn_lb_at(n))
        n++;
    return n;
}

static void test_every_policy_is_complete(void **state)
{
    (void)state;
    size_t n = npolicies(), keys = 0;
    assert_true(n >= 5 && n <= BN_SC_LB_MAX);
    for (size_t i = 0; i < n; i++) {
        const struct bn_lb_ops *m = bn_lb_at(i);
        assert_non_null(m->name);
        assert_non_null(m->summary);
        assert_true(strlen(m->summary) > 0 && strlen(m->summary) < 60);
        assert_string_equal(bn_lb_summary(i), m->summary);
        assert_ptr_equal(bn_lb_find(m->name), m);
        /* a policy with keys copies them into its state at set-up: pick
         * reads them there, not from the scenario */
        assert_true(m->nkeys == 0 || (m->keys && m->setup && m->priv_size));
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(bn_lb_at(j)->name, m->name);
        for (size_t j = 0; j < m->nkeys; j++) {
            const struct bn_key_row *k = &m->keys[j];
            assert_int_equal(k->block, BN_KEY_BLOCK_LB);
            assert_true(k->offset + k->size <= BN_SC_LB_BLOCK_BYTES);
            assert_int_equal(bn_lb_key_module(k), i);
            assert_true(strncmp(k->info.path, "switch.", 7) == 0);
        }
        keys += m->nkeys;
    }
    assert_int_equal(bn_lb_nkeys(), keys);
    assert_true(keys >= 4 && keys <= BN_LB_KEYS_MAX);
    assert_null(bn_lb_summary(n));
}

/* Each policy's rows are in the scenario registry once, after
 * switch.ecmp_salt; a key set lands in its own policy's block only. */
static void test_keys_reach_the_registry(void **state)
{
    (void)state;
    const struct bn_key_row *salt = bn_scn_find("switch.ecmp_salt");
    assert_non_null(salt);
    size_t at = bn_scn_index(salt) + 1, m = bn_lb_nkeys();
    for (size_t j = 0; j < m; j++) {
        const struct bn_key_row *k = bn_lb_key(j);
        assert_ptr_equal(bn_scn_at(at + j), k);
        assert_ptr_equal(bn_scn_find(k->info.path), k);
        for (size_t o = 0; o < j; o++)
            assert_ptr_not_equal(bn_lb_key(o), k);
    }
    assert_null(bn_lb_key(m));
    assert_string_equal(bn_scn_at(at + m)->info.path, "switch.trim");
    struct bn_scenario sc, def;
    struct bn_error err;
    char buf[64];
    bn_scenario_defaults(&def);
    sc = def;
    assert_int_equal(bn_scenario_get(&sc, "switch.flowlet_slots", buf, sizeof buf), BN_OK);
    assert_string_equal(buf, "4096");
    assert_int_equal(bn_scenario_get(&sc, "switch.ar_metric", buf, sizeof buf), BN_OK);
    assert_string_equal(buf, "queue");
    assert_int_equal(bn_scenario_set(&sc, "switch.ar_metric=load", &err), BN_OK);
    assert_int_equal(bn_scenario_get(&sc, "switch.ar_metric", buf, sizeof buf), BN_OK);
    assert_string_equal(buf, "load");
    const struct bn_lb_ops *ar = bn_lb_find("adaptive");
    for (size_t i = 0; i < BN_SC_LB_MAX; i++)
        if ((memcmp(&sc.lb[i], &def.lb[i], sizeof sc.lb[0]) != 0) !=
            (bn_lb_at(i) == ar))
            fail_msg("block %zu %s", i, bn_lb_at(i) == ar ? "unchanged" : "changed by ar_metric");
    assert_ptr_equal(bn_lb_keys(&sc, ar), &sc.lb[bn_lb_key_module(bn_scn_find("switch.ar_metric"))]);
}

/* switch.load_balancing's doc (bn_lb_doc) is its head and each policy's
 * "name (summary)", in registry order, a run of policies with one summary
 * as "a, b (summary)". */
static void test_doc_is_the_summaries(void **state)
{
    (void)state;
    char want[1024];
    size_t used = (size_t)snprintf(want, sizeof want,
                                   "How a switch picks among equal-cost next hops: ");
    for (size_t i = 0; bn_lb_at(i); i++) {
        used += (size_t)snprintf(want + used, sizeof want - used, "%s%s", i ? ", " : "",
                                 bn_lb_name(i));
        if (!bn_lb_at(i + 1) || strcmp(bn_lb_summary(i + 1), bn_lb_summary(i)) != 0)
            used += (size_t)snprintf(want + used, sizeof want - used, " (%s)", bn_lb_summary(i));
    }
    snprintf(want + used, sizeof want - used, ".");
    assert_ptr_equal(bn_scn_find("switch.load_balancing")->info.doc, bn_lb_doc);
    assert_string_equal(bn_lb_doc, want);
}

/* The default scenario lists every policy after its load_balancing key. */
static void test_default_yaml_lists_the_registry(void **state)
{
    (void)state;
    char want[400];
    size_t used = (size_t)snprintf(want, sizeof want, "  load_balancing: ecmp          # ");
    for (size_t i = 0; bn_lb_at(i); i++)
        used += (size_t)snprintf(want + used, sizeof want - used, "%s%s", i ? " | " : "",
                                 bn_lb_name(i));
    snprintf(want + used, sizeof want - used, "\n");
    if (!strstr(bn_scenario_default_yaml(), want))
        fail_msg("the default scenario lacks the line \"%s\"", want);
}

static char *read_doc(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s (tests run from the repository root)", path);
    char *text = calloc(1, 1 << 20);
    assert_non_null(text);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* The line of a text that starts with head, cut at its end (in place). */
static char *line(char *text, const char *head)
{
    char *at = strstr(text, head);
    if (!at)
        fail_msg("no line %s", head);
    at++; /* past the newline before it */
    at[strcspn(at, "\n")] = '\0';
    return at;
}

/* docs/scenario.md's switch.load_balancing row, docs/load_balancing.md's
 * table and tests/e2e/test_load_balancing.c's every-policy list name each. */
static void test_docs_name_every_policy(void **state)
{
    (void)state;
    char *scn = read_doc("docs/scenario.md");
    char *lbd = read_doc("docs/load_balancing.md");
    char *e2e = read_doc("tests/e2e/test_load_balancing.c");
    const char *r = line(scn, "\n| `switch.load_balancing` |");
    char *table = strstr(lbd, "\n| policy |");
    assert_non_null(table);
    char *end = strstr(table, "\n\n");
    assert_non_null(end);
    *end = '\0';
    char *every = strstr(e2e, "test_every_scheme_and_transport_delivers");
    assert_non_null(every);
    char want[80];
    for (size_t i = 0; bn_lb_at(i); i++) {
        snprintf(want, sizeof want, "`%s`", bn_lb_name(i));
        if (!strstr(r, want))
            fail_msg("docs/scenario.md's switch.load_balancing row lacks %s", want);
        if (!strstr(table, want))
            fail_msg("docs/load_balancing.md's policy table lacks %s", want);
        snprintf(want, sizeof want, "{\"%s\", ", bn_lb_name(i));
        if (!strstr(every, want))
            fail_msg("tests/e2e/test_load_balancing.c runs no %s", want);
    }
    free(e2e);
    free(lbd);
    free(scn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_policy_is_complete),
        cmocka_unit_test(test_keys_reach_the_registry),
        cmocka_unit_test(test_doc_is_the_summaries),
        cmocka_unit_test(test_default_yaml_lists_the_registry),
        cmocka_unit_test(test_docs_name_every_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
