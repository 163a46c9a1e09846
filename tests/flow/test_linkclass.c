/*
 * Classes of identical links (flow/linkclass.c) in front of the max-min
 * solver, against the solver on the links themselves:
 * - a two-tier spread: flows from leaves spread evenly over the spines'
 *   links; the leaf's uplinks become one class, each flow a few uses, and
 *   the rates are the plain solver's;
 * - random path sets (weights, passive uses, links shared in every way),
 *   activated and deactivated in random order: after every solve the
 *   rates equal the plain solver's and, without passive uses (which the
 *   solver follows lazily), every flow has a bottleneck among the real
 *   links and no real link is over capacity. Splitting is what keeps
 *   this true: a class never split is wrong as soon as two flows tell its
 *   links apart.
 */
#include "support.h"
#include <math.h>

#include "core/rng.h"
#include "flow/linkclass.h"

enum { LINKS = 40, FLOWS = 80, MAXU = 12 };

struct paths {
    uint32_t n[FLOWS], link[FLOWS][MAXU];
    float w[FLOWS][MAXU];
    uint8_t passive[FLOWS][MAXU];
    double cap[LINKS];
};

static void solve(struct bn_maxmin *m)
{
    struct bn_error err = {0};
    if (bn_mm_solve(m, &err) != BN_OK)
        fail_msg("%s", err.msg);
}

/* The definition on the real links: loads within capacity, and every
 * active flow at the top of some full link it uses actively. */
static void check_max_min(const struct paths *p, const struct bn_maxmin *m)
{
    double load[LINKS] = {0}, top[LINKS] = {0};
    for (uint32_t f = 0; f < FLOWS; f++)
        for (uint32_t k = 0; m->active[f] && k < p->n[f]; k++) {
            load[p->link[f][k]] += p->w[f][k] * m->rate[f];
            if (!p->passive[f][k] && m->rate[f] > top[p->link[f][k]])
                top[p->link[f][k]] = m->rate[f];
        }
    for (uint32_t f = 0; f < FLOWS; f++) {
        bool bottleneck = false;
        for (uint32_t k = 0; m->active[f] && k < p->n[f]; k++) {
            uint32_t l = p->link[f][k];
            bottleneck |= !p->passive[f][k] && load[l] >= p->cap[l] * (1 - 1e-9) &&
                          m->rate[f] >= top[l] * (1 - 1e-9);
        }
        if (m->active[f] && !bottleneck)
            fail_msg("flow %u (rate %g) has no bottleneck link", f, m->rate[f]);
    }
    /* passive loads may go over by their own share (maxmin.h): count data only */
    double data[LINKS] = {0};
    for (uint32_t f = 0; f < FLOWS; f++)
        for (uint32_t k = 0; m->active[f] && k < p->n[f]; k++)
            if (!p->passive[f][k])
                data[p->link[f][k]] += p->w[f][k] * m->rate[f];
    for (uint32_t l = 0; l < LINKS; l++)
        assert_true(data[l] <= p->cap[l] * (1 + 1e-9));
}

static void setup(const struct paths *p, struct bn_maxmin *plain, struct bn_maxmin *cm,
                  struct bn_linkclass *lc)
{
    struct bn_error err = {0};
    assert_int_equal(bn_mm_init(plain, LINKS, FLOWS, &err), BN_OK);
    assert_int_equal(bn_mm_init(cm, LINKS, FLOWS, &err), BN_OK);
    assert_int_equal(bn_lc_init(lc, LINKS, true, &err), BN_OK);
    for (uint32_t l = 0; l < LINKS; l++) {
        bn_mm_set_cap(plain, l, p->cap[l]);
        bn_lc_set_cap(lc, l, p->cap[l]);
    }
}

static void set_path(const struct paths *p, uint32_t f, struct bn_maxmin *plain,
                     struct bn_maxmin *cm, struct bn_linkclass *lc)
{
    struct bn_error err = {0};
    if (bn_mm_set_path(plain, f, p->link[f], p->w[f], p->passive[f], p->n[f], &err) != BN_OK ||
        bn_lc_set_path(lc, cm, f, p->link[f], p->w[f], p->passive[f], p->n[f], &err) != BN_OK)
        fail_msg("%s", err.msg);
}

static void same_rates(const struct bn_maxmin *a, const struct bn_maxmin *b)
{
    for (uint32_t f = 0; f < FLOWS; f++)
        if (fabs(a->rate[f] - b->rate[f]) > 1e-9 * (1 + a->rate[f]))
            fail_msg("flow %u: plain %.12g, classes %.12g", f, a->rate[f], b->rate[f]);
}

/* 4 leaves of 2 hosts, 4 spines: host links 0-7 up, 8-15 down; leaf l's
 * uplinks 16 + 4l .. , spine downlinks to leaf l 32 + ... (only 16-31 and
 * 32-39 used as leaf up/down). Every flow spreads 1/4 over its leaf's 4
 * uplinks and 1/2 over two of the downlinks into the destination leaf. */
