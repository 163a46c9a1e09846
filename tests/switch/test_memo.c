/*
 * Path memos (switch.c) against the routing lookup they stand in for, on a
 * built k=8 fat-tree (3 tiers, 5 switches on an inter-pod path) and on a
 * 2-tier leaf-spine:
 *  - for 2,000 random flows, data and acknowledgement directions, the first
 *    packet (which walks and memoizes the path) and a later one (served by
 *    the memo at its first switch, by its stamp after) take, switch by
 *    switch, the ports the lookup with memos off takes, and end with the
 *    same path hash and hop count;
 *  - a stamped packet is routed by its stamp alone (the memos wiped after
 *    its first switch), and a path a stamp cannot hold (a leaf-spine of
 *    radix 256, whose ports lie more than 127 apart) is left to the lookup;
 *  - a packet whose entropy or destination differs from its queue pair's
 *    memo is routed by the lookup, not by the memo;
 *  - memos are off where a memo could be wrong: per-packet entropy, a policy
 *    that is not pure (adaptive), non-minimal routing.
 */
#include "sim_support.h"

#include "core/rng.h"

/* Route `pk` from host `src`'s first switch to its destination host,
 * recording the egress ports; returns how many switches forwarded it. */
static uint32_t walk(struct bn_sim *s, uint32_t src, struct bn_packet *pk, uint32_t *outs)
{
    const struct bn_port *ports = s->fab.ports;
    uint32_t in = ports[s->host_port[src]].peer, n = 0;
    for (;;) {
        assert_true(n < 16);
        uint32_t out = bn_switch_route(&s->sw, in, pk);
        outs[n++] = out;
        in = ports[out].peer;
        if (ports[in].flags & BN_PORT_AT_HOST)
            break;
    }
    assert_int_equal(ports[in].node, pk->dst);
    return n;
}

/* Returns whether the memoized packet was stamped at its first switch. */
static bool check_same_as_lookup(struct bn_sim *s, uint32_t qp, uint32_t src,
                                 struct bn_packet proto)
{
    uint32_t want[16], got[16];
    struct bn_packet ref = proto, first = proto, later = proto;
    s->sw.memo_on = false;
    uint32_t n = walk(s, src, &ref, want);
    s->sw.memo_on = true;
    for (int round = 0; round < 2; round++) { /* learns, then is served */
        struct bn_packet *pk = round == 0 ? &first : &later;
        pk->qp = qp;
        assert_int_equal(walk(s, src, pk, got), n);
        for (uint32_t i = 0; i < n; i++)
            assert_int_equal(got[i], want[i]);
        assert_int_equal(pk->path, ref.path);
        assert_int_equal(pk->hop, ref.hop);
    }
    return (later.flags & BN_PKT_STAMPED) != 0;
}

/* want_unstamped: some paths do not fit a stamp */
static void check_fabric(const char *const *sets, uint32_t want_max_hops, bool want_unstamped)
{
    struct bn_sim *s = test_sim_build(sets);
    assert_true(s->sw.memo_on);
    struct bn_rng rng;
    bn_rng_init(&rng, 42, 1);
    uint32_t nh = s->topo.nhosts, max_hops = 0, stamped = 0, unstamped = 0;
    for (uint32_t qp = 0; qp < 2000; qp++) {
        uint32_t a = (uint32_t)(bn_rng_next(&rng) % nh), b = (uint32_t)(bn_rng_next(&rng) % nh);
        if (a == b)
            continue;
        uint32_t entropy = (uint32_t)bn_rng_next(&rng);
        struct bn_packet data = {.dst = b, .entropy = entropy, .type = BN_PKT_DATA};
        struct bn_packet ack = {.dst = a, .entropy = entropy ^ 1u, .type = BN_PKT_ACK};
        bool st = check_same_as_lookup(s, qp, a, data);
        check_same_as_lookup(s, qp, b, ack);
        uint32_t outs[16];
        data.qp = qp;
        uint32_t n = walk(s, a, &data, outs);
        max_hops = n > max_hops ? n : max_hops;
        if (n > 1) { /* a one-switch path has nothing to stamp */
            stamped += st;
            unstamped += !st;
        }
    }
    assert_int_equal(max_hops, want_max_hops);
    assert_true(stamped > 0);
    assert_true(want_unstamped ? unstamped > 0 : unstamped == 0);
    test_sim_free(s);
}

