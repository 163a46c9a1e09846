/*
 * Max-min fair sharing (flow/maxmin.c) against allocations worked by hand
 * and against the definition:
 * - the parking lot (Bertsekas & Gallager, Data Networks, 6.5): one long
 *   flow over three unit links, one short flow on each: every flow gets
 *   1/2; with the middle link's capacity 2 its short flow gets 3/2;
 * - a flow spread half and half over two links, beside a flow on one of
 *   them: the shared link holds 1/2 r + r' = 1 at the common level 2/3;
 * - a passive use (ACKs) loads a full link but does not hold its flow:
 *   the two flows on the link share 1 less the passive flow's 1/100 of its
 *   level, and the passive flow goes on to its own link's full rate;
 * - random flow sets, activated and deactivated in random order, solved
 *   incrementally: every flow has a bottleneck (a full link on which no
 *   flow gets more), no link is over capacity, and the rates equal those
 *   of a fresh solve of the same set; 60 flows on 24 links, then 180 (many
 *   levels on each link, so the flows a full link holds at its level and
 *   the ones it only carries differ). Without the re-solve of a carried
 *   flow that a falling level passes, or without marking a link its
 *   carried flows fill, these fail.
 */
#include "support.h"
#include <math.h>

#include "core/rng.h"
#include "flow/maxmin.h"

static void mm_path(struct bn_maxmin *m, uint32_t f, const uint32_t *links, const float *w,
                    uint32_t n)
{
    struct bn_error err = {0};
    if (bn_mm_set_path(m, f, links, w, NULL, n, &err) != BN_OK ||
        bn_mm_activate(m, f, &err) != BN_OK)
        fail_msg("%s", err.msg);
}

static void mm_solve(struct bn_maxmin *m)
{
    struct bn_error err = {0};
    if (bn_mm_solve(m, &err) != BN_OK)
        fail_msg("%s", err.msg);
}

static void test_parking_lot(void **state)
{
    (void)state;
    struct bn_maxmin m;
    struct bn_error err = {0};
    assert_int_equal(bn_mm_init(&m, 3, 4, &err), BN_OK);
    for (uint32_t l = 0; l < 3; l++)
        bn_mm_set_cap(&m, l, 1.0);
    const uint32_t all[] = {0, 1, 2};
    const float one[] = {1, 1, 1};
    mm_path(&m, 0, all, one, 3);
    for (uint32_t l = 0; l < 3; l++)
        mm_path(&m, l + 1, &all[l], one, 1);
    mm_solve(&m);
    for (uint32_t f = 0; f < 4; f++)
        assert_true(fabs(m.rate[f] - 0.5) < 1e-12);
    bn_mm_free(&m);

    /* the middle link doubled: its short flow takes what the long one leaves */
    assert_int_equal(bn_mm_init(&m, 3, 4, &err), BN_OK);
    for (uint32_t l = 0; l < 3; l++)
        bn_mm_set_cap(&m, l, l == 1 ? 2.0 : 1.0);
    mm_path(&m, 0, all, one, 3);
    for (uint32_t l = 0; l < 3; l++)
        mm_path(&m, l + 1, &all[l], one, 1);
    mm_solve(&m);
    assert_true(fabs(m.rate[0] - 0.5) < 1e-12);
    assert_true(fabs(m.rate[1] - 0.5) < 1e-12);
    assert_true(fabs(m.rate[2] - 1.5) < 1e-12);
    assert_true(fabs(m.rate[3] - 0.5) < 1e-12);

    /* the long flow leaves: each short flow has its link alone */
    assert_int_equal(bn_mm_deactivate(&m, 0, &err), BN_OK);
    mm_solve(&m);
    assert_true(m.rate[0] == 0);
    assert_true(fabs(m.rate[1] - 1.0) < 1e-12);
    assert_true(fabs(m.rate[2] - 2.0) < 1e-12);
    assert_true(fabs(m.rate[3] - 1.0) < 1e-12);
    bn_mm_free(&m);
}

static void test_spread_flow(void **state)
{
    (void)state;
    struct bn_maxmin m;
    struct bn_error err = {0};
    assert_int_equal(bn_mm_init(&m, 2, 2, &err), BN_OK);
    bn_mm_set_cap(&m, 0, 1.0);
    bn_mm_set_cap(&m, 1, 1.0);
    const uint32_t both[] = {0, 1};
    const float half[] = {0.5f, 0.5f}, one[] = {1};
    mm_path(&m, 0, both, half, 2);
    mm_path(&m, 1, both, one, 1);
    mm_solve(&m);
    assert_true(fabs(m.rate[0] - 2.0 / 3) < 1e-9);
    assert_true(fabs(m.rate[1] - 2.0 / 3) < 1e-9);
    bn_mm_free(&m);
}

static void test_passive_use(void **state)
{
    (void)state;
    struct bn_maxmin m;
    struct bn_error err = {0};
    assert_int_equal(bn_mm_init(&m, 2, 3, &err), BN_OK);
    bn_mm_set_cap(&m, 0, 1.0);
    bn_mm_set_cap(&m, 1, 1.0);
    const uint32_t a[] = {0, 1}, one_link[] = {1};
    const float wa[] = {1.0f, 0.01f}, one[] = {1};
    const uint8_t pa[] = {0, 1};
    assert_int_equal(bn_mm_set_path(&m, 0, a, wa, pa, 2, &err), BN_OK);
    assert_int_equal(bn_mm_activate(&m, 0, &err), BN_OK);
    mm_path(&m, 1, one_link, one, 1);
    mm_path(&m, 2, one_link, one, 1);
    mm_solve(&m);
    assert_true(fabs(m.rate[0] - 1.0) < 1e-9);
    assert_true(fabs(m.rate[1] - 1.0 / 2.01) < 1e-6);
    assert_true(fabs(m.rate[2] - 1.0 / 2.01) < 1e-6);
    bn_mm_free(&m);
}

