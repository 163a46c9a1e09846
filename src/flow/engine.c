/*
 * The flow-level engine's events (flow.h). The NICs hand it a queue pair
 * whose send engine got data (bn_nics.carry); the queue pair's flow then
 * competes for its links until its messages are sent. Rates are solved
 * (BN_EV_FLOW_SOLVE, behind the instant's events) when flows start, and a
 * frame after flows stop, only over the flows connected to what changed;
 * the earliest message to finish is the one
 * BN_EV_FLOW_SENT wakes for (an indexed heap of the sending rate classes,
 * each with its members by progress: rateclass.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flow/flow.h"
#include "flow/hybrid.h"

/* --- the sending rate classes, by when their first member's message is sent --- */

static inline struct bn_flow_cls *cls(struct bn_flow_engine *e, uint32_t c)
{
    return &e->rcl.c[c];
}

static bool earlier(struct bn_flow_engine *e, uint32_t a, uint32_t b)
{
    bn_time_t ta = cls(e, a)->done_at, tb = cls(e, b)->done_at;
    return ta < tb || (ta == tb && a < b);
}

static void heap_set(struct bn_flow_engine *e, uint32_t i, uint32_t c)
{
    e->heap[i] = c;
    cls(e, c)->hpos = i;
}

static void sift_up(struct bn_flow_engine *e, uint32_t i)
{
    uint32_t c = e->heap[i];
    while (i > 0 && earlier(e, c, e->heap[(i - 1) / 2])) {
        heap_set(e, i, e->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(e, i, c);
}

static void sift_down(struct bn_flow_engine *e, uint32_t i)
{
    uint32_t c = e->heap[i];
    for (;;) {
        uint32_t k = 2 * i + 1;
        if (k >= e->nheap)
            break;
        if (k + 1 < e->nheap && earlier(e, e->heap[k + 1], e->heap[k]))
            k++;
        if (!earlier(e, e->heap[k], c))
            break;
        heap_set(e, i, e->heap[k]);
        i = k;
    }
    heap_set(e, i, c);
}

static void heap_update(struct bn_flow_engine *e, uint32_t c)
{
    struct bn_flow_cls *k = cls(e, c);
    if (k->hpos == BN_NONE) {
        k->hpos = e->nheap;
        e->heap[e->nheap++] = c;
    }
    sift_up(e, k->hpos);
    sift_down(e, k->hpos);
}

static void heap_remove(struct bn_flow_engine *e, uint32_t c)
{
    uint32_t i = cls(e, c)->hpos;
    if (i == BN_NONE)
        return;
    cls(e, c)->hpos = BN_NONE;
    uint32_t last = e->heap[--e->nheap];
    if (i < e->nheap) {
        heap_set(e, i, last);
        sift_up(e, i);
        sift_down(e, cls(e, last)->hpos);
    }
}

/* A BN_EV_FLOW_SENT for the earliest finish, unless one as early is due. */
static void wake_for_top(struct bn_flow_engine *e)
{
    if (e->nheap == 0)
        return;
    bn_time_t t = cls(e, e->heap[0])->done_at;
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
        e->q[i] = (struct bn_flow_qp){.msg = BN_NONE, .cls = BN_NONE};
    e->nq = n;
    /* classes: at most one per queue pair (hybrid: the queue pair's id) */
    int rc = bn_rc_reserve(&e->rcl, n, e->err);
    return rc == BN_OK ? bn_mm_reserve(&e->mm, n, e->err) : rc;
}

/* Bring the class's progress up to now at the rate it had. */
static void advance(struct bn_flow_engine *e, struct bn_flow_cls *k)
{
    bn_time_t now = e->f->now;
    k->v += k->rate * (double)(now - k->upd);
    k->upd = now;
}

/* When the class's first member has sent its message, at its rate. */
static void set_done(struct bn_flow_engine *e, uint32_t c)
{
    struct bn_flow_cls *k = cls(e, c);
    double left = k->mem[0].key - k->v;
    if (left < 0)
        left = 0;
    k->done_at = k->rate > 0 ? e->f->now + (bn_time_t)ceil(left / k->rate) : BN_TIME_NEVER;
    heap_update(e, c);
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

/* Start the queue pair's next released message, if it has one (its wire
 * bytes in left): false if it has none (it stops sending). */
static bool next_message(struct bn_flow_engine *e, uint32_t qpid)
{
    struct bn_qp *qp = &e->n->qp[qpid];
    struct bn_flow_qp *fq = &e->q[qpid];
    bool none = qp->snd_nxt >= qp->snd_end || qp->snd_msg == BN_NONE;
    if (none && e->n->refill && e->n->refill(e->n->refill_ud, qpid)) {
        qp = &e->n->qp[qpid]; /* posting may have moved the queue pairs */
        fq = &e->q[qpid];
        none = qp->snd_nxt >= qp->snd_end || qp->snd_msg == BN_NONE;
    }
    if (none) {
        fq->msg = BN_NONE;
        return false;
    }
    const struct bn_msg *m = &e->n->msg[qp->snd_msg];
    fq->msg = qp->snd_msg;
    fq->left = (double)bn_nic_msg_wire(e->n, m, &fq->last_wire);
    return true;
}

/* The queue pair's flow joins the competition for its links, as a member
 * of its rate class: the class's first member activates it; another
 * raises its members (a leave and a join to the solver). Either way it is
 * solved at once. */
static int start(struct bn_flow_engine *e, uint32_t qpid)
{
    struct bn_flow_qp *fq = &e->q[qpid];
    int rc = fq->walked ? BN_OK : bn_flow_walk(e, qpid, e->err);
    if (rc != BN_OK)
        return rc;
    uint32_t c = fq->cls;
    struct bn_flow_cls *k = cls(e, c);
    if (k->n == 0) { /* idle: a fresh clock */
        k->v = 0;
        k->rate = 0;
        k->upd = e->f->now;
        rc = bn_mm_set_mult(&e->mm, c, 1, e->err);
        if (rc == BN_OK)
            rc = bn_mm_activate(&e->mm, c, e->err);
        if (rc == BN_OK)
            rc = bn_rc_push(k, fq->left, qpid, e->err);
    } else {
        advance(e, k);
        rc = bn_rc_push(k, k->v + fq->left, qpid, e->err);
        if (rc == BN_OK)
            rc = bn_mm_set_mult(&e->mm, c, k->n, e->err);
        if (rc == BN_OK)
            set_done(e, c);
    }
    if (rc != BN_OK)
        return rc;
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

/* The class's first member has sent its message: its next one, or it
 * leaves the class (the last one leaving idles it). */
static int first_sent(struct bn_flow_engine *e, uint32_t c)
{
    struct bn_flow_cls *k = cls(e, c);
    uint32_t qpid = k->mem[0].qp;
    advance(e, k);
    message_sent(e, qpid);
    if (next_message(e, qpid)) { /* back to back: same flow, same rate */
        k->mem[0].key = k->v + e->q[qpid].left;
        bn_rc_fix_top(k);
        set_done(e, c);
        return BN_OK;
    }
    bn_rc_pop(k);
    e->nic_flows[e->n->qp[qpid].snic]--;
    int rc;
    if (k->n == 0) {
        heap_remove(e, c);
        k->rate = 0;
        k->done_at = BN_TIME_NEVER;
        rc = bn_mm_deactivate(&e->mm, c, e->err);
    } else {
        rc = bn_mm_set_mult(&e->mm, c, k->n, e->err);
        set_done(e, c); /* the others keep their rate until the solve */
    }
    if (rc == BN_OK)
        solve_after_stop(e, qpid);
    return rc;
}

static int on_sent(struct bn_flow_engine *e)
{
    bn_time_t now = e->f->now;
    if (now >= e->ev_at) /* the wake-up armed last; an earlier one left behind must not re-arm */
        e->ev_at = BN_TIME_NEVER;
    while (e->nheap && cls(e, e->heap[0])->done_at <= now) {
        int rc = first_sent(e, e->heap[0]);
        if (rc != BN_OK)
            return rc;
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
        uint32_t c = e->mm.changed[i];
        struct bn_flow_cls *k = cls(e, c);
        if (k->n == 0)
            continue;
        advance(e, k);
        k->rate = e->mm.rate[c];
        set_done(e, c);
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
    bn_rc_init(&e->rcl);
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
    bn_rc_free(&e->rcl);
    bn_lc_free(&e->lc);
    bn_flow_walk_free(&e->walk);
    free(e->q);
    free(e->heap);
    free(e->nic_flows);
    free(e->busy_since);
    memset(e, 0, sizeof *e);
}
