/*
 * Every collective algorithm (coll/algo_*.c) against the collective's
 * semantics, by symbolic execution: #wrong must be 0 for every collective an
 * algorithm claims to support, over 1..33 ranks (odd and prime included),
 * sizes below one element per rank up to a few per rank, element sizes 1, 2,
 * 4 and 8 bytes, 1..3 channels and slices that do and do not divide the
 * chunks. Then the numbers theory fixes exactly: bytes each rank sends
 * (ring AllReduce 2(n-1)/n S, ring RS/AG and pairwise AllToAll (n-1)/n S,
 * CollNet S up and S down, tree at most 2S), the 2(n-1) steps of a ring
 * AllReduce and log-depth of recursive halving/doubling; and a ring made
 * wrong on purpose must be caught. The ring's compact form (chains) checks
 * a 2048-rank 64 MiB AllReduce within 512 MB, where its transfer list took
 * about 2.7 GB; sampled contribution sets check an 8192-rank tree within
 * 512 MB, where sets of every rank would take about 2.5 GB.
 *
 * One FIFO run shows one delivery order; a network picks others. So every
 * schedule must also be free of races (bn_sched_races: conflicting accesses
 * to a slot that no dependency orders), and, the other way round, none of
 * its dependencies may be superfluous: dropping any single one must be
 * caught, by the FIFO run or as a race.
 */
#include "support.h"
#include <sys/resource.h>
#include "coll/sched.h"

#define MAXN 33

static const char *desc(const char *algo, const struct bn_coll_params *p)
{
    static char buf[256];
    snprintf(buf, sizeof buf,
             "%s %s n=%u bytes=%llu type=%u root=%u channels=%u slice=%llu g=%u nagg=%u",
             algo, bn_coll_kind_name(p->kind), p->nranks, (unsigned long long)p->bytes,
             p->type_bytes, p->root, p->channels, (unsigned long long)p->slice_bytes,
             p->gpus_per_server, p->nagg);
    return buf;
}

static void build_ok(const char *algo, const struct bn_coll_params *p, struct bn_sched *s)
{
    const struct bn_coll_algo_ops *ops = bn_coll_algo_find(algo);
    assert_non_null(ops);
    struct bn_error err = {0};
    if (bn_sched_init(s, p, &err) != BN_OK || ops->build(s, &err) != BN_OK ||
        bn_sched_finish(s, &err) != BN_OK)
        fail_msg("%s: %s", desc(algo, p), err.msg);
}

static uint64_t wrong_of(const struct bn_sched *s, const char *algo)
{
    struct bn_error err = {0};
    uint64_t wrong = UINT64_MAX;
    if (bn_sched_verify(s, &wrong, &err) != BN_OK)
        fail_msg("%s: %s", desc(algo, &s->p), err.msg);
    return wrong;
}

/* Unordered conflicting accesses: zero means any delivery order gives the
 * FIFO run's result. */
static uint64_t races_of(const struct bn_sched *s, const char *algo)
{
    struct bn_error err = {0};
    uint64_t races = UINT64_MAX;
    if (bn_sched_races(s, &races, &err) != BN_OK)
        fail_msg("%s: %s", desc(algo, &s->p), err.msg);
    return races;
}

/* Build, check the shape of every piece and transfer, and run it. */
static void check(const char *algo, const struct bn_coll_params *p)
{
    struct bn_sched s;
    build_ok(algo, p, &s);
    for (uint32_t i = 0; i < s.npieces; i++) {
        uint64_t len = s.pieces[i].hi - s.pieces[i].lo;
        if (len == 0 || len * p->type_bytes > p->slice_bytes)
            fail_msg("%s: piece %u has %llu elements", desc(algo, p), i, (unsigned long long)len);
    }
    for (uint32_t i = 0; i < s.nexplicit; i++)
        assert_int_equal(s.slots[s.xfers[i].src_slot].piece, s.slots[s.xfers[i].dst_slot].piece);
    for (uint32_t i = 0; i < s.nxfers; i++) {
        struct bn_xfer_view x;
        bn_sched_view(&s, i, &x);
        const struct bn_piece *pc = &s.pieces[x.piece];
        assert_true(x.channel < p->channels * s.lanes);
        assert_true(x.src != x.dst);
        assert_int_equal(x.bytes, (pc->hi - pc->lo) * p->type_bytes);
    }
    if (p->nranks == 1 && p->nagg == 0)
        assert_int_equal(s.nxfers, 0);
    uint64_t wrong = wrong_of(&s, algo);
    if (wrong != 0)
        fail_msg("%s: #wrong %llu", desc(algo, p), (unsigned long long)wrong);
    uint64_t races = races_of(&s, algo);
    if (races != 0)
        fail_msg("%s: %llu racing pairs", desc(algo, p), (unsigned long long)races);
    bn_sched_free(&s);
}

/* Case i of a sweep point: element size, channels, size and slice rotate
 * at different rates so that every combination of neighbours turns up. */
