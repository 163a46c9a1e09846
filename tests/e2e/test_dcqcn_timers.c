/*
 * DCQCN's timers on a fabric, against the published rules (Zhu et al.,
 * SIGCOMM 2015; NVIDIA DOCA "DCQCN CC Parameters"):
 * - paper form: without CNPs alpha decays by (1 - g), g = 1/256, once per
 *   K = 55 us: between two samples of a CNP-free stretch the decay is
 *   (1 - g)^n with n the whole periods between them (within one);
 * - NVIDIA form: at most one rate cut per rate_reduce_monitor_period, 4 us,
 *   per queue pair, however often CNPs come (sampled every 0.5 us: no
 *   two cuts of a flow closer than 4 us).
 * Two flows into one host of a k=4 leaf-spine over PFC: a long one and a
 * short one whose end leaves the long one alone to recover.
 */
#include "support.h"
#include <math.h>

static void run_two(const char *preset, const char *sample, struct bn_results *r)
{
    const char *flows = test_tmpfile("0 7 30000000 0\n2 7 2000000 0\n");
    char ff[512];
    snprintf(ff, sizeof ff, "workload.flow_file=%s", flows);
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=4", "link.flow_control=pfc",
                          "nic.congestion_control=dcqcn", preset, "workload.kind=flow_list",
                          ff, sample, NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, r);
    assert_int_equal(r->flows_completed, 2);
}

static void test_paper_alpha_decays_once_per_period(void **state)
{
    (void)state;
    struct bn_results r;
    run_two("dcqcn.preset=paper", "observe.sample_us=10", &r);
    const struct bn_series *s = &r.series;
    uint32_t nf = s->nflows, checked = 0;
    double keep = log(1.0 - 1.0 / 256);
    for (uint32_t k = 1; k + 40 < s->nsamples; k++) {
        double a0 = s->alpha[(size_t)k * nf], a1 = s->alpha[(size_t)(k + 40) * nf];
        bool falling = a0 > 0 && a0 < 0.999 && a1 > 0; /* a CNP at alpha 1 leaves it 1 */
        for (uint32_t j = k; falling && j < k + 40; j++) /* no CNP in between: alpha only falls */
            falling = s->alpha[(size_t)(j + 1) * nf] <= s->alpha[(size_t)j * nf];
        if (!falling)
            continue;
        double n = log(a1 / a0) / keep, periods = (s->t_us[k + 40] - s->t_us[k]) / 55.0;
        if (checked++ == 0)
            print_message("alpha %.4f -> %.4f over %.0f us: %.2f decays, %.2f periods\n", a0, a1,
                          s->t_us[k + 40] - s->t_us[k], n, periods);
        assert_true(fabs(n - periods) <= 1.0);
    }
    assert_true(checked > 0);
    bn_results_free(&r);
}

static void test_nvidia_cuts_at_most_every_4us(void **state)
{
    (void)state;
    struct bn_results r;
    run_two("dcqcn.preset=nvidia", "observe.sample_us=0.5", &r);
    const struct bn_series *s = &r.series;
    uint32_t nf = s->nflows, cuts = 0;
    for (uint32_t f = 0; f < nf; f++) {
        double last = -1e30;
        for (uint32_t k = 1; k < s->nsamples; k++) {
            double was = s->rate_gbps[(size_t)(k - 1) * nf + f], is = s->rate_gbps[(size_t)k * nf + f];
            if (!(is < was - 1e-9) || is == 0)
                continue;
            assert_true(s->t_us[k] - last >= 4.0 - 0.5 - 1e-9); /* a sample's width */
            last = s->t_us[k];
            cuts++;
        }
    }
    print_message("%u rate cuts, none closer than 4 us\n", cuts);
    assert_true(cuts > 2);
    bn_results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_alpha_decays_once_per_period),
        cmocka_unit_test(test_nvidia_cuts_at_most_every_4us),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
