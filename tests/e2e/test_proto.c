/*
 * NCCL's protocols (coll.proto, coll/proto.c) on the packet-level fabric,
 * against what their definitions imply:
 * - at a large size a ring's busbw under LL is half Simple's and under
 *   LL128 120/128 of it: the payload fraction of their lines;
 * - LL beats Simple at 8 B (its flags ride in the data: a fraction of the
 *   step latency) and loses at 64 MiB (half the wire is flags);
 * - a connection holds 8 steps in flight: a SendRecv of 64 MiB over a
 *   4.3 ms one-way path takes 128 Simple steps of 512 KiB in 16 windows of
 *   8, 16 one-way delays, where without slots it takes about one;
 * - every row delivers the right data, also where trees hold a slot
 *   until its step is consumed.
 */
#include "support.h"
#include <math.h>


static double row_of(const char *const *sets, const char *proto, double *busbw)
{
    const char *all[32];
    size_t n = 0;
    for (; sets[n]; n++) {
        assert_true(n < 30);
        all[n] = sets[n];
    }
    char p[32];
    snprintf(p, sizeof p, "coll.proto=%s", proto);
    all[n++] = p;
    all[n] = NULL;
    struct bn_coll_row row;
    test_coll_row(all, &row, NULL);
    assert_string_equal(row.proto, strcmp(proto, "auto") == 0 ? "" : proto);
    if (busbw)
        *busbw = row.busbw_gbs;
    return row.time_us;
}

/* Non-blocking k=4 fat-tree, 16 GPUs, InfiniBand credits (lossless). */
#define IB16 "topology.k=4", "fabric=ib-ndr", "link.rate_gbps=100", \
             "nic.congestion_control=none", "coll.algo=ring"

static void test_busbw_is_the_payload_fraction(void **state)
{
    (void)state;
    const char *sets[] = {IB16, "coll.min_bytes=64MiB", "coll.max_bytes=64MiB", NULL};
    double simple, ll128, ll;
    row_of(sets, "simple", &simple);
    row_of(sets, "ll128", &ll128);
    row_of(sets, "ll", &ll);
    print_message("64 MiB ring busbw: simple %.3f, ll128 %.3f (%.4f), ll %.3f (%.4f) GB/s\n",
                  simple, ll128, ll128 / simple, ll, ll / simple);
    assert_true(fabs(ll / simple - 0.5) < 0.01);
    assert_true(fabs(ll128 / simple - 120.0 / 128.0) < 0.01);
}

static void test_ll_wins_small_and_loses_large(void **state)
{
    (void)state;
    const char *small[] = {IB16, "coll.min_bytes=8", "coll.max_bytes=8", NULL};
    const char *large[] = {IB16, "coll.min_bytes=64MiB", "coll.max_bytes=64MiB", NULL};
    double ll8 = row_of(small, "ll", NULL), simple8 = row_of(small, "simple", NULL);
    double ll64 = row_of(large, "ll", NULL), simple64 = row_of(large, "simple", NULL);
    print_message("8 B: ll %.2f us, simple %.2f us; 64 MiB: ll %.1f us, simple %.1f us\n", ll8,
                  simple8, ll64, simple64);
    assert_true(ll8 < simple8);
    assert_true(ll64 > simple64);
    /* NCCL's launch latencies differ by 8.4 - 6.6 us (Ring Simple, LL;
     * tuning.cc's baseLat), and an LL step is no slower than a Simple one */
    assert_true(simple8 - ll8 >= 8.4 - 6.6);
}