static struct bn_coll_params make_case(enum bn_coll_kind k, uint32_t n, uint32_t i)
{
    static const uint32_t tbs[] = {1, 2, 4, 8};
    static const uint64_t slice_elems[] = {1, 2, 3, 7};
    uint32_t tb = tbs[i % 4], zi = (i + n) % 4;
    struct bn_coll_params p = {.kind = k, .nranks = n, .type_bytes = tb,
                               .channels = 1 + (i + n / 2) % 3, .root = (i * 7 + 3) % n};
    uint64_t elems;
    if (k == BN_COLL_REDUCESCATTER || k == BN_COLL_ALLGATHER || k == BN_COLL_ALLTOALL) {
        static const uint64_t blk[] = {1, 2, 5, 3};
        elems = blk[zi] * n; /* per rank for AllToAll, whole array otherwise */
    } else {
        uint64_t sizes[] = {1, n > 1 ? n - 1 : 1, 3 * (uint64_t)n + 2, 61};
        elems = sizes[zi];
    }
    if (i == 7)
        elems = 0; /* nccl-tests' size 0 */
    p.bytes = elems * tb;
    /* Half a type extra: slices that are not a whole number of elements. */
    p.slice_bytes = slice_elems[(i / 2 + n) % 4] * tb + (i % 3 == 0 ? tb / 2 : 0);
    return p;
}

/* Aggregation trees for CollNet: one unit per 4 ranks under one root; with
 * `mid`, pairs of leaf units under middle units; with `direct`, the last
 * rank reports to the root itself. */
struct units {
    uint32_t parent[MAXN + 16], rank_agg[MAXN];
    uint32_t nagg;
};

static void make_units(struct units *u, uint32_t n, bool mid, bool direct)
{
    uint32_t leaves = (n + 3) / 4, mids = mid ? (leaves + 1) / 2 : 0;
    uint32_t root = leaves + mids;
    u->nagg = root + 1;
    for (uint32_t a = 0; a < leaves; a++)
        u->parent[a] = mid ? leaves + a / 2 : root;
    for (uint32_t a = 0; a < mids; a++)
        u->parent[leaves + a] = root;
    u->parent[root] = UINT32_MAX;
    for (uint32_t r = 0; r < n; r++)
        u->rank_agg[r] = r / 4;
    if (direct && n > 1)
        u->rank_agg[n - 1] = root; /* leaves its unit empty if it was alone there */
}

/* All collectives x 1..MAXN ranks x 8 cases; `g` and units for hier/collnet. */
static uint32_t sweep(const char *algo, uint32_t g, bool units)
{
    const struct bn_coll_algo_ops *ops = bn_coll_algo_find(algo);
    assert_non_null(ops);
    uint32_t checked = 0;
    for (int k = 0; k < BN_COLL_NKINDS; k++)
        for (uint32_t n = 1; n <= MAXN; n++)
            for (uint32_t i = 0; i < 8; i++) {
                struct bn_coll_params p = make_case((enum bn_coll_kind)k, n, i);
                struct units u;
                p.gpus_per_server = g;
                if (units) {
                    make_units(&u, n, i % 2, i % 3 == 1);
                    p.nagg = u.nagg;
                    p.agg_parent = u.parent;
                    p.rank_agg = u.rank_agg;
                    p.agg_max_trees = 1 + i % 2;
                }
                if (strcmp(algo, "nvls") == 0) /* one domain, sometimes not full */
                    p.nvls_domain = n + i % 3;
                if (!ops->supports(&p))
                    continue;
                check(algo, &p);
                checked++;
            }
    return checked;
}

static bool supports(const char *algo, enum bn_coll_kind k, uint32_t n, uint32_t g)
{
    struct bn_coll_params p = make_case(k, n, 0);
    p.gpus_per_server = g;
    return bn_coll_algo_find(algo)->supports(&p);
}

static void test_ring(void **state)
{
    (void)state;
    assert_int_equal(sweep("ring", 1, false), 5 * MAXN * 8);
}

static void test_tree(void **state)
{
    (void)state;
    assert_int_equal(sweep("tree", 1, false), 3 * MAXN * 8);
}

static void test_rhd(void **state)
{
    (void)state;
    /* AllReduce everywhere; RS and AG for 1, 2, 4, 8, 16, 32 ranks */
    assert_int_equal(sweep("rhd", 1, false), (MAXN + 2 * 6) * 8);
}

static void test_direct(void **state)
{
    (void)state;
    /* AllToAll, SendRecv, AllGather, ReduceScatter */
    assert_int_equal(sweep("direct", 1, false), 4 * MAXN * 8);
}

static void test_hier(void **state)
{
    (void)state;
    /* n a multiple of g with at least two servers: g=2: 4..32 even (15),
     * g=4: 8..32 (7), g=8: 16, 24, 32 (3) */
    assert_int_equal(sweep("hier", 2, false), 15 * 8);
    assert_int_equal(sweep("hier", 4, false), 7 * 8);
    assert_int_equal(sweep("hier", 8, false), 3 * 8);
}

static void test_collnet(void **state)
{
    (void)state;
    assert_int_equal(sweep("collnet", 1, true), MAXN * 8);
}

static void test_nvls(void **state)
{
    (void)state;
    /* AllReduce, ReduceScatter, AllGather on 2..MAXN ranks in one domain */
    assert_int_equal(sweep("nvls", 1, false), 3 * (MAXN - 1) * 8);
    struct bn_coll_params p = make_case(BN_COLL_ALLREDUCE, 8, 0);
    p.nvls_domain = 4; /* two domains: NVLS Tree is not built */
    assert_false(bn_coll_algo_find("nvls")->supports(&p));
    p.nvls_domain = 0;
    assert_false(bn_coll_algo_find("nvls")->supports(&p));
}

