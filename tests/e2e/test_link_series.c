/*
 * The link series against the per-port totals: summed over rows and
 * intervals, busy and PFC-paused time equal what the ports counted over
 * the run (a conservation law: nothing counted twice or lost), also after
 * the series was halved to stay within observe.max_samples; rows cover
 * every fabric port once, grouped by tier pair.
 */
#include <math.h>
#include <string.h>

#include "support.h"

/* Sum of fraction x interval x ports over the series, in us of port time. */
static double series_port_us(const struct bn_series *s, const double *m)
{
    double sum = 0;
    for (uint32_t k = 0; k < s->nsamples; k++)
        for (uint32_t l = 0; l < s->nlinks; l++)
            sum += m[(size_t)k * s->nlinks + l] * s->interval_us * s->links[l].ports;
    return sum;
}

static void check(const char *const *sets, uint32_t max_samples, bool paused)
{
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    test_run(&sc, &r);
    const struct bn_series *s = &r.series;
    assert_true(s->nsamples >= 2 && s->nsamples <= max_samples + 1);
    /* equal spacing, at observe.sample_us doubled once per halving */
    assert_true(fabs(s->interval_us - sc.observe.sample_us * (1u << s->decimations)) < 1e-9);
    for (uint32_t k = 1; k < s->nsamples; k++)
        assert_true(fabs(s->t_us[k] - s->t_us[k - 1] - s->interval_us) < 1e-3);
    /* the rows hold every fabric port once; a tier pair's rows are adjacent */
    double busy = 0, held = 0;
    uint32_t ports = 0, listed = 0;
    for (uint32_t p = 0; p < r.nports; p++) {
        if (r.ports[p].tier < 0 || r.ports[p].peer_tier < 0)
            continue;
        listed++;
        busy += r.ports[p].utilization * r.simulated_us;
        held += r.ports[p].paused_fraction * r.simulated_us;
    }
    for (uint32_t l = 0; l < s->nlinks; l++) {
        ports += s->links[l].ports;
        for (uint32_t m = l + 2; m < s->nlinks; m++)
            if (strcmp(s->links[l].from, s->links[m].from) == 0 &&
                strcmp(s->links[l].to, s->links[m].to) == 0) {
                assert_string_equal(s->links[l + 1].from, s->links[l].from);
                assert_string_equal(s->links[l + 1].to, s->links[l].to);
            }
    }
    assert_int_equal(ports, listed);
    assert_true(s->nlinks <= sc.observe.link_rows + 16);
    /* the series ends at its last sample, the run a little after: the tail
     * it misses is at most one interval of every port */
    double tail = (r.simulated_us - s->t_us[s->nsamples - 1]) * ports;
    double got = series_port_us(s, s->link_util);
    assert_true(got <= busy * 1.0001 + 1);
    assert_true(got >= busy - tail - 1);
    double got_held = series_port_us(s, s->link_paused);
    assert_true(got_held <= held * 1.0001 + 1);
    assert_true(got_held >= held - tail - 1);
    if (paused)
        assert_true(held > 0);
    bn_results_free(&r);
}

static void test_permutation_every_port(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=4", "observe.link_rows=1000", NULL};
    check(sets, 1024, false);
}

static void test_grouped_rows(void **state)
{
    (void)state;
    const char *sets[] = {"observe.link_rows=32", NULL};
    check(sets, 1024, false);
}

static void test_pfc_incast_halved(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=4", "link.flow_control=pfc", "nic.congestion_control=none",
                          "workload.kind=incast", "workload.incast_senders=12",
                          "workload.message_bytes=2MB", "observe.sample_us=1",
                          "observe.max_samples=40", "observe.link_rows=128", NULL};
    check(sets, 40, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_permutation_every_port),
        cmocka_unit_test(test_grouped_rows),
        cmocka_unit_test(test_pfc_incast_halved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
