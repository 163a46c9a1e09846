/*
 * NCCL 2.20.3's tuning model (coll/nccl_model.c) against hand computations
 * from the constants docs/collectives.md tabulates:
 * - one 8-GPU NVLink server (450 GB/s), 16 channels, AllGather (Ring only):
 *   LL = min(87.7, 450/3) x 8/7 GB/s after 6.6 + 7 x 0.6 us; LL128 =
 *   min(0.92 x 450, 16 x 36.7) x 8/7 after 14 + 7 x 1.9; Simple = 450 x
 *   8/7 after 8.4 + 7 x 3.4. The picks switch where the lines cross:
 *   2,098,257 B (LL to LL128) and 28,980,000 B (LL128 to Simple);
 * - 16 servers of 8 (400G NICs, 50 GB/s), 2 channels, 1 GiB AllReduce:
 *   Ring/Simple 1.4 x (8.4 + 222 x 3.4 + 32 x 14) + 2^30 / (1000 x 50 x
 *   128/254) = 44,309.8 us; Tree/Simple 2 x (7 x 28 + 4 x 28) + 2^30 /
 *   (1000 x 0.92 x 50 x 0.5) = 47,300.4 us; the pick is Ring/Simple;
 * - the same server with NVLS: NVLS/Simple 23 + S / (1000 x 450 x 5/6) us
 *   for an AllReduce; Ring/LL 6.6 + 14 x 0.6 + S / (1000 x 87.7 x 8/14)
 *   wins below 8 / (1/50114.3 - 1/375000) = 462,754 B, NVLS above (every
 *   other pair is slower than one of the two at every size);
 * - Tree/LL128's chunk (NCCL's enqueue.cc rule), 8 servers of 8, 16
 *   channels: nsteps 1 + 3 + 0.8 = 4.8, thresholds 38.4 and 9.6 chunks a
 *   channel, counted in 614400-B buffers (flag lines in): 8 MiB halves
 *   the buffer to 76800 (at most 6 chunks), then to 38400 (13), a payload
 *   of 36000; 16 MiB stops at 76800 (13): 72000; 1 MiB ends at 19200:
 *   18000; 1 GiB keeps 614400 (109): 576000; 360,000,000 B holds 39
 *   payload-sized chunks but 36 buffers, so it halves once: 288000;
 *   4 servers (4.8 -> 3.8: 30.4, 7.6), 8 MiB: 36000; a ring's LL128 and
 *   a tree's Simple keep their step;
 * - what the model leaves out: AllToAll, LL128 without NVLink, CollNet
 *   without SHARP, NVLS without NVLS or across servers.
 */
#include "support.h"
#include <math.h>

#include "coll/nccl_model.h"

static const struct bn_nccl_system one_server = {
    .nranks = 8, .nnodes = 1, .channels = 16, .intra_gbs = 450, .inter_gbs = 50, .nvlink = true};
static const struct bn_nccl_system cluster = {
    .nranks = 128, .nnodes = 16, .channels = 2, .intra_gbs = 450, .inter_gbs = 50, .nvlink = true};

static void close_to(double got, double want)
{
    if (fabs(got - want) > 1e-3 * want)
        fail_msg("%.4f, expected %.4f", got, want);
}

static void test_allgather_lines(void **state)
{
    (void)state;
    double t;
    uint64_t s = 1 << 20;
    assert_true(bn_nccl_time(&one_server, BN_COLL_ALLGATHER, BN_NCCL_RING, BN_NCCL_LL, s, &t));
    close_to(t, 10.8 + s / (1000.0 * 87.7 * 8 / 7));
    assert_true(bn_nccl_time(&one_server, BN_COLL_ALLGATHER, BN_NCCL_RING, BN_NCCL_LL128, s, &t));
    close_to(t, 27.3 + s / (1000.0 * 414 * 8 / 7));
    assert_true(bn_nccl_time(&one_server, BN_COLL_ALLGATHER, BN_NCCL_RING, BN_NCCL_SIMPLE, s, &t));
    close_to(t, 32.2 + s / (1000.0 * 450 * 8 / 7));
    /* Tree is not modelled for AllGather */
    assert_false(bn_nccl_time(&one_server, BN_COLL_ALLGATHER, BN_NCCL_TREE, BN_NCCL_LL, s, &t));
}