/* supports() is strict: what each algorithm claims, and build() refuses the rest. */
static void test_supports(void **state)
{
    (void)state;
    /*                                AR RS AG Bc Re A2A SR */
    static const bool ring[BN_COLL_NKINDS] = {1, 1, 1, 1, 1, 0, 0};
    static const bool tree[BN_COLL_NKINDS] = {1, 0, 0, 1, 1, 0, 0};
    static const bool direct[BN_COLL_NKINDS] = {0, 1, 1, 0, 0, 1, 1};
    for (int k = 0; k < BN_COLL_NKINDS; k++) {
        assert_true(supports("ring", k, 7, 1) == ring[k]);
        assert_true(supports("tree", k, 7, 1) == tree[k]);
        assert_true(supports("direct", k, 7, 1) == direct[k]);
        assert_true(supports("hier", k, 8, 4) == (k == BN_COLL_ALLREDUCE));
        assert_false(supports("collnet", k, 8, 1)); /* no aggregation units */
    }
    assert_true(supports("rhd", BN_COLL_ALLREDUCE, 7, 1));
    assert_false(supports("rhd", BN_COLL_REDUCESCATTER, 12, 1));
    assert_true(supports("rhd", BN_COLL_ALLGATHER, 16, 1));
    assert_false(supports("rhd", BN_COLL_BROADCAST, 16, 1));
    assert_false(supports("hier", BN_COLL_ALLREDUCE, 4, 4));  /* one server */
    assert_false(supports("hier", BN_COLL_ALLREDUCE, 10, 4)); /* a partial server */
    assert_false(supports("hier", BN_COLL_ALLREDUCE, 8, 1));  /* one GPU per server */

    /* CollNet needs one well-formed unit tree and room for a tree. */
    struct units u;
    make_units(&u, 8, true, false);
    struct bn_coll_params p = make_case(BN_COLL_ALLREDUCE, 8, 0);
    p.nagg = u.nagg;
    p.agg_parent = u.parent;
    p.rank_agg = u.rank_agg;
    p.agg_max_trees = 2;
    const struct bn_coll_algo_ops *cn = bn_coll_algo_find("collnet");
    assert_true(cn->supports(&p));
    p.agg_max_trees = 0;
    assert_false(cn->supports(&p));
    p.agg_max_trees = 2;
    u.parent[u.nagg - 1] = 0; /* the root under a leaf: a loop */
    assert_false(cn->supports(&p));
    u.parent[u.nagg - 1] = UINT32_MAX;
    u.parent[0] = UINT32_MAX; /* two roots: ranks 0-3 never meet the others */
    assert_false(cn->supports(&p));
    make_units(&u, 8, false, false);
    u.rank_agg[5] = u.nagg; /* no such unit */
    assert_false(cn->supports(&p));

    /* build() of an unsupported collective is an input error, not a crash. */
    p = make_case(BN_COLL_ALLTOALL, 4, 0);
    struct bn_sched s;
    struct bn_error err = {0};
    assert_int_equal(bn_sched_init(&s, &p, &err), BN_OK);
    assert_int_equal(bn_coll_algo_find("ring")->build(&s, &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, "ring"));
    bn_sched_free(&s);
}

static void test_registry(void **state)
{
    (void)state;
    const char *order[] = {"ring", "tree", "rhd", "direct", "hier", "collnet", "htree", "nvls"};
    for (uint32_t i = 0; i < 8; i++) {
        assert_non_null(bn_coll_algo_at(i));
        assert_string_equal(bn_coll_algo_at(i)->name, order[i]);
        assert_ptr_equal(bn_coll_algo_find(order[i]), bn_coll_algo_at(i));
    }
    assert_null(bn_coll_algo_at(8));
    assert_null(bn_coll_algo_find("nccl"));
}

static uint64_t sent_by(const struct bn_sched *s, uint32_t ep)
{
    uint64_t b = 0;
    for (uint32_t i = 0; i < s->nxfers; i++) {
        struct bn_xfer_view x;
        bn_sched_view(s, i, &x);
        b += x.src == ep ? x.bytes : 0;
    }
    return b;
}

static uint64_t received_by(const struct bn_sched *s, uint32_t ep)
{
    uint64_t b = 0;
    for (uint32_t i = 0; i < s->nxfers; i++) {
        struct bn_xfer_view x;
        bn_sched_view(s, i, &x);
        b += x.dst == ep ? x.bytes : 0;
    }
    return b;
}

/* Longest chain of dependent transfers (the schedule's steps): a chain's
 * hops one after another, the explicit ones by their dependencies. */
