/*
 * The flow-level engine's events (flow.h). The NICs hand it a queue pair
 * whose send engine got data (bn_nics.carry); the queue pair's flow then
 * competes for its links until its messages are sent. Rates are solved
 * (BN_EV_FLOW_SOLVE, behind the instant's events) when flows start, and a
 * frame after flows stop, only over the flows connected to what changed;
 * the earliest message to finish is the one
 * BN_EV_FLOW_SENT wakes for (an indexed heap of the sending queue pairs).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flow/flow.h"
#include "flow/hybrid.h"

/* --- the sending queue pairs, by when their message is sent --- */

static bool earlier(const struct bn_flow_engine *e, uint32_t a, uint32_t b)
{
    return e->q[a].done_at < e->q[b].done_at || (e->q[a].done_at == e->q[b].done_at && a < b);
}

static void heap_set(struct bn_flow_engine *e, uint32_t i, uint32_t qp)
{
    e->heap[i] = qp;
    e->q[qp].hpos = i;
}

static void sift_up(struct bn_flow_engine *e, uint32_t i)
{
    uint32_t qp = e->heap[i];
    while (i > 0 && earlier(e, qp, e->heap[(i - 1) / 2])) {
        heap_set(e, i, e->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(e, i, qp);
}

static void sift_down(struct bn_flow_engine *e, uint32_t i)
{
    uint32_t qp = e->heap[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= e->nheap)
            break;
        if (c + 1 < e->nheap && earlier(e, e->heap[c + 1], e->heap[c]))
            c++;
        if (!earlier(e, e->heap[c], qp))
            break;
        heap_set(e, i, e->heap[c]);
        i = c;
    }
    heap_set(e, i, qp);
}

static void heap_update(struct bn_flow_engine *e, uint32_t qp)
{
    struct bn_flow_qp *fq = &e->q[qp];
    if (fq->hpos == BN_NONE) {
        fq->hpos = e->nheap;
        e->heap[e->nheap++] = qp;
    }
    sift_up(e, fq->hpos);
    sift_down(e, fq->hpos);
}

static void heap_remove(struct bn_flow_engine *e, uint32_t qp)
{
    uint32_t i = e->q[qp].hpos;
    if (i == BN_NONE)
        return;
    e->q[qp].hpos = BN_NONE;
    uint32_t last = e->heap[--e->nheap];
    if (i < e->nheap) {
        heap_set(e, i, last);
        sift_up(e, i);
        sift_down(e, e->q[last].hpos);
    }
}

/* A BN_EV_FLOW_SENT for the earliest finish, unless one as early is due. */
static void wake_for_top(struct bn_flow_engine *e)
{
    if (e->nheap == 0)
        return;
    bn_time_t t = e->q[e->heap[0]].done_at;
    if (t == BN_TIME_NEVER || t >= e->ev_at)
        return;
    e->ev_at = t;
    bn_fabric_schedule(e->f, t, BN_EV_FLOW_SENT, 0, 0);
}

/* --- queue pairs --- */

static int fail(struct bn_flow_engine *e, int rc)
{
    if (e->rc == BN_OK)
        e->rc = rc;
    return rc;
}

int bn_flow_reserve(struct bn_flow_engine *e, uint32_t qpid)
{
    if (qpid < e->nq)
        return BN_OK;
    uint32_t n = e->nq ? e->nq : 256;
    while (n <= qpid)
        n *= 2;
    struct bn_flow_qp *q = realloc(e->q, (size_t)n * sizeof *q);
    uint32_t *h = q ? realloc(e->heap, (size_t)n * sizeof *h) : NULL;
    if (q)
        e->q = q;
    if (!q || !h)
        return bn_fail(e->err, BN_ENOMEM, "flow level: out of memory for %u queue pairs", n);
    e->heap = h;
    for (uint32_t i = e->nq; i < n; i++)
        e->q[i] = (struct bn_flow_qp){.msg = BN_NONE, .hpos = BN_NONE, .done_at = BN_TIME_NEVER};
    e->nq = n;
    return bn_mm_reserve(&e->mm, n, e->err);
}

/* Bring the message's bytes left up to now at the rate it had. */
static void advance(struct bn_flow_engine *e, struct bn_flow_qp *fq)
{
    bn_time_t now = e->f->now;
    fq->left -= fq->rate * (double)(now - fq->upd);
    if (fq->left < 0)
        fq->left = 0;
    fq->upd = now;
}

static void set_done(struct bn_flow_engine *e, uint32_t qpid)
{
    struct bn_flow_qp *fq = &e->q[qpid];
    fq->done_at = fq->rate > 0 ? e->f->now + (bn_time_t)ceil(fq->left / fq->rate) : BN_TIME_NEVER;
    heap_update(e, qpid);
}

/* Rates again at `at`, unless a solve as early is scheduled. */
static void solve_at(struct bn_flow_engine *e, bn_time_t at)
{
    if (at < e->solve_at) {
        e->solve_at = at;
        bn_fabric_schedule(e->f, at, BN_EV_FLOW_SOLVE, 0, 0);
    }
}

/* A flow that starts gets its rate at once; the flows a stopping one
 * leaves behind see its capacity one frame later, as a NIC's round robin
 * or a switch's queue moves on within a frame. Flows that stop within a
 * frame of each other (the many equal ones of a sprayed permutation, a
 * collective's step) are solved for once. */
static void solve_soon(struct bn_flow_engine *e)
{
    solve_at(e, e->f->now);
}

void bn_flow_solve_soon(struct bn_flow_engine *e)
{
    solve_soon(e);
}

static void solve_after_stop(struct bn_flow_engine *e, uint32_t qpid)
{
    uint64_t line = e->f->ports[e->n->nic[e->n->qp[qpid].snic].port].rate_bps;
    solve_at(e, e->f->now + bn_serialization_ps(e->full_wire, line));
}

/* Start the queue pair's next released message, if it has one: false if
 * it has none (it stops sending). */
static bool next_message(struct bn_flow_engine *e, uint32_t qpid)
{
    struct bn_qp *qp = &e->n->qp[qpid];
    struct bn_flow_qp *fq = &e->q[qpid];
    if (qp->snd_nxt >= qp->snd_end || qp->snd_msg == BN_NONE) {
        fq->msg = BN_NONE;
        return false;
    }
    const struct bn_msg *m = &e->n->msg[qp->snd_msg];
    fq->msg = qp->snd_msg;
    fq->left = (double)bn_nic_msg_wire(e->n, m, &fq->last_wire);
    fq->upd = e->f->now;
    return true;
}

/* The queue pair's flow joins the competition for its links. */
static int start(struct bn_flow_engine *e, uint32_t qpid)
{
    struct bn_flow_qp *fq = &e->q[qpid];
    int rc = fq->walked ? BN_OK : bn_flow_walk(e, qpid, e->err);
    if (rc == BN_OK)
        rc = bn_mm_activate(&e->mm, qpid, e->err);
    if (rc != BN_OK)
        return rc;
    fq->upd = e->f->now;
    fq->rate = 0;
    fq->done_at = BN_TIME_NEVER;
    solve_soon(e);
    return BN_OK;
}

/* bn_nics.carry: the send engine of qpid was given data. A NIC serves its
 * queue pairs a frame each in turn, and a queue pair that gets data joins
 * the end of that turn: it sends its first frame once the frame on the
 * wire and one of each queue pair already sending have gone. Flows that
 * start together thus start a frame or more apart, as on the wire; fair
 * shares from one instant would instead keep, say, a ring's channels in
 * lockstep, where the NIC's order makes the first one finish first and
 * the lead grow step by step until the channels interleave. */
static void carry(void *ud, uint32_t qpid)
{
    struct bn_flow_engine *e = ud;
    if (bn_flow_reserve(e, qpid) != BN_OK) {
        fail(e, BN_ENOMEM);
        return;
    }
    struct bn_flow_qp *fq = &e->q[qpid];
    if (e->hy && bn_hybrid_carry(e, qpid))
        return; /* packets carry it (or it failed: e->rc says) */
    if (fq->msg != BN_NONE || !next_message(e, qpid))
        return; /* busy: it takes the new data after what it sends */
    uint32_t nic = e->n->qp[qpid].snic;
    bn_time_t now = e->f->now;
    uint32_t ahead = e->nic_flows[nic]++;
    if (ahead == 0) {
        e->busy_since[nic] = now;
        if (start(e, qpid) != BN_OK)
            fail(e, BN_ENOMEM);
        return;
    }
    bn_time_t frame = bn_serialization_ps(e->full_wire,
                                          e->f->ports[e->n->nic[nic].port].rate_bps);
    bn_time_t on_wire = frame - (now - e->busy_since[nic]) % frame;
    bn_fabric_schedule(e->f, now + on_wire + (bn_time_t)ahead * frame, BN_EV_FLOW_START, qpid, 0);
}

/* The message of qpid has left: its last byte reaches the receiver one
 * path later and the ACK comes back after that, each kept in order. */
static void message_sent(struct bn_flow_engine *e, uint32_t qpid)
{
    struct bn_qp *qp = &e->n->qp[qpid];
    struct bn_flow_qp *fq = &e->q[qpid];
    const struct bn_msg *m = &e->n->msg[fq->msg];
    uint32_t end = m->first_psn + m->npkts;
    qp->snd_nxt = qp->snd_max = end;
    qp->snd_msg = m->next;
    bn_time_t now = e->f->now;
    bn_time_t rx = now + fq->lat_a + (bn_time_t)(fq->lat_b * fq->last_wire + 0.5);
    if (rx < fq->last_rx)
        rx = fq->last_rx;
    bn_time_t ack = rx + fq->ack_lat;
    if (ack < fq->last_ack)
        ack = fq->last_ack;
    fq->last_rx = rx;
    fq->last_ack = ack;
    bn_fabric_schedule(e->f, rx, BN_EV_FLOW_RX, qpid, end);
    bn_fabric_schedule(e->f, ack, BN_EV_FLOW_ACK, qpid, end);
}

static int on_sent(struct bn_flow_engine *e)
{
    bn_time_t now = e->f->now;
    if (now >= e->ev_at) /* the wake-up armed last; an earlier one left behind must not re-arm */
        e->ev_at = BN_TIME_NEVER;
    while (e->nheap && e->q[e->heap[0]].done_at <= now) {
        uint32_t qpid = e->heap[0];
        struct bn_flow_qp *fq = &e->q[qpid];
        message_sent(e, qpid);
        if (next_message(e, qpid)) { /* back to back: same flow, same rate */
            set_done(e, qpid);
            continue;
        }
        heap_remove(e, qpid);
        e->nic_flows[e->n->qp[qpid].snic]--;
        fq->rate = 0;
        fq->done_at = BN_TIME_NEVER;
        int rc = bn_mm_deactivate(&e->mm, qpid, e->err);
        if (rc != BN_OK)
            return rc;
        solve_after_stop(e, qpid);
    }
    wake_for_top(e);
    return BN_OK;
}

static int on_solve(struct bn_flow_engine *e)
{
    if (e->f->now >= e->solve_at)
        e->solve_at = BN_TIME_NEVER; /* else an earlier one ran: this one finds less to do */
    int rc = bn_mm_solve(&e->mm, e->err);
    if (rc != BN_OK)
        return rc;
    for (uint32_t i = 0; i < e->mm.nchanged; i++) {
        uint32_t qpid = e->mm.changed[i];
        struct bn_flow_qp *fq = &e->q[qpid];
        if (fq->msg == BN_NONE)
            continue;
        advance(e, fq);
        fq->rate = e->mm.rate[qpid];
        set_done(e, qpid);
    }
    wake_for_top(e);
    return BN_OK;
}

int bn_flow_event(struct bn_flow_engine *e, const struct bn_event *ev, struct bn_error *err)
{
    e->err = err;
    int rc = BN_OK;
    switch (ev->kind) {
    case BN_EV_FLOW_SOLVE:
        rc = on_solve(e);
        break;
    case BN_EV_FLOW_SENT:
        rc = on_sent(e);
        break;
    case BN_EV_FLOW_RX:
        e->n->qp[ev->obj].rcv_nxt = ev->arg;
        bn_nic_complete_rx(e->n, ev->obj);
        break;
    case BN_EV_FLOW_ACK:
        e->n->qp[ev->obj].snd_una = ev->arg;
        bn_nic_complete_tx_upto(e->n, ev->obj);
        break;
    case BN_EV_FLOW_START:
        rc = start(e, ev->obj);
        break;
    case BN_EV_FLOW_HYBRID:
        rc = e->hy ? bn_hybrid_update(e, err) : BN_OK;
        break;
    default:
        rc = bn_fail(err, BN_EINTERNAL, "flow level: unknown event kind %u", ev->kind);
    }
    if (rc == BN_OK && e->rc != BN_OK)
        rc = e->rc; /* a failure inside a NIC callback */
    return rc;
}

int bn_flow_init(struct bn_flow_engine *e, struct bn_fabric *f, struct bn_switches *sw,
                 struct bn_nics *n, struct bn_error *err)
{
    memset(e, 0, sizeof *e);
    e->f = f;
    e->sw = sw;
    e->n = n;
    e->err = err;
    e->ev_at = BN_TIME_NEVER;
    e->solve_at = BN_TIME_NEVER;
    e->ack_every = n->ack_every ? n->ack_every : 1;
    e->ack_wire = bn_encap_frame(n->encap, n->encap->aeth_bytes, 0) + f->wire_overhead;
    e->full_wire = bn_encap_frame(n->encap, 0, n->mtu) + f->wire_overhead;
    e->nic_flows = calloc((size_t)n->nnics + 1, sizeof *e->nic_flows);
    e->busy_since = calloc((size_t)n->nnics + 1, sizeof *e->busy_since);
    if (!e->nic_flows || !e->busy_since)
        return bn_fail(err, BN_ENOMEM, "flow level: out of memory for %u NICs", n->nnics);
    int rc = bn_mm_init(&e->mm, f->nports, 0, err);
    if (rc == BN_OK)
        rc = bn_lc_init(&e->lc, f->nports, !n->spray_entropy, err);
    if (rc == BN_OK)
        rc = bn_flow_walk_init(&e->walk, f->nports, err);
    if (rc != BN_OK)
        return rc;
    for (uint32_t p = 0; p < f->nports; p++)
        bn_lc_set_cap(&e->lc, p, (double)f->ports[p].rate_bps / (8.0 * (double)BN_PS_PER_S));
    /* a NIC whose DMA is slower than its port sends no faster than that */
    const struct bn_ep_params *ep = &n->ep_params;
    if (n->ep_on && ep->dma_bps)
        for (uint32_t h = 0; h < n->nhosts; h++) {
            uint32_t p = n->nic[h].port;
            double dma = (double)ep->dma_bps * e->full_wire / n->mtu / (8.0 * (double)BN_PS_PER_S);
            if (dma < e->lc.cap[p])
                bn_lc_set_cap(&e->lc, p, dma);
        }
    n->carry = carry;
    n->carry_ud = e;
    e->cc = n->cc;
    n->cc = &bn_cc_none; /* rates are the max-min shares: no module steers them */
    return BN_OK;
}

void bn_flow_free(struct bn_flow_engine *e)
{
    bn_hybrid_free(e);
    bn_mm_free(&e->mm);
    bn_lc_free(&e->lc);
    bn_flow_walk_free(&e->walk);
    free(e->q);
    free(e->heap);
    free(e->nic_flows);
    free(e->busy_since);
    memset(e, 0, sizeof *e);
}
