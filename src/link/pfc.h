/*
 * PFC (IEEE 802.1Qbb priority flow control) sizing: how much headroom a
 * lossless receive buffer needs above its pause threshold, where the XOFF and
 * XON thresholds sit, and the worst-case bytes still arriving after a receiver
 * decides to pause.
 *
 * Sources: the Linux mlx5 driver's headroom formula
 * (en/port_buffer.c, "net/mlx5e: Receive buffer configuration"), its XOFF/XON
 * rule, and the IEEE 802.1Qbb worst-case delay components as listed in
 * besthub.dev "How to Compute Headroom for Lossless Ethernet Links (Part 2)"
 * (from the Cisco book, ch. 7).
 *
 * Pure arithmetic, no state.
 */
#ifndef BN_LINK_PFC_H
#define BN_LINK_PFC_H

#include <stdint.h>

#include "bnet/error.h"
#include "core/time.h"

/* mlx5's default cable length, MLX5E_DEFAULT_CABLE_LEN. */
#define BN_PFC_DEFAULT_CABLE_M 7

/*
 * mlx5 headroom in bytes, in the driver's integer arithmetic:
 *   (301 + 216 * cable_m / 100) * speed_Mbps / 1000 + 272 * mtu / 100
 * each division truncating, with the port speed floored at 40 Gb/s. The
 * driver keeps the cable length in whole metres, so cable_m is rounded to the
 * nearest metre (negative counts as 0). E.g. 100G, 7 m, MTU 1500: 35,680.
 */
uint64_t bn_pfc_headroom_bytes(double speed_gbps, double cable_m, uint32_t mtu);

/*
 * mlx5 thresholds for a receive buffer of `buffer_bytes` of which
 * `headroom_bytes` are kept for in-flight data: PAUSE (XOFF) when the fill
 * reaches xoff = buffer - headroom, resume (XON) when it falls to
 * xon = xoff - mtu. BN_EINPUT if buffer < headroom + mtu.
 */
int bn_pfc_thresholds(uint64_t buffer_bytes, uint64_t headroom_bytes, uint32_t mtu,
                      uint64_t *xoff, uint64_t *xon, struct bn_error *err);

/*
 * Worst-case bytes that can still arrive after the receiver decides to pause,
 * the sum of the IEEE 802.1Qbb components:
 *   - one maximum frame the receiver is already sending, which the PAUSE
 *     frame must wait behind (D-Max-Frame-Len at the receiver);
 *   - the PAUSE frame's trip to the sender (D-Cable, one way);
 *   - the sender's pause response time (D-Resp; fold D-Intf and D-Pause into
 *     pause_response_ps if wanted);
 *   - one maximum frame the sender has already started and finishes
 *     (D-Max-Frame-Len at the sender);
 *   - the data already on the wire when the sender stops (D-Cable again).
 * = 2 * one_way_delay * rate + 2 * max_frame_bytes + pause_response * rate,
 * the rate taken in whole Mb/s and each time term rounded up to whole bytes
 * (a bound should not round down). Delays up to ~10 ms keep the integer
 * arithmetic exact and far from overflow.
 */
uint64_t bn_pfc_inflight_bytes(double speed_gbps, bn_time_t one_way_delay_ps,
                               uint32_t max_frame_bytes, bn_time_t pause_response_ps);

#endif
