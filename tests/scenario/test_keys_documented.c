/*
 * Keeps docs/scenario.md in step with the key registry: every key has a table
 * row "| `path` | type | unit | `default` | meaning |" naming its type, default
 * and choices, and the table has no row for a key that does not exist.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bnet/scenario.h"

#define DOC_PATH "docs/scenario.md"
#define DOC_MAX (1 << 20)

static char *doc;

static int read_doc(void **state)
{
    (void)state;
    FILE *f = fopen(DOC_PATH, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s (tests run from the repository root)\n", DOC_PATH);
        return -1;
    }
    doc = calloc(1, DOC_MAX);
    size_t n = doc ? fread(doc, 1, DOC_MAX - 1, f) : 0;
    fclose(f);
    if (doc)
        doc[n] = '\0';
    return doc ? 0 : -1;
}

static int free_doc(void **state)
{
    (void)state;
    free(doc);
    return 0;
}

/* The table row for `path` as its own string (caller frees), or NULL. */
static char *row_of(const char *path)
{
    char head[160];
    snprintf(head, sizeof head, "\n| `%s` |", path);
    const char *at = strstr(doc, head);
    if (!at)
        return NULL;
    at++;
    size_t n = strcspn(at, "\n");
    char *row = malloc(n + 1);
    assert_non_null(row);
    memcpy(row, at, n);
    row[n] = '\0';
    return row;
}

static void expect_on_row(const char *row, const char *path, const char *what, const char *want)
{
    if (!strstr(row, want))
        fail_msg("docs row for `%s` lacks %s %s:\n%s", path, what, want, row);
}

static void check_choices(const char *row, const struct bn_scenario_key_info *k)
{
    char want[80];
    for (size_t i = 0; k->choice && k->choice(i); i++) {
        snprintf(want, sizeof want, "`%s`", k->choice(i));
        expect_on_row(row, k->path, "choice", want);
    }
}

static void test_every_key_has_a_row(void **state)
{
    (void)state;
    char want[160];
    for (size_t i = 0; i < bn_scenario_key_count(); i++) {
        const struct bn_scenario_key_info *k = bn_scenario_key(i);
        char *row = row_of(k->path);
        if (!row)
            fail_msg("%s has no row \"| `%s` |\"", DOC_PATH, k->path);
        snprintf(want, sizeof want, "`%s`", k->path);
        expect_on_row(row, k->path, "path", want);
        snprintf(want, sizeof want, "| %s |", k->type);
        expect_on_row(row, k->path, "type", want);
        if (k->def[0])
            snprintf(want, sizeof want, "| `%s` |", k->def);
        else
            snprintf(want, sizeof want, "| `\"\"` |");
        expect_on_row(row, k->path, "default", want);
        check_choices(row, k);
        free(row);
    }
}

static bool is_key(const char *path, size_t n)
{
    for (size_t i = 0; i < bn_scenario_key_count(); i++) {
        const char *p = bn_scenario_key(i)->path;
        if (strlen(p) == n && strncmp(p, path, n) == 0)
            return true;
    }
    return false;
}

static void test_no_stale_rows(void **state)
{
    (void)state;
    size_t rows = 0;
    for (const char *at = strstr(doc, "\n| `"); at; at = strstr(at + 1, "\n| `")) {
        const char *path = at + 4;
        size_t n = strcspn(path, "`\n");
        if (!is_key(path, n))
            fail_msg("%s documents unknown key `%.*s`", DOC_PATH, (int)n, path);
        rows++;
    }
    assert_int_equal(rows, bn_scenario_key_count());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_key_has_a_row),
        cmocka_unit_test(test_no_stale_rows),
    };
    return cmocka_run_group_tests(tests, read_doc, free_doc);
}
