/*
 * A port's queue on a hand-built one-port fabric (no simulation):
 *  - ECN marking with Kmin = 0, Kmax = 1 byte marks every frame that joins
 *    a non-empty queue; 70,000 of them on one port (past the 16-bit count
 *    the port's line keeps, whose carries go to its counters) are counted
 *    exactly, and each marked frame carries CE;
 *  - a drop-tail buffer admits frames while they fit, drops the rest, and
 *    the byte ledger of queue + drops equals what was offered;
 *  - a queue with no drop limit that would pass 4 GiB drops the frame and
 *    flags the fabric (the run then stops with an error), instead of
 *    wrapping its 32-bit length;
 *  - the packet pool grows in place: 200,000 packets from a pool of 1024
 *    come in index order, at the same address, keeping what was written;
 *    freed ones come back last freed first, then fresh ones resume.
 */
#include "support.h"

#include "link/fabric.h"

struct rig {
    struct bn_fabric f;
    struct bn_port port;
    struct bn_port_stats stats;
};

static void rig_init(struct rig *r, uint32_t buffer_bytes)
{
    memset(r, 0, sizeof *r);
    r->f.ports = &r->port;
    r->f.stats = &r->stats;
    r->f.nports = 1;
    r->f.fc = bn_fc_at(0); /* lossy */
    assert_string_equal(r->f.fc->name, "lossy");
    assert_int_equal(bn_pool_init(&r->f.pool, 1024), 0);
    assert_int_equal(bn_evq_init(&r->f.evq, 1024), 0);
    bn_pktq_init(&r->port.q);
    r->port.rate_bps = 100000000000ULL;
    r->port.busy_until = BN_TIME_LIMIT; /* sending a frame for ever: everything queues */
    r->port.buffer_bytes = buffer_bytes;
    bn_rng_init(&r->stats.rng, 1, 1);
}

static void rig_free(struct rig *r)
{
    bn_pool_free(&r->f.pool);
    bn_evq_free(&r->f.evq);
}

static uint32_t offer(struct rig *r, uint16_t bytes)
{
    uint32_t pkt = bn_fabric_new_packet(&r->f);
    assert_int_not_equal(pkt, BN_PKT_NONE);
    r->f.pool.pkts[pkt] = (struct bn_packet){.bytes = bytes, .flags = BN_PKT_ECN_CAPABLE};
    bn_fabric_count_injected(&r->f, &r->f.pool.pkts[pkt]);
    bn_port_enqueue(&r->f, 0, pkt);
    return pkt;
}

static void test_pool_grows_in_place(void **state)
{
    (void)state;
    struct bn_pool p;
    assert_int_equal(bn_pool_init(&p, 1024), 0);
    const struct bn_packet *base = p.pkts;
    enum { N = 200000 };
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(bn_pool_get(&p), i);
        p.pkts[i].psn = i * 7u;
    }
    assert_ptr_equal(p.pkts, base);
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal(p.pkts[i].psn, i * 7u);
    bn_pool_put(&p, 5);
    bn_pool_put(&p, 77);
    bn_pool_put(&p, 123456);
    assert_int_equal(p.in_use, N - 3);
    assert_int_equal(bn_pool_get(&p), 123456);
    assert_int_equal(bn_pool_get(&p), 77);
    assert_int_equal(bn_pool_get(&p), 5);
    assert_int_equal(bn_pool_get(&p), N);
    assert_int_equal(p.high_water, N + 1);
    bn_pool_free(&p);
}

static void test_ecn_marks_counted_past_16_bits(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, BN_PORT_UNBOUNDED);
    r.f.ecn = (struct bn_ecn_params){.enabled = true, .kmin = 0, .kmax = 1, .pmax = 1.0};
    const uint32_t n = 70000;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t pkt = offer(&r, 64);
        bool ce = (r.f.pool.pkts[pkt].flags & BN_PKT_ECN_CE) != 0;
        assert_int_equal(ce, i > 0); /* the first found the queue empty */
    }
    assert_int_equal(bn_port_ecn_marks(&r.f, 0), n - 1);
    assert_int_equal(r.port.q.bytes, 64u * n);
    rig_free(&r);
}

static void test_drop_tail_ledger(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, 10000);
    for (int i = 0; i < 1000; i++) /* the count's low bits carry over (256) */
        offer(&r, 1000);
    assert_int_equal(r.port.q.bytes, 10000);
    assert_int_equal(bn_port_drops(&r.f, 0), 990);
    assert_int_equal(r.f.bytes_injected, r.port.q.bytes + r.f.bytes_dropped);
    assert_int_equal(r.f.queue_overflow, 0);
    rig_free(&r);
}

static void test_unbounded_queue_stops_at_4_gib(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r, BN_PORT_UNBOUNDED);
    offer(&r, 1000);
    r.port.q.bytes = UINT32_MAX - 500; /* as if 4 GiB were queued */
    offer(&r, 400);
    assert_int_equal(r.f.queue_overflow, 0);
    assert_int_equal(r.port.q.bytes, UINT32_MAX - 100);
    offer(&r, 1000);
    assert_int_equal(r.f.queue_overflow, 1); /* port 0, plus one */
    assert_int_equal(r.port.q.bytes, UINT32_MAX - 100);
    assert_int_equal(r.f.pkts_dropped, 1);
    rig_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_grows_in_place),
        cmocka_unit_test(test_ecn_marks_counted_past_16_bits),
        cmocka_unit_test(test_drop_tail_ledger),
        cmocka_unit_test(test_unbounded_queue_stops_at_4_gib),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
