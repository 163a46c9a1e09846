/* NIC packet scheduling, queue pairs and completions; see nic.h. */
#include <stdlib.h>
#include <string.h>

#include "core/bigmem.h"
#include "nic/nic.h"

/* The distinct rates of the NICs' ports, in NIC order. */
static int nic_rates(struct bn_nics *n, const struct bn_scenario *sc, struct bn_error *err)
{
    n->cc_nrates = 0;
    for (uint32_t i = 0; i < n->nnics; i++) {
        uint64_t r = n->nic[i].line_bps;
        uint32_t k = 0;
        while (k < n->cc_nrates && n->cc_rate_bps[k] != r)
            k++;
        if (k < n->cc_nrates)
            continue;
        if (n->cc_nrates == BN_CC_RATES_MAX)
            return bn_fail(err, BN_EINPUT, "%s: key 'nic.congestion_control': the fabric's NICs "
                           "have more than %d different port rates", sc->source,
                           BN_CC_RATES_MAX);
        n->cc_rate_bps[n->cc_nrates++] = r;
    }
    return BN_OK;
}

const void *bn_nic_cc_params(const struct bn_nics *n, const struct bn_qp *qp)
{
    uint64_t r = n->nic[qp->snic].line_bps;
    uint32_t k = 0;
    while (k + 1 < n->cc_nrates && n->cc_rate_bps[k] != r)
        k++;
    return (const char *)n->cc_params + (size_t)k * n->cc->params_size;
}

/* The modules the scenario names, each set up from its own keys. */
void bn_nic_encap(const struct bn_scenario *sc, struct bn_encap *out)
{
    const struct bn_encap *e = bn_encap_at(sc->nic.encap);
    const struct bn_cc_ops *cc = bn_cc_at(sc->nic.congestion_control);
    *out = *e; /* the scenario's setter checked both indices */
    if (cc->telemetry_bytes)
        out->hdr_bytes = (uint16_t)(out->hdr_bytes +
                                    cc->telemetry_bytes(bn_cc_keys(sc, sc->nic.congestion_control)));
}

static int setup_modules(struct bn_nics *n, const struct bn_scenario *sc, struct bn_error *err)
{
    n->tp = bn_transport_at(sc->nic.transport);
    n->cc = bn_cc_at(sc->nic.congestion_control);
    if (!bn_encap_at(sc->nic.encap) || !n->tp || !n->cc) /* the setter checked them */
        return bn_fail(err, BN_EINTERNAL, "nic: a module index out of its registry");
    bn_nic_encap(sc, &n->encap_run);
    n->encap = &n->encap_run;
    int rc = n->cc->telemetry_bytes || n->cc->host_delay
                 ? bn_telemetry_init(n->fab, n->cc->telemetry_bytes != NULL, err)
                 : BN_OK;
    if (rc == BN_OK && n->tp->setup)
        rc = n->tp->setup(n, sc, err);
    return rc;
}

/* Congestion control, set up once per NIC port rate (the NICs placed). */
static int setup_cc(struct bn_nics *n, const struct bn_scenario *sc, struct bn_error *err)
{
    int rc = nic_rates(n, sc, err);
    if (rc != BN_OK)
        return rc;
    n->cc_params = calloc(n->cc_nrates + 1, n->cc->params_size + 1);
    if (!n->cc_params)
        return bn_fail(err, BN_ENOMEM, "out of memory for congestion-control parameters");
    for (uint32_t k = 0; k < n->cc_nrates && rc == BN_OK && n->cc->setup; k++)
        rc = n->cc->setup(bn_cc_keys(sc, sc->nic.congestion_control), sc->source,
                          (double)n->cc_rate_bps[k] / 1e9,
                          (char *)n->cc_params + (size_t)k * n->cc->params_size,
                          &n->cnp_interval, err);
    if (rc == BN_OK && sc->nic.cnp_interval_us > 0)
        n->cnp_interval = bn_time_from_us(sc->nic.cnp_interval_us);
    return rc;
}

