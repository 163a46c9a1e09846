/*
 * The schedule machinery on its own (coll/sched.h): collective names and
 * nccl-tests' bus-bandwidth factors, parameter checks, the element layout
 * of every collective, slots and the successor lists, and the symbolic
 * executor on small hand-made schedules -- including schedules that are
 * wrong in each way it must catch: a lost contribution, a contribution
 * reduced twice, a race (a source slot written while its transfer is in
 * flight), a dependency cycle, output nobody delivers, a piece straddling
 * blocks; and the static race check on the same small schedules.
 */
#include "support.h"
#include "coll/sched.h"

static struct bn_coll_params params(enum bn_coll_kind kind, uint32_t n, uint64_t bytes,
                                    uint32_t type_bytes)
{
    return (struct bn_coll_params){.kind = kind, .nranks = n, .bytes = bytes,
                                   .type_bytes = type_bytes, .channels = 1,
                                   .slice_bytes = 1 << 20, .gpus_per_server = 1};
}

static void init_ok(struct bn_sched *s, const struct bn_coll_params *p)
{
    struct bn_error err = {0};
    if (bn_sched_init(s, p, &err) != BN_OK)
        fail_msg("init: %s", err.msg);
}

static uint32_t piece(struct bn_sched *s, uint64_t lo, uint64_t hi)
{
    struct bn_error err = {0};
    uint32_t id;
    if (bn_sched_piece(s, lo, hi, &id, &err) != BN_OK)
        fail_msg("piece: %s", err.msg);
    return id;
}

static uint32_t xfer(struct bn_sched *s, uint32_t src, uint32_t dst, uint32_t pc,
                     enum bn_xfer_op op)
{
    struct bn_error err = {0};
    uint32_t id;
    if (bn_sched_xfer(s, src, dst, pc, op, 0, &id, &err) != BN_OK)
        fail_msg("xfer: %s", err.msg);
    return id;
}

static void dep(struct bn_sched *s, uint32_t before, uint32_t after)
{
    struct bn_error err = {0};
    if (bn_sched_dep(s, before, after, &err) != BN_OK)
        fail_msg("dep: %s", err.msg);
}

static uint64_t verify(struct bn_sched *s)
{
    struct bn_error err = {0};
    uint64_t wrong = 0;
    if (bn_sched_finish(s, &err) != BN_OK || bn_sched_verify(s, &wrong, &err) != BN_OK)
        fail_msg("verify: %s", err.msg);
    return wrong;
}

static void test_kind_names(void **state)
{
    (void)state;
    for (int k = 0; k < BN_COLL_NKINDS; k++) {
        enum bn_coll_kind got;
        assert_int_equal(bn_coll_kind_find(bn_coll_kind_name((enum bn_coll_kind)k), &got), BN_OK);
        assert_int_equal(got, k);
    }
    const struct {
        const char *name;
        enum bn_coll_kind kind;
    } nccl[] = {{"all_reduce", BN_COLL_ALLREDUCE}, {"reduce_scatter", BN_COLL_REDUCESCATTER},
                {"all_gather", BN_COLL_ALLGATHER}, {"alltoall", BN_COLL_ALLTOALL},
                {"sendrecv", BN_COLL_SENDRECV},    {"broadcast", BN_COLL_BROADCAST},
                {"reduce", BN_COLL_REDUCE}};
    for (size_t i = 0; i < sizeof nccl / sizeof nccl[0]; i++) {
        enum bn_coll_kind got;
        assert_int_equal(bn_coll_kind_find(nccl[i].name, &got), BN_OK);
        assert_int_equal(got, nccl[i].kind);
    }
    enum bn_coll_kind got;
    assert_int_equal(bn_coll_kind_find("allreduc", &got), BN_EINPUT);
    assert_string_equal(bn_coll_kind_name(BN_COLL_REDUCESCATTER), "reducescatter");
}

