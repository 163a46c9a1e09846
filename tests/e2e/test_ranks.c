/*
 * A partitioned run's parts on two processes (sim/ranks.c) through a
 * transport of the test's own (a socket pair between a parent and its
 * forked child, standing in for MPI): rank 0's JSON is the one-process
 * run's in two parts, byte for byte, lossy and lossless, and rank 1
 * returns no results of its own; bnet coll's rows likewise, ring and
 * SHARP. Runs in the sanitized builds too, which have no MPI.
 */
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

#include "sim/ranks_buf.h"

struct pair {
    int fd;     /* to the other rank */
    int rank;
};

/* Send `out` and receive `in_len` bytes into `in` at once (neither side
 * may wait for the other to read first). */
static int swap(int fd, const char *out, size_t out_len, char *in, size_t in_len)
{
    while (out_len || in_len) {
        struct pollfd p = {fd, (short)((out_len ? POLLOUT : 0) | (in_len ? POLLIN : 0)), 0};
        if (poll(&p, 1, 10000) <= 0)
            return -1;
        if ((p.revents & POLLOUT) && out_len) {
            ssize_t k = write(fd, out, out_len);
            if (k <= 0)
                return -1;
            out += k;
            out_len -= (size_t)k;
        }
        if ((p.revents & POLLIN) && in_len) {
            ssize_t k = read(fd, in, in_len);
            if (k <= 0)
                return -1;
            in += k;
            in_len -= (size_t)k;
        }
        if (p.revents & (POLLERR | POLLHUP) && in_len)
            return -1;
    }
    return 0;
}

static int pair_alltoall(void *ud, const void *send, void *recv, size_t blk)
{
    const struct pair *p = ud;
    int o = 1 - p->rank;
    memcpy((char *)recv + (size_t)p->rank * blk, (const char *)send + (size_t)p->rank * blk, blk);
    return swap(p->fd, (const char *)send + (size_t)o * blk, blk,
                (char *)recv + (size_t)o * blk, blk);
}

static int pair_alltoallv(void *ud, const void *send, const size_t *send_len, void *recv,
                          const size_t *recv_len)
{
    const struct pair *p = ud;
    const char *s = send;
    char *r = recv;
    size_t so = 0, ro = 0; /* where each rank's share starts */
    for (int k = 0; k < p->rank; k++) {
        so += send_len[k];
        ro += recv_len[k];
    }
    size_t so_other = p->rank ? 0 : send_len[0], ro_other = p->rank ? 0 : recv_len[0];
    if (send_len[p->rank]) /* (send may be NULL when nothing is sent) */
        memcpy(r + ro, s + so, send_len[p->rank]);
    int o = 1 - p->rank;
    return swap(p->fd, s + so_other, send_len[o], r + ro_other, recv_len[o]);
}

static void pair_abort(void *ud, int status, const char *why)
{
    (void)ud;
    fprintf(stderr, "test_ranks: %s\n", why);
    _exit(status);
}

static char *json_of(struct bn_results *r)
{
    char *buf = test_results_json(r);
    bn_results_free(r);
    return buf;
}

/* Fork: the child is rank 1, the parent rank 0, joined by a socket pair;
 * *child: the child's pid (in the parent). */
static struct pair fork_pair(pid_t *child)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    fflush(NULL);
    *child = fork();
    assert_true(*child >= 0);
    int rank = *child == 0;
    close(sv[1 - rank]);
    return (struct pair){sv[rank], rank};
}

/* Rank 0: rank 1 must have succeeded. */
static void join_pair(const struct pair *p, pid_t child)
{
    int st = 0;
    assert_int_equal(waitpid(child, &st, 0), child);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(p->fd);
}

/* Rank 0's JSON of the scenario `sets` on two processes (rank 1 must
 * exit 0 with empty results). */
static char *two_ranks(const char *const *sets)
{
    pid_t child;
    struct pair p = fork_pair(&child);
    struct bn_ranks ranks = {p.rank, 2, &p, pair_alltoall, pair_alltoallv, pair_abort, 1};
    struct bn_run_opts opts = {.ranks = &ranks};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    struct bn_error err = {0};
    int rc = bn_run(&sc, &opts, &r, &err);
    if (p.rank == 1) {
        bool empty = rc == BN_OK && r.nflows == 0;
        if (rc == BN_OK)
            bn_results_free(&r);
        _exit(empty ? 0 : 1);
    }
    if (rc != BN_OK)
        fail_msg("rank 0: %s", err.msg);
    join_pair(&p, child);
    return json_of(&r);
}

static void check_same(const char *const *sets)
{
    char *two = two_ranks(sets);
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    test_run(&sc, &r);
    assert_true(r.partition.cut_frames > 0);
    char *one = json_of(&r);
    assert_string_equal(one, two);
    free(one);
    free(two);
}

static void test_lossy(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=4", "sim.partitions=2", "observe.sample_us=0",
                          "workload.message_bytes=200000", "switch.buffer_bytes=50000", NULL};
    check_same(sets);
}

