/*
 * PFC headroom, thresholds and in-flight bound; see pfc.h for the formulas and
 * their sources (Linux mlx5 en/port_buffer.c, IEEE 802.1Qbb delay components).
 */
#include "link/pfc.h"

#include <math.h>

/* mlx5 computes with the speed in Mb/s and never below 40G. */
static uint64_t mlx5_speed_mbps(double speed_gbps)
{
    double mbps = speed_gbps > 0 ? floor(speed_gbps * 1000.0 + 0.5) : 0;
    return mbps < 40000 ? 40000 : (uint64_t)mbps;
}

uint64_t bn_pfc_headroom_bytes(double speed_gbps, double cable_m, uint32_t mtu)
{
    uint64_t cable = cable_m > 0 ? (uint64_t)floor(cable_m + 0.5) : 0;
    uint64_t speed = mlx5_speed_mbps(speed_gbps);
    /* Same operation order as the driver: each '/' truncates where it stands. */
    return (301 + 216 * cable / 100) * speed / 1000 + 272 * (uint64_t)mtu / 100;
}

int bn_pfc_thresholds(uint64_t buffer_bytes, uint64_t headroom_bytes, uint32_t mtu,
                      uint64_t *xoff, uint64_t *xon, struct bn_error *err)
{
    if (buffer_bytes < headroom_bytes + mtu)
        return bn_fail(err, BN_EINPUT,
                       "pfc: buffer %llu B is below headroom %llu B + MTU %u B",
                       (unsigned long long)buffer_bytes, (unsigned long long)headroom_bytes,
                       mtu);
    *xoff = buffer_bytes - headroom_bytes;
    *xon = *xoff - mtu;
    return BN_OK;
}

/* Bytes sent in `ps` picoseconds at `mbps`, rounded up: ps * Mb/s = 1e-6 bits. */
static uint64_t bytes_in(bn_time_t ps, uint64_t mbps)
{
    if (ps <= 0)
        return 0;
    const uint64_t per_byte = 8ULL * 1000000ULL;
    return ((uint64_t)ps * mbps + per_byte - 1) / per_byte;
}

uint64_t bn_pfc_inflight_bytes(double speed_gbps, bn_time_t one_way_delay_ps,
                               uint32_t max_frame_bytes, bn_time_t pause_response_ps)
{
    uint64_t mbps = speed_gbps > 0 ? (uint64_t)floor(speed_gbps * 1000.0 + 0.5) : 0;
    return bytes_in(2 * one_way_delay_ps, mbps) + 2ULL * max_frame_bytes +
           bytes_in(pause_response_ps, mbps);
}
