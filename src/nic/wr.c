/*
 * Work requests: a message posted on a queue pair waits, under the endpoint
 * model (endpoint.h), until its NIC has processed it, then goes to the
 * send engine (snd_end moves past it); READs and atomics also wait for a
 * free slot of the queue pair's max_rd_atomic. The responder's NIC answers
 * them itself on the reverse queue pair. Completions go up to the driver
 * after the receive side's processing and PCIe writes, through events when
 * those take time.
 */
#include <stdlib.h>

#include "core/grow.h"
#include "nic/nic.h"

static uint32_t msg_alloc(struct bn_nics *n)
{
    if (n->msg_free == BN_NONE) {
        uint32_t old = n->msg_cap, cap = old ? old * 2 : 256;
        struct bn_msg *m = realloc(n->msg, (size_t)cap * sizeof *m);
        if (!m)
            return BN_NONE;
        n->msg = m;
        n->msg_cap = cap;
        for (uint32_t i = old; i < cap; i++)
            m[i].next = i + 1 < cap ? i + 1 : BN_NONE;
        n->msg_free = old;
    }
    uint32_t i = n->msg_free;
    n->msg_free = n->msg[i].next;
    return i;
}

static bool is_request(uint8_t verb) { return verb == BN_VERB_READ || verb == BN_VERB_ATOMIC; }
static bool is_response(uint8_t verb)
{
    return verb == BN_VERB_READ_RESP || verb == BN_VERB_ATOMIC_RESP;
}

/* Do a host's PCIe and NIC costs apply to this end? Not over NVLink (GPU
 * copies), nor at a SHARP unit (a switch). */
static bool host_end(const struct bn_nics *n, const struct bn_qp *qp, uint32_t nic)
{
    return !qp->nvlink && nic < n->nhosts;
}

/* A slot of NIC `nic`'s work-request engine from `at` on. */
static bn_time_t engine_slot(struct bn_nics *n, uint32_t nic, bn_time_t at)
{
    struct bn_nic_ep *ep = &n->ep[nic];
    bn_time_t slot = at > ep->wqe_next ? at : ep->wqe_next;
    ep->wqe_next = slot + n->ep_params.wqe_gap;
    return slot;
}

/* When the send engine may start a message the host posts now: the
 * doorbell crosses PCIe, the engine takes it, fetches the work request and
 * the data it sends (neither when inline), and processes it. */
static bn_time_t host_ready(struct bn_nics *n, const struct bn_qp *qp, uint64_t wire)
{
    const struct bn_ep_params *p = &n->ep_params;
    if (!host_end(n, qp, qp->snic))
        return n->fab->now;
    bn_time_t slot = engine_slot(n, qp->snic, n->fab->now + p->pcie);
    bool inline_ = p->inline_bytes && wire <= p->inline_bytes; /* requests carry no data */
    bn_time_t fetch = inline_ ? 0 : 2 * p->pcie + (wire ? 2 * p->data : 0);
    return slot + fetch + p->tx;
}

/* When the responder's send engine may start the response to a request
 * that is in now: receive processing, an engine slot, the data read (an
 * atomic's read-modify-write: a read, its write posted), send processing. */
static bn_time_t response_ready(struct bn_nics *n, const struct bn_qp *req)
{
    const struct bn_ep_params *p = &n->ep_params;
    if (!host_end(n, req, req->rnic))
        return n->fab->now;
    bn_time_t slot = engine_slot(n, req->rnic, n->fab->now + p->rx);
    return slot + 2 * p->data + p->tx;
}

/* Schedule the queue pair's look at its gate for `at`, unless a pacing
 * wake-up as early is due (the same event: its handler releases too). */
static void gate_wake(struct bn_nics *n, uint32_t qpid, bn_time_t at)
{
    struct bn_qp *qp = &n->qp[qpid];
    if (at < qp->pace_at) {
        qp->pace_at = at;
        bn_fabric_schedule(n->fab, at, BN_EV_QP_PACE, qpid, 0);
    }
}

