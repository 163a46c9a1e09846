/*
 * The Poisson traffic generator (workload.kind: poisson) and the size
 * CDFs: over a long window the offered load meets its target; the drawn
 * sizes follow the CDF (Kolmogorov-Smirnov); rack_local and incast bursts
 * shape the matrix as asked; the shipped CDF files are the built-ins; bad
 * CDF files are refused naming FILE:LINE.
 */
#include <math.h>

#include "support.h"

#include "workload/size_cdf.h"
#include "workload/workload.h"

#define HOSTS 16
#define RATE_BPS 100e9

/* 4 hosts per leaf */
static const uint32_t leaf_of[HOSTS] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};

static void generate(const char *const *sets, struct bn_flow_list *l)
{
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_wl_hosts h = {.n = HOSTS, .rate_bps = RATE_BPS, .leaf = leaf_of};
    struct bn_error err = {0};
    if (bn_workload_generate_on(&sc, &h, l, &err) != BN_OK)
        fail_msg("%s", err.msg);
}

static double offered(const struct bn_flow_list *l, double duration_us)
{
    double bytes = 0;
    for (uint32_t i = 0; i < l->n; i++)
        bytes += (double)l->flows[i].bytes;
    return bytes / (HOSTS * RATE_BPS / 8 * duration_us / 1e6);
}

/* About 400,000 WebSearch flows: the load's relative standard error is
 * sqrt((1 + CV^2) / n), about 0.4 %, so 2 % is five of them. */