static void test_allgather_switch_points(void **state)
{
    (void)state;
    const struct {
        double at;
        enum bn_nccl_proto below, above;
    } sw[] = {{2098257, BN_NCCL_LL, BN_NCCL_LL128}, {28980000, BN_NCCL_LL128, BN_NCCL_SIMPLE}};
    for (int i = 0; i < 2; i++) {
        struct bn_nccl_pick lo, hi;
        assert_true(bn_nccl_pick(&one_server, BN_COLL_ALLGATHER, (uint64_t)(sw[i].at * 0.99), -1,
                                 -1, &lo));
        assert_true(bn_nccl_pick(&one_server, BN_COLL_ALLGATHER, (uint64_t)(sw[i].at * 1.01), -1,
                                 -1, &hi));
        assert_int_equal(lo.algo, BN_NCCL_RING);
        assert_int_equal(lo.proto, sw[i].below);
        assert_int_equal(hi.proto, sw[i].above);
    }
}

static void test_allreduce_across_servers(void **state)
{
    (void)state;
    uint64_t s = 1ull << 30;
    double ring, tree;
    assert_true(bn_nccl_time(&cluster, BN_COLL_ALLREDUCE, BN_NCCL_RING, BN_NCCL_SIMPLE, s, &ring));
    assert_true(bn_nccl_time(&cluster, BN_COLL_ALLREDUCE, BN_NCCL_TREE, BN_NCCL_SIMPLE, s, &tree));
    close_to(ring, 1.4 * (8.4 + 222 * 3.4 + 32 * 14.0) + s / (1000.0 * 50 * 128 / 254));
    close_to(tree, 2 * (7 * 28.0 + 4 * 28.0) + s / (1000.0 * 0.92 * 50 * 0.5));
    struct bn_nccl_pick pick;
    assert_true(bn_nccl_pick(&cluster, BN_COLL_ALLREDUCE, s, -1, -1, &pick));
    assert_int_equal(pick.algo, BN_NCCL_RING);
    assert_int_equal(pick.proto, BN_NCCL_SIMPLE);
    close_to(pick.us, ring);
    /* NCCL's Ring and Tree across servers: bnet's ring and tree build them */
    assert_string_equal(bn_nccl_bnet_algo(&cluster, BN_NCCL_RING), "ring");
    assert_string_equal(bn_nccl_bnet_algo(&cluster, BN_NCCL_TREE), "tree");
    assert_string_equal(bn_nccl_bnet_algo(&one_server, BN_NCCL_RING), "ring");
}

static void test_nvls(void **state)
{
    (void)state;
    struct bn_nccl_system nv = one_server;
    nv.nvls = true;
    double t;
    assert_true(bn_nccl_time(&nv, BN_COLL_ALLREDUCE, BN_NCCL_NVLS, BN_NCCL_SIMPLE, 1 << 30, &t));
    close_to(t, 23 + (1 << 30) / (1000.0 * 450 * 5 / 6));
    assert_false(bn_nccl_time(&nv, BN_COLL_ALLREDUCE, BN_NCCL_NVLS, BN_NCCL_LL, 1 << 20, &t));
    double at = 8 / (1 / (1000.0 * 87.7 * 8 / 14) - 1 / (1000.0 * 450 * 5 / 6));
    close_to(at, 462754);
    struct bn_nccl_pick lo, hi;
    assert_true(bn_nccl_pick(&nv, BN_COLL_ALLREDUCE, (uint64_t)(at * 0.99), -1, -1, &lo));
    assert_true(bn_nccl_pick(&nv, BN_COLL_ALLREDUCE, (uint64_t)(at * 1.01), -1, -1, &hi));
    assert_int_equal(lo.algo, BN_NCCL_RING);
    assert_int_equal(lo.proto, BN_NCCL_LL);
    assert_int_equal(hi.algo, BN_NCCL_NVLS);
    assert_int_equal(hi.proto, BN_NCCL_SIMPLE);
    /* AllGather through the switch: 5/6 of 450 against the ring's 450 x 8/7 */
    assert_true(bn_nccl_pick(&nv, BN_COLL_ALLGATHER, 1 << 30, -1, -1, &hi));
    assert_int_equal(hi.algo, BN_NCCL_RING);
}