static uint32_t depth(const struct bn_sched *s)
{
    uint32_t longest = 0;
    for (uint32_t c = 0; c < s->nchains; c++)
        if (s->chains[c].nred + s->chains[c].ncopy > longest)
            longest = s->chains[c].nred + s->chains[c].ncopy;
    if (s->nhchains) { /* a server's reduce, the rail, a server's copy */
        uint32_t g = s->p.gpus_per_server, m = s->p.nranks / g;
        longest = 2 * (g - 1) + 2 * (m - 1) > longest ? 2 * (g - 1) + 2 * (m - 1) : longest;
    }
    if (s->nexplicit == 0)
        return longest;
    uint32_t *level = calloc(s->nexplicit + 1, sizeof *level);
    uint32_t *wait = calloc(s->nexplicit + 1, sizeof *wait);
    uint32_t *queue = calloc(s->nexplicit + 1, sizeof *queue);
    uint32_t tail = 0, best = longest;
    for (uint32_t i = 0; i < s->nexplicit; i++) {
        wait[i] = s->xfers[i].ndeps;
        if (wait[i] == 0) {
            queue[tail++] = i;
            level[i] = 1;
        }
    }
    for (uint32_t h = 0; h < tail; h++) {
        uint32_t x = queue[h];
        best = level[x] > best ? level[x] : best;
        for (uint32_t k = s->succ_off[x]; k < s->succ_off[x + 1]; k++) {
            uint32_t y = s->succ[k];
            if (level[x] + 1 > level[y])
                level[y] = level[x] + 1;
            if (--wait[y] == 0)
                queue[tail++] = y;
        }
    }
    assert_int_equal(tail, s->nexplicit);
    free(level);
    free(wait);
    free(queue);
    return best;
}

static struct bn_coll_params big(enum bn_coll_kind k, uint32_t n, uint64_t elems)
{
    return (struct bn_coll_params){.kind = k, .nranks = n, .bytes = elems * 4, .type_bytes = 4,
                                   .channels = 2, .slice_bytes = 1 << 16};
}

static const uint32_t sizes_n[] = {2, 3, 5, 7, 8, 13, 16, 31, 33};
#define NSIZES (sizeof sizes_n / sizeof sizes_n[0])

/* Ring AllReduce: 2(n-1)/n x S from every rank, up to the rounding of
 * chunks to whole elements (at most 2 elements per channel part); 2(n-1)
 * steps; 2(n-1) transfers per piece. */
static void test_ring_volume_and_steps(void **state)
{
    (void)state;
    for (size_t t = 0; t < NSIZES; t++) {
        uint32_t n = sizes_n[t];
        struct bn_coll_params p = big(BN_COLL_ALLREDUCE, n, 1000 * (uint64_t)n + 7);
        struct bn_sched s;
        build_ok("ring", &p, &s);
        double ideal = 2.0 * (n - 1) / n * (double)p.bytes;
        for (uint32_t r = 0; r < n; r++) {
            double got = (double)sent_by(&s, r);
            if (got < ideal - 2 * 2 * 4 || got > ideal + 2 * 2 * 4)
                fail_msg("ring n=%u rank %u sends %.0f, theory %.1f", n, r, got, ideal);
        }
        assert_int_equal(depth(&s), 2 * (n - 1));
        assert_int_equal(s.nxfers, s.npieces * 2 * (n - 1));
        bn_sched_free(&s);

        /* RS and AG: exactly (n-1)/n x S each, n-1 steps. */
        const enum bn_coll_kind half[] = {BN_COLL_REDUCESCATTER, BN_COLL_ALLGATHER};
        for (int h = 0; h < 2; h++) {
            p = big(half[h], n, 999 * (uint64_t)n);
            build_ok("ring", &p, &s);
            for (uint32_t r = 0; r < n; r++)
                assert_int_equal(sent_by(&s, r) * n, (n - 1) * p.bytes);
            assert_int_equal(depth(&s), n - 1);
            bn_sched_free(&s);
        }
    }
}

/* Tree AllReduce: a rank is interior in at most one of the two trees (for
 * odd n, one rank in both), so it sends at most its half up plus two halves
 * down, 2S, and at least one half up; the depth is up and down the taller
 * tree. */
static void test_tree_volume(void **state)
{
    (void)state;
    for (size_t t = 0; t < NSIZES; t++) {
        uint32_t n = sizes_n[t];
        struct bn_coll_params p = big(BN_COLL_ALLREDUCE, n, 1000 * (uint64_t)n + 7);
        struct bn_sched s;
        build_ok("tree", &p, &s);
        uint64_t slack = 2 * p.channels * p.type_bytes;
        for (uint32_t r = 0; r < n; r++) {
            uint64_t got = sent_by(&s, r);
            if (got > 2 * p.bytes + slack || got + slack < p.bytes / 2)
                fail_msg("tree n=%u rank %u sends %llu of %llu", n, r, (unsigned long long)got,
                         (unsigned long long)p.bytes);
        }
        /* log2: a binary tree of n nodes built on bit patterns is ~log2(n) tall */
        uint32_t lg = 0;
        while ((1u << lg) < n)
            lg++;
        assert_true(depth(&s) <= 2 * (lg + 1));
        bn_sched_free(&s);
    }
}

/* Pairwise AllToAll: (n-1)/n x S from and to every rank, all at once. */
static void test_direct_volume(void **state)
{
    (void)state;
    for (size_t t = 0; t < NSIZES; t++) {
        uint32_t n = sizes_n[t];
        struct bn_coll_params p = big(BN_COLL_ALLTOALL, n, 100 * (uint64_t)n);
        struct bn_sched s;
        build_ok("direct", &p, &s);
        for (uint32_t r = 0; r < n; r++) {
            assert_int_equal(sent_by(&s, r) * n, (n - 1) * p.bytes);
            assert_int_equal(received_by(&s, r) * n, (n - 1) * p.bytes);
        }
        assert_int_equal(depth(&s), 1);
        assert_int_equal(s.nedges, 0);
        bn_sched_free(&s);
    }
}

