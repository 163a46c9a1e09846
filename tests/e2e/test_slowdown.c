/*
 * FCT slowdown (docs/traffic.md): the ideal FCT is computed, not
 * simulated, so a flow alone on the fabric must take exactly its ideal,
 * and a flow among others never less; checked here against a hand
 * computation, against the packet level alone on several fabrics, and over
 * a Poisson run, with its buckets.
 */
#include <math.h>

#include "support.h"

/* One flow of `bytes` from host 0 to `dst`, alone: its FCT and ideal (us). */
static void alone(const char *const *extra, uint32_t dst, uint64_t bytes, double *fct,
                  double *ideal)
{
    char body[64], ff[160];
    snprintf(body, sizeof body, "0 %u %llu 0\n", dst, (unsigned long long)bytes);
    const char *f = test_tmpfile(body);
    snprintf(ff, sizeof ff, "workload.flow_file=%s", f);
    const char *sets[16] = {"workload.kind=flow_list", ff};
    size_t n = 2;
    for (; extra[n - 2]; n++)
        sets[n] = extra[n - 2];
    sets[n] = NULL;
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    test_run(&sc, &r);
    remove(f);
    assert_int_equal(r.nflows, 1);
    assert_true(r.flows[0].done);
    *fct = r.flows[0].fct_us;
    *ideal = r.flows[0].ideal_us;
    assert_float_equal(r.flows[0].slowdown, *fct / *ideal, 1e-12);
    bn_results_free(&r);
}

/*
 * Leaf-spine k=4 (2 hosts per leaf), store-and-forward, RoCEv2 at 100 Gb/s
 * (80 ps a byte), a 1,000,000-byte WRITE from host 0 to host 7 over four
 * links: 245 packets of a 4096-byte MTU, 244 full and one of 576 bytes.
 * Per frame 62 header bytes (Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4,
 * FCS 4), RETH 16 on the first, and 20 of preamble and gap: 4194 + 243 x
 * 4178 + 658 = 1,020,106 bytes. The first frame, the longest, crosses
 * three store-and-forward links before the far leaf's link to the host
 * sends every frame back to back; that is later than the last frame
 * trailing the NIC's stream by three hops (the tandem's max-plus bound).
 * The links add 2 x 8.6 ns of copper and 2 x 50 ns of fiber, the three
 * switches 300 ns each.
 */
static void test_hand_computed(void **state)
{
    (void)state;
    const char *extra[] = {"topology.kind=leaf_spine", "topology.k=4",
                           "switch.forwarding=store_and_forward", NULL};
    double fct, ideal;
    alone(extra, 7, 1000000, &fct, &ideal);
    double want_ps = 3 * 4194 * 80 + 1020106.0 * 80 + 2 * 8600 + 2 * 50000 + 3 * 300000;
    assert_float_equal(ideal, want_ps / 1e6, 1e-9);
    assert_float_equal(fct, ideal, 1e-9);
}

/* Alone, the packet level takes exactly the ideal: cut-through, endpoint
 * costs (the last packet's wait for the receive DMA), InfiniBand,
 * spraying over every core, NVLink, several messages. */
static void test_alone_is_ideal(void **state)
{
    (void)state;
    static const char *const cases[][4] = {
        {"topology.k=4", NULL},
        {"topology.k=4", "fabric=ib-ndr", NULL},
        {"topology.k=4", "fabric=roce-400g", "workload.verb=send", NULL},
        {"topology.k=4", "fabric=uec-800g", NULL},
        {"topology.k=4", "scale_up.domain_gpus=8", NULL},
        {"topology.k=4", "fabric=ib-ndr", "workload.messages=4", NULL},
    };
    static const uint64_t sizes[] = {4, 4096, 65536, 2000000};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            double fct, ideal;
            alone(cases[c], 15, sizes[k], &fct, &ideal);
            if (fabs(fct - ideal) > 1e-6)
                fail_msg("case %zu (%s %s), %llu bytes: FCT %.6f us, ideal %.6f us", c,
                         cases[c][1] ? cases[c][1] : "", cases[c][1] && cases[c][2] ? cases[c][2] : "",
                         (unsigned long long)sizes[k], fct, ideal);
        }
}