int bn_nics_init(struct bn_nics *n, struct bn_fabric *f, const uint32_t *host_port,
                 uint32_t nhosts, const struct bn_scenario *sc, const struct bn_nic_params *p,
                 struct bn_error *err)
{
    memset(n, 0, sizeof *n);
    n->fab = f;
    int rc = setup_modules(n, sc, err);
    if (rc != BN_OK)
        return rc;
    n->mtu = sc->nic.mtu_bytes;
    n->spray_entropy = sc->nic.entropy == BN_SC_PER_PACKET;
    n->seed = sc->seed;
    /* blocks stay 8-byte aligned, whatever a transport asks for */
    n->tp_priv_size = n->tp->priv_size ? (n->tp->priv_size(n) + 7) & ~(size_t)7 : 0;
    uint32_t window = bn_tp_sr_window(sc);
    n->reorder_hist_len = (window ? window : 1024) + 1;
    n->reorder_hist = calloc(n->reorder_hist_len, sizeof *n->reorder_hist);
    n->max_frame = bn_encap_frame(n->encap, n->encap->reth_bytes, n->mtu);
    n->ack_every = sc->nic.ack_every;
    /* without a loss, a lossless fabric's timer is a last resort */
    n->rto = bn_time_from_us(sc->nic.rto_us > 0 ? sc->nic.rto_us : f->fc->lossless ? 10000.0 : 100.0);
    /* an RC queue pair gives up after retry_cnt retransmissions, each one
     * local ACK timeout (4.096 us x 2^ack_timeout) apart; 0: it never does */
    n->qp_fail_after = sc->nic.ack_timeout
                           ? (bn_time_t)(sc->nic.retry_cnt + 1) *
                                 bn_time_from_us(4.096 * (double)(1ull << sc->nic.ack_timeout))
                           : 0;
    /* the timer doubles while a queue pair gets no ACK, up to the local ACK
     * timeout, as NVIDIA's adaptive retransmission does */
    n->rto_backoff = sc->nic.rto_backoff;
    n->rto_max = sc->nic.ack_timeout
                     ? bn_time_from_us(4.096 * (double)(1ull << sc->nic.ack_timeout))
                     : 1024 * n->rto;
    /* IB's transport timer is the local ACK timeout (IBTA 1.4 vol. 1,
     * 9.7.6.1.3, C9-140/141): no retransmit timer outlasts it, so the
     * error comes after retry_cnt + 1 of them, lossless links too */
    if (sc->nic.ack_timeout && n->rto > n->rto_max)
        n->rto = n->rto_max;
    if (n->rto_max < n->rto)
        n->rto_max = n->rto;
    n->msg_free = BN_NONE;
    /* NICs 0..nhosts-1 are the backend NICs; with NVLink domains the
     * GPUs' NVLink ports follow as NICs nhosts..2*nhosts-1. */
    n->nhosts = nhosts;
    n->domain_gpus = p->nvlink_port ? p->domain_gpus : 0;
    n->fabric_rtt = p->fabric_rtt;
    n->fabric_switches = p->fabric_switches;
    n->agg_nic0 = p->nvlink_port ? 2 * nhosts : nhosts;
    n->agg_node0 = p->agg_node0;
    n->nvls_node0 = p->nvls_node0;
    n->nnvls = p->nnvls;
    n->nnics = n->agg_nic0 + p->nagg;
    n->nic = bn_big_calloc(n->nnics + 1, sizeof *n->nic); /* line-aligned */
    n->ep = calloc(n->nnics + 1, sizeof *n->ep);
    if (!n->nic || !n->reorder_hist || !n->ep)
        return bn_fail(err, BN_ENOMEM, "out of memory for NICs");
    for (uint32_t i = 0; i < n->nnics; i++) {
        n->nic[i].port = i < nhosts           ? host_port[i]
                         : i < n->agg_nic0    ? p->nvlink_port[i - nhosts]
                                              : p->agg_port[i - n->agg_nic0];
        bn_pktq_init(&n->nic[i].ctrl);
        n->nic[i].active_head = n->nic[i].active_tail = BN_NONE;
        n->nic[i].line_bps = f->ports[n->nic[i].port].rate_bps;
        n->ep[i].lru_head = n->ep[i].lru_tail = BN_NONE;
    }
    rc = bn_ep_setup(&n->ep_params, sc, err);
    n->ep_on = n->ep_params.on;
    if (rc == BN_OK && n->cc->notice_due) {
        n->paced_notices = true;
        n->cc_nic = calloc(n->nnics + 1, n->cc->nic_priv_size);
        if (!n->cc_nic)
            return bn_fail(err, BN_ENOMEM, "out of memory for the receivers' credit pacers");
    }
    n->kick_full = n->ep_on || n->paced_notices;
    n->cc_extra = n->paced_notices || n->fab->telemetry; /* side records or notices */
    n->rx_dma = n->ep_on && n->ep_params.dma_bps > 0;
    /* lossless links hold the sender back instead (credits), or would pause it (PFC) */
    n->rx_buffer_bytes = f->fc->lossless ? 0 : sc->nic.rx_buffer_bytes;
    rc = rc == BN_OK ? setup_cc(n, sc, err) : rc;
    for (uint32_t i = 0; rc == BN_OK && n->cc->nic_init && i < n->nnics; i++)
        n->cc->nic_init(n, i);
    return rc;
}

void bn_nics_free(struct bn_nics *n)
{
    bn_big_free(n->nic);
    bn_big_free(n->qp);
    free(n->msg);
    free(n->tp_priv);
    free(n->reorder_hist);
    free(n->cc_params);
    free(n->ep);
    free(n->lru);
    free(n->lat);
    free(n->cc_nic);
    memset(n, 0, sizeof *n);
}

/* NVLink queue pairs run without congestion control: NVLink is credit-
 * flow-controlled end to end, and DCQCN-style rate limits at the backend
 * line rate would throttle it. */
static inline const struct bn_cc_ops *qp_cc(const struct bn_nics *n, const struct bn_qp *qp)
{
    return qp->nvlink ? &bn_cc_none : n->cc;
}

void bn_qp_set_entropy(struct bn_nics *n, uint32_t qpid, uint64_t key)
{
    n->qp[qpid].entropy = (uint32_t)bn_mix64(bn_mix64(n->seed) ^ key);
}

/* The NVLink domain an endpoint reaches over NVLink: a GPU's, or the one
 * whose NVSwitch holds an NVLS unit; UINT32_MAX for any other endpoint. */
