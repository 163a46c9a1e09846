/*
 * InfiniBand CC sender model against the annex A10 rules as ibcc.h states
 * them: CCTI rises by CCTI_Increase per BECN up to CCTI_Limit, falls by one per
 * CCTI_Timer period down to CCTI_Min, and the rate line / (1 + IPD) is the line
 * rate at index 0 and never rises with the index.
 */
#include <math.h>

#include "support.h"

#include "nic/ibcc.h"

#define US BN_PS_PER_US

/* cmocka's assert_float_equal rounds to float; compare doubles here. */
#define assert_near(a, b, eps) assert_near_at((a), (b), (eps), #a)
static void assert_near_at(double a, double b, double eps, const char *what)
{
    if (!(fabs(a - b) <= eps))
        fail_msg("%s = %.17g, expected %.17g", what, a, b);
}

static void test_defaults_valid(void **state)
{
    (void)state;
    struct bn_ibcc_params p = bn_ibcc_params_default(100);
    struct bn_error err = {0};
    assert_int_equal(bn_ibcc_params_check(&p, &err), BN_OK);
    assert_int_equal(p.ccti_timer, 131072000);  /* 128 * 1.024 us */
    p.ccti_min = 200;
    assert_int_equal(bn_ibcc_params_check(&p, &err), BN_EINPUT);
}

static void test_becn_raises_and_saturates(void **state)
{
    (void)state;
    struct bn_ibcc_params p = bn_ibcc_params_default(100);
    p.ccti_increase = 3;
    p.ccti_limit = 10;
    struct bn_ibcc st;
    bn_ibcc_init(&st, &p, 0);
    assert_int_equal(bn_ibcc_ccti(&st), 0);
    assert_int_equal(bn_ibcc_next_timer(&st), BN_TIME_NEVER);
    const uint32_t expect[] = {3, 6, 9, 10, 10};
    for (int i = 0; i < 5; i++) {
        bn_ibcc_on_becn(&st, (bn_time_t)i * US);
        assert_int_equal(bn_ibcc_ccti(&st), expect[i]);
    }
    /* The timer started with the first BECN and was not restarted by the others. */
    assert_int_equal(bn_ibcc_next_timer(&st), p.ccti_timer);
}

static void test_timer_lowers_to_min(void **state)
{
    (void)state;
    struct bn_ibcc_params p = bn_ibcc_params_default(100);
    p.ccti_increase = 5;
    p.ccti_min = 2;
    p.ccti_timer = 10 * US;
    struct bn_ibcc st;
    bn_ibcc_init(&st, &p, 0);
    assert_int_equal(bn_ibcc_ccti(&st), 2);
    bn_ibcc_on_becn(&st, 1 * US);  /* 2 + 5 = 7 */
    assert_int_equal(bn_ibcc_ccti(&st), 7);
    for (uint32_t k = 1; k <= 5; k++) {
        bn_time_t t = bn_ibcc_next_timer(&st);
        assert_int_equal(t, 1 * US + (bn_time_t)k * 10 * US);
        bn_ibcc_on_timer(&st, t - 1);  /* early call: nothing due */
        assert_int_equal(bn_ibcc_ccti(&st), 7 - (k - 1));
        bn_ibcc_on_timer(&st, t);
        assert_int_equal(bn_ibcc_ccti(&st), 7 - k);
    }
    assert_int_equal(bn_ibcc_ccti(&st), 2);
    assert_int_equal(bn_ibcc_next_timer(&st), BN_TIME_NEVER);
    /* A late call catches up on every expiry at once. */
    bn_ibcc_on_becn(&st, 100 * US);
    bn_ibcc_on_timer(&st, 100 * US + 35 * US);
    assert_int_equal(bn_ibcc_ccti(&st), 4);
    assert_int_equal(bn_ibcc_next_timer(&st), 140 * US);
}

static void test_rate_monotone(void **state)
{
    (void)state;
    struct bn_ibcc_params p = bn_ibcc_params_default(200);
    assert_true(bn_ibcc_rate_for_index(&p, 0) == 200.0);
    /* Linear table: 200 / (1 + i/2). */
    assert_near(bn_ibcc_rate_for_index(&p, 1), 200.0 / 1.5, 1e-12);
    assert_near(bn_ibcc_rate_for_index(&p, 127), 200.0 / 64.5, 1e-12);
    for (uint32_t i = 1; i <= p.ccti_limit; i++)
        assert_true(bn_ibcc_rate_for_index(&p, i) < bn_ibcc_rate_for_index(&p, i - 1));

    /* An explicit table with a flat stretch: non-increasing, line rate at 0. */
    static const double cct[] = {0, 0, 0.25, 0.25, 1, 3};
    p.cct = cct;
    p.ccti_limit = 5;
    struct bn_error err = {0};
    assert_int_equal(bn_ibcc_params_check(&p, &err), BN_OK);
    assert_true(bn_ibcc_rate_for_index(&p, 0) == 200.0);
    assert_near(bn_ibcc_rate_for_index(&p, 5), 50.0, 1e-12);
    for (uint32_t i = 1; i <= p.ccti_limit; i++)
        assert_true(bn_ibcc_rate_for_index(&p, i) <= bn_ibcc_rate_for_index(&p, i - 1));
    static const double bad[] = {0, 1, 0.5, 2, 3, 4};
    p.cct = bad;
    assert_int_equal(bn_ibcc_params_check(&p, &err), BN_EINPUT);

    struct bn_ibcc st;
    p.cct = cct;
    bn_ibcc_init(&st, &p, 0);
    assert_true(bn_ibcc_rate_gbps(&st) == 200.0);
    bn_ibcc_on_becn(&st, 0);
    bn_ibcc_on_becn(&st, 0);
    assert_near(bn_ibcc_rate_gbps(&st), 160.0, 1e-12);
}

static void test_marking(void **state)
{
    (void)state;
    struct bn_ibcc_marking m = {.threshold_bytes = 1000, .marking_rate = 2};
    uint32_t since = 0;
    assert_false(bn_ibcc_should_mark(&m, 1000, &since));  /* not above threshold */
    assert_int_equal(since, 0);
    /* Above threshold: two unmarked, then one marked, repeating. */
    const bool expect[] = {false, false, true, false, false, true};
    for (int i = 0; i < 6; i++)
        assert_int_equal(bn_ibcc_should_mark(&m, 5000, &since), expect[i]);
    m.marking_rate = 0;
    assert_true(bn_ibcc_should_mark(&m, 1001, &since));
    assert_true(bn_ibcc_should_mark(&m, 1001, &since));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_valid),
        cmocka_unit_test(test_becn_raises_and_saturates),
        cmocka_unit_test(test_timer_lowers_to_min),
        cmocka_unit_test(test_rate_monotone),
        cmocka_unit_test(test_marking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