static void test_eight_slots_in_flight(void **state)
{
    (void)state;
    /* Two GPUs through one switch on 500 km host cables: 4.3 ms one way. No
     * link-level credits (a buffer's worth per round trip would bind first),
     * the transport's window opened wide and its timeout past the round
     * trip: only the slots bind. */
    const char *sets[] = {"topology.kind=rail_optimized", "topology.gpus_per_server=2",
                          "topology.servers_per_su=1", "topology.scalable_units=1",
                          "topology.k=2", "scale_up.domain_gpus=0", "fabric=ib-ndr",
                          "link.rate_gbps=100", "link.flow_control=lossy",
                          "nic.congestion_control=none", "coll.op=sendrecv", "coll.channels=1",
                          "link.host_cable_m=500000", "coll.min_bytes=64MiB",
                          "coll.max_bytes=64MiB", "coll.in_place=false", "nic.sr_window=65536",
                          "nic.rto_us=100000", NULL};
    double one_way_us = 2 * 500000 * 4.3 / 1e3;
    double step_us = 524288 * 8 / 100e3 * (4096 + 26) / 4096.0; /* a step on the wire */
    double slots = row_of(sets, "simple", NULL), free = row_of(sets, "auto", NULL);
    /* 128 steps, 8 at a time: 16 windows, each a step's flight; the last
     * window's other 7 steps follow on the wire */
    double want = 16 * (one_way_us + step_us) + 7 * step_us;
    print_message("sendrecv 64 MiB, one way %.0f us: simple %.0f us (expected %.0f), auto %.0f "
                  "us\n", one_way_us, slots, want, free);
    assert_true(slots > 0.995 * want && slots < 1.01 * want);
    assert_true(free < 0.5 * slots);
}

/* Trees hold a step's slot until the receiver has sent on what it feeds
 * (coll_exec.c): every tree and htree row completes with the right data
 * under every protocol, on 2 to 18 ranks (odd counts too), in LL with far
 * more steps per connection than its 8 slots (2 MiB: 32 steps a tree). */
static void test_trees_complete_holding_slots(void **state)
{
    (void)state;
    /* rail leaves as --nranks builds them (scenario/ranks.c) */
    const struct { const char *g, *servers, *k, *over; } shapes[] = {
        {"2", "1", "2", "1"}, {"3", "1", "6", "0.5"}, {"5", "1", "10", "0.5"},
        {"2", "2", "4", "1"}, {"2", "4", "8", "1"},   {"4", "4", "8", "1"},
        {"6", "3", "6", "1"},
    };
    const char *rows[][2] = {{"coll.algo=tree", "coll.op=allreduce"},
                             {"coll.algo=tree", "coll.op=broadcast"},
                             {"coll.algo=tree", "coll.op=reduce"},
                             {"coll.algo=htree", "coll.op=allreduce"}};
    const char *protos[] = {"ll", "ll128", "simple"};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char g[48], sv[48], k[48], over[48];
        snprintf(over, sizeof over, "topology.oversubscription=%s", shapes[i].over);
        snprintf(g, sizeof g, "topology.gpus_per_server=%s", shapes[i].g);
        snprintf(sv, sizeof sv, "topology.servers_per_su=%s", shapes[i].servers);
        snprintf(k, sizeof k, "topology.k=%s", shapes[i].k);
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            if (strcmp(rows[r][0], "coll.algo=htree") == 0 && strcmp(shapes[i].servers, "1") == 0)
                continue; /* htree needs two servers or more */
            const char *sets[] = {"topology.kind=rail_optimized", g, sv, k, over,
                                  "topology.scalable_units=1", "scale_up.domain_gpus=0",
                                  "fabric=ib-ndr", "nic.congestion_control=none", rows[r][0],
                                  rows[r][1], "coll.channels=1", "coll.min_bytes=2MiB",
                                  "coll.max_bytes=2MiB", "coll.iters=2", "coll.warmup=0",
                                  "coll.in_place=false", NULL};
            for (size_t q = 0; q < sizeof protos / sizeof protos[0]; q++)
                row_of(sets, protos[q], NULL);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_busbw_is_the_payload_fraction),
        cmocka_unit_test(test_ll_wins_small_and_loses_large),
        cmocka_unit_test(test_eight_slots_in_flight),
        cmocka_unit_test(test_trees_complete_holding_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
