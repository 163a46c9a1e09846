/*
 * Link impairments, as failures leave them: a link down (both directions;
 * every frame on it or queued for it is lost, and frames sent into it are
 * lost on arrival), a link running below its rate (lanes lost), and a link
 * corrupting frames at a bit-error rate (a frame of b bits survives with
 * probability (1 - BER)^b and is dropped by the receiver's CRC check
 * otherwise; IEEE 802.3 clause 1.4 defines BER per bit). Lost frames go to
 * the lost ledger (bn_fabric_lose), never to congestion drops, so a
 * lossless fabric may lose them. The fault schedule (src/fault) drives
 * these; the engine asks bn_link_loses at every arrival while the fabric
 * is impaired.
 */
#ifndef BN_LINK_IMPAIR_H
#define BN_LINK_IMPAIR_H

#include "link/fabric.h"

/* Link of port p (p and its peer) down or up. Going down loses the frames
 * queued at both ends (a switch's frames leave their ingress accounting)
 * and resets flow control at both ends; coming up resets it again. */
int bn_link_set_down(struct bn_fabric *f, uint32_t p, bool down, struct bn_error *err);
/* Port p (and, with both, its peer: the link's two directions) sends at
 * `bps`. */
void bn_link_set_rate(struct bn_fabric *f, uint32_t p, uint64_t bps, bool both);
/* Frames arriving over p's link (either way) see bit-error rate `ber`
 * (0: none). Draws come from one stream of the run's seed. */
int bn_link_set_ber(struct bn_fabric *f, uint32_t p, double ber, uint64_t seed,
                    struct bn_error *err);
bool bn_link_is_down(const struct bn_fabric *f, uint32_t p);

/* At an arrival on port `in` while the fabric is impaired: true if the
 * frame was lost (its link is down, or a bit error hit it); it is gone. */
bool bn_link_loses(struct bn_fabric *f, uint32_t in, uint32_t pkt);

/* The probability that a frame of `bits` bits takes at least one error at
 * bit-error rate `ber`. */
double bn_link_frame_error_prob(double ber, uint64_t bits);

void bn_impair_free(struct bn_fabric *f);

#endif