/* scenarios/incast_pfc_dcqcn.yaml with its time series: the last flows'
 * tail is sparse, so windows jump ahead, past the next sample unless the
 * exchange that schedules it counts it. */
static void test_pfc_dcqcn(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=8", "sim.partitions=2", "observe.link_rows=8",
                          "link.flow_control=pfc", "nic.encap=roce",
                          "nic.congestion_control=dcqcn", "workload.kind=incast",
                          "workload.incast_senders=32", "workload.message_bytes=1000000", NULL};
    check_same(sets);
}

/* The default's time series, halved: each part reads its own, rank 0
 * adds them up, and the next sample is agreed at the exchanges. */
static void test_series(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=4", "sim.partitions=2", "observe.max_samples=4", "observe.link_rows=8",
                          "workload.message_bytes=300000", NULL};
    check_same(sets);
}

static void test_stopped_early(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=4", "sim.partitions=2", "observe.sample_us=0",
                          "sim.max_time_us=5", "workload.message_bytes=200000", NULL};
    check_same(sets);
}

/* bnet coll's rows on two processes (bn_coll_sweep_ranks): rank 0's rows
 * as one process's in two parts, the schedule's state kept whole by the
 * parts' delivery notes. */
static void coll_two_ranks(const char *const *sets, struct bn_coll_results *out)
{
    pid_t child;
    struct pair p = fork_pair(&child);
    struct bn_ranks ranks = {p.rank, 2, &p, pair_alltoall, pair_alltoallv, pair_abort, 1};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_error err = {0};
    int rc = bn_coll_sweep_ranks(&sc, &ranks, NULL, NULL, out, &err);
    if (p.rank == 1) {
        if (rc == BN_OK)
            bn_coll_results_free(out);
        _exit(rc == BN_OK ? 0 : 1);
    }
    if (rc != BN_OK)
        fail_msg("rank 0: %s", err.msg);
    join_pair(&p, child);
}

static void check_coll(const char *const *sets)
{
    struct bn_coll_results two, one;
    coll_two_ranks(sets, &two);
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_error err = {0};
    assert_int_equal(bn_coll_sweep(&sc, &one, &err), BN_OK);
    assert_int_equal(one.nrows, two.nrows);
    for (uint32_t i = 0; i < one.nrows; i++) {
        const struct bn_coll_row *a = &one.rows[i], *b = &two.rows[i];
        assert_true(a->time_us > 0 && a->time_us == b->time_us);
        assert_true(a->busbw_gbs == b->busbw_gbs);
        assert_int_equal(a->wrong, 0);
        assert_int_equal(b->wrong, 0);
        assert_int_equal(a->events, b->events);
        assert_int_equal(a->packet_hops, b->packet_hops);
        assert_true(a->partition.cut_frames > 0);
        assert_int_equal(a->partition.cut_frames, b->partition.cut_frames);
        assert_int_equal(a->partition.windows, b->partition.windows);
    }
    bn_coll_results_free(&one);
    bn_coll_results_free(&two);
}

static void test_coll_ring(void **state)
{
    (void)state;
    const char *sets[] = {"topology.kind=fat_tree", "topology.k=4", "sim.partitions=2",
                          "coll.min_bytes=65536", "coll.max_bytes=1048576", "coll.algo=ring",
                          "coll.in_place=false", NULL};
    check_coll(sets);
}

static void test_coll_sharp(void **state)
{
    (void)state;
    const char *sets[] = {"topology.kind=fat_tree", "topology.k=4", "sim.partitions=2",
                          "coll.min_bytes=1048576", "coll.max_bytes=1048576",
                          "coll.algo=collnet", "sharp.enabled=true", "coll.iters=2",
                          "coll.warmup=1", NULL};
    check_coll(sets);
}

/* A results' pack is counted first and put into room of its exact size:
 * no doubling (at 8192 hosts a rank's 6 MB of records sat in 9 MB). */
static void test_pack_exact(void **state)
{
    (void)state;
    uint64_t rec[3] = {1, 2, 3};
    struct bn_rbuf b = {.sizing = true};
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < 1000; i++)
            bn_rbuf_put(&b, rec, sizeof rec);
        if (pass == 0) {
            assert_int_equal(b.need, 1000 * sizeof rec);
            assert_null(b.p);
            bn_rbuf_exact(&b);
        }
    }
    assert_false(b.oom);
    assert_int_equal(b.n, 1000 * sizeof rec);
    assert_int_equal(b.cap, b.n + 1);
    struct bn_rcur c = {.p = b.p + 999 * sizeof rec, .len = sizeof rec};
    uint64_t back[3];
    assert_true(bn_rcur_get(&c, back, sizeof back) && back[2] == 3 && c.len == 0);
    free(b.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack_exact),
        cmocka_unit_test(test_lossy),
        cmocka_unit_test(test_pfc_dcqcn),
        cmocka_unit_test(test_series),
        cmocka_unit_test(test_stopped_early),
        cmocka_unit_test(test_coll_ring),
        cmocka_unit_test(test_coll_sharp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
