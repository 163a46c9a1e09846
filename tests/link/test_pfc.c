/*
 * PFC sizing against its sources: seven headroom values worked out from the
 * Linux mlx5 driver's formula (en/port_buffer.c), the mlx5 XOFF/XON rule, and the 802.1Qbb
 * in-flight bound for a case worked by hand from the components in link/pfc.h.
 */
#include "support.h"

#include "link/pfc.h"

static void test_headroom_documented_examples(void **state)
{
    (void)state;
    static const struct {
        double gbps, cable_m;
        uint32_t mtu;
        uint64_t bytes;
    } ex[] = {
        {40, 7, 1500, 16720},   {100, 7, 1500, 35680},  {100, 7, 4096, 42741},
        {100, 100, 1500, 55780}, {200, 7, 4096, 74341}, {400, 7, 4096, 137541},
        {400, 100, 9216, 231867},
    };
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        uint64_t got = bn_pfc_headroom_bytes(ex[i].gbps, ex[i].cable_m, ex[i].mtu);
        if (got != ex[i].bytes)
            fail_msg("%gG %gm mtu %u: %llu != %llu", ex[i].gbps, ex[i].cable_m, ex[i].mtu,
                     (unsigned long long)got, (unsigned long long)ex[i].bytes);
    }
}

/* Below 40G the driver computes as if at 40G; cable length is whole metres. */
static void test_headroom_floor_and_rounding(void **state)
{
    (void)state;
    assert_int_equal(bn_pfc_headroom_bytes(10, 7, 1500), 16720);
    assert_int_equal(bn_pfc_headroom_bytes(25, 7, 1500), 16720);
    assert_int_equal(bn_pfc_headroom_bytes(100, 6.6, 1500), 35680);
    /* 0 m: 301 * 100 + 4080 */
    assert_int_equal(bn_pfc_headroom_bytes(100, 0, 1500), 34180);
}

static void test_thresholds(void **state)
{
    (void)state;
    struct bn_error err = {0};
    uint64_t xoff = 0, xon = 0;
    /* 256 KB buffer, 100G/7m/1500 headroom: xoff = 262144 - 35680, xon = xoff - 1500. */
    assert_int_equal(bn_pfc_thresholds(262144, 35680, 1500, &xoff, &xon, &err), BN_OK);
    assert_int_equal(xoff, 226464);
    assert_int_equal(xon, 224964);
    /* Exactly headroom + MTU is the smallest legal buffer: xon = 0. */
    assert_int_equal(bn_pfc_thresholds(37180, 35680, 1500, &xoff, &xon, &err), BN_OK);
    assert_int_equal(xoff, 1500);
    assert_int_equal(xon, 0);
    assert_int_equal(bn_pfc_thresholds(37179, 35680, 1500, &xoff, &xon, &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, "headroom"));
}

/*
 * 100G, 1 us one-way, 9216 B frames, D-Resp 201,728 bit times at 100G
 * (= 2017.28 ns): wire 2 * 1 us * 12.5 B/ns = 25,000 B; frames 2 * 9216 =
 * 18,432 B; response 201,728 / 8 = 25,216 B; total 68,648 B.
 */
static void test_inflight_hand_case(void **state)
{
    (void)state;
    assert_int_equal(bn_pfc_inflight_bytes(100, 1 * BN_PS_PER_US, 9216, 2017280), 68648);
    /* 400G, 100 m at 5 ns/m (500 ns), 1500 B, D-Resp 463,360 BT (1158.4 ns):
       2 * 500 * 50 = 50,000 + 3,000 + 57,920 = 110,920. */
    assert_int_equal(bn_pfc_inflight_bytes(400, 500 * BN_PS_PER_NS, 1500, 1158400), 110920);
    /* A partial byte rounds up: 1 ps at 100G is 0.1 bit. */
    assert_int_equal(bn_pfc_inflight_bytes(100, 0, 0, 1), 1);
    assert_int_equal(bn_pfc_inflight_bytes(100, 0, 0, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headroom_documented_examples),
        cmocka_unit_test(test_headroom_floor_and_rounding),
        cmocka_unit_test(test_thresholds),
        cmocka_unit_test(test_inflight_hand_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