static void test_fat_tree(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=8", NULL};
    check_fabric(sets, 5, false);
}

static void test_leaf_spine(void **state)
{
    (void)state;
    const char *sets[] = {"topology.kind=leaf_spine", NULL};
    check_fabric(sets, 3, false);
}

static void test_wide_leaf_spine(void **state)
{
    (void)state;
    const char *sets[] = {"topology.kind=leaf_spine", "topology.k=256", NULL};
    check_fabric(sets, 3, true);
}

/* Past its first switch a stamped packet needs no memo. */
static void test_stamp_alone(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=8", NULL};
    struct bn_sim *s = test_sim_build(sets);
    const struct bn_port *ports = s->fab.ports;
    uint32_t want[16], outs[16];
    struct bn_packet proto = {.qp = 3, .dst = 100, .entropy = 77, .type = BN_PKT_DATA};
    struct bn_packet ref = proto, first = proto, pk = proto;
    s->sw.memo_on = false;
    uint32_t n = walk(s, 0, &ref, want);
    assert_int_equal(n, 5);
    s->sw.memo_on = true;
    walk(s, 0, &first, outs); /* memoizes */
    uint32_t in = ports[s->host_port[0]].peer;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t out = bn_switch_route(&s->sw, in, &pk);
        assert_int_equal(out, want[i]);
        if (i == 0) {
            assert_true(pk.flags & BN_PKT_STAMPED);
            memset(s->sw.memo, 0, (size_t)s->sw.memo_cap * sizeof *s->sw.memo);
        }
        in = ports[out].peer;
    }
    assert_int_equal(pk.path, ref.path);
    test_sim_free(s);
}

/* A memo answers only the packets whose destination and entropy it holds. */
static void test_mismatch_falls_back(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=8", NULL};
    struct bn_sim *s = test_sim_build(sets);
    uint32_t outs[16], want[16];
    struct bn_packet first = {.qp = 7, .dst = 100, .entropy = 1, .type = BN_PKT_DATA};
    walk(s, 0, &first, outs); /* memoizes qp 7's data path */
    for (uint32_t e = 2; e < 200; e++) {
        struct bn_packet other = {.qp = 7, .dst = 100, .entropy = e, .type = BN_PKT_DATA};
        struct bn_packet ref = other;
        /* a packet that did not start this path is not at hop 0 of it */
        other.hop = 1;
        ref.hop = 1;
        s->sw.memo_on = false;
        uint32_t n = walk(s, 0, &ref, want);
        s->sw.memo_on = true;
        assert_int_equal(walk(s, 0, &other, outs), n);
        for (uint32_t i = 0; i < n; i++)
            assert_int_equal(outs[i], want[i]);
    }
    test_sim_free(s);
}

static void test_off_where_unsafe(void **state)
{
    (void)state;
    const char *spray[] = {"topology.k=8", "nic.entropy=per_packet", NULL};
    const char *adaptive[] = {"topology.k=8", "switch.load_balancing=adaptive", NULL};
    const char *ugal[] = {"topology.kind=dragonfly_plus", "switch.nonminimal=ugal", NULL};
    const char *const *cases[] = {spray, adaptive, ugal};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct bn_sim *s = test_sim_build(cases[i]);
        assert_false(s->sw.memo_on);
        test_sim_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fat_tree),
        cmocka_unit_test(test_leaf_spine),
        cmocka_unit_test(test_wide_leaf_spine),
        cmocka_unit_test(test_stamp_alone),
        cmocka_unit_test(test_mismatch_falls_back),
        cmocka_unit_test(test_off_where_unsafe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
