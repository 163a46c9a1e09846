/*
 * The weighted path walk (switch/walk.c), the one the ideal FCTs and the
 * flow level share, on a built k=8 fat-tree (hosts 0 and 127 in different
 * pods: host, ToR, aggregation, core, aggregation, ToR, host):
 *  - one flow by ECMP's hash: six hops, one port each, all of the flow;
 *  - the same flow spread per packet: each hop's shares add up to 1, the
 *    aggregation hop splits over 4 ports and the core hop over 16 (k/2 x
 *    k/2 paths), the last two hops converge on one ToR and one host port;
 *  - the followed path's next port is the next hop's followed port;
 *  - a hop function that stops early and one that fails end the walk so;
 *    too few hops allowed is BN_WALK_LONG;
 *  - the cut-through rule (link/fabric.h): a port whose far switch cuts
 *    through does so onto a port no faster, not onto a faster one.
 */
#include "sim_support.h"

#include "switch/walk.h"

struct seen {
    uint32_t hops, n[16], on[16], on_next[16];
    double sum[16];
    int stop_at; /* -1: never */
    int verdict;
};

static int record(void *ctx, const struct bn_walk_hop *h)
{
    struct seen *x = ctx;
    assert_true(h->k < 16);
    x->hops = h->k + 1;
    x->n[h->k] = h->n;
    x->on[h->k] = h->on;
    x->on_next[h->k] = h->on_next;
    for (uint32_t i = 0; i < h->n; i++)
        x->sum[h->k] += h->w[i];
    return (int)h->k == x->stop_at ? x->verdict : 0;
}

static int walk(struct bn_sim *s, struct bn_switch_walk *w, bool spread, uint32_t max_hops,
                struct seen *x)
{
    struct bn_packet probe = {.qp = 0, .dst = 127, .entropy = 12345, .type = BN_PKT_DATA};
    return bn_switch_walk(w, &s->sw, s->fab.ports, s->host_port[0], &probe, spread, max_hops,
                          record, x);
}

static void test_walks(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=8", NULL};
    struct bn_sim *s = test_sim_build(sets);
    struct bn_switch_walk w;
    assert_int_equal(bn_switch_walk_init(&w, s->fab.nports, s->fab.nports + 1 + BN_WALK_CHOICES),
                     BN_OK);

    struct seen one = {.stop_at = -1};
    assert_int_equal(walk(s, &w, false, 16, &one), BN_WALK_OK);
    assert_int_equal(one.hops, 6);
    for (uint32_t k = 0; k < 6; k++) {
        assert_int_equal(one.n[k], 1);
        assert_true(one.sum[k] == 1.0);
        if (k + 1 < 6)
            assert_int_equal(one.on_next[k], one.on[k + 1]);
    }
    assert_int_equal(one.on_next[5], UINT32_MAX);
    assert_int_equal(s->fab.ports[s->fab.ports[one.on[5]].peer].node, 127);

    struct seen spread = {.stop_at = -1};
    assert_int_equal(walk(s, &w, true, 16, &spread), BN_WALK_OK);
    assert_int_equal(spread.hops, 6);
    const uint32_t width[6] = {1, 4, 16, 16, 4, 1}; /* ports a spread flow crosses per hop */
    for (uint32_t k = 0; k < 6; k++) {
        assert_int_equal(spread.n[k], width[k]);
        assert_true(spread.sum[k] > 1 - 1e-12 && spread.sum[k] < 1 + 1e-12);
    }

    struct seen stop = {.stop_at = 2, .verdict = 1}, bad = {.stop_at = 1, .verdict = -1};
    assert_int_equal(walk(s, &w, false, 16, &stop), BN_WALK_OK);
    assert_int_equal(stop.hops, 3);
    assert_int_equal(walk(s, &w, false, 16, &bad), BN_WALK_FAILED);
    struct seen shortw = {.stop_at = -1};
    assert_int_equal(walk(s, &w, false, 5, &shortw), BN_WALK_LONG);
    bn_switch_walk_free(&w);
    test_sim_free(s);
}

static void test_cut_through_rule(void **state)
{
    (void)state;
    struct bn_port ports[3] = {
        {.rate_bps = 100, .flags = BN_PORT_PEER_SWITCH | BN_PORT_CUT_OUT},
        {.rate_bps = 100},
        {.rate_bps = 400},
    };
    assert_true(bn_port_cuts_through(ports, 0, UINT32_MAX));
    assert_true(bn_port_cuts_through(ports, 0, 1));  /* as fast: after the head */
    assert_false(bn_port_cuts_through(ports, 0, 2)); /* faster: waits for the tail */
    ports[0].flags = BN_PORT_PEER_SWITCH;            /* store-and-forward */
    assert_false(bn_port_cuts_through(ports, 0, 1));
    ports[0].flags = BN_PORT_CUT_OUT | BN_PORT_PEER_HOST; /* a NIC at the far end */
    assert_false(bn_port_cuts_through(ports, 0, UINT32_MAX));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walks),
        cmocka_unit_test(test_cut_through_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
