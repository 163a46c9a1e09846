/*
 * Receiver-driven credit, as EQDS (Olteanu et al., "An edge-queued
 * datagram service for all datacenter traffic", NSDI 2022) and Ultra
 * Ethernet's receiver-credit congestion control run it:
 *   - an idle sender may send a first window unsolicited (one
 *     bandwidth-delay product of its NIC by default), and otherwise sends
 *     one packet per credit from the receiver;
 *   - each data packet tells the receiver what its sender still has to
 *     send (its backlog) beyond the credit it holds, has coming and its
 *     unsolicited allowance; the receiver owes it that many credits;
 *   - the receiver's NIC sends the credits it owes round-robin over its
 *     senders, paced at its line rate (one full frame's time each from
 *     when the last one left);
 *   - an unsolicited packet that arrives takes a credit's time slot when
 *     it may meet credited data: from one credit-to-data round trip into
 *     the receiver's run of credits. A first-window burst then drains
 *     before new credit adds to it, and a lone sender's first window
 *     (one round trip of data) hands over to its credits without a gap.
 *     The round trip is the shortest its senders have measured (the
 *     fabric's longest until one has).
 * What arrives is then what the receiver's link carries: the queue stays
 * in the senders. Credits travel as notices (`summary.cnps`, "credits")
 * ahead of data at the receiver's NIC; a trimmed packet's header makes the
 * receiver owe its resend a credit at once, as csg-htsim's EqdsSink adds
 * an MTU to its retransmit backlog (sim/eqds.cpp), not only once its NAK
 * has reached the sender and a later packet reports it. Recovery: after a
 * retransmission timeout the sender sends without credit until it makes
 * progress; one blocked with nothing in flight and no credit for
 * nic.rto_us sends one packet unsolicited, whose arrival restates its
 * backlog (a lost credit cannot stall it).
 * Simplifications: bnet's packets carry no backlog field, so the receiver
 * reads the sender's backlog when the packet arrives rather than as it
 * was when the packet left (a one-way delay fresher); likewise it learns
 * its senders' round-trip samples as they take them.
 */
#include <math.h>

#include "nic/nic.h"

/* eqds.* */
struct eqds_keys {
    uint64_t first_window_bytes; /* sent unsolicited; 0: one BDP of the NIC */
    double credit_rate;          /* receivers pace credits at this fraction of line rate */
};
BN_CC_KEYS_CHECK(struct eqds_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "eqds.first_window_bytes", BN_ROW_INT, .info.unit = "bytes", .info.def = "0",
      .info.doc = "eqds: what a sender sends unsolicited before its first credit; 0 = one "
                  "bandwidth-delay product of its NIC over the fabric's longest round trip.",
      BN_ROW_CC(struct eqds_keys, first_window_bytes), BN_ROW_RANGE(0, 1e12) },
    { .info.path = "eqds.credit_rate", BN_ROW_FLOAT, .info.unit = "", .info.def = "1",
      .info.doc = "eqds: receivers pace credits at this fraction of their line rate.",
      BN_ROW_CC(struct eqds_keys, credit_rate), .lo = 0, .hi = 1,
      .flags = BN_KEY_LO | BN_KEY_LO_EXCL | BN_KEY_HI },
};

struct eqds_params {
    double first_bytes;     /* 0: one BDP of the NIC over the fabric's longest round trip */
    double pace;            /* credits at this fraction of the receiver's line rate */
};

struct eqds {
    uint32_t first;         /* the first window (packets): the most it sends uncredited */
    uint32_t unsol;         /* sender: what is left of it */
    uint32_t credit;        /* sender: credits in hand */
    uint32_t received;      /* sender: credits that have reached it */
    uint32_t granted;       /* receiver: credits it has sent */
    uint32_t owed;          /* receiver: credits it owes */
    uint32_t next;          /* receiver: next in its NIC's pull queue */
    uint32_t probe_mark;    /* sender: credits received when its probe timer was set */
    uint8_t queued;
};
BN_CC_PRIV_CHECK(struct eqds);

struct eqds_nic {           /* a receiver's pull queue and pacer */
    uint32_t head, tail;
    bn_time_t next_at;      /* the start of its next credit's time slot */
    bn_time_t run_start;    /* when its current run of credits began */
    bn_time_t quiet_at;     /* a fabric round trip past its last credit */
    bn_time_t loop;         /* its senders' shortest round trip (0: none measured) */
};

static struct eqds *st(struct bn_qp *qp)
{
    void *p = qp->cc_priv;
    return p;
}
static const struct eqds *cst(const struct bn_qp *qp)
{
    const void *p = qp->cc_priv;
    return p;
}
static struct eqds_nic *pacer(struct bn_nics *n, uint32_t nic) { return bn_nic_cc_nic(n, nic); }

