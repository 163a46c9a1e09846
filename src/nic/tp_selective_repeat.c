/*
 * Selective repeat: a reliable transport that tolerates reordering, as
 * spraying and adaptive routing need (the Ultra Ethernet transport and
 * NVIDIA's adaptive-routing RC both keep out-of-order data). The receiver
 * keeps every packet within nic.sr_window of its next expected PSN in a
 * bitmap and answers each with an ACK that carries the cumulative point and
 * the PSN just received (a selective ACK). The sender marks a packet lost
 * once a packet nic.sr_reorder_threshold or more PSNs later has been
 * selectively acknowledged, and resends only lost packets, lowest first;
 * the retransmission timer, restarted by progress, resends whatever is
 * still unacknowledged as a backstop.
 */
#include <string.h>

#include "nic/nic.h"

struct sr_state {
    uint32_t high_sacked;  /* one past the highest PSN selectively acknowledged */
    uint32_t loss_scan;    /* PSNs below this were already checked for loss */
    uint32_t rtx_scan;     /* lowest PSN that may be marked lost */
    uint32_t lost;         /* packets marked lost, not yet resent */
    uint32_t sacked;       /* packets selectively acknowledged above snd_una */
    uint32_t spare;        /* keeps the bitmaps that follow 8-byte aligned */
    /* followed by three bitmaps of sr_window bits: sacked, lost (sender),
     * received (receiver), indexed by PSN modulo the window */
};

/* Its keys, nic.sr_window and nic.sr_reorder_threshold: in its block of
 * the scenario, copied at set-up into n->tp_params. */
struct sr_params {
    uint32_t window, reorder_threshold;
};
BN_TP_PARAMS_CHECK(struct sr_params);
BN_TP_KEYS_CHECK(struct sr_params);

static const struct bn_key_row keys[] = {
    { .info.path = "nic.sr_window", BN_ROW_INT, .info.unit = "packets", .info.def = "1024",
      .info.doc = "Selective repeat: packets tracked past the cumulative ACK (bitmap size).",
      BN_ROW_TP(struct sr_params, window), BN_ROW_RANGE(8, 65536) },
    { .info.path = "nic.sr_reorder_threshold", BN_ROW_INT, .info.unit = "packets",
      .info.def = "128",
      .info.doc = "Selective repeat: a missing packet this far behind a selectively acknowledged "
                  "one is taken as lost and resent.",
      BN_ROW_TP(struct sr_params, reorder_threshold), BN_ROW_RANGE(1, 65536) },
};

extern const struct bn_transport_ops bn_tp_selective_repeat; /* below */

/* Its block of sc: its index in the transports' registry. */
static const struct sr_params *keys_of(const struct bn_scenario *sc)
{
    size_t i = 0;
    while (bn_transport_at(i) != &bn_tp_selective_repeat)
        i++;
    return bn_transport_keys(sc, i);
}

uint32_t bn_tp_sr_window(const struct bn_scenario *sc)
{
    return keys_of(sc)->window;
}

static const struct sr_params *params(const struct bn_nics *n)
{
    return (const struct sr_params *)(const void *)n->tp_params;
}

static int sr_setup(struct bn_nics *n, const struct bn_scenario *sc, struct bn_error *err)
{
    (void)err;
    memcpy(n->tp_params, keys_of(sc), sizeof(struct sr_params));
    return BN_OK;
}

static size_t words(const struct bn_nics *n) { return (params(n)->window + 63) / 64; }

_Static_assert(sizeof(struct sr_state) % sizeof(uint64_t) == 0, "bitmaps follow, aligned");

static size_t sr_priv_size(const struct bn_nics *n)
{
    return sizeof(struct sr_state) + 3 * words(n) * sizeof(uint64_t);
}

static struct sr_state *st(struct bn_nics *n, uint32_t qpid) { return bn_nic_tp_priv(n, qpid); }

static uint64_t *bitmap(struct bn_nics *n, uint32_t qpid, int which)
{
    return (uint64_t *)(void *)(st(n, qpid) + 1) + (size_t)which * words(n);
}
enum { SACKED = 0, LOST = 1, RECEIVED = 2 };

static bool get(const uint64_t *b, const struct bn_nics *n, uint32_t psn)
{
    uint32_t i = psn % params(n)->window;
    return b[i / 64] >> (i % 64) & 1;
}

static void put(uint64_t *b, const struct bn_nics *n, uint32_t psn, bool v)
{
    uint32_t i = psn % params(n)->window;
    if (v)
        b[i / 64] |= 1ull << (i % 64);
    else
        b[i / 64] &= ~(1ull << (i % 64));
}