static uint32_t domain_of(const struct bn_nics *n, uint32_t node)
{
    if (node < n->nhosts)
        return node / n->domain_gpus;
    if (node >= n->nvls_node0 && node - n->nvls_node0 < n->nnvls)
        return node - n->nvls_node0;
    return UINT32_MAX;
}

uint32_t bn_qp_create(struct bn_nics *n, uint32_t src, uint32_t dst)
{
    if (n->nqps == n->qp_cap) {
        uint32_t old = n->qp_cap, cap = old ? old * 2 : 256;
        struct bn_qp *q = bn_big_realloc(n->qp, (size_t)old * sizeof *q,
                                         (size_t)cap * sizeof *q); /* line-aligned */
        if (!q)
            return BN_NONE;
        n->qp = q;
        if (n->tp_priv_size) {
            uint8_t *t = realloc(n->tp_priv, (size_t)cap * n->tp_priv_size);
            if (!t)
                return BN_NONE; /* qp_cap unchanged: the arrays still hold old */
            n->tp_priv = t;
        }
        if (n->ep_params.qp_cache) {
            uint32_t(*l)[2] = realloc(n->lru, (size_t)cap * sizeof *l);
            if (!l)
                return BN_NONE;
            n->lru = l;
        }
        n->qp_cap = cap;
    }
    uint32_t id = n->nqps++;
    struct bn_qp *qp = &n->qp[id];
    memset(qp, 0, sizeof *qp);
    qp->src = src;
    qp->dst = dst;
    qp->nvlink = n->domain_gpus && src != dst && domain_of(n, src) != UINT32_MAX &&
                 domain_of(n, src) == domain_of(n, dst);
    qp->snic = qp->nvlink && src < n->nhosts ? n->nhosts + src : bn_nic_of_node(n, src);
    qp->rnic = qp->nvlink && dst < n->nhosts ? n->nhosts + dst : bn_nic_of_node(n, dst);
    /* the "UDP source port": per queue pair, and different in every seed */
    bn_qp_set_entropy(n, id, ((uint64_t)src << 40) ^ ((uint64_t)dst << 20) ^ id);
    qp->next_active = qp->msg_head = qp->msg_tail = qp->snd_msg = qp->rcv_msg = BN_NONE;
    qp->head_end = qp->rcv_end = UINT32_MAX;
    qp->rate_bps = n->nic[qp->snic].line_bps;
    qp->cc_timer = BN_TIME_NEVER;
    qp->pace_at = BN_TIME_NEVER;
    qp->rtt_psn = BN_NONE;
    qp->cc_timer_at = BN_TIME_NEVER;
    qp->last_cnp = -BN_TIME_LIMIT;
    qp->gate_msg = qp->peer = BN_NONE;
    if (n->lru)
        n->lru[id][0] = n->lru[id][1] = BN_NONE;
    if (n->tp_priv_size)
        memset(bn_nic_tp_priv(n, id), 0, n->tp_priv_size);
    if (n->tp->init)
        n->tp->init(n, id);
    qp_cc(n, qp)->init(n, qp);
    bn_nic_cc_sync(n, id);
    return id;
}

/* Append to the sender NIC's round-robin list if it has data to send. */
static bool enlist(struct bn_nics *n, uint32_t qpid)
{
    struct bn_qp *qp = &n->qp[qpid];
    if (qp->active || qp->failed || !n->tp->has_data(n, qp))
        return false;
    struct bn_nic *nic = &n->nic[qp->snic];
    qp->active = 1;
    qp->next_active = BN_NONE;
    if (nic->active_tail == BN_NONE)
        nic->active_head = qpid;
    else
        n->qp[nic->active_tail].next_active = qpid;
    nic->active_tail = qpid;
    return true;
}

void bn_nic_activate(struct bn_nics *n, uint32_t qpid)
{
    if (enlist(n, qpid))
        bn_nic_kick(n, n->qp[qpid].snic);
}

/* Below line rate, the next packet of the queue pair may start only one
 * serialization time at its own rate after this one started. */
static inline __attribute__((always_inline)) void pace(struct bn_nics *n, struct bn_qp *qp,
                                                       uint32_t frame_bytes)
{
    uint32_t wire = frame_bytes + n->fab->wire_overhead;
    qp->last_send = n->fab->now;
    qp->last_wire = wire;
    if (qp->rate_bps < n->nic[qp->snic].line_bps)
        qp->next_send = n->fab->now + bn_serialization_ps(wire, qp->rate_bps);
    const struct bn_cc_ops *cc = qp_cc(n, qp);
    if (cc->on_sent) {
        cc->on_sent(n, qp, wire);
        bn_nic_cc_sync(n, (uint32_t)(qp - n->qp));
    }
}

/* A queue pair paced below line rate waits out its gap off the list. */
static void park(struct bn_nics *n, uint32_t qpid)
{
    struct bn_qp *qp = &n->qp[qpid];
    if (qp->pace_at > qp->next_send) {
        qp->pace_at = qp->next_send;
        bn_fabric_schedule(n->fab, qp->next_send, BN_EV_QP_PACE, qpid, 0);
    }
}

