/*
 * Aggregate collectives (coll.aggregate: a connection's transfers as one
 * flow, coll/sched.h), checked against the stepwise schedules they stand
 * for and against the flow level running those:
 * - bytes: every connection's aggregate carries exactly the bytes the
 *   stepwise schedule moves over it, for ring (AllReduce, ReduceScatter,
 *   AllGather, Broadcast, Reduce) and hier, over ranks, servers, channels,
 *   sizes that do not divide and element sizes;
 * - the longest chain: its hops add up to the stepwise schedule's longest
 *   path of dependent transfers (2(n-1) for a ring AllReduce, 2(g-1) +
 *   2(m-1) for hier), computed here from the dependency graph;
 * - busbw within 10 % of the stepwise flow level on a 64-GPU
 *   rail-optimized cluster with NVLink from 1 MiB, within 2 % at 256 MiB;
 * - a 131,072-rank hier schedule is 3 transfers per rank and channel and
 *   fits in 128 MB (56 MB measured), where the stepwise one's estimate is 1.1 PB.
 */
#include "sim_support.h"
#include <math.h>
#include <sys/resource.h>

#include "bnet/coll.h"
#include "coll/sched.h"

/* Bytes per (src, dst, channel) over n endpoints and ch channels. */
static uint64_t *per_conn(const struct bn_sched *s, uint32_t ch)
{
    uint32_t n = s->nendpoints;
    uint64_t *b = test_calloc((size_t)n * n * ch, sizeof *b);
    for (uint32_t x = 0; x < s->nxfers; x++) {
        struct bn_xfer_view v;
        bn_sched_view(s, x, &v);
        b[((size_t)v.src * n + v.dst) * ch + v.channel] += v.bytes;
    }
    return b;
}

static void build(const char *algo, const struct bn_coll_params *p, bool bulk, struct bn_sched *s)
{
    const struct bn_coll_algo_ops *ops = bn_coll_algo_find(algo);
    struct bn_error err = {0};
    if (bn_sched_init(s, p, &err) != BN_OK ||
        (bulk ? ops->bulk(s, &err) : ops->build(s, &err)) != BN_OK ||
        bn_sched_finish(s, &err) != BN_OK)
        fail_msg("%s n=%u bytes=%llu: %s", algo, p->nranks, (unsigned long long)p->bytes,
                 err.msg);
}

/* The longest path of dependent transfers, in transfers: chains are a
 * path each, two-level chains three after another; explicit transfers by
 * their dependency graph. */
static uint64_t longest_path(const struct bn_sched *s)
{
    uint64_t best = 0;
    for (uint32_t c = 0; c < s->nchains; c++) {
        uint64_t len = (uint64_t)s->chains[c].nred + s->chains[c].ncopy;
        best = len > best ? len : best;
    }
    if (s->nhchains) { /* a server's reduce, the rail, a server's copy */
        uint64_t g = s->p.gpus_per_server, m = s->p.nranks / g;
        best = 2 * (g - 1) + 2 * (m - 1) > best ? 2 * (g - 1) + 2 * (m - 1) : best;
    }
    uint64_t *depth = test_calloc(s->nexplicit + 1, sizeof *depth);
    for (uint32_t x = 0; x < s->nexplicit; x++) /* dependencies point forward */
        if (s->xfers[x].ndeps == 0)
            depth[x] = 1;
    for (uint32_t x = 0; x < s->nexplicit; x++) {
        best = depth[x] > best ? depth[x] : best;
        for (uint32_t k = s->succ_off[x]; k < s->succ_off[x + 1]; k++) {
            uint32_t y = s->succ[k];
            assert_true(y > x);
            depth[y] = depth[x] + 1 > depth[y] ? depth[x] + 1 : depth[y];
        }
    }
    test_free(depth);
    return best;
}

static void check_case(const char *algo, const struct bn_coll_params *p)
{
    struct bn_sched step, bulk;
    build(algo, p, false, &step);
    build(algo, p, true, &bulk);
    uint64_t *a = per_conn(&step, p->channels), *b = per_conn(&bulk, p->channels);
    size_t n = step.nendpoints;
    for (size_t i = 0; i < n * n * p->channels; i++)
        if (a[i] != b[i])
            fail_msg("%s %s n=%u g=%u ch=%u bytes=%llu type=%u: connection %zu->%zu ch %zu: "
                     "stepwise %llu, aggregate %llu bytes", algo, bn_coll_kind_name(p->kind),
                     p->nranks, p->gpus_per_server, p->channels, (unsigned long long)p->bytes,
                     p->type_bytes, i / p->channels / n, i / p->channels % n, i % p->channels,
                     (unsigned long long)a[i], (unsigned long long)b[i]);
    uint64_t hops = 0;
    for (uint32_t i = 0; i < bulk.ncrit; i++)
        hops += bulk.crit[i].times;
    if (p->bytes >= (uint64_t)p->nranks * p->channels * p->type_bytes * p->gpus_per_server)
        assert_int_equal(hops, longest_path(&step));
    assert_true(bulk.bulk);
    test_free(a);
    test_free(b);
    bn_sched_free(&step);
    bn_sched_free(&bulk);
}