static void test_spread_classes(void **state)
{
    (void)state;
    struct paths p = {0};
    for (uint32_t l = 0; l < LINKS; l++)
        p.cap[l] = 1.0;
    for (uint32_t f = 0; f < 8; f++) {
        uint32_t src = f, dst = (f + 2) % 8, leaf = src / 2, k = 0;
        p.link[f][k] = src, p.w[f][k++] = 1;
        for (uint32_t u = 0; u < 4; u++)
            p.link[f][k] = 16 + 4 * leaf + u, p.w[f][k++] = 0.25f;
        for (uint32_t d = 0; d < 2; d++)
            p.link[f][k] = 32 + 2 * (dst / 2) + d, p.w[f][k++] = 0.5f;
        p.link[f][k] = 8 + dst, p.w[f][k++] = 1;
        p.n[f] = k;
    }
    struct bn_maxmin plain, cm;
    struct bn_linkclass lc;
    struct bn_error err = {0};
    setup(&p, &plain, &cm, &lc);
    for (uint32_t f = 0; f < 8; f++) {
        set_path(&p, f, &plain, &cm, &lc);
        assert_int_equal(bn_mm_activate(&plain, f, &err), BN_OK);
        assert_int_equal(bn_mm_activate(&cm, f, &err), BN_OK);
    }
    solve(&plain);
    solve(&cm);
    same_rates(&plain, &cm);
    check_max_min(&p, &cm);
    /* a leaf's 4 uplinks are one class, its 2 downlinks another, and host
     * 0's uplink with host 2's downlink a third (no other flow uses
     * either): 3 uses, not 8 */
    assert_int_equal(cm.use_len[0], 3);
    assert_int_equal(lc.size[lc.cls[16]], 4);
    assert_int_equal(lc.cls[16], lc.cls[19]);
    bn_mm_free(&plain);
    bn_mm_free(&cm);
    bn_lc_free(&lc);
}

static void random_paths(struct paths *p, struct bn_rng *r, bool acks)
{
    for (uint32_t l = 0; l < LINKS; l++)
        p->cap[l] = 1.0 + (double)bn_rng_below(r, 2);
    for (uint32_t f = 0; f < FLOWS; f++) {
        /* a few "groups" of links used at one weight, as spread paths do */
        uint32_t n = 0, groups = 1 + (uint32_t)bn_rng_below(r, 3);
        uint8_t seen[LINKS] = {0};
        for (uint32_t g = 0; g < groups; g++) {
            uint32_t base = (uint32_t)bn_rng_below(r, LINKS), len = 1 + (uint32_t)bn_rng_below(r, 4);
            float w = 1.0f / (float)len;
            uint8_t pas = acks && bn_rng_below(r, 5) == 0;
            for (uint32_t i = 0; i < len && n < MAXU; i++) {
                uint32_t l = (base + i * 3) % LINKS;
                if (seen[l])
                    continue;
                seen[l] = 1;
                p->link[f][n] = l;
                p->w[f][n] = pas ? 0.02f : w;
                p->passive[f][n++] = pas;
            }
        }
        if (n == 0 || p->passive[f][0]) { /* at least one active use */
            p->passive[f][0] = 0;
            p->w[f][0] = 1;
            if (n == 0)
                p->link[f][n++] = f % LINKS;
        }
        p->n[f] = n;
    }
}

static void history(uint64_t seed)
{
    struct bn_rng r;
    bn_rng_init(&r, seed, 3);
    struct paths p = {0};
    bool acks = seed % 2 == 0; /* with passive uses, only the plain solver's rates */
    random_paths(&p, &r, acks);
    struct bn_maxmin plain, cm;
    struct bn_linkclass lc;
    struct bn_error err = {0};
    setup(&p, &plain, &cm, &lc);
    uint8_t set[FLOWS] = {0};
    for (int step = 0; step < 300; step++) {
        uint32_t f = (uint32_t)bn_rng_below(&r, FLOWS);
        if (!set[f]) { /* paths come as flows do: classes split on the way */
            set_path(&p, f, &plain, &cm, &lc);
            set[f] = 1;
        }
        bool on = plain.active[f];
        assert_int_equal(on ? bn_mm_deactivate(&plain, f, &err) : bn_mm_activate(&plain, f, &err),
                         BN_OK);
        assert_int_equal(on ? bn_mm_deactivate(&cm, f, &err) : bn_mm_activate(&cm, f, &err),
                         BN_OK);
        if (bn_rng_below(&r, 3) == 0)
            continue;
        solve(&plain);
        solve(&cm);
        same_rates(&plain, &cm);
        if (!acks) /* passive loads are followed lazily (maxmin.h) */
            check_max_min(&p, &cm);
    }
    assert_true(lc.nclasses <= LINKS);
    bn_mm_free(&plain);
    bn_mm_free(&cm);
    bn_lc_free(&lc);
}

static void test_random_histories(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 40; seed++)
        history(seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spread_classes),
        cmocka_unit_test(test_random_histories),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
