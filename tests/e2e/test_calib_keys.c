/*
 * A channel's throughput (coll.channel_gbs) and the protocols' own step
 * latencies (coll.ll_step_latency_us, coll.ll128_step_latency_us), on the
 * flow level, against what their definitions imply:
 * - a ring's large AllReduce under a binding cap reaches channels x cap
 *   of busbw, not more, explicit or aggregate; at 0 the links bind it;
 * - a ring's LL128 row moves with its key and not with
 *   coll.step_latency_us (Simple's), a Simple row the other way round, a
 *   tree's LL128 row with it too (NCCL's tree figures scaled alike); the
 *   keys' defaults are NCCL's hwLat (2.7, 4.0 us): setting them so changes
 *   nothing.
 */
#include "support.h"
#include <math.h>

/* Non-blocking k=4 fat-tree, 16 GPUs of 100 Gb/s NICs (12.5 GB/s). */
#define FT16 "topology.k=4", "fabric=ib-ndr", "link.rate_gbps=100", \
             "nic.congestion_control=none", "coll.algo=ring", "sim.fidelity=flow"

static struct bn_coll_row row_of(const char *const *sets, const char *more1, const char *more2)
{
    const char *all[32];
    size_t n = 0;
    for (; sets[n]; n++)
        all[n] = sets[n];
    if (more1)
        all[n++] = more1;
    if (more2)
        all[n++] = more2;
    all[n] = NULL;
    struct bn_coll_row row;
    test_coll_row(all, &row, NULL);
    return row;
}

static void test_cap_bounds_a_ring(void **state)
{
    (void)state;
    const char *sets[] = {FT16, "coll.channels=2", "coll.min_bytes=64MiB",
                          "coll.max_bytes=64MiB", NULL};
    double free_bw = row_of(sets, NULL, NULL).busbw_gbs;
    double capped = row_of(sets, "coll.channel_gbs=3", NULL).busbw_gbs;
    double loose = row_of(sets, "coll.channel_gbs=40", NULL).busbw_gbs;
    double bulk = row_of(sets, "coll.channel_gbs=3", "coll.aggregate=true").busbw_gbs;
    print_message("64 MiB ring busbw: free %.3f, cap 2 x 3 GB/s %.3f (aggregate %.3f), "
                  "cap 2 x 40 %.3f GB/s\n", free_bw, capped, bulk, loose);
    assert_true(free_bw > 10);
    assert_true(capped <= 2 * 3 * 1.01 && capped > 2 * 3 * 0.9); /* a first step unpaced */
    assert_true(bulk <= 2 * 3 * 1.001 && bulk > 2 * 3 * 0.9);
    assert_true(fabs(loose / free_bw - 1) < 0.02); /* a cap above the links: theirs */
}

static void test_protocol_steps_apart(void **state)
{
    (void)state;
    const char *sets[] = {FT16, "coll.min_bytes=1MiB", "coll.max_bytes=1MiB", NULL};
    double ll128 = row_of(sets, "coll.proto=ll128", NULL).time_us;
    double ll128_nccl = row_of(sets, "coll.proto=ll128", "coll.ll128_step_latency_us=4").time_us;
    double ll128_slow = row_of(sets, "coll.proto=ll128", "coll.ll128_step_latency_us=8").time_us;
    double ll128_simple = row_of(sets, "coll.proto=ll128", "coll.step_latency_us=8").time_us;
    double simple = row_of(sets, "coll.proto=simple", NULL).time_us;
    double simple_ll128 = row_of(sets, "coll.proto=simple", "coll.ll128_step_latency_us=8").time_us;
    /* LL at 8 KiB, where its steps' latency is the row */
    const char *small[] = {FT16, "coll.min_bytes=8KiB", "coll.max_bytes=8KiB", NULL};
    double ll = row_of(small, "coll.proto=ll", NULL).time_us;
    double ll_nccl = row_of(small, "coll.proto=ll", "coll.ll_step_latency_us=2.7").time_us;
    double ll_slow = row_of(small, "coll.proto=ll", "coll.ll_step_latency_us=5").time_us;
    print_message("1 MiB ring: ll128 %.2f us (key 8: %.2f; step 8: %.2f), simple %.2f (ll128 "
                  "key 8: %.2f); 8 KiB ll %.2f (key 5: %.2f) us\n", ll128, ll128_slow, ll128_simple,
                  simple, simple_ll128, ll, ll_slow);
    assert_true(ll128 == ll128_nccl && ll == ll_nccl); /* the defaults are NCCL's */
    /* a 16-rank ring's steps, each 4 (2.3) us slower: at least 8 of them
     * (the rest hide behind slots in flight) */
    assert_true(ll128_slow - ll128 > 8 * 4.0);
    assert_true(ll_slow - ll > 8 * 2.3);
    assert_true(ll128_simple == ll128);
    assert_true(simple_ll128 == simple);
    /* a tree's LL128 steps scale with the key (hwLat[NET][TREE] 8.5 us x
     * 8 / 4): each 8.5 us slower, at least two of them on the path */
    double tree = row_of(sets, "coll.proto=ll128", "coll.algo=tree").time_us;
    const char *tree_sets[] = {FT16, "coll.min_bytes=1MiB", "coll.max_bytes=1MiB",
                               "coll.algo=tree", NULL};
    double tree_slow = row_of(tree_sets, "coll.proto=ll128", "coll.ll128_step_latency_us=8")
                           .time_us;
    print_message("1 MiB tree ll128: %.2f us, key 8: %.2f us\n", tree, tree_slow);
    assert_true(tree_slow - tree > 2 * 8.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cap_bounds_a_ring),
        cmocka_unit_test(test_protocol_steps_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