/* Give the send engine every message that is ready, in order. */
void bn_nic_release(struct bn_nics *n, uint32_t qpid)
{
    struct bn_qp *qp = &n->qp[qpid];
    if (n->elsewhere && n->elsewhere[qp->src])
        return; /* its sender runs in another process */
    uint32_t before = qp->snd_end;
    while (qp->gate_msg != BN_NONE) {
        const struct bn_msg *m = &n->msg[qp->gate_msg];
        if (m->at > n->fab->now) {
            gate_wake(n, qpid, m->at);
            break;
        }
        bool request = is_request(m->verb);
        if (request && qp->rd_out >= n->ep_params.max_rd)
            break; /* a response coming in releases it */
        qp->rd_out += request;
        qp->snd_end = m->first_psn + m->npkts;
        qp->gate_msg = m->next;
    }
    if (qp->snd_end == before)
        return;
    if (n->carry) {
        n->carry(n->carry_ud, qpid);
        return;
    }
    bn_nic_cc_sync(n, qpid);
    bn_nic_activate(n, qpid);
}

static uint64_t npkts_of(const struct bn_nics *n, uint64_t bytes)
{
    return bytes ? (bytes + n->mtu - 1) / n->mtu : 1;
}

/* Append a message to the queue pair; returns its index or BN_NONE. */
static uint32_t enqueue(struct bn_nics *n, uint32_t qpid, const struct bn_msg *tmpl)
{
    uint32_t mi = msg_alloc(n);
    if (mi == BN_NONE)
        return BN_NONE;
    struct bn_qp *qp = &n->qp[qpid];
    struct bn_msg *m = &n->msg[mi];
    *m = *tmpl;
    m->first_psn = qp->post_end;
    m->npkts = (uint32_t)npkts_of(n, m->bytes);
    m->next = BN_NONE;
    qp->post_end += m->npkts;
    n->ep[qp->snic].msgs++;
    if (qp->msg_tail == BN_NONE) {
        qp->msg_head = mi;
        qp->head_end = qp->post_end;
    } else {
        n->msg[qp->msg_tail].next = mi;
    }
    qp->msg_tail = mi;
    if (qp->snd_msg == BN_NONE)
        qp->snd_msg = mi;
    if (qp->rcv_msg == BN_NONE) {
        qp->rcv_msg = mi;
        qp->rcv_end = qp->post_end;
    }
    if (qp->gate_msg == BN_NONE)
        qp->gate_msg = mi;
    return mi;
}

int bn_qp_post(struct bn_nics *n, uint32_t qpid, uint64_t bytes, enum bn_verb verb,
               uint32_t cookie)
{
    bool request = is_request((uint8_t)verb);
    if (request && n->qp[qpid].peer == BN_NONE) {
        uint32_t r = bn_qp_create(n, n->qp[qpid].dst, n->qp[qpid].src); /* may move n->qp */
        if (r == BN_NONE)
            return -1;
        n->qp[qpid].peer = r;
        n->qp[r].peer = qpid;
    }
    struct bn_qp *qp = &n->qp[qpid];
    uint64_t wire = request ? 0 : bytes;
    uint64_t len = verb == BN_VERB_ATOMIC ? BN_ATOMIC_BYTES : bytes;
    if (npkts_of(n, wire) > UINT32_MAX - qp->post_end ||
        (request && npkts_of(n, len) > UINT32_MAX - n->qp[qp->peer].post_end))
        return -2; /* PSNs are 32-bit: the caller bounds message sizes */
    struct bn_msg m = {.bytes = wire, .len = len, .posted = n->fab->now, .cookie = cookie,
                       .verb = (uint8_t)verb, .at = host_ready(n, qp, wire)};
    if (enqueue(n, qpid, &m) == BN_NONE)
        return -1;
    bn_nic_release(n, qpid);
    return 0;
}

/* The responder's NIC answers request `req` of queue pair qpid on its
 * reverse. Out of memory leaves the request unanswered: the fabric's oom
 * flag stops the run. */
static void respond(struct bn_nics *n, uint32_t qpid, const struct bn_msg *req)
{
    uint32_t r = n->qp[qpid].peer;
    bool atomic = req->verb == BN_VERB_ATOMIC;
    struct bn_msg m = {.bytes = req->len, .len = req->len, .posted = req->posted,
                       .cookie = req->cookie,
                       .verb = atomic ? BN_VERB_ATOMIC_RESP : BN_VERB_READ_RESP,
                       .at = response_ready(n, &n->qp[qpid])};
    if (enqueue(n, r, &m) == BN_NONE) {
        n->fab->oom = true;
        return;
    }
    bn_nic_release(n, r);
}

/* Hand a completion to the driver `delay` from now. */
static void deliver(struct bn_nics *n, uint32_t cookie, enum bn_completion_side side,
                    bn_time_t when)
{
    if (when <= n->fab->now)
        n->on_complete(n->ud, cookie, side, n->fab->now);
    else
        bn_fabric_schedule(n->fab, when, BN_EV_COMPLETE, cookie, (uint32_t)side);
}

