/*
 * Two-level chains (coll/sched.h, sched_hchain.c), the compact form of the
 * hierarchical AllReduce, against the explicit form it replaced: a transfer
 * per hop with its dependencies and a contribution set per slot, built here
 * as the reference (m servers of g GPUs: a ring reduce-scatter in each
 * server, a ring AllReduce on each rail, a ring allgather in each server).
 * - Every transfer id names the same hop (source, receiver, piece, channel,
 *   operation) in both, and delivering the same transfer makes the same
 *   transfers ready in the same order: in FIFO order and in random orders
 *   (a rail waiting on a server, or a server done before its rail comes).
 *   The explicit form has no races, so no order changes the result.
 * - Hops delivered before what they wait for are counted wrong, and every
 *   rank's output is checked once per piece.
 * - A 2048-rank 64 MiB hier AllReduce (16.8 M hops) is checked in 512 MB;
 *   its explicit form took about 2.7 GB.
 */
#include "support.h"
#include <sys/resource.h>
#include "coll/algo.h"
#include "coll/sched.h"

/* The reference: one piece's hops as explicit transfers. */
static void explicit_piece(struct bn_sched *s, uint32_t i, uint32_t j, uint32_t q, uint32_t ch,
                           uint32_t *last, uint32_t *fin)
{
    struct bn_error err = {0};
    uint32_t g = s->p.gpus_per_server, m = s->p.nranks / g, prev = UINT32_MAX;
    for (uint32_t sv = 0; sv < m; sv++) { /* reduce-scatter, GPU i+1 round to i */
        prev = UINT32_MAX;
        for (uint32_t h = 0; h + 1 < g; h++) {
            uint32_t a = (i + 1 + h) % g;
            assert_int_equal(bn_coll_xfer_after(s, sv * g + a, sv * g + (a + 1) % g, q,
                                                BN_XFER_REDUCE, ch, &prev, 1, &prev, &err), BN_OK);
        }
        last[sv] = prev;
    }
    prev = UINT32_MAX;
    for (uint32_t h = 0, sv = j; h < 2 * (m - 1); h++, sv = (sv + 1) % m) { /* the rail */
        uint32_t to = (sv + 1) % m, deps[2] = {prev, h < m ? last[sv] : UINT32_MAX};
        if (h == m - 1) {
            fin[2 * sv] = prev;
            fin[2 * sv + 1] = last[sv];
        }
        enum bn_xfer_op op = h + 1 < m ? BN_XFER_REDUCE : BN_XFER_COPY;
        assert_int_equal(bn_coll_xfer_after(s, sv * g + i, to * g + i, q, op, ch, deps, 2, &prev,
                                            &err), BN_OK);
        if (op == BN_XFER_COPY) {
            fin[2 * to] = prev;
            fin[2 * to + 1] = UINT32_MAX;
        }
    }
    for (uint32_t v = 0; v < m; v++) { /* allgather from GPU i */
        const uint32_t *deps = fin + 2 * v;
        uint32_t ndeps = 2;
        for (uint32_t h = 0; h + 1 < g; h++) {
            uint32_t a = (i + h) % g;
            assert_int_equal(bn_coll_xfer_after(s, v * g + a, v * g + (a + 1) % g, q,
                                                BN_XFER_COPY, ch, deps, ndeps, &prev, &err),
                             BN_OK);
            deps = &prev;
            ndeps = 1;
        }
    }
}

/* The hierarchical AllReduce as explicit transfers, cut as algo_hier.c. */
static void build_explicit(const struct bn_coll_params *p, struct bn_sched *s)
{
    struct bn_error err = {0};
    uint32_t g = p->gpus_per_server, m = p->nranks / g;
    uint32_t *last = test_malloc(3 * (size_t)m * sizeof *last), *fin = last + m;
    assert_int_equal(bn_sched_init(s, p, &err), BN_OK);
    uint64_t parts = bn_coll_nparts(s->elems, p->channels);
    for (uint64_t c = 0; c < parts; c++) {
        uint64_t ca, cb;
        bn_coll_split(0, s->elems, parts, c, &ca, &cb);
        for (uint32_t i = 0; i < g; i++) {
            uint64_t ia, ib;
            bn_coll_split(ca, cb, g, i, &ia, &ib);
            for (uint32_t j = 0; j < m; j++) {
                uint32_t first, count;
                assert_int_equal(bn_coll_part_slices(s, ia, ib, m, j, &first, &count, &err),
                                 BN_OK);
                for (uint32_t q = first; q < first + count; q++)
                    explicit_piece(s, i, j, q, (uint32_t)c, last, fin);
            }
        }
    }
    assert_int_equal(bn_sched_finish(s, &err), BN_OK);
    test_free(last);
}