static void test_load_meets_target(void **state)
{
    (void)state;
    const char *sets[] = {"workload.kind=poisson", "workload.load=0.4",
                          "workload.duration_us=8e6", NULL};
    struct bn_flow_list l;
    generate(sets, &l);
    assert_true(l.n > 300000);
    double got = offered(&l, 8e6);
    if (fabs(got - 0.4) > 0.02 * 0.4)
        fail_msg("offered load %.4f for a target of 0.4", got);
    for (uint32_t i = 1; i < l.n; i++) /* by start time; all inside the window */
        assert_true(l.flows[i].start >= l.flows[i - 1].start);
    assert_true(l.flows[l.n - 1].start < bn_time_from_us(8e6));
    bn_flow_list_free(&l);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The empirical CDF of n drawn sizes against the input's, a size x
 * standing for (x - 0.5, x + 0.5] (sizes are rounded to whole bytes):
 * D below the 99.9 % Kolmogorov-Smirnov bound 1.95 / sqrt(n). */
static void check_ks(const char *cdf_name, const char *duration)
{
    const char *sets[] = {"workload.kind=poisson", cdf_name, duration, NULL};
    struct bn_flow_list l;
    generate(sets, &l);
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_size_cdf *c = malloc(sizeof *c);
    struct bn_error err = {0};
    assert_non_null(c);
    char name[BN_PATH_MAX];
    assert_int_equal(bn_scenario_get(&sc, "workload.size_cdf", name, sizeof name), BN_OK);
    assert_int_equal(bn_size_cdf_load(c, name, sc.source, &err), BN_OK);
    uint64_t *v = malloc(l.n * sizeof *v);
    assert_non_null(v);
    for (uint32_t i = 0; i < l.n; i++)
        v[i] = l.flows[i].bytes;
    qsort(v, l.n, sizeof *v, cmp_u64);
    double d = 0, n = l.n;
    for (uint32_t i = 0; i < l.n; i++) {
        if (i + 1 < l.n && v[i + 1] == v[i])
            continue;
        double above = (i + 1) / n - bn_size_cdf_at(c, (double)v[i] + 0.5);
        double below = bn_size_cdf_at(c, (double)v[i] - 0.5) - (i + 1 - 1) / n;
        d = fmax(d, fmax(above, 0));
        d = fmax(d, fmax(below, 0));
    }
    if (d > 1.95 / sqrt(n))
        fail_msg("%s: KS distance %.5f over %u sizes, bound %.5f", cdf_name, d, l.n,
                 1.95 / sqrt(n));
    free(v);
    free(c);
    bn_flow_list_free(&l);
}

static void test_sizes_follow_the_cdf(void **state)
{
    (void)state;
    check_ks("workload.size_cdf=websearch", "workload.duration_us=2e6");
    check_ks("workload.size_cdf=fb_hadoop", "workload.duration_us=2e5");
}

/* Mean of the linear CDF by hand: the segments' midpoints by their mass. */
static void test_mean(void **state)
{
    (void)state;
    struct bn_size_cdf *c = malloc(sizeof *c);
    struct bn_error err = {0};
    assert_non_null(c);
    const char *f = test_tmpfile("# bytes cdf\n100 0\n300 0.5\n1300 1.0\n");
    assert_int_equal(bn_size_cdf_load(c, f, "<default>", &err), BN_OK);
    assert_float_equal(bn_size_cdf_mean(c), 0.5 * 200 + 0.5 * 800, 1e-9);
    remove(f);
    free(c);
}

static void test_shipped_files_are_the_builtins(void **state)
{
    (void)state;
    struct bn_size_cdf *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    assert_true(a && b);
    for (uint32_t i = 0; bn_size_cdf_builtin(i); i++) {
        char path[128];
        struct bn_error err = {0};
        snprintf(path, sizeof path, "scenarios/cdf/%s.cdf", bn_size_cdf_builtin(i));
        assert_int_equal(bn_size_cdf_load(a, bn_size_cdf_builtin(i), "<default>", &err), BN_OK);
        if (bn_size_cdf_load(b, path, "<default>", &err) != BN_OK)
            fail_msg("%s", err.msg);
        assert_int_equal(a->n, b->n);
        for (uint32_t k = 0; k < a->n; k++) {
            assert_float_equal(a->bytes[k], b->bytes[k], 0);
            assert_float_equal(a->p[k], b->p[k], 1e-12);
        }
    }
    free(a);
    free(b);
}

static void test_rack_local(void **state)
{
    (void)state;
    const char *sets[] = {"workload.kind=poisson", "workload.rack_local=0.25",
                          "workload.size_cdf=fb_hadoop", "workload.duration_us=2e5", NULL};
    struct bn_flow_list l;
    generate(sets, &l);
    uint32_t local = 0;
    for (uint32_t i = 0; i < l.n; i++) {
        assert_int_not_equal(l.flows[i].src, l.flows[i].dst);
        local += leaf_of[l.flows[i].src] == leaf_of[l.flows[i].dst];
    }
    double f = (double)local / l.n; /* binomial: sd sqrt(p(1-p)/n), under 0.5 % here */
    if (fabs(f - 0.25) > 0.02)
        fail_msg("%.4f of %u flows stay under their leaf, asked 0.25", f, l.n);
    bn_flow_list_free(&l);
}

/* Bursts: incast_senders distinct senders, message_bytes each, one
 * receiver, one instant; their bytes incast_share of the load. */
static void test_incast_bursts(void **state)
{
    (void)state;
    const char *sets[] = {"workload.kind=poisson", "workload.incast_share=1",
                          "workload.incast_senders=5", "workload.message_bytes=64KB",
                          "workload.load=0.2", "workload.duration_us=1e6", NULL};
    struct bn_flow_list l;
    generate(sets, &l);
    assert_int_equal(l.n % 5, 0);
    for (uint32_t i = 0; i < l.n; i += 5) {
        uint32_t seen = 0;
        for (uint32_t k = i; k < i + 5; k++) {
            assert_int_equal(l.flows[k].bytes, 64000);
            assert_int_equal(l.flows[k].start, l.flows[i].start);
            assert_int_equal(l.flows[k].dst, l.flows[i].dst);
            assert_int_not_equal(l.flows[k].src, l.flows[k].dst);
            assert_false(seen & (1u << l.flows[k].src));
            seen |= 1u << l.flows[k].src;
        }
    }
    double got = offered(&l, 1e6);
    if (fabs(got - 0.2) > 0.02 * 0.2)
        fail_msg("offered load %.4f in bursts for a target of 0.2", got);
    bn_flow_list_free(&l);
}

static void test_same_seed_same_flows(void **state)
{
    (void)state;
    const char *sets[] = {"workload.kind=poisson", "workload.duration_us=1e4", NULL};
    struct bn_flow_list a, b;
    generate(sets, &a);
    generate(sets, &b);
    assert_int_equal(a.n, b.n);
    assert_memory_equal(a.flows, b.flows, a.n * sizeof *a.flows);
    bn_flow_list_free(&a);
    bn_flow_list_free(&b);
}

static void expect_bad(const char *body, const char *want)
{
    const char *f = test_tmpfile(body);
    struct bn_size_cdf *c = malloc(sizeof *c);
    struct bn_error err = {0};
    assert_non_null(c);
    assert_int_equal(bn_size_cdf_load(c, f, "<default>", &err), BN_EINPUT);
    char line[600];
    snprintf(line, sizeof line, "%s:%s", f, want);
    if (!strstr(err.msg, line))
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, line);
    remove(f);
    free(c);
}

static void test_bad_cdf_files(void **state)
{
    (void)state;
    expect_bad("0 0\n10 0.5\n5 1\n", "3: the size falls");
    expect_bad("0 0\n10 0.5\n20 0.4\n", "3: the cdf falls");
    expect_bad("0 0\n10 x\n", "2: field 'cdf'");
    expect_bad("0 0\nten 1\n", "2: field 'bytes'");
    expect_bad("0 0\n10 0.5 7\n", "2: expected 2 fields");
    expect_bad("0 0\n10 0.9\n", "2: a CDF needs 2 points or more and ends at 1");
    expect_bad("0 0\n10 101\n", "2: field 'cdf'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_meets_target),
        cmocka_unit_test(test_sizes_follow_the_cdf),
        cmocka_unit_test(test_mean),
        cmocka_unit_test(test_shipped_files_are_the_builtins),
        cmocka_unit_test(test_rack_local),
        cmocka_unit_test(test_incast_bursts),
        cmocka_unit_test(test_same_seed_same_flows),
        cmocka_unit_test(test_bad_cdf_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