static void test_bytes_and_chain_match_stepwise(void **state)
{
    (void)state;
    const enum bn_coll_kind ring_kinds[] = {BN_COLL_ALLREDUCE, BN_COLL_REDUCESCATTER,
                                            BN_COLL_ALLGATHER, BN_COLL_BROADCAST,
                                            BN_COLL_REDUCE};
    uint32_t cases = 0;
    for (uint32_t n = 2; n <= 24; n += 1 + n / 6)
        for (uint32_t ch = 1; ch <= 3; ch++)
            for (uint32_t t = 1; t <= 4; t *= 2)
                for (size_t k = 0; k < sizeof ring_kinds / sizeof ring_kinds[0]; k++) {
                    /* sizes that do and do not divide into chunks and slices */
                    uint64_t bytes = (uint64_t)n * t * (k == 1 || k == 2 ? 37 : 1) * 113;
                    struct bn_coll_params p = {.kind = ring_kinds[k], .nranks = n, .bytes = bytes,
                                               .type_bytes = t, .channels = ch,
                                               .slice_bytes = 512, .root = n / 3,
                                               .gpus_per_server = n % 4 == 0 ? 4 : 1};
                    check_case("ring", &p);
                    cases++;
                }
    for (uint32_t g = 2; g <= 8; g *= 2)
        for (uint32_t m = 2; m <= 7; m++)
            for (uint32_t ch = 1; ch <= 2; ch++) {
                struct bn_coll_params p = {.kind = BN_COLL_ALLREDUCE, .nranks = g * m,
                                           .bytes = (uint64_t)g * m * ch * 4 * 97 + 4 * m,
                                           .type_bytes = 4, .channels = ch, .slice_bytes = 256,
                                           .gpus_per_server = g};
                check_case("hier", &p);
                cases++;
            }
    assert_true(cases > 300);
}

static double busbw(const char *algo, bool aggregate, uint64_t bytes)
{
    char lo[64], hi[64];
    snprintf(lo, sizeof lo, "coll.min_bytes=%llu", (unsigned long long)bytes);
    snprintf(hi, sizeof hi, "coll.max_bytes=%llu", (unsigned long long)bytes);
    const char *sets[] = {"fabric=ib-ndr", "nic.congestion_control=none",
                          "topology.kind=rail_optimized", "topology.gpus_per_server=8",
                          "topology.servers_per_su=8", "topology.scalable_units=1", "topology.k=16",
                          "scale_up.domain_gpus=8", "scale_up.rate_gbps=3600",
                          "sim.fidelity=flow", "coll.iters=1", "coll.warmup=0",
                          /* 2 channels: at NCCL's 16 a ring's pieces are 16x smaller and
                           * the aggregate's longest chain overstates them (flow_level.md) */
                          "coll.channels=2", "coll.in_place=false", lo, hi, algo,
                          aggregate ? "coll.aggregate=true" : "coll.aggregate=false", NULL};
    struct bn_coll_row row;
    test_coll_row(sets, &row, NULL);
    return row.busbw_gbs;
}

static void test_agrees_with_stepwise_flow(void **state)
{
    (void)state;
    const struct { const char *algo; uint64_t bytes; double tol; } cases[] = {
        {"coll.algo=ring", 1 << 20, 0.10}, {"coll.algo=ring", 64 << 20, 0.10},
        {"coll.algo=ring", 256 << 20, 0.02}, {"coll.algo=hier", 1 << 20, 0.10},
        {"coll.algo=hier", 64 << 20, 0.10}, {"coll.algo=hier", 256 << 20, 0.02},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double step = busbw(cases[i].algo, false, cases[i].bytes);
        double agg = busbw(cases[i].algo, true, cases[i].bytes);
        print_message("%s %llu B: stepwise %.2f, aggregate %.2f GB/s\n", cases[i].algo,
                      (unsigned long long)cases[i].bytes, step, agg);
        if (fabs(agg / step - 1) > cases[i].tol)
            fail_msg("%s %llu B: stepwise %.3f, aggregate %.3f GB/s", cases[i].algo,
                     (unsigned long long)cases[i].bytes, step, agg);
    }
}

static void test_131k_schedule_is_small(void **state)
{
    (void)state;
    struct bn_coll_params p = {.kind = BN_COLL_ALLREDUCE, .nranks = 131072, .bytes = 1ull << 30,
                               .type_bytes = 4, .channels = 2, .slice_bytes = 512 << 10,
                               .gpus_per_server = 8};
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    struct bn_sched s;
    build("hier", &p, true, &s);
    getrusage(RUSAGE_SELF, &after);
    assert_int_equal(s.nexplicit, 3u * p.nranks * p.channels); /* phases 1, 2 and 3 */
    assert_int_equal(s.npieces, 1);
    uint64_t hops = 0;
    for (uint32_t i = 0; i < s.ncrit; i++)
        hops += s.crit[i].times;
    assert_int_equal(hops, 2 * (8 - 1) + 2 * (131072 / 8 - 1));
    long grew_kb = after.ru_maxrss - before.ru_maxrss;
    if (grew_kb > 128 * 1024) /* 56 MB measured; ASan adds its shadow */
        fail_msg("a 131,072-rank aggregate took %ld KB", grew_kb);
    bn_sched_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_131k_schedule_is_small), /* first: the peak RSS is its own */
        cmocka_unit_test(test_bytes_and_chain_match_stepwise),
        cmocka_unit_test(test_agrees_with_stepwise_flow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