/* nccl-tests doc/PERFORMANCE.md, 2(n-1)/n: n=8 -> 1.75, n=16 -> 1.875. */
static void test_busbw_factors(void **state)
{
    (void)state;
    assert_true(bn_coll_busbw_factor(BN_COLL_ALLREDUCE, 8) == 1.75);
    assert_true(bn_coll_busbw_factor(BN_COLL_ALLREDUCE, 16) == 1.875);
    const enum bn_coll_kind half[] = {BN_COLL_REDUCESCATTER, BN_COLL_ALLGATHER, BN_COLL_ALLTOALL};
    for (size_t i = 0; i < 3; i++) {
        assert_true(bn_coll_busbw_factor(half[i], 8) == 0.875);
        assert_true(bn_coll_busbw_factor(half[i], 16) == 0.9375);
    }
    const enum bn_coll_kind one[] = {BN_COLL_BROADCAST, BN_COLL_REDUCE, BN_COLL_SENDRECV};
    for (size_t i = 0; i < 3; i++) {
        assert_true(bn_coll_busbw_factor(one[i], 8) == 1.0);
        assert_true(bn_coll_busbw_factor(one[i], 16) == 1.0);
    }
    assert_true(bn_coll_busbw_factor(BN_COLL_ALLREDUCE, 1) == 0.0);
}

static void init_fails(struct bn_coll_params p, const char *want)
{
    struct bn_sched s;
    struct bn_error err = {0};
    assert_int_equal(bn_sched_init(&s, &p, &err), BN_EINPUT);
    if (!strstr(err.msg, want))
        fail_msg("error '%s' lacks '%s'", err.msg, want);
}

static void test_init_checks(void **state)
{
    (void)state;
    struct bn_coll_params p = params(BN_COLL_ALLREDUCE, 4, 64, 4);
    struct bn_sched s;
    init_ok(&s, &p);
    assert_int_equal(s.nendpoints, 4);
    assert_int_equal(s.words, 1);
    assert_int_equal(s.elems, 16);
    bn_sched_free(&s);
    p.nranks = 130;
    p.nagg = 3;
    uint32_t parent[3] = {2, 2, UINT32_MAX}, ragg[130] = {0};
    p.agg_parent = parent;
    p.rank_agg = ragg;
    init_ok(&s, &p);
    assert_int_equal(s.words, 3);
    assert_int_equal(s.nendpoints, 133);
    bn_sched_free(&s);

    p = params(BN_COLL_ALLREDUCE, 0, 64, 4);
    init_fails(p, "nranks");
    p = params(BN_COLL_ALLREDUCE, 4, 66, 4);
    init_fails(p, "multiple of the type size");
    p = params(BN_COLL_ALLREDUCE, 4, 64, 4);
    p.channels = 0;
    init_fails(p, "channels");
    p = params(BN_COLL_ALLREDUCE, 4, 64, 4);
    p.slice_bytes = 2;
    init_fails(p, "slice");
    p = params(BN_COLL_BROADCAST, 4, 64, 4);
    p.root = 4;
    init_fails(p, "root 4");
    /* RS, AG and AllToAll cut into n blocks: 3 ranks x 4 bytes does not divide 36+4 */
    const enum bn_coll_kind blocked[] = {BN_COLL_REDUCESCATTER, BN_COLL_ALLGATHER,
                                         BN_COLL_ALLTOALL};
    for (size_t i = 0; i < 3; i++) {
        p = params(blocked[i], 3, 40, 4);
        init_fails(p, "multiple of nranks x type size");
        p.bytes = 36;
        init_ok(&s, &p);
        bn_sched_free(&s);
    }
    p = params(BN_COLL_ALLREDUCE, 4, 64, 4);
    p.nagg = 2;
    init_fails(p, "aggregation units");
}

