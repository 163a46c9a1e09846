/*
 * Random streams: reproducible per (seed, stream), independent across
 * streams, and bn_rng_below uniform by a chi-square test (20 bins, 19 degrees
 * of freedom: the 0.001 critical value is 43.82).
 */
#include "support.h"

#include "core/rng.h"

static void test_reproducible_and_distinct(void **state)
{
    (void)state;
    struct bn_rng a, b, c;
    bn_rng_init(&a, 42, 1);
    bn_rng_init(&b, 42, 1);
    bn_rng_init(&c, 42, 2);
    int same_c = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = bn_rng_next(&a);
        assert_true(x == bn_rng_next(&b));
        same_c += x == bn_rng_next(&c);
    }
    assert_int_equal(same_c, 0);
}

static void test_below_uniform(void **state)
{
    (void)state;
    enum { BINS = 20, DRAWS = 200000 };
    struct bn_rng r;
    bn_rng_init(&r, 3, 9);
    long count[BINS] = {0};
    for (int i = 0; i < DRAWS; i++) {
        uint64_t v = bn_rng_below(&r, BINS);
        assert_true(v < BINS);
        count[v]++;
    }
    double expect = (double)DRAWS / BINS, chi2 = 0;
    for (int i = 0; i < BINS; i++)
        chi2 += (count[i] - expect) * (count[i] - expect) / expect;
    assert_true(chi2 < 43.82);
    for (int i = 0; i < 1000; i++) {
        double u = bn_rng_uniform(&r);
        assert_true(u >= 0 && u < 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reproducible_and_distinct),
        cmocka_unit_test(test_below_uniform),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
