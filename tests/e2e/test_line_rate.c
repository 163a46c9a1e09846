/*
 * One flow on an idle path reaches line rate x payload / (payload + headers +
 * wire overhead) within 1 %, for each encapsulation, several MTUs and rates.
 * The bound is computed here from the header byte counts of the standards
 * (IBTA vol. 1 and annex A17, IEEE 802.3), not from the simulator's tables.
 */
#include "support.h"

struct lr_case {
    const char *encap;
    unsigned mtu;
    double rate;
    double hdr, overhead; /* bytes per data packet */
};

static void run_case(const struct lr_case *c)
{
    char encap[64], mtu[64], rate[64], bytes[64];
    snprintf(encap, sizeof encap, "nic.encap=%s", c->encap);
    snprintf(mtu, sizeof mtu, "nic.mtu_bytes=%u", c->mtu);
    snprintf(rate, sizeof rate, "link.rate_gbps=%g", c->rate);
    /* 2 ms of data, so the path's fixed latency (~2 us) is ~0.1 % of the time */
    snprintf(bytes, sizeof bytes, "workload.message_bytes=%.0f", c->rate * 1e9 / 8 * 2e-3);
    const char *sets[] = {"workload.kind=incast", "workload.incast_senders=1", bytes, encap, mtu,
                          rate, NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results r;
    test_run(&sc, &r);
    assert_int_equal(r.flows_completed, 1);
    double bound = c->rate * c->mtu / (c->mtu + c->hdr + c->overhead);
    double got = r.flows[0].throughput_gbps;
    printf("%-4s mtu %4u %5.0f Gb/s: %.3f Gb/s, bound %.3f (%.3f%%)\n", c->encap, c->mtu, c->rate,
           got, bound, 100 * (got / bound - 1));
    assert_true(got <= bound * 1.0001);
    assert_true(got >= bound * 0.99);
    assert_ledger_balanced(&r);
    bn_results_free(&r);
}

static void test_roce_and_ib(void **state)
{
    (void)state;
    /* RoCEv2: Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4; preamble+SFD 8 + IFG 12 */
    /* InfiniBand: LRH 8 + BTH 12 + ICRC 4 + VCRC 2; no Ethernet framing */
    static const struct lr_case cases[] = {
        {"roce", 4096, 100, 62, 20}, {"roce", 1024, 100, 62, 20}, {"roce", 4096, 400, 62, 20},
        {"roce", 9000, 800, 62, 20}, {"ib", 4096, 400, 26, 0},    {"ib", 2048, 200, 26, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_roce_and_ib)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