static void test_layouts(void **state)
{
    (void)state;
    struct bn_sched s;
    uint64_t set[1];
    /* AllToAll over 3 ranks, 6 elements per rank: 9 blocks of 2, 18 in all. */
    struct bn_coll_params p = params(BN_COLL_ALLTOALL, 3, 24, 4);
    init_ok(&s, &p);
    assert_int_equal(s.elems, 18);
    assert_int_equal(bn_coll_block_elems(&p), 2);
    /* block 5 = (1, 2): rank 1 holds it, rank 2 wants it from 1 */
    assert_true(bn_coll_initial(&s, 1, 10, 12, set));
    assert_int_equal(set[0], 1u << 1);
    assert_true(bn_coll_initial(&s, 0, 10, 12, set));
    assert_int_equal(set[0], 0);
    assert_true(bn_coll_wanted(&s, 2, 10, 12, set));
    assert_int_equal(set[0], 1u << 1);
    assert_false(bn_coll_wanted(&s, 0, 10, 12, set));  /* not rank 0's */
    assert_false(bn_coll_initial(&s, 1, 11, 13, set)); /* (1,2) and (2,0) differ at rank 1 */
    assert_true(bn_coll_initial(&s, 0, 11, 13, set));  /* ... but agree (empty) at rank 0 */
    assert_int_equal(bn_coll_wanted_elems(&s, 2), 6);
    bn_sched_free(&s);

    /* SendRecv: n blocks of E; rank 0 wants block n-1 from rank n-1. */
    p = params(BN_COLL_SENDRECV, 4, 12, 4);
    init_ok(&s, &p);
    assert_int_equal(s.elems, 12);
    assert_true(bn_coll_wanted(&s, 0, 9, 12, set));
    assert_int_equal(set[0], 1u << 3);
    assert_true(bn_coll_initial(&s, 2, 6, 9, set));
    assert_int_equal(set[0], 1u << 2);
    assert_int_equal(bn_coll_wanted_elems(&s, 1), 3);
    bn_sched_free(&s);

    /* ReduceScatter: rank r wants everyone in block r only. */
    p = params(BN_COLL_REDUCESCATTER, 4, 32, 2);
    init_ok(&s, &p);
    assert_true(bn_coll_wanted(&s, 1, 4, 8, set));
    assert_int_equal(set[0], 0xf);
    assert_false(bn_coll_wanted(&s, 1, 0, 4, set));
    assert_false(bn_coll_wanted(&s, 1, 2, 6, set));
    assert_true(bn_coll_initial(&s, 3, 0, 16, set));
    assert_int_equal(set[0], 1u << 3);
    bn_sched_free(&s);

    /* Broadcast / Reduce around root 2; aggregation units start empty. */
    p = params(BN_COLL_BROADCAST, 3, 8, 1);
    p.root = 2;
    init_ok(&s, &p);
    assert_true(bn_coll_initial(&s, 1, 0, 8, set));
    assert_int_equal(set[0], 0);
    assert_true(bn_coll_wanted(&s, 1, 0, 8, set));
    assert_int_equal(set[0], 1u << 2);
    bn_sched_free(&s);
    p.kind = BN_COLL_REDUCE;
    init_ok(&s, &p);
    assert_false(bn_coll_wanted(&s, 1, 0, 8, set));
    assert_true(bn_coll_wanted(&s, 2, 0, 8, set));
    assert_int_equal(set[0], 7);
    assert_int_equal(bn_coll_wanted_elems(&s, 0), 0);
    assert_false(bn_coll_wanted(&s, 2, 0, 9, set)); /* past the end */
    bn_sched_free(&s);

    /* AllReduce over 70 ranks: the set spans two words. */
    uint64_t big[2];
    p = params(BN_COLL_ALLREDUCE, 70, 8, 8);
    uint32_t parent[1] = {UINT32_MAX}, ragg[70] = {0};
    p.nagg = 1;
    p.agg_parent = parent;
    p.rank_agg = ragg;
    init_ok(&s, &p);
    assert_true(bn_coll_wanted(&s, 69, 0, 1, big));
    assert_true(big[0] == UINT64_MAX && big[1] == 0x3f);
    assert_true(bn_coll_initial(&s, 69, 0, 1, big));
    assert_true(big[0] == 0 && big[1] == UINT64_C(1) << 5);
    assert_true(bn_coll_initial(&s, 70, 0, 1, big)); /* the unit */
    assert_true(big[0] == 0 && big[1] == 0);
    bn_sched_free(&s);
}