/* A data packet leaves under a module with more to do (cc_extra): its
 * marks, and no telemetry hops yet. */
static void extra_send(struct bn_nics *n, struct bn_qp *qp, uint32_t pkt, struct bn_packet *pk)
{
    const struct bn_cc_ops *cc = qp_cc(n, qp);
    if (cc->mark)
        pk->flags |= cc->mark(n, qp);
    if (n->fab->telemetry) {
        struct bn_int_rec *r = bn_telemetry_at(n->fab, pkt);
        if (r)
            r->nhop = 0;
    }
}

/* Pop queue pairs round-robin until one has data (an ACK may have moved a
 * listed queue pair's snd_nxt to its end) and may send now, then build its
 * next packet. ep_on: the endpoint model is on, a constant in each caller,
 * so that the path without it compiles to what it was before the model. */
static inline __attribute__((always_inline)) uint32_t
next_data_packet(struct bn_nics *n, struct bn_nic *nic, bool ep_on)
{
    uint32_t qpid;
    struct bn_qp *qp;
    for (;;) {
        qpid = nic->active_head;
        if (qpid == BN_NONE)
            return BN_PKT_NONE;
        qp = &n->qp[qpid];
        nic->active_head = qp->next_active;
        if (nic->active_head == BN_NONE)
            nic->active_tail = BN_NONE;
        qp->active = 0;
        if (qp->failed || !n->tp->has_data(n, qp))
            continue;
        const struct bn_cc_ops *cc = qp_cc(n, qp);
        if (cc->can_send && !cc->can_send(n, qp))
            continue; /* window full: an ACK will bring it back */
        if (qp->next_send > n->fab->now) {
            park(n, qpid);
            continue;
        }
        if (ep_on && n->ep_params.qp_cache && !qp->nvlink &&
            qp->snic < n->nhosts && !bn_nic_ep_touch(n, qp->snic, qpid)) {
            /* its context comes over PCIe: the send pipeline waits, and
             * it goes first when it may (endpoint.h) */
            struct bn_nic_ep *ep = &n->ep[qp->snic];
            ep->dma_ready = n->fab->now + 2 * n->ep_params.pcie;
            qp->active = 1;
            qp->next_active = nic->active_head;
            nic->active_head = qpid;
            if (nic->active_tail == BN_NONE)
                nic->active_tail = qpid;
            return BN_PKT_NONE;
        }
        break;
    }
    uint32_t pkt = bn_fabric_new_packet(n->fab);
    if (pkt == BN_PKT_NONE)
        return pkt;
    struct bn_packet *pk = &n->fab->pool.pkts[pkt];
    *pk = (struct bn_packet){
        .qp = qpid, .dst = qp->dst, .entropy = qp->entropy,
        .type = BN_PKT_DATA, .flags = BN_PKT_ECN_CAPABLE,
    };
    n->tp->next_data(n, qp, pk);
    if (__builtin_expect(n->cc_extra, 0))
        extra_send(n, qp, pkt, pk);
    if (qp->rtt_psn == BN_NONE) { /* time one packet per round trip */
        qp->rtt_psn = pk->psn;
        qp->rtt_sent = n->fab->now;
    }
    if (n->spray_entropy) /* a new "UDP source port" per packet: ECMP sprays it */
        pk->entropy = (uint32_t)bn_mix64(((uint64_t)qp->entropy << 32) | ++qp->spray_seq);
    bn_fabric_count_injected(n->fab, pk);
    pace(n, qp, pk->bytes);
    if (ep_on && n->ep_params.dma_bps && !qp->nvlink && qp->snic < n->nhosts) {
        /* its payload came over PCIe, at the link's rate */
        struct bn_nic_ep *ep = &n->ep[qp->snic];
        bn_time_t from = ep->dma_ready > n->fab->now ? ep->dma_ready : n->fab->now;
        ep->dma_ready = from + bn_serialization_ps(pk->payload, n->ep_params.dma_bps);
    }
    enlist(n, qpid); /* back to the tail if it has more */
    return pkt;
}

/* A control frame from qpid's receiver to its sender, counted as
 * injected (BN_PKT_NONE: out of packets). */
static inline __attribute__((always_inline)) uint32_t
ctrl_packet(struct bn_nics *n, uint32_t qpid, uint8_t type, uint32_t psn, uint32_t sack)
{
    const struct bn_qp *qp = &n->qp[qpid];
    uint32_t pkt = bn_fabric_new_packet(n->fab);
    if (pkt == BN_PKT_NONE)
        return pkt;
    struct bn_packet *pk = &n->fab->pool.pkts[pkt];
    *pk = (struct bn_packet){
        .qp = qpid, .psn = psn, .dst = qp->src,
        .entropy = qp->entropy ^ 0x9e3779b9u, .type = type,
        .bytes = bn_encap_frame(n->encap, n->encap->aeth_bytes, 0), .sack = sack,
    };
    if (type != BN_PKT_CNP && n->qp[qpid].ce_echo) { /* ECN echo for window-based CC */
        pk->flags |= BN_PKT_ECN_CE;
        n->qp[qpid].ce_echo = 0;
    }
    if (__builtin_expect(n->cc_extra, 0) && n->fab->telemetry) {
        /* an ACK returns the telemetry of the data that prompted it */
        struct bn_int_rec *r = bn_telemetry_at(n->fab, pkt);
        if (r && type != BN_PKT_CNP && n->int_rx_valid)
            *r = n->int_rx;
        else if (r)
            r->nhop = r->host_ns = 0;
    }
    bn_fabric_count_injected(n->fab, pk);
    return pkt;
}