static void build_compact(const struct bn_coll_params *p, struct bn_sched *s)
{
    struct bn_error err = {0};
    assert_int_equal(bn_sched_init(s, p, &err), BN_OK);
    assert_int_equal(bn_coll_algo_find("hier")->build(s, &err), BN_OK);
    assert_int_equal(bn_sched_finish(s, &err), BN_OK);
}

static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Both forms run side by side, delivering what is ready in FIFO order
 * (seed 0) or picked at random: the same transfers become ready. */
static void run_both(const struct bn_sched *a, const struct bn_sched *b, uint64_t seed)
{
    struct bn_error err = {0};
    struct bn_sched_run ra, rb;
    assert_int_equal(bn_sched_run_start(&ra, a, &err), BN_OK);
    assert_int_equal(bn_sched_run_start(&rb, b, &err), BN_OK);
    /* every transfer is queued once */
    uint32_t cap = bn_sched_ready_max(a) + bn_sched_ready_max(b) + 1;
    uint32_t *ready = test_malloc(((size_t)a->nxfers + cap) * sizeof *ready);
    uint32_t *oa = test_malloc(cap * sizeof *oa), *ob = test_malloc(cap * sizeof *ob);
    uint32_t n = bn_sched_run_initial(&ra, ready), head = 0;
    assert_int_equal(bn_sched_run_initial(&rb, ob), n);
    assert_memory_equal(ready, ob, n * sizeof *ready);
    for (uint32_t k = 0; k < n; k++) {
        bn_sched_run_posted(&ra, ready[k]);
        bn_sched_run_posted(&rb, ready[k]);
    }
    while (head < n) {
        if (seed) { /* a random ready transfer next */
            uint32_t k = head + (uint32_t)(rng_next(&seed) % (n - head)), t = ready[k];
            ready[k] = ready[head];
            ready[head] = t;
        }
        assert_true(n - head <= bn_sched_ready_max(b)); /* what the executors size for */
        uint32_t x = ready[head++];
        uint32_t na = bn_sched_run_deliver(&ra, x, oa), nb = bn_sched_run_deliver(&rb, x, ob);
        if (na != nb || memcmp(oa, ob, na * sizeof *oa) != 0)
            fail_msg("n=%u g=%u seed %llu: transfer %u makes %u ready explicitly, %u compact",
                     a->p.nranks, a->p.gpus_per_server, (unsigned long long)seed, x, na, nb);
        for (uint32_t k = 0; k < na; k++) {
            bn_sched_run_posted(&ra, oa[k]);
            bn_sched_run_posted(&rb, oa[k]);
            ready[n++] = oa[k];
        }
    }
    assert_int_equal(ra.delivered, a->nxfers);
    assert_int_equal(rb.delivered, b->nxfers);
    assert_int_equal(bn_sched_run_wrong(&ra), 0);
    assert_int_equal(bn_sched_run_wrong(&rb), 0);
    test_free(ready);
    test_free(oa);
    test_free(ob);
    bn_sched_run_free(&ra);
    bn_sched_run_free(&rb);
}