void bn_nic_complete_event(struct bn_nics *n, uint32_t cookie, uint32_t side)
{
    n->on_complete(n->ud, cookie, (enum bn_completion_side)side, n->fab->now);
}

/* A message's latency, post to completion, for the percentiles. */
static void record(struct bn_nics *n, bn_time_t posted, bn_time_t done)
{
    if (!n->record_lat)
        return;
    if (!bn_grow((void **)&n->lat, n->nlat, &n->lat_cap, sizeof *n->lat)) {
        n->fab->oom = true;
        return;
    }
    n->lat[n->nlat++] = done - posted;
}

/* When the receiver of message m (all in now) sees it: receive processing
 * and the data written over PCIe; a SEND's or a response's completion
 * entry, written to host memory behind the data, may come later. */
static bn_time_t rx_done(const struct bn_nics *n, const struct bn_qp *qp, const struct bn_msg *m)
{
    const struct bn_ep_params *p = &n->ep_params;
    if (!host_end(n, qp, qp->rnic))
        return n->fab->now;
    bn_time_t write = m->verb == BN_VERB_WRITE ? p->data : p->data > p->pcie ? p->data : p->pcie;
    return n->fab->now + p->rx + write;
}

/* One past message mi's last PSN (none: UINT32_MAX), as the queue pair
 * keeps it for the oldest message at each end (head_end, rcv_end). */
static uint32_t msg_end(const struct bn_nics *n, uint32_t mi)
{
    return mi == BN_NONE ? UINT32_MAX : n->msg[mi].first_psn + n->msg[mi].npkts;
}

/* Completion callbacks may post messages or create queue pairs, which can
 * move n->qp and n->msg: the bookkeeping is done first and nothing is held
 * across the call. */
void bn_nic_complete_rx(struct bn_nics *n, uint32_t qpid)
{
    for (;;) {
        struct bn_qp *qp = &n->qp[qpid];
        if (qp->rcv_nxt < qp->rcv_end || qp->rcv_msg == BN_NONE)
            return;
        uint32_t mi = qp->rcv_msg;
        struct bn_msg *m = &n->msg[mi];
        qp->rcv_msg = m->next;
        qp->rcv_end = msg_end(n, qp->rcv_msg);
        m->at = rx_done(n, qp, m);
        if (is_request(m->verb)) {
            respond(n, qpid, m);
        } else if (is_response(m->verb)) {
            uint32_t req = qp->peer; /* the requester's queue pair: one slot free */
            record(n, m->posted, m->at);
            n->qp[req].rd_out--;
            uint32_t cookie = m->cookie;
            bn_time_t at = m->at;
            bn_nic_release(n, req);
            deliver(n, cookie, BN_COMPLETE_TX, at);
        } else {
            record(n, m->posted, m->at);
            deliver(n, m->cookie, BN_COMPLETE_RX, m->at);
        }
    }
}

/* When the sender sees an acknowledged message complete: the ACK
 * processed and the completion entry written, never before its receiver
 * saw it (m->at). */
static bn_time_t tx_done(const struct bn_nics *n, const struct bn_qp *qp, const struct bn_msg *m)
{
    const struct bn_ep_params *p = &n->ep_params;
    bn_time_t t = host_end(n, qp, qp->snic) ? n->fab->now + p->rx + p->pcie : n->fab->now;
    return t > m->at ? t : m->at;
}

void bn_nic_complete_tx(struct bn_nics *n, uint32_t qpid)
{
    for (;;) {
        struct bn_qp *qp = &n->qp[qpid];
        /* a queue pair in the error state completes nothing more (its
         * work requests are flushed with errors) */
        if (qp->snd_una < qp->head_end || qp->msg_head == BN_NONE || qp->failed)
            return;
        uint32_t mi = qp->msg_head;
        struct bn_msg *m = &n->msg[mi];
        uint32_t cookie = m->cookie;
        bool reported = !is_request(m->verb) && !is_response(m->verb);
        bn_time_t when = tx_done(n, qp, m);
        qp->msg_head = m->next;
        qp->head_end = msg_end(n, qp->msg_head);
        if (qp->msg_head == BN_NONE)
            qp->msg_tail = BN_NONE;
        if (qp->snd_msg == mi)
            qp->snd_msg = m->next;
        m->next = n->msg_free;
        n->msg_free = mi;
        /* a READ or atomic completes when its response is in; a response
         * is the responder NIC's own */
        if (reported)
            deliver(n, cookie, BN_COMPLETE_TX, when);
    }
}
