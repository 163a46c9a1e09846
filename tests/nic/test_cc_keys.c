/*
 * The congestion-control registry (src/nic/cc_registry.c) is the one list
 * of modules, and each module carries its own keys (issue 54): every
 * module has a name and a one-line summary; its rows are fields of its
 * own block of the scenario, spliced into the scenario registry after
 * nic.cnp_interval_us, each once; and every list of their names written
 * by hand (nic.congestion_control's doc beside the registry, the default
 * scenario's comment and sections, docs/scenario.md's row) says what the
 * registry says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "nic/nic.h"
#include "scenario/keys.h"

static size_t nmodules(void)
{
    size_t n = 0;
    while (bn_cc_at(n))
        n++;
    return n;
}

/* "dcqcn" of "dcqcn.preset": the section a module's keys share. */
static void section_of(const struct bn_key_row *k, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s", (int)strcspn(k->info.path, "."), k->info.path);
}

static void test_every_module_is_complete(void **state)
{
    (void)state;
    size_t n = nmodules(), keys = 0;
    assert_true(n >= 9 && n <= BN_SC_CC_MAX);
    for (size_t i = 0; i < n; i++) {
        const struct bn_cc_ops *m = bn_cc_at(i);
        assert_non_null(m->name);
        assert_non_null(m->summary);
        assert_true(strlen(m->summary) > 0 && strlen(m->summary) < 80);
        assert_string_equal(bn_cc_summary(i), m->summary);
        assert_true(m->nkeys == 0 || (m->keys && m->setup));
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(bn_cc_at(j)->name, m->name);
        char first[32], sec[32];
        for (size_t j = 0; j < m->nkeys; j++) {
            const struct bn_key_row *k = &m->keys[j];
            assert_int_equal(k->block, BN_KEY_BLOCK_CC);
            assert_true(k->offset + k->size <= BN_SC_CC_BLOCK_BYTES);
            assert_int_equal(bn_cc_key_module(k), i);
            section_of(k, sec, sizeof sec);
            if (j == 0)
                snprintf(first, sizeof first, "%s", sec);
            assert_string_equal(sec, first); /* one section per module */
        }
        keys += m->nkeys;
    }
    assert_int_equal(bn_cc_nkeys(), keys);
    assert_true(keys <= BN_CC_KEYS_MAX);
    assert_null(bn_cc_summary(n));
}

/* Each module's rows are in the scenario registry once, after
 * nic.cnp_interval_us; a key set lands in its own module's block only. */
static void test_keys_reach_the_registry(void **state)
{
    (void)state;
    const struct bn_key_row *cnp = bn_scn_find("nic.cnp_interval_us");
    assert_non_null(cnp);
    size_t at = bn_scn_index(cnp) + 1, m = bn_cc_nkeys();
    for (size_t j = 0; j < m; j++) {
        const struct bn_key_row *k = bn_cc_key(j);
        assert_ptr_equal(bn_scn_at(at + j), k);
        assert_ptr_equal(bn_scn_find(k->info.path), k);
        for (size_t o = 0; o < j; o++)
            assert_ptr_not_equal(bn_cc_key(o), k);
    }
    assert_null(bn_cc_key(m));
    struct bn_scenario sc, def;
    struct bn_error err;
    char buf[64];
    bn_scenario_defaults(&def);
    sc = def;
    assert_int_equal(bn_scenario_get(&sc, "dctcp.g", buf, sizeof buf), BN_OK);
    assert_string_equal(buf, "0.0625");
    assert_int_equal(bn_scenario_set(&sc, "swift.max_cwnd=50", &err), BN_OK);
    assert_int_equal(bn_scenario_get(&sc, "swift.max_cwnd", buf, sizeof buf), BN_OK);
    assert_string_equal(buf, "50");
    size_t swift = bn_cc_key_module(bn_scn_find("swift.max_cwnd"));
    for (size_t i = 0; i < BN_SC_CC_MAX; i++)
        if ((memcmp(bn_cc_keys(&sc, i), bn_cc_keys(&def, i), sizeof sc.cc[0]) != 0) != (i == swift))
            fail_msg("block %zu %s", i, i == swift ? "unchanged" : "changed by swift.max_cwnd");
}

/* nic.congestion_control's doc (bn_cc_doc) is "Sender rate control: " and
 * each module's "name (summary)", in registry order. */
static void test_doc_is_the_summaries(void **state)
{
    (void)state;
    char want[1024];
    size_t used = (size_t)snprintf(want, sizeof want, "Sender rate control: ");
    for (size_t i = 0; bn_cc_at(i); i++)
        used += (size_t)snprintf(want + used, sizeof want - used, "%s%s (%s)", i ? ", " : "",
                                 bn_cc_name(i), bn_cc_summary(i));
    snprintf(want + used, sizeof want - used, ".");
    assert_ptr_equal(bn_scn_find("nic.congestion_control")->info.doc, bn_cc_doc);
    assert_string_equal(bn_cc_doc, want);
}

/* The default scenario lists every module after its congestion_control
 * key, and heads each module's section "# with nic.congestion_control: NAME". */
static void test_default_yaml_lists_the_registry(void **state)
{
    (void)state;
    const char *yaml = bn_scenario_default_yaml();
    char want[400];
    size_t used = (size_t)snprintf(want, sizeof want, "congestion_control: none      # ");
    for (size_t i = 0; bn_cc_at(i); i++)
        used += (size_t)snprintf(want + used, sizeof want - used, "%s%s", i ? " | " : "",
                                 bn_cc_name(i));
    snprintf(want + used, sizeof want - used, "\n");
    if (!strstr(yaml, want))
        fail_msg("the default scenario lacks the line \"%s\"", want);
    for (size_t i = 0; bn_cc_at(i); i++) {
        if (!bn_cc_at(i)->nkeys)
            continue;
        char sec[32];
        section_of(&bn_cc_at(i)->keys[0], sec, sizeof sec);
        snprintf(want, sizeof want, "\n%s:", sec);
        const char *at = strstr(yaml, want);
        if (!at)
            fail_msg("the default scenario has no section %s", sec);
        snprintf(want, sizeof want, "# with nic.congestion_control: %s\n", bn_cc_name(i));
        const char *eol = strchr(at + 1, '\n');
        const char *note = strstr(at, want);
        if (!note || note > eol)
            fail_msg("section %s of the default scenario does not say \"%s\"", sec, want);
    }
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

/* The row "| `head` |..." of a doc, cut at its end (in place). */
static char *row(char *doc, const char *head)
{
    char *at = strstr(doc, head);
    if (!at)
        fail_msg("no row %s", head);
    at++; /* past the newline before it */
    at[strcspn(at, "\n")] = '\0';
    return at;
}

static void test_docs_name_every_module(void **state)
{
    (void)state;
    char *scn = read_doc("docs/scenario.md");
    const char *r1 = row(scn, "\n| `nic.congestion_control` |");
    char want[80];
    for (size_t i = 0; bn_cc_at(i); i++) {
        if (!bn_cc_at(i)->nkeys)
            continue;
        char sec[32];
        section_of(&bn_cc_at(i)->keys[0], sec, sizeof sec);
        snprintf(want, sizeof want, "the `%s.*` keys", sec);
        if (!strstr(r1, want))
            fail_msg("docs/scenario.md's nic.congestion_control row lacks \"%s\"", want);
    }
    free(scn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_module_is_complete),
        cmocka_unit_test(test_keys_reach_the_registry),
        cmocka_unit_test(test_doc_is_the_summaries),
        cmocka_unit_test(test_default_yaml_lists_the_registry),
        cmocka_unit_test(test_docs_name_every_module),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