enum { LINKS = 24, FLOWS = 180 };

/* Every active flow has a bottleneck and no link is over capacity. */
static void check_max_min(const struct bn_maxmin *m, uint32_t nflows)
{
    double load[LINKS] = {0}, top[LINKS] = {0};
    for (uint32_t f = 0; f < nflows; f++) {
        if (!m->active[f])
            continue;
        assert_true(m->rate[f] > 0);
        for (uint32_t k = 0; k < m->use_len[f]; k++) {
            const struct bn_mm_use *u = &m->use[m->use_off[f] + k];
            load[u->link] += u->weight * m->rate[f];
            if (m->rate[f] > top[u->link])
                top[u->link] = m->rate[f];
        }
    }
    for (uint32_t l = 0; l < LINKS; l++)
        assert_true(load[l] <= m->cap[l] * (1 + 1e-9));
    for (uint32_t f = 0; f < nflows; f++) {
        if (!m->active[f])
            continue;
        bool bottleneck = false;
        for (uint32_t k = 0; k < m->use_len[f] && !bottleneck; k++) {
            uint32_t l = m->use[m->use_off[f] + k].link;
            bottleneck = load[l] >= m->cap[l] * (1 - 1e-9) && m->rate[f] >= top[l] * (1 - 1e-9);
        }
        if (!bottleneck)
            fail_msg("flow %u (rate %g) has no bottleneck link", f, m->rate[f]);
    }
}

static void random_paths(struct bn_maxmin *m, struct bn_rng *r, uint32_t nflows)
{
    for (uint32_t l = 0; l < LINKS; l++)
        bn_mm_set_cap(m, l, 1.0 + (double)bn_rng_below(r, 4));
    for (uint32_t f = 0; f < nflows; f++) {
        uint32_t links[6], n = 1 + (uint32_t)bn_rng_below(r, 5);
        float w[6];
        for (uint32_t k = 0; k < n; k++) {
            links[k] = (f * 7 + k * 5 + (uint32_t)bn_rng_below(r, 3)) % LINKS;
            for (uint32_t j = 0; j < k; j++)
                if (links[j] == links[k])
                    links[k] = (links[k] + 1) % LINKS;
            w[k] = bn_rng_below(r, 4) == 0 ? 0.25f : 1.0f;
        }
        struct bn_error err = {0};
        if (bn_mm_set_path(m, f, links, w, NULL, n, &err) != BN_OK)
            fail_msg("%s", err.msg);
    }
}

/* One random history (seed), solved incrementally and checked each time. */
static void incremental_history(uint64_t seed, uint32_t nflows)
{
    struct bn_rng r;
    bn_rng_init(&r, seed, 1);
    struct bn_maxmin inc, fresh;
    struct bn_error err = {0};
    assert_int_equal(bn_mm_init(&inc, LINKS, nflows, &err), BN_OK);
    random_paths(&inc, &r, nflows);
    for (int step = 0; step < 400; step++) {
        uint32_t f = (uint32_t)bn_rng_below(&r, nflows);
        int rc = inc.active[f] ? bn_mm_deactivate(&inc, f, &err) : bn_mm_activate(&inc, f, &err);
        assert_int_equal(rc, BN_OK);
        if (bn_rng_below(&r, 3) == 0)
            continue; /* changes pile up before a solve, as within one instant */
        mm_solve(&inc);
        check_max_min(&inc, nflows);
        /* the same flow set solved from scratch */
        assert_int_equal(bn_mm_init(&fresh, LINKS, nflows, &err), BN_OK);
        memcpy(fresh.cap, inc.cap, LINKS * sizeof *fresh.cap);
        for (uint32_t g = 0; g < nflows; g++) {
            struct bn_mm_use *u = &inc.use[inc.use_off[g]];
            uint32_t links[6];
            float w[6];
            for (uint32_t k = 0; k < inc.use_len[g]; k++) {
                links[k] = u[k].link;
                w[k] = u[k].weight;
            }
            assert_int_equal(bn_mm_set_path(&fresh, g, links, w, NULL, inc.use_len[g], &err),
                             BN_OK);
            if (inc.active[g])
                assert_int_equal(bn_mm_activate(&fresh, g, &err), BN_OK);
        }
        mm_solve(&fresh);
        for (uint32_t g = 0; g < nflows; g++)
            assert_true(fabs(fresh.rate[g] - inc.rate[g]) <= 1e-9 * (1 + fresh.rate[g]));
        bn_mm_free(&fresh);
    }
    bn_mm_free(&inc);
}

/* Many histories: the component (full links only), the floor below which
 * nothing moves, and the overloaded-link retry each cut what is solved;
 * any cut too deep shows as a flow without a bottleneck or a rate that a
 * fresh solve does not give. */
static void test_incremental_is_max_min(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 40; seed++)
        incremental_history(seed, 60);
    for (uint64_t seed = 41; seed <= 60; seed++) /* 7 flows a link: many levels, ties */
        incremental_history(seed, FLOWS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parking_lot),
        cmocka_unit_test(test_spread_flow),
        cmocka_unit_test(test_passive_use),
        cmocka_unit_test(test_incremental_is_max_min),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
