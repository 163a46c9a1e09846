/*
 * Go-back-N reliable connection, as InfiniBand/RoCE RC NICs do it: the
 * receiver accepts only the next expected PSN, discards anything beyond it
 * and answers the first such gap with one NAK (sequence error) naming the
 * expected PSN; the sender rewinds to that PSN and sends everything again.
 * The receiver NAKs once per gap episode, not per discarded packet; a new
 * episode starts when the sender is seen to have gone back (an out-of-order
 * PSN no higher than the last one discarded), so a lost retransmission is
 * NAKed again instead of waiting for the timer.
 * ACKs are cumulative (they carry the next expected PSN), one every
 * nic.ack_every packets and on a message's last packet. A retransmission
 * timer (nic.rto_us, restarted by progress) recovers lost tails and NAKs.
 */
#include "nic/nic.h"

static bool gbn_has_data(const struct bn_nics *n, const struct bn_qp *qp)
{
    (void)n;
    return qp->snd_nxt < qp->snd_end;
}

/* After a rewind, what lies beyond snd_nxt is given up for lost. */
static uint32_t gbn_in_flight(const struct bn_nics *n, const struct bn_qp *qp)
{
    (void)n;
    return qp->snd_nxt - qp->snd_una;
}

/* What it has yet to send: from snd_nxt (rewound on a loss) to the end. */
static uint32_t gbn_backlog(const struct bn_nics *n, const struct bn_qp *qp)
{
    (void)n;
    return qp->snd_end - qp->snd_nxt;
}

static void gbn_next_data(struct bn_nics *n, struct bn_qp *qp, struct bn_packet *pk)
{
    uint32_t psn = qp->snd_nxt++;
    if (psn < qp->snd_max)
        qp->retransmits++;
    else
        qp->snd_max = psn + 1;
    if (bn_nic_psn_full(qp, psn))
        bn_nic_shape_full(n, psn, pk);
    else if (bn_nic_shape_from_msg(n, qp, qp->snd_msg, psn, pk))
        qp->snd_msg = n->msg[qp->snd_msg].next;
    /* The timer runs from the oldest outstanding packet's send or the last
     * progress, whichever is later. */
    if (!qp->rto_pending || psn == qp->snd_una)
        bn_nic_arm_rto(n, pk->qp);
}

static void gbn_on_data(struct bn_nics *n, uint32_t qpid, const struct bn_packet *pk)
{
    struct bn_qp *qp = &n->qp[qpid];
    if (pk->flags & BN_PKT_TRIMMED) { /* a cut payload is a loss, known at once */
        if (pk->psn >= qp->rcv_nxt)
            bn_nic_send_ctrl(n, qpid, BN_PKT_NAK, qp->rcv_nxt, 0);
        return;
    }
    if (pk->psn == qp->rcv_nxt) {
        qp->rcv_nxt++;
        qp->nak_sent = 0;
        bn_nic_complete_rx_upto(n, qpid);
        qp = &n->qp[qpid]; /* a completion callback may have moved it */
        if (++qp->since_ack >= n->ack_every || (pk->flags & BN_PKT_LAST)) {
            qp->since_ack = 0;
            bn_nic_send_ctrl(n, qpid, BN_PKT_ACK, qp->rcv_nxt, 0);
        }
    } else if (pk->psn > qp->rcv_nxt) {
        qp->out_of_order++;
        bn_nic_note_reorder(n, pk->psn - qp->rcv_nxt);
        if (!qp->nak_sent || pk->psn <= qp->ooo_last) {
            qp->nak_sent = 1;
            bn_nic_send_ctrl(n, qpid, BN_PKT_NAK, qp->rcv_nxt, 0);
        }
        qp->ooo_last = pk->psn;
    } else {
        /* a duplicate: our ACK was lost or is late; say again where we are */
        qp->duplicates++;
        bn_nic_send_ctrl(n, qpid, BN_PKT_ACK, qp->rcv_nxt, 0);
    }
}

static void rewind_to(struct bn_nics *n, uint32_t qpid, uint32_t psn)
{
    struct bn_qp *qp = &n->qp[qpid];
    qp->snd_nxt = psn;
    qp->snd_msg = bn_nic_msg_holding(n, qp, psn);
    bn_nic_activate(n, qpid);
}

static void gbn_on_ack(struct bn_nics *n, uint32_t qpid, const struct bn_packet *pk)
{
    struct bn_qp *qp = &n->qp[qpid];
    if (pk->psn > qp->snd_una) {
        qp->snd_una = pk->psn;
        qp->rto_deadline = n->fab->now + n->rto;
        bn_nic_complete_tx_upto(n, qpid);
        qp = &n->qp[qpid]; /* a completion callback may have moved it */
        if (qp->snd_nxt < qp->snd_una)
            rewind_to(n, qpid, qp->snd_una);
    }
    /* A NAK overtaken by a later ACK (reordered on the way back) names
     * packets already acknowledged: nothing to resend below snd_una. */
    if (pk->type == BN_PKT_NAK && pk->psn < qp->snd_nxt && pk->psn >= qp->snd_una)
        rewind_to(n, qpid, pk->psn);
}

static void gbn_on_timeout(struct bn_nics *n, uint32_t qpid)
{
    struct bn_qp *qp = &n->qp[qpid];
    qp->timeouts++;
    rewind_to(n, qpid, qp->snd_una);
    bn_nic_arm_rto(n, qpid);
}

const struct bn_transport_ops bn_tp_go_back_n = {
    .name = "go_back_n",
    .summary = "resend from the first unacknowledged packet",
    .next_data = gbn_next_data,
    .has_data = gbn_has_data,
    .in_flight = gbn_in_flight,
    .backlog = gbn_backlog,
    .on_data = gbn_on_data,
    .on_ack = gbn_on_ack,
    .on_timeout = gbn_on_timeout,
};