static void poisson_run(const char *edges, struct bn_results *r)
{
    const char *sets[] = {"topology.k=4", "fabric=roce-400g", "workload.kind=poisson",
                          "workload.load=0.6", "workload.duration_us=300",
                          "workload.size_cdf=fb_hadoop", "observe.sample_us=0", edges, NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    test_run(&sc, r);
}

static void test_poisson_slowdown(void **state)
{
    (void)state;
    struct bn_results r;
    poisson_run("observe.slowdown_step_pct=5", &r);
    assert_true(r.flows_completed > 200);
    assert_int_equal(r.flows_completed, r.nflows);
    assert_float_equal(r.load_target, 0.6, 0);
    assert_true(r.load_offered > 0.3 && r.load_offered < 0.9);
    uint32_t slower = 0;
    for (uint32_t i = 0; i < r.nflows; i++) {
        const struct bn_flow_result *f = &r.flows[i];
        if (f->slowdown < 1 - 1e-9) /* the ideal is a lower bound */
            fail_msg("flow %u (%llu B): FCT %.6f under its ideal %.6f", i,
                     (unsigned long long)f->bytes, f->fct_us, f->ideal_us);
        slower += f->slowdown > 1.01;
    }
    assert_true(slower > 0); /* and the load shows */
    /* 20 buckets of equal counts (to one flow), by size */
    assert_int_equal(r.nslowdown_buckets, 20);
    uint32_t sum = 0;
    for (uint32_t b = 0; b < r.nslowdown_buckets; b++) {
        const struct bn_slowdown_bucket *k = &r.slowdown_buckets[b];
        sum += k->s.flows;
        assert_true(k->s.flows + 1 >= r.flows_completed / 20);
        assert_true(k->s.flows <= r.flows_completed / 20 + 1);
        assert_true(k->min_bytes <= k->max_bytes);
        if (b)
            assert_true(k->min_bytes >= r.slowdown_buckets[b - 1].max_bytes);
        assert_true(k->s.p50 <= k->s.p95 && k->s.p95 <= k->s.p99 && k->s.p99 <= k->s.max);
    }
    assert_int_equal(sum, r.flows_completed);
    bn_results_free(&r);

    poisson_run("observe.slowdown_edges=1K,100K", &r);
    assert_true(r.nslowdown_buckets >= 2 && r.nslowdown_buckets <= 3);
    assert_true(r.slowdown_buckets[0].max_bytes <= 1000);
    assert_true(r.slowdown_buckets[1].min_bytes > 1000 && r.slowdown_buckets[1].max_bytes <= 100000);
    bn_results_free(&r);
}

/* Sprayed over two 50 Gb/s uplinks that together match the host's link:
 * the ideal counts them as one 100 Gb/s stage; the packets' round robin
 * comes within 3 % of it at 2 MB (2.3 % measured), and never under it. */
static void test_sprayed_stage(void **state)
{
    (void)state;
    const char *extra[] = {"topology.k=4", "switch.load_balancing=spray_rr",
                           "link.fabric_rate_gbps=50", NULL};
    static const uint64_t sizes[] = {1, 4096, 65536, 2000000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        double fct, ideal;
        alone(extra, 15, sizes[k], &fct, &ideal);
        if (fct < ideal - 1e-6 || fct > ideal * 1.03)
            fail_msg("%llu bytes: FCT %.6f us, ideal %.6f us", (unsigned long long)sizes[k], fct,
                     ideal);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_computed),
        cmocka_unit_test(test_alone_is_ideal),
        cmocka_unit_test(test_sprayed_stage),
        cmocka_unit_test(test_poisson_slowdown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
