/*
 * NVLS (coll.algo nvls, scale_up.nvls): 8 GPUs in one NVLink domain whose
 * NVSwitch reduces and multicasts through an engine at nvls_efficiency of
 * its ports' rate. The engine moves (n + 1) S of an AllReduce of S, n S of
 * a ReduceScatter's input and (n - 1) S of an AllGather's output, so at
 * large sizes busbw approaches, per nccl-tests' factors:
 *   AllReduce      2 (n-1)/n x eff x B x n/(n+1)  (1.56 eff B for n = 8)
 *   ReduceScatter  (n-1)/n x eff x B
 *   AllGather      eff x B
 * with B the NVLink goodput per GPU; the same at flow level, and every
 * element right. The tuner picks NVLS for a large AllReduce when it can,
 * and the algorithm is refused without the key. On the default cluster's
 * InfiniBand NICs, whose transport the NVLink queue pairs share. With the
 * default NVLink efficiency (NCCL's 20.6 of 25 GB/s a link) 8 x H100 give
 * the published NVLS busbw, about 480 GB/s (an NCCL maintainer in
 * nccl-tests #212; 460-480 in NVIDIA/nccl #1455), the ring about 369
 * (nccl-tests #309): not the line rate's 586 and 444.
 */
#include "support.h"
#include <math.h>

#include "nic/encap.h"

#define N 8.0
#define EFF 0.85

static const char *const base[] = {
    "fabric=ib-ndr", "topology.kind=leaf_spine", "topology.k=4", "scale_up.domain_gpus=8",
    "scale_up.rate_gbps=3600", "scale_up.efficiency=1", "scale_up.nvls=true",
    "scale_up.nvls_efficiency=0.85",
    "coll.min_bytes=256MiB", "coll.max_bytes=256MiB", "coll.in_place=false",
    "coll.channels=16", NULL};

static double nvlink_goodput_gbs(void)
{
    struct bn_scenario sc;
    test_scenario(&sc, base);
    return bn_encap_goodput_gbps(bn_encap_at(sc.nic.encap), sc.nic.mtu_bytes, 3600) / 8;
}

static struct bn_coll_row row(const char *op, const char *algo, const char *fidelity)
{
    char o[64], a[64], f[64];
    snprintf(o, sizeof o, "coll.op=%s", op);
    snprintf(a, sizeof a, "coll.algo=%s", algo);
    snprintf(f, sizeof f, "sim.fidelity=%s", fidelity);
    const char *sets[16];
    size_t k = 0;
    for (; base[k]; k++)
        sets[k] = base[k];
    sets[k++] = o;
    sets[k++] = a;
    sets[k++] = f;
    sets[k] = NULL;
    struct bn_coll_row r;
    test_coll_row(sets, &r, NULL);
    return r;
}

static void test_nvls_bandwidth(void **state)
{
    (void)state;
    double b = nvlink_goodput_gbs();
    const struct {
        const char *op;
        double want;
    } cases[] = {
        {"allreduce", 2 * (N - 1) / N * EFF * b * N / (N + 1)},
        {"reducescatter", (N - 1) / N * EFF * b},
        {"allgather", EFF * b},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int flow = 0; flow < 2; flow++) {
            struct bn_coll_row r = row(cases[i].op, "nvls", flow ? "flow" : "packet");
            print_message("%s %s: busbw %.1f GB/s, bound %.1f\n", cases[i].op,
                          flow ? "flow" : "packet", r.busbw_gbs, cases[i].want);
            assert_string_equal(r.algo, "nvls");
            /* the bound at line rate: the same with B = 450 GB/s */
            assert_true(fabs(r.line_busbw_gbs - cases[i].want / b * 450) < 1e-6 * 450);
            assert_true(r.busbw_gbs <= cases[i].want * 1.001);
            assert_true(r.busbw_gbs >= cases[i].want * 0.97);
        }
    }
    /* above the ring's busbw (the NVLink goodput itself) */
    struct bn_coll_row ring = row("allreduce", "ring", "packet");
    assert_true(ring.busbw_gbs < b * 1.001);
    assert_true(row("allreduce", "nvls", "packet").busbw_gbs > 1.3 * ring.busbw_gbs);
}

/* NVLink 5 (nvlink5: 7200 Gb/s, efficiency 0.74) under InfiniBand's
 * credits: the engine's link runs at 0.74 x 8 x 7200 Gb/s, and only
 * receive buffers that cover its credit loop let it reach the bound at
 * packet level (1 MiB of credits held it to 88 %). */
static void test_nvls_at_nvlink5_rate(void **state)
{
    (void)state;
    const char *sets[] = {"fabric=ib-ndr", "topology.kind=leaf_spine", "topology.k=4",
                          "fabric=nvlink5", "scale_up.domain_gpus=8", "coll.algo=nvls",
                          "coll.min_bytes=256MiB", "coll.max_bytes=256MiB",
                          "coll.in_place=false", "coll.channels=16", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    double b = bn_encap_goodput_gbps(bn_encap_at(sc.nic.encap), sc.nic.mtu_bytes,
                                     7200 * sc.scale_up.efficiency) / 8;
    double want = 2 * (N - 1) / N * 0.74 * b * N / (N + 1);
    struct bn_coll_row r;
    test_coll_row(sets, &r, NULL);
    print_message("nvlink5 allreduce: busbw %.1f GB/s, bound %.1f\n", r.busbw_gbs, want);
    assert_true(r.busbw_gbs <= want * 1.001);
    assert_true(r.busbw_gbs >= want * 0.97);
}

static void test_published_h100_figures(void **state)
{
    (void)state;
    const char *nvls[] = {"fabric=ib-ndr", "topology.kind=leaf_spine", "topology.k=4",
                          "scale_up.domain_gpus=8", "scale_up.nvls=true", "coll.algo=nvls",
                          "coll.channels=16", "coll.min_bytes=1GiB", "coll.max_bytes=1GiB",
                          "coll.in_place=false", NULL};
    const char *ring[] = {"fabric=ib-ndr", "topology.kind=leaf_spine", "topology.k=4",
                          "scale_up.domain_gpus=8", "coll.algo=ring", "coll.min_bytes=1GiB",
                          "coll.max_bytes=1GiB", "coll.in_place=false", NULL};
    struct bn_coll_row r;
    test_coll_row(nvls, &r, NULL);
    print_message("8 x H100 NVLS: busbw %.1f GB/s (published about 480)\n", r.busbw_gbs);
    assert_true(r.busbw_gbs >= 460 * 0.98 && r.busbw_gbs <= 480 * 1.02);
    test_coll_row(ring, &r, NULL);
    print_message("8 x H100 ring: busbw %.1f GB/s (published 368.76)\n", r.busbw_gbs);
    assert_true(fabs(r.busbw_gbs - 368.76) < 0.05 * 368.76);
}

static void test_nvls_picked_and_refused(void **state)
{
    (void)state;
    assert_string_equal(row("allreduce", "auto", "packet").algo, "nvls");
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=4", "scale_up.domain_gpus=8",
                          "coll.algo=nvls", "coll.min_bytes=1MiB", "coll.max_bytes=1MiB",
                          NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_coll_results r;
    struct bn_error err = {0};
    assert_int_equal(bn_coll_sweep(&sc, &r, &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, "without scale_up.nvls"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvls_bandwidth),
        cmocka_unit_test(test_nvls_at_nvlink5_rate),
        cmocka_unit_test(test_published_h100_figures),
        cmocka_unit_test(test_nvls_picked_and_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