static int eqds_setup(const void *keys_, const char *source, double line_gbps, void *out,
                      bn_time_t *cnp_interval, struct bn_error *err)
{
    const struct eqds_keys *k = keys_;
    (void)source;
    (void)line_gbps;
    (void)err;
    *(struct eqds_params *)out = (struct eqds_params){
        .first_bytes = (double)k->first_window_bytes, .pace = k->credit_rate};
    *cnp_interval = 0;
    return BN_OK;
}

static void eqds_init(struct bn_nics *n, struct bn_qp *qp)
{
    const struct eqds_params *p = n->cc_params;
    uint64_t line = n->nic[qp->snic].line_bps;
    double bytes = p->first_bytes > 0 ? p->first_bytes
                                      : (double)line / 8 * (double)n->fabric_rtt / BN_PS_PER_S;
    double pkts = ceil(bytes / n->mtu);
    uint32_t first = pkts < 1 ? 1 : pkts > 1e6 ? 1000000 : (uint32_t)pkts;
    *st(qp) = (struct eqds){.first = first, .unsol = first, .next = BN_NONE};
    qp->rate_bps = line;
    qp->cc_timer = BN_TIME_NEVER;
}

static void eqds_nic_init(struct bn_nics *n, uint32_t nic)
{
    *pacer(n, nic) = (struct eqds_nic){.head = BN_NONE, .tail = BN_NONE};
}

static bool eqds_can_send(const struct bn_nics *n, const struct bn_qp *qp)
{
    const struct eqds *s = cst(qp);
    (void)n;
    return s->credit > 0 || s->unsol > 0 || qp->stalled;
}

/* A packet leaves on a credit if it has one, else unsolicited. */
static uint8_t eqds_mark(struct bn_nics *n, struct bn_qp *qp)
{
    (void)n;
    struct eqds *s = st(qp);
    if (s->credit > 0) {
        s->credit--;
        return 0;
    }
    if (s->unsol > 0)
        s->unsol--;
    return BN_PKT_UNSOLICITED;
}

static void eqds_on_credit(struct bn_nics *n, struct bn_qp *qp)
{
    (void)n;
    struct eqds *s = st(qp);
    s->received++;
    if (s->credit < s->first)
        s->credit++;
}

/* Nothing in hand to send with and nothing in flight to earn more. */
static bool blocked(const struct bn_nics *n, const struct bn_qp *qp)
{
    const struct eqds *s = cst(qp);
    return s->credit == 0 && s->unsol == 0 && n->tp->in_flight(n, qp) == 0;
}

/* Idle again (all sent and acknowledged): the next message may start
 * with a first window. Blocked: a probe if no credit comes within the
 * retransmission timeout. */
static void eqds_on_ack(struct bn_nics *n, struct bn_qp *qp, bool ece, bn_time_t rtt)
{
    (void)ece;
    struct eqds *s = st(qp);
    struct eqds_nic *q = pacer(n, qp->rnic);
    if (rtt > 0 && (q->loop == 0 || rtt < q->loop))
        q->loop = rtt;
    if (qp->snd_una == qp->snd_end)
        s->unsol = s->first > s->credit ? s->first - s->credit : 0;
    else if (blocked(n, qp) && qp->cc_timer == BN_TIME_NEVER) {
        s->probe_mark = s->received;
        qp->cc_timer = n->fab->now + n->rto;
    }
}

/* Still blocked a timeout later: a probe if no credit came meanwhile,
 * else another wait. */
static void eqds_on_timer(struct bn_nics *n, struct bn_qp *qp)
{
    struct eqds *s = st(qp);
    qp->cc_timer = BN_TIME_NEVER;
    if (!blocked(n, qp) || n->tp->backlog(n, qp) == 0)
        return;
    if (s->received == s->probe_mark) {
        s->unsol = 1;
        bn_nic_activate(n, (uint32_t)(qp - n->qp));
    } else {
        s->probe_mark = s->received;
        qp->cc_timer = n->fab->now + n->rto;
    }
}

static void enqueue(struct bn_nics *n, struct eqds_nic *q, uint32_t qpid)
{
    struct eqds *s = st(&n->qp[qpid]);
    s->queued = 1;
    s->next = BN_NONE;
    if (q->tail == BN_NONE)
        q->head = qpid;
    else
        st(&n->qp[q->tail])->next = qpid;
    q->tail = qpid;
}

/* One full data frame's time at the receiver's paced rate. */
static bn_time_t slot(const struct bn_nics *n, uint32_t nic)
{
    const struct eqds_params *p = n->cc_params;
    double wire = bn_encap_frame(n->encap, 0, n->mtu) + n->fab->wire_overhead;
    return (bn_time_t)(wire * 8 * BN_PS_PER_S / ((double)n->nic[nic].line_bps * p->pace));
}

/* The credit-to-data round trip: the shortest its senders have measured
 * (a data-to-ACK one, the same path both ways), the fabric's longest idle
 * one until then. */
static bn_time_t loop(const struct bn_nics *n, const struct eqds_nic *q)
{
    bool measured = q->loop > 0 && (q->loop < n->fabric_rtt || n->fabric_rtt == 0);
    return measured ? q->loop : n->fabric_rtt;
}

