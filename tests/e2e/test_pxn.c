/*
 * PXN (coll.pxn): a send between GPUs of different servers and rails first
 * crosses NVLink to its server's GPU on the destination's rail, whose NIC
 * sends it on. On a rail-optimized fabric whose leaves have a quarter of
 * their host bandwidth up to the spines (4:1), an AllToAll of 16 MiB per
 * GPU over 4 servers of 8 then never crosses a spine: each NIC sends its
 * rail's share of its 8 GPUs' data, 8 x 3 servers x 512 KiB = 12 MiB, so
 * the collective takes that over the NIC's goodput (within 3 %), against
 * more than 3x as long without PXN, where three quarters of the data
 * squeeze through the spines; both deliver every element right.
 */
#include "support.h"


static double alltoall(bool pxn, double *goodput_gbps)
{
    const char *sets[] = {"fabric=ib-ndr", "nic.congestion_control=none",
                          "topology.kind=rail_optimized", "topology.gpus_per_server=8",
                          "topology.servers_per_su=4", "topology.scalable_units=1",
                          "topology.k=8", "topology.oversubscription=4",
                          "scale_up.domain_gpus=8", "scale_up.rate_gbps=3600",
                          "coll.op=alltoall", "coll.min_bytes=16MiB", "coll.max_bytes=16MiB",
                          "coll.in_place=false", pxn ? "coll.pxn=true" : "coll.pxn=false", NULL};
    struct bn_coll_row row;
    test_coll_row(sets, &row, goodput_gbps);
    return row.time_us;
}

static void test_pxn_keeps_to_the_rails(void **state)
{
    (void)state;
    double gbps;
    double with = alltoall(true, &gbps), without = alltoall(false, &gbps);
    double bound_us = 8 * 3 * 524288.0 * 8 / (gbps * 1e3); /* one NIC's 12 MiB */
    print_message("alltoall 16 MiB, 4 x 8 GPUs, 4:1 spines: pxn %.1f us (NIC bound %.1f), "
                  "without %.1f us\n", with, bound_us, without);
    /* and NCCL's launch latency once (Ring/Simple's baseLat, 8.4 us) */
    assert_true(with >= bound_us && with < 1.03 * bound_us + 8.4);
    assert_true(without > 3 * with);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pxn_keeps_to_the_rails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