/* Rabenseifner: like ring, 2(n-1)/n x S per rank for a power of two, in
 * 2 log2(n) steps; with extra ranks, 2 more steps (fold and result) and an
 * extra rank sends exactly S. */
static void test_rhd_volume_and_steps(void **state)
{
    (void)state;
    for (uint32_t lg = 1; lg <= 5; lg++) {
        uint32_t n = 1u << lg;
        struct bn_coll_params p = big(BN_COLL_ALLREDUCE, n, 2 * 64 * (uint64_t)n);
        struct bn_sched s;
        build_ok("rhd", &p, &s);
        for (uint32_t r = 0; r < n; r++)
            assert_int_equal(sent_by(&s, r) * n, 2 * (n - 1) * p.bytes);
        assert_int_equal(depth(&s), 2 * lg);
        bn_sched_free(&s);
        p = big(BN_COLL_ALLREDUCE, n + 1 + n / 3, 2 * 64 * (uint64_t)n);
        build_ok("rhd", &p, &s);
        assert_int_equal(depth(&s), 2 * lg + 2);
        assert_int_equal(sent_by(&s, n), p.bytes);
        bn_sched_free(&s);
    }
}

/* NCCL's tree on servers (htree): every AllReduce of whole servers is
 * right, and each part goes once up and once down every edge of its tree:
 * 2(n-1) S bytes in all, 2(servers-1) S of them between servers. */
static void test_htree(void **state)
{
    (void)state;
    const uint32_t gs[] = {2, 3, 4};
    for (int i = 0; i < 3; i++) {
        uint32_t g = gs[i], fits = 0;
        for (uint32_t n = 1; n <= MAXN; n++)
            fits += n % g == 0 && n / g >= 2;
        assert_int_equal(sweep("htree", g, false), fits * 8);
        for (uint32_t m = 2; m <= 5; m++) {
            uint32_t n = g * m;
            struct bn_coll_params p = big(BN_COLL_ALLREDUCE, n, 4 * 12 * (uint64_t)n);
            p.gpus_per_server = g;
            struct bn_sched s;
            build_ok("htree", &p, &s);
            uint64_t all = 0, across = 0;
            for (uint32_t x = 0; x < s.nxfers; x++) {
                struct bn_xfer_view v;
                bn_sched_view(&s, x, &v);
                all += v.bytes;
                across += v.src / g != v.dst / g ? v.bytes : 0;
            }
            assert_int_equal(all, 2 * (uint64_t)(n - 1) * p.bytes);
            assert_int_equal(across, 2 * (uint64_t)(m - 1) * p.bytes);
            bn_sched_free(&s);
        }
    }
}

/* The tree's channels as NCCL connects them (src/graph/connect.cc): one
 * part per channel, channels 2c and 2c+1 leave their servers through one
 * NIC (local GPU c mod G), one on each of the two trees. */
static void test_htree_channels(void **state)
{
    (void)state;
    enum { G = 8, SERVERS = 4, CH = 16 };
    struct bn_coll_params p = big(BN_COLL_ALLREDUCE, G * SERVERS, 1u << 20);
    p.gpus_per_server = G;
    p.channels = CH;
    struct bn_sched s;
    build_ok("htree", &p, &s);
    uint32_t edges[CH] = {0}; /* per channel: its server edges, as a bit set */
    for (uint32_t x = 0; x < s.nxfers; x++) {
        struct bn_xfer_view v;
        bn_sched_view(&s, x, &v);
        assert_true(v.channel < CH);
        if (v.src / G == v.dst / G)
            continue;
        assert_int_equal(v.src % G, v.channel / 2 % G);
        assert_int_equal(v.dst % G, v.channel / 2 % G);
        edges[v.channel] |= 1u << (v.src / G * SERVERS + v.dst / G);
    }
    for (uint32_t c = 0; c < CH; c += 2) {
        assert_int_equal(edges[c], edges[0]);
        assert_int_equal(edges[c + 1], edges[1]);
    }
    assert_int_not_equal(edges[0], edges[1]); /* the mirrored tree */
    bn_sched_free(&s);
}

/* Hierarchical: intra RS + intra AG (g-1)/g S each, plus the rail's ring
 * AllReduce of S/g: 2(m-1)/m x S/g. Sizes divide exactly. */
static void test_hier_volume(void **state)
{
    (void)state;
    const uint32_t gs[] = {2, 4, 8};
    for (int i = 0; i < 3; i++)
        for (uint32_t m = 2; m <= 4; m++) {
            uint32_t g = gs[i], n = g * m;
            struct bn_coll_params p = big(BN_COLL_ALLREDUCE, n, 2 * 10 * (uint64_t)g * m);
            p.gpus_per_server = g;
            struct bn_sched s;
            build_ok("hier", &p, &s);
            for (uint32_t r = 0; r < n; r++)
                assert_int_equal(sent_by(&s, r) * g * m,
                                 p.bytes * (2 * (g - 1) * m + 2 * (m - 1)));
            assert_int_equal(depth(&s), 2 * (g - 1) + 2 * (m - 1));
            bn_sched_free(&s);
        }
}

/* CollNet: every rank sends S and receives S; min(channels, agg_max_trees)
 * trees; up and down the unit tree. */