/* May an unsolicited packet arriving now meet credited data? Only while a
 * run of credits is on (credits owed, or sent within a fabric round trip)
 * and a round trip into it: the data of its first credit, sent at
 * run_start, finishes arriving a round trip later, so a packet that
 * finishes a slot or more before that does not overlap it. Until then the
 * receiver's link has nothing else to carry, as while a lone sender's
 * first window arrives (one round trip of data, ending as the data of the
 * first credits begins). A slot for every first-window packet, as before,
 * left that link idle for a round trip after it (htsim's k=8 permutation
 * of 2 MB: 76.9 Gb/s a flow; htsim 82.2; this rule 81.1). No slot at all,
 * as csg-htsim's EqdsPullPacer, left an 8-to-1 incast's first windows
 * queued for good (300 kB, tests/e2e/test_eqds.c). */
static bool meets_credited(const struct bn_nics *n, const struct eqds_nic *q, uint32_t nic)
{
    bn_time_t now = n->fab->now;
    bool live = q->head != BN_NONE || now < q->quiet_at;
    return live && now + slot(n, nic) >= q->run_start + loop(n, q);
}

static void eqds_on_arrival(struct bn_nics *n, uint32_t qpid, const struct bn_packet *pk)
{
    struct bn_qp *qp = &n->qp[qpid];
    struct eqds *s = st(qp);
    struct eqds_nic *q = pacer(n, qp->rnic);
    if ((pk->flags & (BN_PKT_UNSOLICITED | BN_PKT_TRIMMED)) == BN_PKT_UNSOLICITED &&
        meets_credited(n, q, qp->rnic))
        q->next_at = (q->next_at > n->fab->now ? q->next_at : n->fab->now) + slot(n, qp->rnic);
    /* what its header reports: the backlog beyond what will cover it */
    uint64_t cover = (uint64_t)s->credit + s->unsol + (s->granted - s->received);
    uint64_t backlog = n->tp->backlog(n, qp);
    if (pk->flags & BN_PKT_TRIMMED)
        backlog++; /* the resend its NAK asks for, not yet known to the sender */
    s->owed = backlog > cover ? (uint32_t)(backlog - cover) : 0;
    if (s->owed > 0 && !s->queued) {
        if (q->head == BN_NONE && n->fab->now >= q->quiet_at)
            q->run_start = n->fab->now; /* the data of earlier runs is in */
        enqueue(n, q, qpid);
        bn_nic_kick(n, qp->rnic);
    }
}

static bn_time_t eqds_notice_due(const struct bn_nics *n, uint32_t nic)
{
    const struct eqds_nic *q = (const void *)(n->cc_nic + (size_t)nic * sizeof(struct eqds_nic));
    return q->head == BN_NONE ? BN_TIME_NEVER : q->next_at;
}

static uint32_t eqds_notice_take(struct bn_nics *n, uint32_t nic)
{
    struct eqds_nic *q = pacer(n, nic);
    while (q->head != BN_NONE) {
        uint32_t qpid = q->head;
        struct eqds *s = st(&n->qp[qpid]);
        q->head = s->next;
        if (q->head == BN_NONE)
            q->tail = BN_NONE;
        s->queued = 0;
        if (s->owed == 0)
            continue; /* settled since it queued */
        s->owed--;
        s->granted++;
        if (s->owed > 0) /* round-robin: back to the tail */
            enqueue(n, q, qpid);
        /* The next slot starts when this credit leaves, not when it was
         * due: one that waited for the port (a frame going out) pushes
         * the next back, so that credits never bunch, and under load they
         * run a few per cent below line rate (docs/model.md: the slack
         * that drains what first windows queue). */
        q->next_at = (q->next_at > n->fab->now ? q->next_at : n->fab->now) + slot(n, nic);
        q->quiet_at = n->fab->now + n->fabric_rtt;
        return qpid;
    }
    return BN_NONE;
}

static double eqds_window(const struct bn_nics *n, const struct bn_qp *qp)
{
    return ((double)cst(qp)->credit + cst(qp)->unsol) * n->mtu;
}

const struct bn_cc_ops bn_cc_eqds = {
    .name = "eqds",
    .summary = "receiver-paced credits",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .notifies = false,
    .notice = "credits",
    .params_size = sizeof(struct eqds_params),
    .setup = eqds_setup,
    .init = eqds_init,
    .on_notify = eqds_on_credit,
    .on_timer = eqds_on_timer,
    .can_send = eqds_can_send,
    .on_ack = eqds_on_ack,
    .window = eqds_window,
    .mark = eqds_mark,
    .on_arrival = eqds_on_arrival,
    .notice_due = eqds_notice_due,
    .notice_take = eqds_notice_take,
    .nic_priv_size = sizeof(struct eqds_nic),
    .nic_init = eqds_nic_init,
};
