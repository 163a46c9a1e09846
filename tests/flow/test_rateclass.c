/*
 * Rate classes (flow/rateclass.c, bn_mm_set_mult) against the per-flow
 * solve, on random cases: a few distinct path sets (active and passive
 * uses, spread weights), each copied to several flows. One solver has a
 * flow per copy; the other one flow per path set, whose members are the
 * copies active at the time. After each random batch of joins and leaves
 * both are solved incrementally, and every active copy's rate must equal
 * its class's to within 1e-12 (the sums are taken in another order, so
 * the last bits may differ), and the class solve must still be max-min
 * (every class has a bottleneck, no link over capacity). Without the
 * multiplicity (a class loading its links as one flow), rates differ by
 * the class's size.
 * Also: bn_rc_find gives equal uses one class and different ones another,
 * and a class's members leave in the order of their keys.
 */
#include "support.h"
#include <math.h>

#include "core/rng.h"
#include "flow/maxmin.h"
#include "flow/rateclass.h"

enum { LINKS = 20, SETS = 12, COPIES = 6, FLOWS = SETS * COPIES };

struct pathset {
    uint32_t link[8];
    float w[8];
    uint8_t pass[8];
    uint32_t n;
};

static void random_sets(struct bn_rng *r, struct pathset *ps, bool passive)
{
    for (uint32_t s = 0; s < SETS; s++) {
        struct pathset *p = &ps[s];
        p->n = 1 + (uint32_t)bn_rng_below(r, 6);
        for (uint32_t k = 0; k < p->n; k++) {
            uint32_t l;
            bool dup;
            do { /* a link once per set */
                l = (uint32_t)bn_rng_below(r, LINKS);
                dup = false;
                for (uint32_t j = 0; j < k; j++)
                    dup |= p->link[j] == l;
            } while (dup);
            p->link[k] = l;
            p->w[k] = bn_rng_below(r, 3) == 0 ? 0.25f : 1.0f;
            p->pass[k] = passive && k > 0 && bn_rng_below(r, 5) == 0; /* ACK-like loads */
            if (p->pass[k])
                p->w[k] = 0.015f;
        }
    }
}

static void set_paths(struct bn_maxmin *m, const struct pathset *ps, uint32_t copies,
                      const double *cap)
{
    struct bn_error err = {0};
    for (uint32_t l = 0; l < LINKS; l++)
        bn_mm_set_cap(m, l, cap[l]);
    for (uint32_t s = 0; s < SETS; s++)
        for (uint32_t c = 0; c < copies; c++)
            if (bn_mm_set_path(m, s * copies + c, ps[s].link, ps[s].w, ps[s].pass, ps[s].n,
                               &err) != BN_OK)
                fail_msg("%s", err.msg);
}

static void solve(struct bn_maxmin *m)
{
    struct bn_error err = {0};
    if (bn_mm_solve(m, &err) != BN_OK)
        fail_msg("%s", err.msg);
}

/* Max-min over the classes, each use counted mult times. */
static void check_max_min(const struct bn_maxmin *m)
{
    double load[LINKS] = {0}, top[LINKS] = {0};
    for (uint32_t f = 0; f < SETS; f++) {
        if (!m->active[f])
            continue;
        for (uint32_t k = 0; k < m->use_len[f]; k++) {
            const struct bn_mm_use *u = &m->use[m->use_off[f] + k];
            load[u->link] += u->weight * m->mult[f] * m->rate[f];
            if (!u->passive && m->rate[f] > top[u->link])
                top[u->link] = m->rate[f];
        }
    }
    for (uint32_t f = 0; f < SETS; f++) {
        if (!m->active[f])
            continue;
        bool neck = false;
        for (uint32_t k = 0; k < m->use_len[f] && !neck; k++) {
            const struct bn_mm_use *u = &m->use[m->use_off[f] + k];
            neck = !u->passive && load[u->link] >= m->cap[u->link] * (1 - 1e-9) &&
                   m->rate[f] >= top[u->link] * (1 - 1e-9);
        }
        if (!neck)
            fail_msg("class %u (rate %g x %g) has no bottleneck", f, m->rate[f], m->mult[f]);
    }
    for (uint32_t l = 0; l < LINKS; l++)
        assert_true(load[l] <= m->cap[l] * (1 + 1e-9));
}