static void test_collnet_volume(void **state)
{
    (void)state;
    struct units u;
    for (uint32_t n = 2; n <= MAXN; n += 7) {
        make_units(&u, n, true, false);
        for (uint32_t ch = 1; ch <= 3; ch++) {
            struct bn_coll_params p = big(BN_COLL_ALLREDUCE, n, 3000);
            p.channels = ch;
            p.nagg = u.nagg;
            p.agg_parent = u.parent;
            p.rank_agg = u.rank_agg;
            p.agg_max_trees = 2;
            struct bn_sched s;
            build_ok("collnet", &p, &s);
            uint32_t maxch = 0;
            for (uint32_t i = 0; i < s.nexplicit; i++)
                maxch = s.xfers[i].channel > maxch ? s.xfers[i].channel : maxch;
            assert_int_equal(maxch + 1, ch < 2 ? ch : 2);
            for (uint32_t r = 0; r < n; r++) {
                assert_int_equal(sent_by(&s, r), p.bytes);
                assert_int_equal(received_by(&s, r), p.bytes);
            }
            /* rank -> leaf unit -> middle unit -> root and back */
            assert_int_equal(depth(&s), 6);
            bn_sched_free(&s);
        }
    }
}

/* NVLS: an AllReduce moves S (1 + 1/n) up each GPU's NVLink (its operands
 * and its part's store) and S down; the switch's unit takes (n + 1) S in
 * and sends n S out; four steps (ld_reduce, return, store, multicast).
 * ReduceScatter: S up, S/n down; AllGather: S/n up, S (n-1)/n down. */
static void test_nvls_volume(void **state)
{
    (void)state;
    for (size_t i = 0; i < NSIZES; i++) {
        uint32_t n = sizes_n[i];
        for (int k = 0; k < 3; k++) {
            enum bn_coll_kind kind = k == 0 ? BN_COLL_ALLREDUCE
                                     : k == 1 ? BN_COLL_REDUCESCATTER : BN_COLL_ALLGATHER;
            struct bn_coll_params p = big(kind, n, 3000 * (uint64_t)n);
            p.nvls_domain = n;
            struct bn_sched s;
            build_ok("nvls", &p, &s);
            uint64_t S = p.bytes, unit_in = 0, unit_out = 0;
            for (uint32_t r = 0; r < n; r++) {
                uint64_t part = 3000 * 4; /* 3000 n elements: an even split */
                uint64_t up = kind == BN_COLL_ALLREDUCE ? S + part
                              : kind == BN_COLL_REDUCESCATTER ? S : part;
                uint64_t down = kind == BN_COLL_REDUCESCATTER ? part
                                : kind == BN_COLL_ALLGATHER ? S - part : S;
                assert_int_equal(sent_by(&s, r), up);
                assert_int_equal(received_by(&s, r), down);
                unit_in += up;
                unit_out += down;
            }
            assert_int_equal(received_by(&s, n), unit_in);
            assert_int_equal(sent_by(&s, n), unit_out);
            if (kind == BN_COLL_ALLREDUCE)
                assert_int_equal(unit_in, (uint64_t)(n + 1) * S);
            assert_int_equal(depth(&s), kind == BN_COLL_ALLREDUCE ? 4 : 2);
            bn_sched_free(&s);
        }
    }
}

/* A chain's order must show: each chain's second hop delivered before its
 * first is counted (the contribution it should have carried is missing). */
static void chain_order_needed(const char *algo, struct bn_sched *s)
{
    struct bn_error err = {0};
    uint32_t out[2];
    for (uint32_t c = 0; c < s->nchains; c++) {
        const struct bn_chain *ch = &s->chains[c];
        if (ch->nred + ch->ncopy < 2)
            continue;
        struct bn_sched_run r;
        assert_int_equal(bn_sched_run_start(&r, s, &err), BN_OK);
        bn_sched_run_deliver(&r, ch->first + 1, out);
        if (bn_sched_run_wrong(&r) == 0)
            fail_msg("%s: chain %u delivered out of order unseen", desc(algo, &s->p), c);
        bn_sched_run_free(&r);
    }
}

/* Each dependency of small schedules dropped in turn must show. */
static void all_deps_needed(const char *algo, const struct bn_coll_params *p)
{
    struct bn_sched s;
    struct bn_error err = {0};
    build_ok(algo, p, &s);
    uint32_t nedges = s.nedges;
    if (s.nchains)
        chain_order_needed(algo, &s);
    assert_true(nedges > 0 || s.nchains > 0 || s.nhchains > 0); /* hchains: test_hchain.c */
    bn_sched_free(&s);
    for (uint32_t e = 0; e < nedges; e++) {
        const struct bn_coll_algo_ops *ops = bn_coll_algo_find(algo);
        assert_int_equal(bn_sched_init(&s, p, &err), BN_OK);
        assert_int_equal(ops->build(&s, &err), BN_OK);
        s.edges[e][0] = s.edges[s.nedges - 1][0];
        s.edges[e][1] = s.edges[s.nedges - 1][1];
        s.nedges--;
        assert_int_equal(bn_sched_finish(&s, &err), BN_OK);
        if (wrong_of(&s, algo) == 0 && races_of(&s, algo) == 0)
            fail_msg("%s: dependency %u is not needed", desc(algo, p), e);
        bn_sched_free(&s);
    }
}