/* Many slots through the hash; the successor lists in CSR. */
static void test_slots_and_successors(void **state)
{
    (void)state;
    struct bn_coll_params p = params(BN_COLL_ALLREDUCE, 50, 4000, 4);
    struct bn_sched s;
    init_ok(&s, &p);
    for (uint32_t i = 0; i < 1000; i++)
        piece(&s, i, i + 1);
    for (uint32_t i = 0; i < 1000; i++)
        xfer(&s, i % 50, (i + 7) % 50, i, BN_XFER_REDUCE);
    assert_int_equal(s.nslots, 2000);
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t a = bn_sched_find_slot(&s, i % 50, i), b = bn_sched_find_slot(&s, (i + 7) % 50, i);
        assert_int_equal(s.xfers[i].src_slot, a);
        assert_int_equal(s.xfers[i].dst_slot, b);
        assert_int_equal(s.slots[a].endpoint, i % 50);
        assert_int_equal(s.slots[b].piece, i);
        assert_int_equal(s.xfers[i].bytes, 4);
    }
    assert_int_equal(bn_sched_find_slot(&s, 3, 1), UINT32_MAX);
    /* A second transfer of the same piece reuses both slots. */
    uint32_t x = xfer(&s, 0, 7, 0, BN_XFER_COPY);
    assert_int_equal(s.nslots, 2000);
    assert_int_equal(s.xfers[x].src_slot, s.xfers[0].src_slot);
    dep(&s, 0, 5);
    dep(&s, 0, 9);
    dep(&s, 3, 5);
    dep(&s, 9, 5);
    struct bn_error err = {0};
    assert_int_equal(bn_sched_dep(&s, 4, 4, &err), BN_EINPUT);
    assert_int_equal(bn_sched_xfer(&s, 1, 1, 0, BN_XFER_COPY, 0, NULL, &err), BN_EINPUT);
    assert_int_equal(bn_sched_xfer(&s, 1, 2, 0, BN_XFER_COPY, 1, NULL, &err), BN_EINPUT);
    assert_int_equal(bn_sched_xfer(&s, 1, 50, 0, BN_XFER_COPY, 0, NULL, &err), BN_EINPUT);
    assert_int_equal(bn_sched_piece(&s, 5, 5, NULL, &err), BN_EINPUT);
    assert_int_equal(bn_sched_piece(&s, 999, 1001, NULL, &err), BN_EINPUT);
    assert_int_equal(bn_sched_finish(&s, &err), BN_OK);
    assert_int_equal(s.xfers[5].ndeps, 3);
    assert_int_equal(s.xfers[9].ndeps, 1);
    assert_int_equal(s.xfers[0].ndeps, 0);
    assert_int_equal(s.succ_off[1] - s.succ_off[0], 2);
    assert_int_equal(s.succ[s.succ_off[0]], 5);
    assert_int_equal(s.succ[s.succ_off[0] + 1], 9);
    assert_int_equal(s.succ[s.succ_off[9]], 5);
    assert_int_equal(s.succ_off[s.nxfers], 4);
    assert_int_equal(bn_sched_xfer(&s, 1, 2, 0, BN_XFER_COPY, 0, NULL, &err), BN_EINPUT);
    bn_sched_free(&s);
}

/* AllReduce of one piece over 3 ranks by hand: a chain 0 -> 1 -> 2 of
 * REDUCEs, then 2 copies the sum to 0 and 1. */
static void chain3(struct bn_sched *s, bool with_dep, bool copy_not_reduce)
{
    struct bn_coll_params p = params(BN_COLL_ALLREDUCE, 3, 20, 4);
    init_ok(s, &p);
    uint32_t q = piece(s, 0, 5);
    uint32_t a = xfer(s, 0, 1, q, BN_XFER_REDUCE);
    uint32_t b = xfer(s, 1, 2, q, copy_not_reduce ? BN_XFER_COPY : BN_XFER_REDUCE);
    uint32_t c = xfer(s, 2, 0, q, BN_XFER_COPY);
    uint32_t d = xfer(s, 2, 1, q, BN_XFER_COPY);
    if (with_dep)
        dep(s, a, b);
    dep(s, b, c);
    dep(s, b, d);
}

static uint64_t races(const struct bn_sched *s)
{
    struct bn_error err = {0};
    uint64_t n = UINT64_MAX;
    if (bn_sched_races(s, &n, &err) != BN_OK)
        fail_msg("races: %s", err.msg);
    return n;
}

static void test_verify_small(void **state)
{
    (void)state;
    struct bn_sched s;
    chain3(&s, true, false);
    assert_int_equal(verify(&s), 0);
    assert_int_equal(races(&s), 0);
    bn_sched_free(&s);
    /* a COPY where a REDUCE belongs loses rank 2's contribution: 3 ranks x 5 wrong */
    chain3(&s, true, true);
    assert_int_equal(verify(&s), 15);
    bn_sched_free(&s);
    /* Without a -> b, FIFO posts both at once and a lands in rank 1's slot
     * while b is reading it: a race on all 5 elements, though in this order
     * the data happens to come out right. */
    chain3(&s, false, false);
    assert_int_equal(verify(&s), 5);
    /* Statically, a is ordered with nothing: its write into rank 1's slot
     * races b's read and d's COPY there, and its read of rank 0's slot
     * races c's COPY into it. */
    assert_int_equal(races(&s), 3);
    bn_sched_free(&s);
}