/* A receiver-paced module's notice (a credit) that NIC nicid owes now. */
static uint32_t notice_packet(struct bn_nics *n, uint32_t nicid)
{
    uint32_t qpid = n->cc->notice_take(n, nicid);
    if (qpid == BN_NONE)
        return BN_PKT_NONE;
    n->qp[qpid].cnps_sent++;
    return ctrl_packet(n, qpid, BN_PKT_CNP, 0, 0);
}

/* The NIC's port is free: a waiting ACK/NAK, else a data packet. With the
 * endpoint model (ep_on, a constant per caller) data also waits while the
 * NIC's DMA is busy (PCIe rate, a context miss); ACKs do not. A
 * receiver-paced module (paced, a constant too) sends its notices between
 * the two, when due. */
static inline __attribute__((always_inline)) void kick(struct bn_nics *n, uint32_t nicid,
                                                       bool ep_on, bool paced)
{
    struct bn_nic *nic = &n->nic[nicid];
    struct bn_fabric *f = n->fab;
    bool idle = bn_port_idle(f, &f->ports[nic->port]);
    /* Flow control is asked for the largest frame the NIC might send; when
     * it says no, the credit or resume that lifts it wakes the port. */
    if (idle && !bn_port_fc_allows(f, nic->port, n->max_frame + f->wire_overhead))
        return;
    bool dma_wait = ep_on && n->ep[nicid].dma_ready > f->now;
    bn_time_t due = paced ? n->cc->notice_due(n, nicid) : BN_TIME_NEVER;
    if (idle) {
        uint32_t pkt = bn_pktq_pop(&nic->ctrl, &f->pool);
        if (paced && pkt == BN_PKT_NONE && due <= f->now) {
            pkt = notice_packet(n, nicid);
            due = n->cc->notice_due(n, nicid);
        }
        if (pkt == BN_PKT_NONE && nic->active_head != BN_NONE && !dma_wait) {
            pkt = next_data_packet(n, nic, ep_on);
            dma_wait = ep_on && n->ep[nicid].dma_ready > f->now;
        }
        if (pkt != BN_PKT_NONE)
            bn_port_transmit(f, nic->port, pkt);
    }
    if (!bn_pktq_empty(&nic->ctrl) || (nic->active_head != BN_NONE && !dma_wait) ||
        (paced && due <= f->now)) {
        bn_port_want_wake(f, nic->port);
    } else {
        bn_time_t at = ep_on && nic->active_head != BN_NONE ? n->ep[nicid].dma_ready
                                                             : BN_TIME_NEVER;
        if (paced && due < at)
            at = due;
        if (at != BN_TIME_NEVER)
            bn_port_wake_at(f, nic->port, at);
    }
}

void bn_nic_kick(struct bn_nics *n, uint32_t nicid)
{
    if (__builtin_expect(!n->kick_full, 1))
        kick(n, nicid, false, false);
    else if (!n->paced_notices) /* the endpoint model alone: its own copy */
        kick(n, nicid, true, false);
    else
        kick(n, nicid, n->ep_on, true);
}

void bn_nic_send_ctrl(struct bn_nics *n, uint32_t qpid, uint8_t type, uint32_t psn, uint32_t sack)
{
    uint32_t pkt = ctrl_packet(n, qpid, type, psn, sack);
    if (pkt == BN_PKT_NONE)
        return;
    const struct bn_qp *qp = &n->qp[qpid];
    struct bn_nic *nic = &n->nic[qp->rnic];
    if (!bn_pktq_has_room(&nic->ctrl, n->fab->pool.pkts[pkt].bytes)) {
        bn_fabric_overflow(n->fab, nic->port, pkt);
        return;
    }
    bn_pktq_push(&nic->ctrl, &n->fab->pool, pkt);
    bn_nic_kick(n, qp->rnic);
}

/* Notification point: a CE-marked data packet arrived; tell the sender,
 * at most once per cnp_interval per queue pair (as NICs pace CNPs). */
static void notify_congestion(struct bn_nics *n, uint32_t qpid)
{
    struct bn_qp *qp = &n->qp[qpid];
    n->ecn_ce_received++;
    if (!qp_cc(n, qp)->notifies || n->fab->now - qp->last_cnp < n->cnp_interval)
        return;
    qp->last_cnp = n->fab->now;
    qp->cnps_sent++;
    bn_nic_send_ctrl(n, qpid, BN_PKT_CNP, 0, 0);
}

/* Window-based CC, or a rate set from ACKs: hand it the ACK's echo and
 * round-trip sample, then apply a new rate if it set one, and let the
 * queue pair send again if the window opened. */