static void test_every_dependency_needed(void **state)
{
    (void)state;
    struct units u;
    for (uint32_t n = 5; n <= 8; n++) {
        for (int k = 0; k < BN_COLL_NKINDS; k++) {
            struct bn_coll_params p = {.kind = k, .nranks = n, .bytes = 16 * n, .type_bytes = 4,
                                       .channels = 2, .slice_bytes = 8, .root = 2,
                                       .gpus_per_server = n % 2 ? 1 : 2};
            const char *withdeps[] = {"ring", "tree", "rhd", "hier"};
            for (int a = 0; a < 4; a++)
                if (bn_coll_algo_find(withdeps[a])->supports(&p))
                    all_deps_needed(withdeps[a], &p);
            if (k != BN_COLL_ALLREDUCE)
                continue;
            make_units(&u, n, n % 2, true);
            p.nagg = u.nagg;
            p.agg_parent = u.parent;
            p.rank_agg = u.rank_agg;
            p.agg_max_trees = 2;
            all_deps_needed("collnet", &p);
            p.nagg = 0;
            p.nvls_domain = n;
            all_deps_needed("nvls", &p);
        }
    }
}

/* A ring AllReduce made wrong after it was built. */
static void test_broken_ring(void **state)
{
    (void)state;
    struct bn_coll_params p = big(BN_COLL_ALLREDUCE, 6, 6 * 40);
    p.slice_bytes = 40;
    struct bn_sched s;
    build_ok("ring", &p, &s);
    assert_int_equal(wrong_of(&s, "ring"), 0);

    /* (a) one REDUCE turned into a COPY: a contribution is dropped */
    assert_true(s.nchains > 0);
    s.chains[0].nred--;
    s.chains[0].ncopy++;
    assert_true(wrong_of(&s, "ring") > 0);
    s.chains[0].nred++;
    s.chains[0].ncopy--;
    assert_int_equal(wrong_of(&s, "ring"), 0);

    /* (a') the last allgather hop of the last chain dropped: its last rank
     * is left with a partial sum */
    struct bn_chain *last = &s.chains[s.nchains - 1];
    last->ncopy--;
    s.nxfers--;
    assert_true(wrong_of(&s, "ring") > 0);
    last->ncopy++;
    s.nxfers++;
    assert_int_equal(wrong_of(&s, "ring"), 0);

    /* (c) a race: step 1 of a piece delivered before step 0, as a schedule
     * missing that dependency could; its piece is counted wrong. */
    struct bn_sched_run r;
    struct bn_error err = {0};
    uint32_t out[2];
    assert_int_equal(bn_sched_run_start(&r, &s, &err), BN_OK);
    bn_sched_run_deliver(&r, s.chains[0].first + 1, out);
    assert_int_equal(r.conflicts, s.pieces[s.chains[0].piece].hi - s.pieces[s.chains[0].piece].lo);
    assert_true(bn_sched_run_wrong(&r) > 0);
    bn_sched_run_free(&r);
    bn_sched_free(&s);
}

/* A ring AllReduce of 64 MiB over 2048 ranks in compact form: 4096 chains
 * of 4094 hops, no slot, no explicit transfer, verified right within a
 * 512 MB budget. Listed transfer by transfer it needed 16.8 M transfers and
 * 8.4 M slots of 2048-bit sets: about 2.7 GB. */
static void test_compact_ring_at_scale(void **state)
{
    (void)state;
    struct bn_coll_params p = {.kind = BN_COLL_ALLREDUCE, .nranks = 2048, .bytes = 64u << 20,
                               .type_bytes = 4, .channels = 2, .slice_bytes = 512u << 10};
    struct bn_sched s;
    build_ok("ring", &p, &s);
    assert_int_equal(s.nchains, 4096);
    assert_int_equal(s.nexplicit, 0);
    assert_int_equal(s.nslots, 0);
    assert_int_equal(s.nxfers, 4096u * 2 * 2047);
    size_t bytes = s.nchains * sizeof *s.chains + s.npieces * (sizeof *s.pieces + 4);
    assert_true(bytes < (1u << 20));
    assert_int_equal(wrong_of(&s, "ring"), 0);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (ru.ru_maxrss > 512L * 1024)
        fail_msg("peak memory %ld KB", ru.ru_maxrss);
    bn_sched_free(&s);
}

/* 32,768 ranks (2^31 hops, near the 2^32 transfer ids): a chain carries
 * an interval of the ring, 12 bytes, not an n-bit set (4 KiB a chain, 128
 * MiB for this ring's chains), and one chain's 65,534 hops in order gather
 * everyone with no conflict; a hop out of order shows. */
static void test_chain_intervals_at_scale(void **state)
{
    (void)state;
    uint32_t n = 32768;
    struct bn_coll_params p = {.kind = BN_COLL_ALLREDUCE, .nranks = n, .bytes = 4ull * n,
                               .type_bytes = 4, .channels = 1, .slice_bytes = 4};
    struct bn_sched s;
    build_ok("ring", &p, &s);
    assert_int_equal(s.nchains, n);
    struct bn_sched_run r;
    struct bn_error err = {0};
    assert_int_equal(bn_sched_run_start(&r, &s, &err), BN_OK);
    uint32_t out[2], first = s.chains[0].first, total = 2 * (n - 1);
    for (uint32_t h = 0; h < total; h++)
        bn_sched_run_deliver(&r, first + h, out);
    assert_int_equal(r.conflicts, 0);
    assert_int_equal(r.chain_wrong, 0);
    assert_int_equal(r.carried[0].count, n);
    bn_sched_run_deliver(&r, s.chains[1].first + 1, out); /* chain 1's second hop first */
    assert_true(r.conflicts > 0);
    bn_sched_run_free(&r);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (ru.ru_maxrss > 512L * 1024)
        fail_msg("peak memory %ld KB", ru.ru_maxrss);
    assert_true(sizeof *r.carried <= 12);
    bn_sched_free(&s);
}

