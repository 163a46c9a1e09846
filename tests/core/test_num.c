/*
 * The readers' decimal numbers (core/num.h): what strtod and strtoull take
 * beyond decimal (hex, hex floats, inf, nan, blanks, signs on whole
 * numbers) is refused, as YAML scenarios and --set refuse it (issue 53).
 */
#include <math.h>

#include "support.h"

#include "core/num.h"

static void test_whole(void **state)
{
    (void)state;
    uint64_t v = 0;
    assert_true(bn_num_u64("400", UINT64_MAX, &v));
    assert_int_equal(v, 400);
    assert_true(bn_num_u64("18446744073709551615", UINT64_MAX, &v));
    assert_true(v == UINT64_MAX);
    assert_false(bn_num_u64("18446744073709551616", UINT64_MAX, &v));
    assert_false(bn_num_u64("401", 400, &v));
    const char *bad[] = {"", "0x190", "0X1", "-1", "+1", " 1", "1 ", "1.0", "1e3", "0b1", NULL};
    for (int i = 0; bad[i]; i++)
        if (bn_num_u64(bad[i], UINT64_MAX, &v))
            fail_msg("'%s' taken as a whole number", bad[i]);
}

static void test_real(void **state)
{
    (void)state;
    double v = 0;
    assert_true(bn_num_real("8", &v));
    assert_true(v == 8);
    assert_true(bn_num_real("0.001", &v));
    assert_true(v == 0.001);
    assert_true(bn_num_real(".5", &v) && v == 0.5);
    assert_true(bn_num_real("5.", &v) && v == 5);
    assert_true(bn_num_real("-2.5e-3", &v) && v == -2.5e-3);
    assert_true(bn_num_real("1E6", &v) && v == 1e6);
    /* out of range: inf, for the callers' bounds to name as such */
    assert_true(bn_num_real("1e999", &v) && isinf(v));
    const char *bad[] = {"", "0x1p3", "0x190", "0X10", "inf", "nan", "NAN", "infinity", " 1",
                         "1 ", ".", "e3", "1e", "1e+", "--1", "1,5", NULL};
    for (int i = 0; bad[i]; i++)
        if (bn_num_real(bad[i], &v))
            fail_msg("'%s' taken as a decimal real", bad[i]);
}

/* A number then a unit (ns-3's 100Gbps, 0.001ms): the unit is left. */
static void test_prefix(void **state)
{
    (void)state;
    double v = 0;
    const char *end = NULL;
    assert_true(bn_num_real_prefix("100Gbps", &v, &end));
    assert_true(v == 100);
    assert_string_equal(end, "Gbps");
    assert_true(bn_num_real_prefix("0.001ms", &v, &end));
    assert_string_equal(end, "ms");
    assert_true(bn_num_real_prefix("1e3ns", &v, &end) && v == 1e3);
    assert_string_equal(end, "ns");
    /* "1es": the e is the unit's, not an exponent */
    assert_true(bn_num_real_prefix("1es", &v, &end) && v == 1);
    assert_string_equal(end, "es");
    assert_false(bn_num_real_prefix("0x190Gbps", &v, &end));
    assert_false(bn_num_real_prefix("0x1p3ms", &v, &end));
    assert_false(bn_num_real_prefix("infGbps", &v, &end));
    assert_false(bn_num_real_prefix("Gbps", &v, &end));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole),
        cmocka_unit_test(test_real),
        cmocka_unit_test(test_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