static bool sr_has_data(const struct bn_nics *n, const struct bn_qp *qp)
{
    const struct sr_state *s = bn_nic_tp_priv((struct bn_nics *)n, (uint32_t)(qp - n->qp));
    return s->lost || (qp->snd_max < qp->snd_end && qp->snd_max < qp->snd_una + params(n)->window);
}

static uint32_t sr_in_flight(const struct bn_nics *n, const struct bn_qp *qp)
{
    const struct sr_state *s = bn_nic_tp_priv((struct bn_nics *)n, (uint32_t)(qp - n->qp));
    return qp->snd_max - qp->snd_una - s->sacked - s->lost;
}

/* What it has yet to send: the packets never sent, and those marked lost. */
static uint32_t sr_backlog(const struct bn_nics *n, const struct bn_qp *qp)
{
    const struct sr_state *s = bn_nic_tp_priv((struct bn_nics *)n, (uint32_t)(qp - n->qp));
    return qp->snd_end - qp->snd_max + s->lost;
}

/* The lowest PSN marked lost. */
static uint32_t take_lost(struct bn_nics *n, uint32_t qpid, struct bn_qp *qp)
{
    struct sr_state *s = st(n, qpid);
    uint64_t *lost = bitmap(n, qpid, LOST);
    uint32_t psn = s->rtx_scan > qp->snd_una ? s->rtx_scan : qp->snd_una;
    while (!get(lost, n, psn))
        psn++;
    put(lost, n, psn, false);
    s->lost--;
    s->rtx_scan = psn + 1;
    return psn;
}

static void sr_next_data(struct bn_nics *n, struct bn_qp *qp, struct bn_packet *pk)
{
    uint32_t qpid = (uint32_t)(qp - n->qp), psn;
    if (st(n, qpid)->lost) {
        psn = take_lost(n, qpid, qp);
        qp->retransmits++;
    } else {
        psn = qp->snd_max++;
        qp->snd_nxt = qp->snd_max;
    }
    if (bn_nic_psn_full(qp, psn))
        bn_nic_shape_full(n, psn, pk);
    else
        bn_nic_shape_from_msg(n, qp, bn_nic_msg_holding(n, qp, psn), psn, pk);
    if (!qp->rto_pending || psn == qp->snd_una)
        bn_nic_arm_rto(n, qpid);
}

static void sr_on_data(struct bn_nics *n, uint32_t qpid, const struct bn_packet *pk)
{
    struct bn_qp *qp = &n->qp[qpid];
    uint64_t *got = bitmap(n, qpid, RECEIVED);
    uint32_t psn = pk->psn;
    if (pk->flags & BN_PKT_TRIMMED) { /* its payload was cut: ask for it now */
        bn_nic_send_ctrl(n, qpid, BN_PKT_NAK, qp->rcv_nxt, psn);
        return;
    }
    if (psn < qp->rcv_nxt || (psn < qp->rcv_nxt + params(n)->window && get(got, n, psn))) {
        qp->duplicates++;
    } else if (psn < qp->rcv_nxt + params(n)->window) {
        if (psn > qp->rcv_nxt) {
            qp->out_of_order++;
            bn_nic_note_reorder(n, psn - qp->rcv_nxt);
        }
        put(got, n, psn, true);
        while (get(got, n, qp->rcv_nxt)) {
            put(got, n, qp->rcv_nxt, false);
            qp->rcv_nxt++;
        }
        bn_nic_complete_rx_upto(n, qpid);
        qp = &n->qp[qpid]; /* a completion callback may have moved it */
    } /* beyond the window: not kept; the sender will resend it */
    if (++qp->since_ack >= n->ack_every || psn != qp->rcv_nxt - 1 || (pk->flags & BN_PKT_LAST)) {
        qp->since_ack = 0;
        bn_nic_send_ctrl(n, qpid, BN_PKT_ACK, qp->rcv_nxt, psn);
    }
}

/* The cumulative point moved: PSNs below it leave the window. */
static void advance_una(struct bn_nics *n, uint32_t qpid, struct bn_qp *qp, uint32_t una)
{
    struct sr_state *s = st(n, qpid);
    uint64_t *sacked = bitmap(n, qpid, SACKED), *lost = bitmap(n, qpid, LOST);
    for (uint32_t p = qp->snd_una; p < una; p++) {
        if (get(lost, n, p)) {
            put(lost, n, p, false);
            s->lost--;
        }
        if (get(sacked, n, p)) {
            put(sacked, n, p, false);
            s->sacked--;
        }
    }
    qp->snd_una = una;
    qp->rto_deadline = n->fab->now + n->rto;
    bn_nic_complete_tx_upto(n, qpid);
    qp = &n->qp[qpid]; /* a completion callback may have moved it */
}

