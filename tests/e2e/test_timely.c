/*
 * TIMELY on a fabric (docs/model.md): a 4-to-1 incast of 20 MB per flow
 * at 100 Gb/s. With its rate steps scaled to the line (HPCC's evaluation,
 * simulation/run.py: 10 Mb/s of additive increase per 10 Gb/s, a 1 Gb/s
 * floor at 100 Gb/s) the receiver's link stays busy: the 80 MB leave in
 * under 1/0.6 of the 6.4 ms the link needs. The paper's 10 Gb/s steps
 * (10 Mb/s, and a floor at the step) leave it at a fifth: cut to the
 * floor, a flow needs ~25 ms to climb back.
 */
#include "support.h"

/* extra: NULL, or a pair of keys with the NULL after them */
static double makespan_ms(const char *const *extra)
{
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=4", "workload.kind=incast",
                          "workload.incast_senders=4", "workload.message_bytes=20MB",
                          "nic.congestion_control=timely", extra[0], extra[0] ? extra[1] : NULL,
                          NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    test_run(&sc, &r);
    assert_int_equal(r.flows_completed, 4);
    double ms = r.makespan_us / 1e3;
    bn_results_free(&r);
    return ms;
}

static void test_incast_keeps_the_link_busy(void **state)
{
    (void)state;
    double ideal_ms = 4 * 20e6 * 8 / 100e9 * 1e3;
    const char *const none[] = {NULL}, *const steps_10g[] = {"timely.delta_mbps=10",
                                                             "timely.min_rate_mbps=10", NULL};
    double scaled = makespan_ms(none), paper = makespan_ms(steps_10g);
    printf("4-to-1, 20 MB each: %.2f ms scaled, %.2f ms with the 10 Gb/s steps (link: %.2f ms)\n",
           scaled, paper, ideal_ms);
    assert_true(scaled < ideal_ms / 0.6);
    assert_true(paper > 3 * scaled);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_incast_keeps_the_link_busy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