static void history(uint64_t seed, bool passive)
{
    struct bn_rng r;
    bn_rng_init(&r, seed, 1);
    struct pathset ps[SETS];
    random_sets(&r, ps, passive);
    double cap[LINKS];
    for (uint32_t l = 0; l < LINKS; l++)
        cap[l] = 1.0 + (double)bn_rng_below(&r, 4);
    struct bn_maxmin each, cls;
    struct bn_error err = {0};
    assert_int_equal(bn_mm_init(&each, LINKS, FLOWS, &err), BN_OK);
    assert_int_equal(bn_mm_init(&cls, LINKS, SETS, &err), BN_OK);
    set_paths(&each, ps, COPIES, cap);
    set_paths(&cls, ps, 1, cap);
    uint32_t members[SETS] = {0};
    for (int step = 0; step < 300; step++) {
        uint32_t f = (uint32_t)bn_rng_below(&r, FLOWS), s = f / COPIES;
        if (each.active[f]) {
            assert_int_equal(bn_mm_deactivate(&each, f, &err), BN_OK);
            members[s]--;
            assert_int_equal(members[s] ? bn_mm_set_mult(&cls, s, members[s], &err)
                                        : bn_mm_deactivate(&cls, s, &err), BN_OK);
        } else {
            assert_int_equal(bn_mm_activate(&each, f, &err), BN_OK);
            members[s]++;
            if (members[s] == 1) {
                assert_int_equal(bn_mm_set_mult(&cls, s, 1, &err), BN_OK);
                assert_int_equal(bn_mm_activate(&cls, s, &err), BN_OK);
            } else {
                assert_int_equal(bn_mm_set_mult(&cls, s, members[s], &err), BN_OK);
            }
        }
        if (bn_rng_below(&r, 3) == 0)
            continue; /* several changes in one instant, solved once */
        solve(&each);
        solve(&cls);
        if (!passive) /* passive loads are refreshed lazily (maxmin.h): not exact max-min */
            check_max_min(&cls);
        for (uint32_t g = 0; g < FLOWS; g++) {
            if (!each.active[g])
                continue;
            double a = each.rate[g], b = cls.rate[g / COPIES];
            if (!(fabs(a - b) <= 1e-12 * a))
                fail_msg("seed %llu step %d: flow %u rate %.17g, its class's %.17g",
                         (unsigned long long)seed, step, g, a, b);
        }
    }
    bn_mm_free(&each);
    bn_mm_free(&cls);
}

static void test_classes_equal_flows(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 100; seed++)
        history(seed, false);
    for (uint64_t seed = 101; seed <= 200; seed++)
        history(seed, true);
}

static void test_find_and_members(void **state)
{
    (void)state;
    struct bn_rateclass rc;
    struct bn_error err = {0};
    bn_rc_init(&rc);
    assert_int_equal(bn_rc_reserve(&rc, 4000, &err), BN_OK);
    uint32_t id, first = 0;
    bool fresh;
    /* 3000 path sets of two uses, then each again: the same ids */
    for (int again = 0; again < 2; again++)
        for (uint32_t i = 0; i < 3000; i++) {
            uint32_t p[2] = {i, i + 1};
            float w[2] = {1.0f, 0.5f};
            uint8_t pass[2] = {0, 1};
            assert_int_equal(bn_rc_find(&rc, p, w, pass, 2, &id, &fresh, &err), BN_OK);
            assert_int_equal(fresh, again == 0);
            assert_int_equal(id, i);
        }
    /* a different weight or passive flag: a class of its own */
    uint32_t p[2] = {0, 1};
    float w[2] = {1.0f, 0.25f};
    uint8_t pass[2] = {0, 1};
    assert_int_equal(bn_rc_find(&rc, p, w, pass, 2, &id, &fresh, &err), BN_OK);
    assert_true(fresh);
    first = id;
    pass[1] = 0;
    assert_int_equal(bn_rc_find(&rc, p, w, pass, 2, &id, &fresh, &err), BN_OK);
    assert_true(fresh && id != first);
    /* members leave by key, ties by queue pair */
    struct bn_flow_cls *c = &rc.c[0];
    const double keys[] = {5, 1, 3, 3, 9, 0.5};
    for (uint32_t i = 0; i < 6; i++)
        assert_int_equal(bn_rc_push(c, keys[i], 10 + i, &err), BN_OK);
    const uint32_t order[] = {15, 11, 12, 13, 10, 14};
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(c->mem[0].qp, order[i]);
        bn_rc_pop(c);
    }
    assert_int_equal(c->n, 0);
    bn_rc_free(&rc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classes_equal_flows),
        cmocka_unit_test(test_find_and_members),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