/* The same piece REDUCEd twice into one slot counts a contribution twice. */
static void test_duplicate_reduce(void **state)
{
    (void)state;
    struct bn_sched s;
    chain3(&s, true, false);
    uint32_t again = xfer(&s, 0, 1, 0, BN_XFER_REDUCE); /* no deps: lands early */
    (void)again;
    struct bn_error err = {0};
    assert_int_equal(bn_sched_finish(&s, &err), BN_OK);
    struct bn_sched_run r;
    assert_int_equal(bn_sched_run_start(&r, &s, &err), BN_OK);
    uint32_t ready[8];
    uint32_t n = bn_sched_run_initial(&r, ready);
    assert_int_equal(n, 2);
    for (uint32_t i = 0; i < n; i++)
        bn_sched_run_posted(&r, ready[i]);
    uint32_t out[8];
    bn_sched_run_deliver(&r, ready[0], out);
    assert_int_equal(r.conflicts, 0);
    bn_sched_run_deliver(&r, ready[1], out);
    assert_int_equal(r.conflicts, 5);
    bn_sched_run_free(&r);
    uint64_t wrong = 0;
    assert_int_equal(bn_sched_verify(&s, &wrong, &err), BN_OK);
    assert_true(wrong >= 5);
    /* The stray REDUCE commutes with a, but not with b reading rank 1's
     * slot, d's COPY into it, or c's COPY into rank 0's slot it reads. */
    assert_int_equal(races(&s), 3);
    bn_sched_free(&s);
}

static void test_cycle(void **state)
{
    (void)state;
    struct bn_sched s;
    chain3(&s, true, false);
    dep(&s, 3, 0); /* the last copy before the first reduce */
    struct bn_error err = {0};
    uint64_t wrong = 0;
    assert_int_equal(bn_sched_finish(&s, &err), BN_OK);
    assert_int_equal(bn_sched_verify(&s, &wrong, &err), BN_EINPUT);
    if (!strstr(err.msg, "4 of 4 transfers never ran"))
        fail_msg("error '%s'", err.msg);
    assert_int_equal(bn_sched_races(&s, &wrong, &err), BN_EINPUT);
    bn_sched_free(&s);
}

/* Output that no piece covers is wrong even with no transfer at all; a
 * schedule with no pieces is right only if nobody wants anything. */
static void test_coverage(void **state)
{
    (void)state;
    struct bn_sched s;
    struct bn_coll_params p = params(BN_COLL_ALLGATHER, 2, 8, 1); /* blocks [0,4) [4,8) */
    init_ok(&s, &p);
    uint32_t q = piece(&s, 0, 3);
    xfer(&s, 0, 1, q, BN_XFER_COPY);
    piece(&s, 4, 8);
    /* rank 0 lacks [3,4) (1) and [4,8) (4: never sent); rank 1 lacks [3,4) */
    assert_int_equal(verify(&s), 1 + 4 + 1);
    bn_sched_free(&s);
    p = params(BN_COLL_REDUCE, 3, 0, 4);
    init_ok(&s, &p);
    assert_int_equal(verify(&s), 0);
    bn_sched_free(&s);
    p = params(BN_COLL_REDUCE, 3, 8, 4);
    init_ok(&s, &p);
    assert_int_equal(verify(&s), 2); /* the root's 2 elements */
    bn_sched_free(&s);
}

/* A transferred piece across AllGather blocks has no single initial content. */
static void test_straddle(void **state)
{
    (void)state;
    struct bn_sched s;
    struct bn_coll_params p = params(BN_COLL_ALLGATHER, 2, 8, 1);
    init_ok(&s, &p);
    uint32_t q = piece(&s, 2, 6);
    xfer(&s, 0, 1, q, BN_XFER_COPY);
    struct bn_error err = {0};
    uint64_t wrong;
    assert_int_equal(bn_sched_finish(&s, &err), BN_OK);
    assert_int_equal(bn_sched_verify(&s, &wrong, &err), BN_EINPUT);
    if (!strstr(err.msg, "straddles"))
        fail_msg("error '%s'", err.msg);
    bn_sched_free(&s);
    struct bn_sched_run r;
    init_ok(&s, &p);
    assert_int_equal(bn_sched_run_start(&r, &s, &err), BN_EINPUT); /* not finished */
    bn_sched_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_busbw_factors),
        cmocka_unit_test(test_init_checks),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_slots_and_successors),
        cmocka_unit_test(test_verify_small),
        cmocka_unit_test(test_duplicate_reduce),
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_coverage),
        cmocka_unit_test(test_straddle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