/* Holes far enough behind the highest selective ACK are losses. */
static void detect_losses(struct bn_nics *n, uint32_t qpid, struct bn_qp *qp)
{
    struct sr_state *s = st(n, qpid);
    uint64_t *sacked = bitmap(n, qpid, SACKED), *lost = bitmap(n, qpid, LOST);
    if (s->high_sacked < params(n)->reorder_threshold)
        return;
    uint32_t limit = s->high_sacked - params(n)->reorder_threshold;
    uint32_t p = s->loss_scan > qp->snd_una ? s->loss_scan : qp->snd_una;
    for (; p < limit && p < qp->snd_max; p++)
        if (!get(sacked, n, p) && !get(lost, n, p)) {
            put(lost, n, p, true);
            s->lost++;
            if (p < s->rtx_scan)
                s->rtx_scan = p;
        }
    if (p > s->loss_scan)
        s->loss_scan = p;
}

static void sr_on_ack(struct bn_nics *n, uint32_t qpid, const struct bn_packet *pk)
{
    struct bn_qp *qp = &n->qp[qpid];
    struct sr_state *s = st(n, qpid);
    if (pk->psn > qp->snd_una) {
        advance_una(n, qpid, qp, pk->psn);
        qp = &n->qp[qpid]; /* completions may have moved the queue pairs */
        s = st(n, qpid);
    }
    uint32_t p = pk->sack;
    if (pk->type == BN_PKT_NAK) { /* a trimmed packet: resend it */
        uint64_t *lost = bitmap(n, qpid, LOST), *sacked = bitmap(n, qpid, SACKED);
        if (p >= qp->snd_una && p < qp->snd_max && !get(lost, n, p) && !get(sacked, n, p)) {
            put(lost, n, p, true);
            s->lost++;
            if (p < s->rtx_scan)
                s->rtx_scan = p;
        }
        bn_nic_activate(n, qpid);
        return;
    }
    if (p >= qp->snd_una && p < qp->snd_max) {
        uint64_t *lost = bitmap(n, qpid, LOST), *sacked = bitmap(n, qpid, SACKED);
        if (!get(sacked, n, p)) {
            put(sacked, n, p, true);
            s->sacked++;
        }
        if (get(lost, n, p)) { /* it arrived after all */
            put(lost, n, p, false);
            s->lost--;
        }
        if (p + 1 > s->high_sacked)
            s->high_sacked = p + 1;
        detect_losses(n, qpid, qp);
    }
    bn_nic_activate(n, qpid);
}

static void sr_on_timeout(struct bn_nics *n, uint32_t qpid)
{
    struct bn_qp *qp = &n->qp[qpid];
    struct sr_state *s = st(n, qpid);
    uint64_t *sacked = bitmap(n, qpid, SACKED), *lost = bitmap(n, qpid, LOST);
    qp->timeouts++;
    for (uint32_t p = qp->snd_una; p < qp->snd_max; p++)
        if (!get(sacked, n, p) && !get(lost, n, p)) {
            put(lost, n, p, true);
            s->lost++;
        }
    s->rtx_scan = qp->snd_una;
    bn_nic_arm_rto(n, qpid);
    bn_nic_activate(n, qpid);
}

/* The state line, and the bitmap words of the packet's PSN: a data
 * packet's in the receiver's bitmap, an ACK's selective PSN in the
 * sender's two. On a large fabric each is a line long out of cache. */
static void sr_prefetch(struct bn_nics *n, uint32_t qpid, const struct bn_packet *pk)
{
    __builtin_prefetch(st(n, qpid));
    if (!pk)
        return;
    if (pk->type == BN_PKT_DATA) {
        __builtin_prefetch(&bitmap(n, qpid, RECEIVED)[pk->psn % params(n)->window / 64]);
        return;
    }
    uint32_t word = pk->sack % params(n)->window / 64;
    __builtin_prefetch(&bitmap(n, qpid, SACKED)[word]);
    __builtin_prefetch(&bitmap(n, qpid, LOST)[word]);
}

const struct bn_transport_ops bn_tp_selective_repeat = {
    .name = "selective_repeat",
    .summary = "accept out of order, resend only what is missing",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .next_data = sr_next_data,
    .has_data = sr_has_data,
    .in_flight = sr_in_flight,
    .backlog = sr_backlog,
    .priv_size = sr_priv_size,
    .setup = sr_setup,
    .on_data = sr_on_data,
    .on_ack = sr_on_ack,
    .on_timeout = sr_on_timeout,
    .prefetch = sr_prefetch,
};
