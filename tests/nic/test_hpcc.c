/*
 * HPCC's window (cc_hpcc.c) against Algorithm 1 of the paper, by hand:
 * one 100 Gb/s hop, T = 12 us (the rig's fabric round trip), so W_init =
 * 150,000 bytes and W_AI = 50 Mb/s x 12 us = 75 bytes; eta 0.95, maxStage
 * 5. Records are fed as the ACKs would carry them.
 */
#include <math.h>

#include "cc_rig.h"

#define W_INIT 150000.0
#define W_AI 75.0

struct hop_feed {
    struct rig r;
    struct bn_port port[2];
    struct bn_int_rec rec;
};

static void feed_setup(struct hop_feed *h)
{
    const char *sets[] = {"nic.congestion_control=hpcc", NULL};
    rig_setup(&h->r, sets, "hpcc");
    memset(h->port, 0, sizeof h->port);
    h->port[0].rate_bps = h->port[1].rate_bps = 100000000000ULL;
    h->r.f.ports = h->port;
    h->rec = (struct bn_int_rec){.nhop = 1};
}

/* An ACK whose one hop sent `bytes` in `dt_ns` since the last and holds
 * `qlen` bytes; `progress`: it acknowledges past the last update. */
static void ack(struct hop_feed *h, uint32_t dt_ns, uint32_t bytes, uint32_t qlen, bool progress)
{
    h->rec.hop[0].ts_ns += dt_ns;
    h->rec.hop[0].tx_bytes += bytes;
    h->rec.hop[0].qlen = qlen;
    if (progress) {
        h->r.qp.snd_nxt += 10;
        h->r.qp.snd_una = h->r.qp.snd_nxt - 1;
    }
    h->r.n.cc_int = &h->rec;
    rig_ack(&h->r, false, 0);
    h->r.n.cc_int = NULL;
}

static void test_rules(void **state)
{
    (void)state;
    struct hop_feed h;
    feed_setup(&h);
    assert_float_equal(rig_cwnd(&h.r), W_INIT, 1e-6);
    ack(&h, 0, 0, 0, true); /* the first record is only kept */
    assert_float_equal(rig_cwnd(&h.r), W_INIT, 1e-6);
    /* a round trip at line rate, no queue: U = 1 >= eta, W = Wc eta / U + W_AI */
    ack(&h, 12000, 150000, 0, true);
    double w = W_INIT * 0.95 + W_AI;
    assert_float_equal(rig_cwnd(&h.r), w, 1e-6);
    assert_float_equal((double)h.r.qp.rate_bps, floor(w * 8 / 12e-6), 2);
    /* a standing queue of 0.1 BDP on top, but the last record's queue was
     * 0 (the smaller counts): U stays 1; the next sees 0.1 more */
    ack(&h, 12000, 150000, 15000, true);
    w = w * 0.95 + W_AI;
    assert_float_equal(rig_cwnd(&h.r), w, 1e-6);
    ack(&h, 12000, 150000, 15000, true);
    w = w * 0.95 / 1.1 + W_AI;
    assert_float_equal(rig_cwnd(&h.r), w, 1e-6);
    free(h.r.params);
}

/* Below eta: additive steps from the reference, once per round trip
 * (ACKs within it react from Wc without moving it), maxStage of them,
 * then a multiplicative one. */
static void test_stages(void **state)
{
    (void)state;
    struct hop_feed h;
    feed_setup(&h);
    ack(&h, 0, 0, 0, true);
    ack(&h, 12000, 75000, 0, true); /* U = 0.5: MI, W = Wc 0.95 / 0.5, capped at W_init */
    assert_float_equal(rig_cwnd(&h.r), W_INIT, 1e-6);
    ack(&h, 12000, 150000, 0, true); /* U = 1 */
    double wc = W_INIT * 0.95 + W_AI;
    assert_float_equal(rig_cwnd(&h.r), wc, 1e-6);
    /* half the rate a round trip: U = 0.5 */
    for (int stage = 0; stage < 5; stage++) {
        ack(&h, 6000, 37500, 0, false); /* within the round trip: Wc + W_AI, Wc kept */
        assert_float_equal(rig_cwnd(&h.r), wc + W_AI, 1e-6);
        ack(&h, 12000, 75000, 0, true);
        wc += W_AI;
        assert_float_equal(rig_cwnd(&h.r), wc, 1e-6);
    }
    /* five additive stages: now multiplicative, from U smoothed over T */
    ack(&h, 12000, 75000, 0, true);
    assert_float_equal(rig_cwnd(&h.r), wc * 0.95 / 0.5 > W_INIT ? W_INIT : wc * 0.95 / 0.5 + W_AI,
                       1e-6);
    free(h.r.params);
}

/* A record from another port (the path changed) is no sample; an ACK
 * without records changes nothing. */
static void test_new_path(void **state)
{
    (void)state;
    struct hop_feed h;
    feed_setup(&h);
    ack(&h, 0, 0, 0, true);
    ack(&h, 12000, 150000, 0, true);
    double w = rig_cwnd(&h.r);
    h.rec.hop[0].port = 1;
    ack(&h, 12000, 150000, 150000, true);
    assert_float_equal(rig_cwnd(&h.r), w, 1e-6);
    rig_ack(&h.r, false, 0); /* no telemetry */
    assert_float_equal(rig_cwnd(&h.r), w, 1e-6);
    free(h.r.params);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_stages),
        cmocka_unit_test(test_new_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
