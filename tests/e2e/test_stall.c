/*
 * The livelock watchdog (docs/model.md, "Livelock"): the embedded default
 * scenario with seed 2 locks two go-back-N flows in phase on one link; the
 * run stops sim.stall_us after their last in-order progress, marked, with
 * the packet ledger whole. The same seed with DCQCN completes, and a
 * watchdog of 0 leaves the run to sim.max_time_us. In the keyed event
 * order another seed locks.
 */
#include "support.h"

static void run_seed(const char *seed, const char *extra, const char *extra2,
                     struct bn_results *r, struct bn_scenario *sc)
{
    const char *sets[] = {seed, extra, extra2, NULL};
    test_scenario(sc, sets);
    test_run(sc, r);
}

static void test_livelock_stops(void **state)
{
    (void)state;
    struct bn_scenario sc;
    struct bn_results r;
    run_seed("seed=2", "sim.max_time_us=200000", NULL, &r, &sc);
    assert_true(r.stalled);
    assert_true(r.stopped_early);
    assert_int_equal(r.nflows - r.flows_completed, 2);
    /* stopped within a check interval of the window after the last flow
     * that finished: far before the 200 ms limit */
    double last = 0;
    for (uint32_t i = 0; i < r.nflows; i++)
        if (r.flows[i].done && r.flows[i].fct_us > last)
            last = r.flows[i].fct_us;
    assert_true(r.simulated_us > last + sc.sim.stall_us);
    assert_true(r.simulated_us < last + 3 * sc.sim.stall_us);
    assert_ledger_balanced(&r);
    bn_results_free(&r);
}

static void test_dcqcn_completes(void **state)
{
    (void)state;
    struct bn_scenario sc;
    struct bn_results r;
    run_seed("seed=2", "nic.congestion_control=dcqcn", NULL, &r, &sc);
    assert_false(r.stalled);
    assert_false(r.stopped_early);
    assert_int_equal(r.flows_completed, r.nflows);
    bn_results_free(&r);
}

static void test_watchdog_off(void **state)
{
    (void)state;
    struct bn_scenario sc;
    struct bn_results r;
    run_seed("seed=2", "sim.stall_us=0", "sim.max_time_us=30000", &r, &sc);
    assert_false(r.stalled);
    assert_true(r.stopped_early);
    assert_true(r.simulated_us >= 30000 - 1e-6);
    bn_results_free(&r);
}

/* The lock is a phase effect of the order of simultaneous events: in the
 * keyed order (sim.event_order) seed 2 completes and seed 413 locks,
 * stopped alike. */
static void test_keyed_order_locks_elsewhere(void **state)
{
    (void)state;
    struct bn_scenario sc;
    struct bn_results r;
    run_seed("seed=2", "sim.event_order=keyed", NULL, &r, &sc);
    assert_false(r.stalled);
    assert_int_equal(r.flows_completed, r.nflows);
    bn_results_free(&r);
    run_seed("seed=413", "sim.event_order=keyed", "sim.max_time_us=200000", &r, &sc);
    assert_true(r.stalled);
    assert_int_equal(r.nflows - r.flows_completed, 2);
    assert_ledger_balanced(&r);
    bn_results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_livelock_stops),
        cmocka_unit_test(test_dcqcn_completes),
        cmocka_unit_test(test_watchdog_off),
        cmocka_unit_test(test_keyed_order_locks_elsewhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