static void window_ack(struct bn_nics *n, uint32_t qpid, const struct bn_packet *pk)
{
    struct bn_qp *qp = &n->qp[qpid];
    bn_time_t rtt = 0;
    if (qp->rtt_psn != BN_NONE &&
        (pk->psn > qp->rtt_psn || (pk->type == BN_PKT_ACK && pk->sack == qp->rtt_psn))) {
        rtt = n->fab->now - qp->rtt_sent;
        qp->rtt_psn = BN_NONE;
    }
    const struct bn_cc_ops *cc = qp_cc(n, qp);
    uint64_t rate = qp->rate_bps;
    bn_time_t timer = qp->cc_timer;
    n->cc_int = n->fab->telemetry ? &n->int_ack : NULL;
    cc->on_ack(n, qp, pk->flags & BN_PKT_ECN_CE, rtt);
    n->cc_int = NULL;
    if (n->qp[qpid].rate_bps != rate || n->qp[qpid].cc_timer != timer)
        bn_nic_cc_sync(n, qpid);
    bn_nic_activate(n, qpid);
}

/* Before the packet's slot is freed (and its record reused): a data
 * packet's telemetry for its ACK, an ACK's for the sender's on_ack. */
static void copy_telemetry(struct bn_nics *n, uint32_t pkt, const struct bn_packet *pk)
{
    const struct bn_int_rec *r = bn_telemetry_at(n->fab, pkt);
    if (pk->type == BN_PKT_DATA) {
        n->int_rx_valid = r != NULL;
        if (r) {
            n->int_rx = *r;
            n->int_rx.host_ns = n->rx_wait_ns;
        }
    } else if (pk->type != BN_PKT_CNP) {
        if (r)
            n->int_ack = *r;
        else
            n->int_ack.nhop = 0;
    }
}

/* With the endpoint model's PCIe rate a host NIC writes each data
 * packet's payload to memory in arrival order and takes the packet in
 * (frees its buffer, acknowledges it) as its write starts, a posted write:
 * a packet that finds the DMA busy waits in the NIC's receive buffer, its
 * wait the endpoint delay its ACK reports; on a lossy link one that would
 * overflow nic.rx_buffer_bytes is dropped. True if it waits or dropped (its
 * BN_EV_NIC_RX is scheduled, the wait kept in its in_port, which a frame
 * at its NIC no longer needs). */
static bool rx_waits(struct bn_nics *n, uint32_t nicid, uint32_t pkt)
{
    struct bn_packet *pk = &n->fab->pool.pkts[pkt];
    if (nicid >= n->nhosts || pk->type != BN_PKT_DATA || (pk->flags & BN_PKT_TRIMMED))
        return false;
    struct bn_nic_ep *ep = &n->ep[nicid];
    bn_time_t now = n->fab->now, start = ep->rx_ready > now ? ep->rx_ready : now;
    /* the bytes ahead of it in the receive buffer, and it: over the bound
     * on a lossy link, dropped as a full buffer drops */
    double waiting = (double)(start - now) * (double)n->ep_params.dma_bps / 8e12;
    if (n->rx_buffer_bytes && waiting + pk->bytes > (double)n->rx_buffer_bytes) {
        bn_fabric_drop(n->fab, n->nic[nicid].port, pkt);
        return true;
    }
    ep->rx_ready = start + bn_serialization_ps(pk->payload, n->ep_params.dma_bps);
    n->rx_dma_pkts++;
    if (start == now)
        return false;
    n->rx_wait_sum += start - now;
    n->rx_wait_max = start - now > n->rx_wait_max ? start - now : n->rx_wait_max;
    uint64_t ns = (start - now + 500) / 1000;
    pk->in_port = ns < UINT32_MAX ? (uint32_t)ns : UINT32_MAX;
    bn_fabric_schedule(n->fab, start, BN_EV_NIC_RX, nicid, pkt);
    return true;
}

static inline __attribute__((always_inline)) void receive(struct bn_nics *n, uint32_t nicid,
                                                         uint32_t pkt);

void bn_nic_receive(struct bn_nics *n, uint32_t nicid, uint32_t pkt)
{
    if (__builtin_expect(n->rx_dma, 0) && rx_waits(n, nicid, pkt))
        return;
    receive(n, nicid, pkt);
}

void bn_nic_rx_event(struct bn_nics *n, uint32_t nicid, uint32_t pkt)
{
    n->rx_wait_ns = n->fab->pool.pkts[pkt].in_port;
    receive(n, nicid, pkt);
    n->rx_wait_ns = 0;
}

