/*
 * The least-squares fit (calib/fit.c over MINPACK's lmdif): an exponential
 * y = a exp(b t) recovered from exact data to 1e-6 with standard
 * deviations near 0; from noisy data (a fixed +/-1 % pattern) within its
 * standard deviations, which match the closed form of linear regression
 * on ln y; and a bound that holds when the optimum lies beyond it.
 */
#include <math.h>

#include "support.h"

#include "calib/calib.h"

#define M 12

struct data {
    double t[M], y[M];
};

/* residuals of ln(model / y) for a x[0] exp(x[1] t) */
static int expo(void *ud, const double *x, double *r, struct bn_error *err)
{
    (void)err;
    const struct data *d = ud;
    for (int i = 0; i < M; i++)
        r[i] = log(x[0] * exp(x[1] * d->t[i]) / d->y[i]);
    return BN_OK;
}

static void make(struct data *d, double a, double b, double noise)
{
    for (int i = 0; i < M; i++) {
        d->t[i] = i * 0.5;
        d->y[i] = a * exp(b * d->t[i]) * (1 + noise * (i % 2 ? 1 : -1));
    }
}

static void test_exact(void **state)
{
    (void)state;
    struct data d;
    make(&d, 3.0, 0.7, 0);
    struct bn_calib_fit f = {.n = 2, .m = M, .x = {1, 0.1}, .lo = {0.1, -2}, .hi = {10, 2},
                             .max_evals = 200};
    struct bn_error err = {0};
    assert_int_equal(bn_calib_lm(&f, expo, &d, &err), BN_OK);
    assert_true(fabs(f.x[0] - 3.0) < 1e-6 && fabs(f.x[1] - 0.7) < 1e-6);
    assert_true(f.info >= 1 && f.info <= 4);
    assert_true(f.sigma[0] < 1e-6 && f.sigma[1] < 1e-6);
}

static void test_noise_sigma(void **state)
{
    (void)state;
    struct data d;
    make(&d, 3.0, 0.7, 0.01);
    struct bn_calib_fit f = {.n = 2, .m = M, .x = {1, 0.1}, .lo = {0.1, -2}, .hi = {10, 2},
                             .max_evals = 200};
    struct bn_error err = {0};
    assert_int_equal(bn_calib_lm(&f, expo, &d, &err), BN_OK);
    /* ln y = ln a + b t is linear: sigma_b = s / sqrt(sum (t - mean)^2) */
    double mean = 0, sxx = 0;
    for (int i = 0; i < M; i++)
        mean += d.t[i] / M;
    for (int i = 0; i < M; i++)
        sxx += (d.t[i] - mean) * (d.t[i] - mean);
    double s = sqrt(f.cost / (M - 2));
    assert_true(fabs(f.sigma[1] - s / sqrt(sxx)) < 0.01 * s / sqrt(sxx));
    assert_true(fabs(f.x[1] - 0.7) < 3 * f.sigma[1]);
}

static void test_bound_holds(void **state)
{
    (void)state;
    struct data d;
    make(&d, 3.0, 0.7, 0);
    /* b may not pass 0.5: the fit ends on the bound, a inside */
    struct bn_calib_fit f = {.n = 2, .m = M, .x = {1, 0.1}, .lo = {0.1, -2}, .hi = {10, 0.5},
                             .max_evals = 400};
    struct bn_error err = {0};
    assert_int_equal(bn_calib_lm(&f, expo, &d, &err), BN_OK);
    assert_true(f.x[1] <= 0.5 && f.x[1] > 0.49);
    assert_true(f.x[0] > 0.1 && f.x[0] < 10);
}

static void test_too_few_rows(void **state)
{
    (void)state;
    struct data d;
    make(&d, 3.0, 0.7, 0);
    struct bn_calib_fit f = {.n = 2, .m = 1, .x = {1, 0.1}, .lo = {0.1, -2}, .hi = {10, 2},
                             .max_evals = 10};
    struct bn_error err = {0};
    assert_int_equal(bn_calib_lm(&f, expo, &d, &err), BN_EINPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact), cmocka_unit_test(test_noise_sigma),
        cmocka_unit_test(test_bound_holds), cmocka_unit_test(test_too_few_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