static void test_tree_ll128_chunk(void **state)
{
    (void)state;
    struct bn_nccl_system eight = {.nranks = 64, .nnodes = 8, .channels = 16, .nvlink = true};
    struct bn_nccl_system four = eight;
    four.nranks = 32;
    four.nnodes = 4;
    const struct bn_coll_proto *ll128 = bn_nccl_bnet_proto(BN_NCCL_LL128);
    const struct bn_coll_proto *simple = bn_nccl_bnet_proto(BN_NCCL_SIMPLE);
    assert_int_equal(ll128->step_payload, 576000);
    assert_int_equal(bn_nccl_chunk_bytes(&eight, BN_NCCL_TREE, ll128, 8u << 20), 36000);
    assert_int_equal(bn_nccl_chunk_bytes(&eight, BN_NCCL_TREE, ll128, 16u << 20), 72000);
    assert_int_equal(bn_nccl_chunk_bytes(&eight, BN_NCCL_TREE, ll128, 1u << 20), 18000);
    assert_int_equal(bn_nccl_chunk_bytes(&eight, BN_NCCL_TREE, ll128, 1u << 30), 576000);
    assert_int_equal(bn_nccl_chunk_bytes(&eight, BN_NCCL_TREE, ll128, 360000000), 288000);
    assert_int_equal(bn_nccl_chunk_bytes(&four, BN_NCCL_TREE, ll128, 8u << 20), 36000);
    assert_int_equal(bn_nccl_chunk_bytes(&eight, BN_NCCL_RING, ll128, 8u << 20), 576000);
    assert_int_equal(bn_nccl_chunk_bytes(&eight, BN_NCCL_TREE, simple, 8u << 20),
                     simple->step_payload);
}

static void test_left_out(void **state)
{
    (void)state;
    struct bn_nccl_pick pick;
    double t;
    assert_false(bn_nccl_pick(&cluster, BN_COLL_ALLTOALL, 1 << 20, -1, -1, &pick));
    struct bn_nccl_system pcie = cluster;
    pcie.nvlink = false;
    assert_false(bn_nccl_time(&pcie, BN_COLL_ALLREDUCE, BN_NCCL_RING, BN_NCCL_LL128, 1 << 20, &t));
    assert_false(bn_nccl_time(&cluster, BN_COLL_ALLREDUCE, BN_NCCL_COLLNET_DIRECT,
                              BN_NCCL_SIMPLE, 1 << 20, &t));
    struct bn_nccl_system sharp = cluster;
    sharp.collnet = true;
    assert_true(bn_nccl_time(&sharp, BN_COLL_ALLREDUCE, BN_NCCL_COLLNET_DIRECT, BN_NCCL_SIMPLE,
                             1 << 20, &t));
    assert_false(bn_nccl_time(&one_server, BN_COLL_ALLREDUCE, BN_NCCL_NVLS, BN_NCCL_SIMPLE,
                              1 << 20, &t)); /* no NVLS */
    struct bn_nccl_system nvls = cluster;
    nvls.nvls = true; /* across servers NVLS needs CollNet (NVLS Tree: not modelled) */
    assert_false(bn_nccl_time(&nvls, BN_COLL_ALLREDUCE, BN_NCCL_NVLS, BN_NCCL_SIMPLE, 1 << 20,
                              &t));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allgather_lines),
        cmocka_unit_test(test_allgather_switch_points),
        cmocka_unit_test(test_allreduce_across_servers),
        cmocka_unit_test(test_nvls),
        cmocka_unit_test(test_tree_ll128_chunk),
        cmocka_unit_test(test_left_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