static inline __attribute__((always_inline)) void receive(struct bn_nics *n, uint32_t nicid,
                                                         uint32_t pkt)
{
    /* Copy first: handlers create packets, and the pool may move. */
    struct bn_packet pk = n->fab->pool.pkts[pkt];
    if (__builtin_expect(n->cc_extra, 0) && n->fab->telemetry)
        copy_telemetry(n, pkt, &pk);
    bn_fabric_deliver(n->fab, n->nic[nicid].port, pkt);
    const struct bn_cc_ops *cc = qp_cc(n, &n->qp[pk.qp]);
    switch (pk.type) {
    case BN_PKT_DATA:
        if (n->on_arrival)
            n->on_arrival(n->ud, pk.qp, &pk);
        if (pk.flags & BN_PKT_ECN_CE) {
            notify_congestion(n, pk.qp);
            n->qp[pk.qp].ce_echo = cc->on_ack != NULL;
        }
        n->tp->on_data(n, pk.qp, &pk);
        n->int_rx_valid = false;
        if (__builtin_expect(n->cc_extra, 0) && cc->on_arrival)
            cc->on_arrival(n, pk.qp, &pk);
        break;
    case BN_PKT_CNP:
        n->qp[pk.qp].cnps_received++;
        cc->on_notify(n, &n->qp[pk.qp]);
        bn_nic_cc_sync(n, pk.qp);
        if (cc->can_send) /* a credit may have opened the window */
            bn_nic_activate(n, pk.qp);
        break;
    default: {
        uint32_t una = n->qp[pk.qp].snd_una;
        n->tp->on_ack(n, pk.qp, &pk);
        if (n->qp[pk.qp].snd_una != una) { /* progress: the retry count starts again */
            n->qp[pk.qp].stalled = 0;
            n->qp[pk.qp].backoff = 0;
        }
        if (cc->on_ack)
            window_ack(n, pk.qp, &pk);
    }
    }
}

void bn_nic_cc_sync(struct bn_nics *n, uint32_t qpid)
{
    struct bn_qp *qp = &n->qp[qpid];
    if (qp->rate_bps < 1000)
        qp->rate_bps = 1000; /* a module's rate rounded to 0 must not stop time */
    /* An earlier deadline than the event already pending (a deferred DCQCN
     * cut under a 300 us increase timer) gets an event of its own; the
     * handler ignores events that come early. */
    if (qp->cc_timer != BN_TIME_NEVER && qp->cc_timer < qp->cc_timer_at) {
        bn_time_t at = qp->cc_timer > n->fab->now ? qp->cc_timer : n->fab->now;
        qp->cc_timer_at = at;
        bn_fabric_schedule(n->fab, at, BN_EV_CC_TIMER, qpid, 0);
    }
    /* A new rate reshapes the gap after the last packet at once: a flow
     * throttled to 1 Mb/s must not sleep out a 33 ms gap after recovering. */
    qp->next_send = qp->rate_bps < n->nic[qp->snic].line_bps
                        ? qp->last_send + bn_serialization_ps(qp->last_wire, qp->rate_bps)
                        : qp->last_send;
    if (!qp->active && n->tp->has_data(n, qp) && qp->next_send > n->fab->now) {
        park(n, qpid);
    } else if (!qp->active && qp->pace_at != BN_TIME_NEVER && qp->next_send <= n->fab->now) {
        /* Eligible again: list it and wake the port later in this instant,
         * never send from here (we may be inside bn_nic_kick). */
        qp->pace_at = BN_TIME_NEVER;
        if (enlist(n, qpid))
            bn_port_want_wake(n->fab, n->nic[qp->snic].port);
    }
}

void bn_nic_cc_timer_event(struct bn_nics *n, uint32_t qpid)
{
    struct bn_qp *qp = &n->qp[qpid];
    if (n->fab->now >= qp->cc_timer_at)
        qp->cc_timer_at = BN_TIME_NEVER;
    /* An idle queue pair's rate matters again only when it has data: its
     * timer rests until a message released to it syncs it (wr.c). */
    if (qp->cc_timer == BN_TIME_NEVER || qp->snd_una >= qp->snd_end)
        return;
    if (n->fab->now >= qp->cc_timer)
        qp_cc(n, qp)->on_timer(n, qp);
    bn_nic_cc_sync(n, qpid);
}

void bn_nic_pace_event(struct bn_nics *n, uint32_t qpid)
{
    struct bn_qp *qp = &n->qp[qpid];
    if (n->fab->now >= qp->pace_at)
        qp->pace_at = BN_TIME_NEVER;
    if (qp->gate_msg != BN_NONE)
        bn_nic_release(n, qpid);
    if (!n->carry || n->qp[qpid].by_packet)
        bn_nic_activate(n, qpid);
}

/* The timer a queue pair runs now: nic.rto_us, doubled per timeout in a
 * row without progress (nic.rto_backoff). */
static bn_time_t rto_of(const struct bn_nics *n, const struct bn_qp *qp)
{
    bn_time_t t = qp->stalled ? n->rto << qp->backoff : n->rto;
    return t < n->rto_max ? t : n->rto_max;
}

void bn_nic_arm_rto(struct bn_nics *n, uint32_t qpid)
{
    struct bn_qp *qp = &n->qp[qpid];
    qp->rto_deadline = n->fab->now + rto_of(n, qp);
    if (!qp->rto_pending) {
        qp->rto_pending = 1;
        bn_fabric_schedule(n->fab, qp->rto_deadline, BN_EV_RTO, qpid, 0);
    }
}

/* Retries exhausted: the queue pair goes to the error state, as an RC
 * queue pair does after retry_cnt retransmissions without an ACK, each a
 * local ACK timeout apart (IBTA spec vol. 1, 9.7.6.1.3 and 12.7.34; the
 * work request completes with IBV_WC_RETRY_EXC_ERR). bnet's own timer
 * (nic.rto_us) retransmits sooner, to recover congestion drops quickly;
 * the error comes when the hardware's would: after (retry_cnt + 1) local
 * ACK timeouts without progress. It sends nothing more; the driver hears. */
