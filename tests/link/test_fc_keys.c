/*
 * The flow-control registry (src/link/fc_registry.c) is the one list of
 * modules, and each module carries its own keys (issue 54): every module
 * has a name and a few words of summary; its rows are fields of its own
 * block of the scenario, spliced into the scenario registry after
 * link.flow_control, each once, under one section per module (pfc.*); and
 * every list of their names written by hand (link.flow_control's doc
 * beside the registry, the default scenario's comment, docs/scenario.md's
 * row) says what the registry says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "link/fc.h"
#include "scenario/keys.h"

/* "pfc" of "pfc.threshold": the section a module's keys share. */
static void section_of(const struct bn_key_row *k, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s", (int)strcspn(k->info.path, "."), k->info.path);
}

static void test_every_module_is_complete(void **state)
{
    (void)state;
    size_t n = 0, keys = 0;
    while (bn_fc_at(n))
        n++;
    assert_true(n >= 3 && n <= BN_SC_FC_MAX);
    for (size_t i = 0; i < n; i++) {
        const struct bn_fc_ops *m = bn_fc_at(i);
        assert_non_null(m->name);
        assert_non_null(m->summary);
        assert_true(strlen(m->summary) > 0 && strlen(m->summary) < 60);
        assert_string_equal(bn_fc_summary(i), m->summary);
        assert_true(m->nkeys == 0 || (m->keys && m->setup)); /* setup reads them */
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(bn_fc_at(j)->name, m->name);
        char first[32], sec[32];
        for (size_t j = 0; j < m->nkeys; j++) {
            const struct bn_key_row *k = &m->keys[j];
            assert_int_equal(k->block, BN_KEY_BLOCK_FC);
            assert_true(k->offset + k->size <= BN_SC_FC_BLOCK_BYTES);
            assert_int_equal(bn_fc_key_module(k), i);
            section_of(k, sec, sizeof sec);
            if (j == 0)
                snprintf(first, sizeof first, "%s", sec);
            assert_string_equal(sec, first); /* one section per module */
        }
        keys += m->nkeys;
    }
    assert_int_equal(bn_fc_nkeys(), keys);
    assert_true(keys >= 3 && keys <= BN_FC_KEYS_MAX);
    assert_null(bn_fc_summary(n));
}

/* Each module's rows are in the scenario registry once, after
 * link.flow_control; a key set lands in its own module's block only. */
static void test_keys_reach_the_registry(void **state)
{
    (void)state;
    const struct bn_key_row *fc = bn_scn_find("link.flow_control");
    assert_non_null(fc);
    size_t at = bn_scn_index(fc) + 1, m = bn_fc_nkeys();
    for (size_t j = 0; j < m; j++) {
        const struct bn_key_row *k = bn_fc_key(j);
        assert_ptr_equal(bn_scn_at(at + j), k);
        assert_ptr_equal(bn_scn_find(k->info.path), k);
        for (size_t o = 0; o < j; o++)
            assert_ptr_not_equal(bn_fc_key(o), k);
    }
    assert_null(bn_fc_key(m));
    assert_string_equal(bn_scn_at(at + m)->info.path, "switch.buffer_bytes");
    struct bn_scenario sc, def;
    struct bn_error err;
    char buf[64];
    bn_scenario_defaults(&def);
    sc = def;
    assert_int_equal(bn_scenario_get(&sc, "pfc.dt_shift", buf, sizeof buf), BN_OK);
    assert_string_equal(buf, "3");
    assert_int_equal(bn_scenario_set(&sc, "pfc.threshold=dynamic", &err), BN_OK);
    assert_int_equal(bn_scenario_get(&sc, "pfc.threshold", buf, sizeof buf), BN_OK);
    assert_string_equal(buf, "dynamic");
    size_t pfc = bn_fc_key_module(bn_scn_find("pfc.threshold"));
    assert_ptr_equal(bn_fc_keys(&sc, bn_fc_at(pfc)), &sc.fc[pfc]);
    for (size_t i = 0; i < BN_SC_FC_MAX; i++)
        if ((memcmp(&sc.fc[i], &def.fc[i], sizeof sc.fc[0]) != 0) != (i == pfc))
            fail_msg("block %zu %s", i, i == pfc ? "unchanged" : "changed by pfc.threshold");
}

/* link.flow_control's doc (bn_fc_doc) is "Link-level flow control: " and
 * each module's "name (summary)", in registry order. */
static void test_doc_is_the_summaries(void **state)
{
    (void)state;
    char want[1024];
    size_t used = (size_t)snprintf(want, sizeof want, "Link-level flow control: ");
    for (size_t i = 0; bn_fc_at(i); i++)
        used += (size_t)snprintf(want + used, sizeof want - used, "%s%s (%s)", i ? ", " : "",
                                 bn_fc_name(i), bn_fc_summary(i));
    snprintf(want + used, sizeof want - used, ".");
    assert_ptr_equal(bn_scn_find("link.flow_control")->info.doc, bn_fc_doc);
    assert_string_equal(bn_fc_doc, want);
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

/* The line of a text that starts with head, copied into buf. */
static void line(const char *text, const char *head, char *buf, size_t len)
{
    const char *at = strstr(text, head);
    if (!at)
        fail_msg("no line %s", head);
    at++; /* past the newline before it */
    snprintf(buf, len, "%.*s", (int)strcspn(at, "\n"), at);
}

/* The default scenario's comment lists every module in registry order,
 * each module's section is headed by the default scenario and
 * docs/scenario.md's link.flow_control row names each module. */
static void test_hand_lists_name_every_module(void **state)
{
    (void)state;
    const char *yaml = bn_scenario_default_yaml();
    char *scn = read_doc("docs/scenario.md");
    char comment[400], row[4096], want[80];
    line(yaml, "\n  flow_control: lossy           # ", comment, sizeof comment);
    line(scn, "\n| `link.flow_control` |", row, sizeof row);
    const char *after = strchr(comment, '#');
    for (size_t i = 0; bn_fc_at(i); i++) {
        snprintf(want, sizeof want, "%s%s", i ? "| " : "# ", bn_fc_name(i));
        const char *at = strstr(after, want);
        if (!at)
            fail_msg("the default scenario's flow_control comment lacks %s in order", want);
        after = at + strlen(want);
        snprintf(want, sizeof want, "`%s`", bn_fc_name(i));
        if (!strstr(row, want))
            fail_msg("docs/scenario.md's link.flow_control row lacks %s", want);
        if (bn_fc_at(i)->nkeys) {
            char sec[32];
            section_of(&bn_fc_at(i)->keys[0], sec, sizeof sec);
            snprintf(want, sizeof want, "\n%s:\n", sec);
            if (!strstr(yaml, want))
                fail_msg("the default scenario has no section %s", sec);
        }
    }
    free(scn);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_module_is_complete),
        cmocka_unit_test(test_keys_reach_the_registry),
        cmocka_unit_test(test_doc_is_the_summaries),
        cmocka_unit_test(test_hand_lists_name_every_module),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