/* Past BN_SCHED_EXACT_RANKS ranks a slot's set follows a sample of the
 * contributors. An 8192-rank tree AllReduce of 64 MiB lists 2.16 M
 * transfers: with a set of every rank (1 KiB a slot) they would take
 * about 2.5 GB; sampled (128 bytes) the check fits in 512 MB, and a
 * REDUCE made a COPY at a sampled rank, or a sampled rank's last copy
 * read from the wrong slot, is still counted wrong. */
static void test_sampled_sets_at_scale(void **state)
{
    (void)state;
    uint32_t n = 8192;
    struct bn_coll_params p = {.kind = BN_COLL_ALLREDUCE, .nranks = n, .bytes = 64u << 20,
                               .type_bytes = 4, .channels = 2, .slice_bytes = 512u << 10};
    struct bn_sched s;
    build_ok("tree", &p, &s);
    assert_int_equal(s.words, BN_SCHED_EXACT_RANKS / 64);
    assert_true(s.nexplicit <= bn_coll_algo_find("tree")->transfers(&p));
    assert_true(s.nexplicit > 2000000);
    uint32_t sampled = 0;
    for (uint32_t r = 0; r < n; r++)
        sampled += s.rank_bit[r] != UINT32_MAX;
    assert_int_equal(sampled, BN_SCHED_EXACT_RANKS);
    assert_int_equal(wrong_of(&s, "tree"), 0);

    /* rank 1 (sampled) sends its first REDUCE as a COPY: its children's
     * sums are lost on the way up */
    uint32_t x = 0;
    while (s.slots[s.xfers[x].src_slot].endpoint != 1 || s.xfers[x].op != BN_XFER_REDUCE)
        x++;
    s.xfers[x].op = BN_XFER_COPY;
    assert_true(wrong_of(&s, "tree") > 0);
    s.xfers[x].op = BN_XFER_REDUCE;

    /* the last rank (sampled) gets its last copy from the wrong rank's
     * slot: a piece its parent had not yet completed */
    x = s.nexplicit;
    while (s.slots[s.xfers[--x].dst_slot].endpoint != n - 1)
        ;
    uint32_t src = s.xfers[x].src_slot;
    s.xfers[x].src_slot = s.xfers[x].dst_slot;
    assert_true(wrong_of(&s, "tree") > 0);
    s.xfers[x].src_slot = src;
    assert_int_equal(wrong_of(&s, "tree"), 0);

    /* a Broadcast's root is always sampled (else every rank's wanted set,
     * the root's contribution, would be empty and nothing could be wrong):
     * root 1000 of 2048, whose stretch would have given rank 1001 */
    struct bn_coll_params b = {.kind = BN_COLL_BROADCAST, .nranks = 2048, .bytes = 4 << 10,
                               .type_bytes = 4, .channels = 1, .slice_bytes = 1024,
                               .root = 1000};
    struct bn_sched bs;
    build_ok("tree", &b, &bs);
    assert_true(bs.rank_bit[1000] != UINT32_MAX);
    assert_int_equal(wrong_of(&bs, "tree"), 0);
    uint32_t last = bs.nexplicit;
    while (bs.slots[bs.xfers[--last].dst_slot].endpoint != 2047)
        ;
    bs.xfers[last].src_slot = bs.xfers[last].dst_slot; /* rank 2047's copy lost */
    assert_true(wrong_of(&bs, "tree") > 0);
    bn_sched_free(&bs);

    /* the sets: 128 bytes a slot, where every rank's would take 1 KiB */
    assert_true((uint64_t)s.nslots * s.words * 8 < 160000000);
    assert_true((uint64_t)s.nslots * (n / 8) > 1000000000);
#ifndef __SANITIZE_ADDRESS__ /* its redzones and quarantine add their own */
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (ru.ru_maxrss > 512L * 1024)
        fail_msg("peak memory %ld KB", ru.ru_maxrss);
#endif
    bn_sched_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_supports),
        cmocka_unit_test(test_ring),
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_rhd),
        cmocka_unit_test(test_direct),
        cmocka_unit_test(test_hier),
        cmocka_unit_test(test_collnet),
        cmocka_unit_test(test_nvls),
        cmocka_unit_test(test_ring_volume_and_steps),
        cmocka_unit_test(test_tree_volume),
        cmocka_unit_test(test_direct_volume),
        cmocka_unit_test(test_rhd_volume_and_steps),
        cmocka_unit_test(test_hier_volume),
        cmocka_unit_test(test_htree),
        cmocka_unit_test(test_htree_channels),
        cmocka_unit_test(test_collnet_volume),
        cmocka_unit_test(test_nvls_volume),
        cmocka_unit_test(test_every_dependency_needed),
        cmocka_unit_test(test_broken_ring),
        cmocka_unit_test(test_compact_ring_at_scale),
        cmocka_unit_test(test_chain_intervals_at_scale),
        cmocka_unit_test(test_sampled_sets_at_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
