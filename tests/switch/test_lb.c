/*
 * Load-balancing policies against probability laws, on a hand-built switch
 * context (no simulation):
 *  - ECMP picks uniformly: chi-square over 4 next hops for 40,000 flows
 *    stays below the 0.001 critical value for 3 degrees of freedom (16.27);
 *  - n flows hashed onto n next hops use a fraction 1 - (1 - 1/n)^n of them
 *    on average (the balls-into-bins collision law behind ECMP's losses),
 *    within 0.02 over 400 trials, for n = 4, 8, 16, 32;
 *  - a flow's packets all hash to one next hop; per-packet entropy spreads;
 *  - adaptive routing sends almost nothing to a next hop with a deep queue,
 *    and splits evenly between equal ones;
 *  - spray_rr visits next hops in turn; spray_random is uniform (chi-square).
 */
#include "support.h"

#include <math.h>

#include "core/rng.h"
#include "switch/lb.h"

#define NPORTS 64

struct rig {
    struct bn_fabric f;
    struct bn_port ports[NPORTS];
    struct bn_lb_ctx ctx;
    struct bn_lb_switch_state sw;
    uint32_t cand[NPORTS];
    struct bn_scenario sc;
    _Alignas(8) unsigned char priv[4096]; /* the policy's state, as switch_setup.c gives it */
};

/* The policy's state from the scenario's keys (defaults, then `set`). */
static void rig_setup(struct rig *r, const char *set)
{
    bn_scenario_defaults(&r->sc);
    struct bn_error err;
    if (set)
        assert_int_equal(bn_scenario_set(&r->sc, set, &err), BN_OK);
    memset(r->priv, 0, sizeof r->priv);
    r->sw.priv = r->priv;
    if (r->sw.ops->priv_size)
        assert_true(r->sw.ops->priv_size(&r->sc) <= sizeof r->priv);
    if (r->sw.ops->setup)
        r->sw.ops->setup(r->priv, &r->sc);
}

static void rig_init(struct rig *r, const char *policy, uint64_t seed)
{
    memset(r, 0, sizeof *r);
    r->f.ports = r->ports;
    r->f.nports = NPORTS;
    for (uint32_t i = 0; i < NPORTS; i++) {
        r->ports[i].rate_bps = 100000000000ULL;
        r->cand[i] = i;
    }
    r->ctx = (struct bn_lb_ctx){.f = &r->f, .hash_fields = BN_HASH_DST | BN_HASH_ENTROPY};
    r->sw.ops = bn_lb_find(policy);
    assert_non_null(r->sw.ops);
    r->sw.salt = bn_mix64(seed);
    bn_rng_init(&r->sw.rng, seed, 7);
    rig_setup(r, NULL);
}

static uint32_t pick(struct rig *r, uint32_t n, uint32_t entropy)
{
    struct bn_packet pk = {.dst = 3, .entropy = entropy};
    return r->sw.ops->pick(&r->ctx, &r->sw, r->cand, n, &pk);
}

static double chi2(const uint32_t *count, uint32_t n, double total)
{
    double e = total / n, c = 0;
    for (uint32_t i = 0; i < n; i++)
        c += (count[i] - e) * (count[i] - e) / e;
    return c;
}

static void test_ecmp_uniform_and_sticky(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, "ecmp", 1);
    uint32_t count[4] = {0};
    struct bn_rng g;
    bn_rng_init(&g, 2, 0);
    for (int i = 0; i < 40000; i++) {
        uint32_t e = (uint32_t)bn_rng_next(&g);
        uint32_t p = pick(&r, 4, e);
        count[p]++;
        for (int k = 0; k < 5; k++) /* every packet of the flow: the same port */
            assert_int_equal(pick(&r, 4, e), p);
    }
    assert_true(chi2(count, 4, 40000) < 16.27);
}

static void test_ecmp_collision_law(void **state)
{
    (void)state;
    static const uint32_t ns[] = {4, 8, 16, 32};
    for (size_t k = 0; k < 4; k++) {
        uint32_t n = ns[k];
        double used_sum = 0;
        struct bn_rng g;
        bn_rng_init(&g, 100 + n, 0);
        for (int trial = 0; trial < 400; trial++) {
            struct rig r;
            rig_init(&r, "ecmp", 1000 + (uint64_t)trial);
            bool used[NPORTS] = {false};
            for (uint32_t f = 0; f < n; f++)
                used[pick(&r, n, (uint32_t)bn_rng_next(&g))] = true;
            uint32_t u = 0;
            for (uint32_t i = 0; i < n; i++)
                u += used[i];
            used_sum += (double)u / n;
        }
        double got = used_sum / 400, law = 1 - pow(1 - 1.0 / n, n);
        printf("n=%2u: %.4f of next hops used, law %.4f\n", n, got, law);
        assert_true(fabs(got - law) <= 0.02);
    }
}

static void test_adaptive_avoids_deep_queue(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, "adaptive", 3);
    r.ports[2].q.bytes = 500000; /* a background flow has filled next hop 2 */
    uint32_t count[4] = {0};
    for (int i = 0; i < 10000; i++)
        count[pick(&r, 4, 42)]++;
    assert_int_equal(count[2], 0);
    uint32_t even[3] = {count[0], count[1], count[3]};
    assert_true(chi2(even, 3, 10000) < 13.82); /* ties broken evenly (2 df, 0.001) */
    /* loads within one band (8192 bytes by default) tie: a frame's worth
     * queued on next hop 1 does not steer every packet away from it */
    r.ports[1].q.bytes = 4138;
    memset(count, 0, sizeof count);
    for (int i = 0; i < 10000; i++)
        count[pick(&r, 4, 42)]++;
    assert_int_equal(count[2], 0);
    uint32_t banded[3] = {count[0], count[1], count[3]};
    assert_true(chi2(banded, 3, 10000) < 13.82);
    r.ports[1].q.bytes = 0;
    /* with the load metric, compared exactly, a frame still on the wire
     * counts too */
    r.ports[2].q.bytes = 0;
    rig_setup(&r, "switch.ar_metric=load");
    struct bn_error err;
    assert_int_equal(bn_scenario_set(&r.sc, "switch.ar_band_bytes=1", &err), BN_OK);
    r.sw.ops->setup(r.priv, &r.sc);
    r.f.now = 1000;
    r.ports[1].busy_until = 50000; /* 49 ns of a frame left: ~612 bytes */
    for (int i = 0; i < 1000; i++)
        assert_true(pick(&r, 4, 7) != 1);
}

static void test_spraying(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, "spray_rr", 4);
    for (uint32_t i = 0; i < 64; i++)
        assert_int_equal(pick(&r, 8, 9), i % 8);
    rig_init(&r, "spray_random", 5);
    uint32_t count[16] = {0};
    for (int i = 0; i < 32000; i++)
        count[pick(&r, 16, 9)]++;
    assert_true(chi2(count, 16, 32000) < 37.70); /* 15 df, 0.001 */
    /* ECMP over per-packet entropy (sender-side spraying) is uniform too */
    rig_init(&r, "ecmp", 6);
    memset(count, 0, sizeof count);
    for (uint32_t i = 0; i < 32000; i++)
        count[pick(&r, 16, (uint32_t)bn_mix64(i))]++;
    assert_true(chi2(count, 16, 32000) < 37.70);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ecmp_uniform_and_sticky),
        cmocka_unit_test(test_ecmp_collision_law),
        cmocka_unit_test(test_adaptive_avoids_deep_queue),
        cmocka_unit_test(test_spraying),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