static void test_same_as_explicit(void **state)
{
    (void)state;
    const uint32_t gs[] = {2, 3, 4, 8}, ms[] = {2, 3, 5};
    for (int gi = 0; gi < 4; gi++)
        for (int mi = 0; mi < 3; mi++)
            for (uint32_t ch = 1; ch <= 2; ch++) {
                uint32_t g = gs[gi], m = ms[mi], n = g * m;
                /* some chunks of two slices, some of one, some empty */
                struct bn_coll_params p = {.kind = BN_COLL_ALLREDUCE, .nranks = n,
                                           .bytes = 4ull * (3 * n * ch + 5), .type_bytes = 4,
                                           .channels = ch, .slice_bytes = 8,
                                           .gpus_per_server = g};
                struct bn_sched a, b;
                build_explicit(&p, &a);
                build_compact(&p, &b);
                assert_int_equal(b.nexplicit, 0);
                assert_int_equal(b.nslots, 0);
                assert_int_equal(a.nxfers, b.nxfers);
                assert_int_equal(a.npieces, b.npieces);
                for (uint32_t x = 0; x < a.nxfers; x++) {
                    struct bn_xfer_view va, vb;
                    bn_sched_view(&a, x, &va);
                    bn_sched_view(&b, x, &vb);
                    if (va.src != vb.src || va.dst != vb.dst || va.piece != vb.piece ||
                        va.channel != vb.channel || va.bytes != vb.bytes || va.op != vb.op)
                        fail_msg("n=%u g=%u: transfer %u is %u->%u, compact %u->%u", n, g, x,
                                 va.src, va.dst, vb.src, vb.dst);
                }
                uint64_t races = UINT64_MAX;
                struct bn_error err = {0};
                assert_int_equal(bn_sched_races(&a, &races, &err), BN_OK);
                assert_int_equal(races, 0); /* any delivery order: the FIFO run's result */
                for (uint64_t seed = 0; seed < 6; seed++)
                    run_both(&a, &b, seed * 0x9e3779b97f4a7c15ull);
                bn_sched_free(&a);
                bn_sched_free(&b);
            }
}

/* Deliver the given hops of chain 0 in order; the run's wrong count. */
static uint64_t wrong_after(const struct bn_sched *s, const uint32_t *hops, uint32_t n)
{
    struct bn_error err = {0};
    struct bn_sched_run r;
    uint32_t out[8];
    assert_int_equal(bn_sched_run_start(&r, s, &err), BN_OK);
    for (uint32_t i = 0; i < n; i++)
        bn_sched_run_deliver(&r, s->hchains[0].first + hops[i], out);
    uint64_t wrong = bn_sched_run_wrong(&r);
    bn_sched_run_free(&r);
    return wrong;
}

static void test_order_is_checked(void **state)
{
    (void)state;
    uint32_t g = 4, m = 3;
    struct bn_coll_params p = {.kind = BN_COLL_ALLREDUCE, .nranks = g * m, .bytes = 4 * 48,
                               .type_bytes = 4, .channels = 1, .slice_bytes = 64,
                               .gpus_per_server = g};
    struct bn_sched s;
    build_compact(&p, &s);
    uint32_t ml = m * (g - 1), rail = 2 * (m - 1);
    assert_int_equal(s.hchain_hops, 2 * ml + rail);
    /* one hop delivered first, before what it waits for */
    const uint32_t first[] = {1,                  /* a server's second reduce hop */
                              ml,                 /* the rail before its server */
                              ml + rail,          /* a copy before the rail */
                              2 * ml + rail - 1}; /* the last copy hop */
    for (int i = 0; i < 4; i++)
        assert_true(wrong_after(&s, &first[i], 1) > 0);
    /* every server reduced, the rail up to the last server's sum (its hop
     * m - 1 is ready): the start server's copy before hop m - 1 reaches it */
    uint32_t hops[64], nh = 0;
    for (uint32_t k = 0; k < ml + m - 1; k++)
        hops[nh++] = k;
    assert_int_equal(wrong_after(&s, hops, nh), 0);
    hops[nh] = ml + rail + s.hchains[0].start * (g - 1); /* its first copy hop */
    assert_true(wrong_after(&s, hops, nh + 1) > 0);
    hops[nh] = ml + m - 1; /* with hop m - 1 delivered first it may go */
    hops[nh + 1] = ml + rail + s.hchains[0].start * (g - 1);
    assert_int_equal(wrong_after(&s, hops, nh + 2), 0);
    /* and the order kept: nothing wrong */
    uint64_t wrong = UINT64_MAX;
    struct bn_error err = {0};
    assert_int_equal(bn_sched_verify(&s, &wrong, &err), BN_OK);
    assert_int_equal(wrong, 0);
    bn_sched_free(&s);
}

/* Every rank's output is checked once per piece: with what the rails
 * carry marked broken from the start, a FIFO run counts each rank's
 * elements of every piece wrong exactly once. */
