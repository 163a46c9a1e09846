/*
 * Link impairments on a hand-built two-port link (no simulation):
 *  - a frame of b bits survives a bit-error rate p with probability
 *    (1 - p)^b: the loss probability is checked against the binomial
 *    series of 1 - (1 - p)^b (or the power itself where b p >= 1), from
 *    1e-12 to 1e-3;
 *  - 200,000 frames of 4,158 bytes over a link with BER 1e-5 (each lost
 *    with probability 0.283) lose a count inside the binomial 99.99 %
 *    interval (mean +- 3.9 sigma), and every loss is in the lost ledger,
 *    not the drops;
 *  - a link going down loses what its two ports had queued (the lost
 *    ledger, at the port), marks both ends down, and every frame arriving
 *    on it is lost; coming up, it carries frames again.
 */
#include <math.h>

#include "support.h"

#include "link/fabric.h"
#include "link/impair.h"

struct rig {
    struct bn_fabric f;
    struct bn_port port[2];
    struct bn_port_stats stats[2];
};

static void rig_init(struct rig *r)
{
    memset(r, 0, sizeof *r);
    r->f.ports = r->port;
    r->f.stats = r->stats;
    r->f.nports = 2;
    r->f.fc = bn_fc_at(0); /* lossy */
    r->f.wire_overhead = 20;
    assert_int_equal(bn_pool_init(&r->f.pool, 1024), 0);
    assert_int_equal(bn_evq_init(&r->f.evq, 1024), 0);
    for (int i = 0; i < 2; i++) {
        bn_pktq_init(&r->port[i].q);
        r->port[i].rate_bps = 400000000000ULL;
        r->port[i].peer = (uint32_t)(1 - i);
        r->port[i].buffer_bytes = 1u << 30;
        r->port[i].busy_until = BN_TIME_LIMIT; /* sending for ever: what is offered queues */
    }
}

static void rig_free(struct rig *r)
{
    bn_impair_free(&r->f);
    bn_pool_free(&r->f.pool);
    bn_evq_free(&r->f.evq);
}

static uint32_t frame(struct rig *r, uint16_t bytes)
{
    uint32_t pkt = bn_fabric_new_packet(&r->f);
    assert_int_not_equal(pkt, BN_PKT_NONE);
    r->f.pool.pkts[pkt] = (struct bn_packet){.bytes = bytes};
    bn_fabric_count_injected(&r->f, &r->f.pool.pkts[pkt]);
    return pkt;
}

static void test_frame_error_probability(void **state)
{
    (void)state;
    const double bers[] = {1e-12, 1e-9, 1e-6, 1e-3};
    const uint64_t bits[] = {64 * 8, 1538 * 8, 4158 * 8};
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 3; j++) {
            /* 1 - (1 - p)^b: by the binomial series where b p < 1 (no
             * cancellation), else directly */
            double want = 0, term = 1, b = (double)bits[j], q = bers[i];
            if (b * q < 1) {
                for (int k = 1; k < 40; k++) {
                    term *= (b - k + 1) / k * q;
                    want += (k % 2 ? term : -term);
                }
            } else {
                want = 1 - pow(1 - q, b);
            }
            double got = bn_link_frame_error_prob(bers[i], bits[j]);
            assert_true(fabs(got - want) <= 1e-9 * want + 1e-15);
        }
    assert_true(bn_link_frame_error_prob(0, 1000) == 0);
}

static void test_bit_errors_binomial(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    const uint16_t bytes = 4138; /* + 20 wire overhead = 4158 bytes on the wire */
    const double ber = 1e-5;
    struct bn_error err = {0};
    assert_int_equal(bn_link_set_ber(&r.f, 0, ber, 7, &err), BN_OK);
    assert_true(r.f.impaired);
    const uint32_t n = 200000;
    uint32_t lost = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t pkt = frame(&r, bytes);
        if (bn_link_loses(&r.f, 1, pkt))
            lost++;
        else
            bn_pool_put(&r.f.pool, pkt);
    }
    double p = 1 - pow(1 - ber, 8.0 * (bytes + 20)), mean = n * p, sd = sqrt(n * p * (1 - p));
    printf("BER %g, %u frames of %u bytes: %u lost, expected %.0f +- %.0f\n", ber, n, bytes + 20,
           lost, mean, sd);
    assert_true(fabs(lost - mean) < 3.9 * sd);
    assert_int_equal(r.f.pkts_lost, lost);
    assert_int_equal(r.f.pkts_corrupted, lost);
    assert_int_equal(r.f.pkts_dropped, 0);
    assert_int_equal(r.stats[1].lost, lost);
    assert_int_equal(bn_link_set_ber(&r.f, 0, 0, 7, &err), BN_OK);
    assert_false(r.f.impaired);
    rig_free(&r);
}

static void test_link_down_loses_queued_and_arriving(void **state)
{
    (void)state;
    struct rig r;
    rig_init(&r);
    struct bn_error err = {0};
    for (int i = 0; i < 5; i++)
        bn_port_enqueue(&r.f, 0, frame(&r, 1000));
    for (int i = 0; i < 3; i++)
        bn_port_enqueue(&r.f, 1, frame(&r, 64));
    assert_int_equal(bn_link_set_down(&r.f, 1, true, &err), BN_OK);
    assert_true(bn_link_is_down(&r.f, 0) && bn_link_is_down(&r.f, 1));
    assert_int_equal(r.f.pkts_lost, 8);
    assert_int_equal(r.stats[0].lost, 5);
    assert_int_equal(r.stats[1].lost, 3);
    assert_int_equal(r.f.bytes_lost, 5 * 1000 + 3 * 64);
    assert_true(bn_pktq_empty(&r.port[0].q) && bn_pktq_empty(&r.port[1].q));
    assert_true(bn_link_loses(&r.f, 1, frame(&r, 100))); /* on the wire when it died */
    bn_port_enqueue(&r.f, 0, frame(&r, 100));             /* routed into it */
    assert_int_equal(r.f.pkts_lost, 10);
    assert_int_equal(bn_link_set_down(&r.f, 0, false, &err), BN_OK);
    assert_false(r.f.impaired);
    uint32_t pkt = frame(&r, 100);
    assert_false(bn_link_loses(&r.f, 1, pkt));
    bn_pool_put(&r.f.pool, pkt);
    assert_int_equal(r.f.pkts_injected, r.f.pkts_lost + 1);
    rig_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_error_probability),
        cmocka_unit_test(test_bit_errors_binomial),
        cmocka_unit_test(test_link_down_loses_queued_and_arriving),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