void bn_nic_qp_fail(struct bn_nics *n, uint32_t qpid, uint8_t why)
{
    if (n->qp[qpid].failed)
        return;
    n->qp[qpid].failed = why;
    n->qps_failed++;
    if (n->on_error)
        n->on_error(n->ud, qpid, n->fab->now);
}

void bn_nic_rto_event(struct bn_nics *n, uint32_t qpid)
{
    struct bn_qp *qp = &n->qp[qpid];
    qp->rto_pending = 0;
    if (qp->failed)
        return;
    if (qp->snd_una >= qp->snd_max)
        return; /* nothing sent is unacknowledged (paced data may wait): the timer lapses */
    if (n->fab->now < qp->rto_deadline) {
        /* progress moved the deadline since this event was scheduled */
        qp->rto_pending = 1;
        bn_fabric_schedule(n->fab, qp->rto_deadline, BN_EV_RTO, qpid, 0);
        return;
    }
    if (!qp->stalled) { /* the deadline was one timer past the last progress */
        qp->stalled = 1;
        qp->stall_since = qp->rto_deadline - n->rto;
    }
    if (n->qp_fail_after && n->fab->now - qp->stall_since >= n->qp_fail_after) {
        bn_nic_qp_fail(n, qpid, BN_QP_RETRIES);
        return;
    }
    if (n->rto_backoff && qp->backoff < 40 && (n->rto << qp->backoff) < n->rto_max)
        qp->backoff++;
    n->tp->on_timeout(n, qpid);
}

uint32_t bn_nic_psn_payload(const struct bn_nics *n, const struct bn_msg *m, uint32_t psn)
{
    uint64_t off = (uint64_t)(psn - m->first_psn) * n->mtu;
    uint64_t left = m->bytes - off;
    return (uint32_t)(left < n->mtu ? left : n->mtu);
}

void bn_nic_note_reorder(struct bn_nics *n, uint32_t depth)
{
    n->reorder_hist[depth < n->reorder_hist_len ? depth : n->reorder_hist_len - 1]++;
}

/* The extended transport headers of a message's first packet (IBTA spec
 * vol. 1, 9.4): a WRITE's and a READ request's RETH, an atomic request's
 * AtomicETH, a response's AETH (an atomic's 8-byte AtomicAckETH is its
 * payload). */
static uint32_t msg_header(const struct bn_nics *n, const struct bn_msg *m)
{
    switch (m->verb) {
    case BN_VERB_WRITE:
    case BN_VERB_READ:
        return n->encap->reth_bytes;
    case BN_VERB_ATOMIC:
        return BN_ATOMIC_ETH_BYTES;
    case BN_VERB_READ_RESP:
    case BN_VERB_ATOMIC_RESP:
        return n->encap->aeth_bytes;
    default:
        return 0;
    }
}

uint64_t bn_nic_msg_wire(const struct bn_nics *n, const struct bn_msg *m, uint32_t *last_wire)
{
    uint32_t ov = n->fab->wire_overhead, first = msg_header(n, m);
    uint32_t last_payload = bn_nic_psn_payload(n, m, m->first_psn + m->npkts - 1);
    if (m->npkts == 1) {
        *last_wire = bn_encap_frame(n->encap, first, last_payload) + ov;
        return *last_wire;
    }
    uint32_t last_extra = m->verb == BN_VERB_READ_RESP ? n->encap->aeth_bytes : 0;
    *last_wire = bn_encap_frame(n->encap, last_extra, last_payload) + ov;
    return (uint64_t)bn_encap_frame(n->encap, first, n->mtu) + ov +
           (uint64_t)(m->npkts - 2) * (bn_encap_frame(n->encap, 0, n->mtu) + ov) + *last_wire;
}

bool bn_nic_shape_from_msg(struct bn_nics *n, struct bn_qp *qp, uint32_t mi, uint32_t psn,
                           struct bn_packet *pk)
{
    const struct bn_msg *m = &n->msg[mi];
    uint32_t extra = psn == m->first_psn ? msg_header(n, m) : 0;
    if (m->verb == BN_VERB_READ_RESP && psn != m->first_psn && psn + 1 == m->first_psn + m->npkts)
        extra = n->encap->aeth_bytes; /* RDMA READ Response Last */
    pk->psn = psn;
    pk->payload = (uint16_t)bn_nic_psn_payload(n, m, psn);
    pk->bytes = bn_encap_frame(n->encap, extra, pk->payload);
    /* the packets between its first and its last are full */
    qp->snd_full_lo = m->first_psn + 1;
    qp->snd_full_hi = m->npkts > 1 ? m->first_psn + m->npkts - 1 : qp->snd_full_lo;
    bool last = psn + 1 == m->first_psn + m->npkts;
    if (last)
        pk->flags |= BN_PKT_LAST;
    return last;
}

uint32_t bn_nic_msg_holding(const struct bn_nics *n, const struct bn_qp *qp, uint32_t psn)
{
    uint32_t mi = qp->msg_head;
    while (mi != BN_NONE && psn >= n->msg[mi].first_psn + n->msg[mi].npkts)
        mi = n->msg[mi].next;
    return mi;
}