static void test_every_output_checked_once(void **state)
{
    (void)state;
    uint32_t g = 3, m = 4, n = g * m;
    struct bn_coll_params p = {.kind = BN_COLL_ALLREDUCE, .nranks = n, .bytes = 4 * 100,
                               .type_bytes = 4, .channels = 2, .slice_bytes = 8,
                               .gpus_per_server = g};
    struct bn_sched s;
    struct bn_error err = {0};
    struct bn_sched_run r;
    build_compact(&p, &s);
    assert_int_equal(bn_sched_run_start(&r, &s, &err), BN_OK);
    for (uint32_t c = 0; c < s.nhchains; c++)
        r.ring_set[c].broken = true;
    uint32_t *q = test_malloc(((size_t)s.nxfers + 1) * sizeof *q);
    uint32_t tail = bn_sched_run_initial(&r, q);
    for (uint32_t head = 0; head < tail; head++)
        tail += bn_sched_run_deliver(&r, q[head], q + tail);
    assert_int_equal(tail, s.nxfers);
    assert_int_equal(r.conflicts, 0);
    assert_int_equal(r.chain_wrong, (uint64_t)n * 100);
    test_free(q);
    bn_sched_run_free(&r);
    bn_sched_free(&s);
}

/* 2048 ranks in servers of 8, 64 MiB: 4096 two-level chains of 4094 hops
 * each. Explicitly that is 16.8 M transfers and 8.4 M slots with 2048-bit
 * sets, about 2.7 GB; compact, its run keeps 4 bytes per server and piece. */
static void test_compact_hier_at_scale(void **state)
{
    (void)state;
    struct bn_coll_params p = {.kind = BN_COLL_ALLREDUCE, .nranks = 2048, .bytes = 64u << 20,
                               .type_bytes = 4, .channels = 2, .slice_bytes = 512u << 10,
                               .gpus_per_server = 8};
    struct bn_sched s;
    build_compact(&p, &s);
    assert_int_equal(s.nhchains, 4096);
    assert_int_equal(s.nxfers, 4096u * (2 * 256 * 7 + 2 * 255));
    uint64_t wrong = UINT64_MAX;
    struct bn_error err = {0};
    assert_int_equal(bn_sched_verify(&s, &wrong, &err), BN_OK);
    assert_int_equal(wrong, 0);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (ru.ru_maxrss > 512L * 1024)
        fail_msg("peak memory %ld KB", ru.ru_maxrss);
    bn_sched_free(&s);
}

/* What the builder refuses. */
static void test_refused(void **state)
{
    (void)state;
    struct bn_coll_params p = {.kind = BN_COLL_ALLREDUCE, .nranks = 12, .bytes = 4 * 48,
                               .type_bytes = 4, .channels = 1, .slice_bytes = 64,
                               .gpus_per_server = 5};
    struct bn_sched s;
    struct bn_error err = {0};
    uint32_t id;
    assert_int_equal(bn_sched_init(&s, &p, &err), BN_OK);
    assert_int_equal(bn_sched_piece(&s, 0, 48, &id, &err), BN_OK);
    assert_int_equal(bn_sched_hchain(&s, id, 0, 0, 0, &err), BN_EINPUT); /* 12 / 5 */
    s.p.gpus_per_server = 4;
    assert_int_equal(bn_sched_hchain(&s, id, 4, 0, 0, &err), BN_EINPUT); /* member 4 of 4 */
    assert_int_equal(bn_sched_hchain(&s, id, 0, 3, 0, &err), BN_EINPUT); /* group 3 of 3 */
    assert_int_equal(bn_sched_hchain(&s, id, 0, 0, 0, &err), BN_OK);
    assert_int_equal(bn_sched_hchain(&s, id, 1, 0, 0, &err), BN_OK);
    assert_int_equal(bn_sched_finish(&s, &err), BN_EINPUT); /* one piece carried twice */
    assert_non_null(strstr(err.msg, "carried by two chains"));
    bn_sched_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_explicit),
        cmocka_unit_test(test_order_is_checked),
        cmocka_unit_test(test_every_output_checked_once),
        cmocka_unit_test(test_compact_hier_at_scale),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
