/*
 * Sizes with suffixes as scenario keys, --set and --vary read them
 * (docs/scenario.md, "Sizes"): K/k, M, G, T are powers of 1000 with or
 * without B; Ki, Mi, Gi, Ti powers of 1024 with or without B.
 */
#include "support.h"

#include "core/units.h"

/* `s` parses to `want`. */
static void size_is(const char *s, uint64_t want)
{
    uint64_t v = 0;
    int rc = bn_parse_uint(s, &v);
    if (rc != 0 || v != want)
        fail_msg("'%s': rc %d, %llu; expected %llu", s, rc, (unsigned long long)v,
                 (unsigned long long)want);
}

static void size_fails(const char *s, int want_rc)
{
    uint64_t v = 0;
    int rc = bn_parse_uint(s, &v);
    if (rc != want_rc)
        fail_msg("'%s': rc %d, expected %d", s, rc, want_rc);
}

static void test_decimal(void **state)
{
    (void)state;
    size_is("1500", 1500);
    size_is("1B", 1);
    size_is("2K", 2000);
    size_is("2k", 2000);
    size_is("1kB", 1000);
    size_is("1KB", 1000);
    size_is("2M", 2000000);
    size_is("1MB", 1000000);
    size_is("1GB", 1000000000);
    size_is("3G", 3000000000ull);
    size_is("1T", 1000000000000ull);
    size_is("1TB", 1000000000000ull);
}

static void test_binary(void **state)
{
    (void)state;
    size_is("4Ki", 4096);
    size_is("1KiB", 1024);
    size_is("1MiB", 1ull << 20);
    size_is("1Mi", 1ull << 20);
    size_is("1GiB", 1ull << 30);
    size_is("1TiB", 1ull << 40);
    size_is("16Ti", 16ull << 40);
}

static void test_refused(void **state)
{
    (void)state;
    size_fails("1P", -1);  /* no peta */
    size_fails("1Tb", -1); /* bits are not a size */
    size_fails("1iB", -1);
    size_fails("1 MB", -1);
    size_fails("1BB", -1);
    size_fails("MB", -1);
    size_fails("20000000TB", -2); /* past 64 bits */
    size_fails("-1K", -2);
}

static void test_size_list(void **state)
{
    (void)state;
    uint64_t v[4];
    uint32_t n;
    assert_int_equal(bn_parse_size_list("10kB,1MiB,1TB", v, 4, &n), 0);
    assert_int_equal(n, 3);
    assert_true(v[0] == 10000 && v[1] == 1048576 && v[2] == 1000000000000ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decimal),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_size_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
