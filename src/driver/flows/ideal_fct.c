/*
 * Ideal FCT: what a flow would take with the fabric to itself, from the
 * figures the packet level runs on. Three parts:
 *
 *  - the endpoints (docs/endpoints.md): the doorbell, the work request and
 *    data fetched, send processing, then receive processing and the data
 *    written; nothing of it over NVLink;
 *  - the frames streaming through the path's hops, a tandem of FIFO links:
 *    the last frame leaves hop k at the latest of, over every hop j, the
 *    first frame's way to j, all the bytes through j, and the last frame's
 *    way on from j (the max-plus form of a tandem queue with equal
 *    service order; Baccelli et al., *Synchronization and Linearity*, 1992).
 *    A cut-through switch passes a frame on after its head;
 *  - every hop's propagation, FEC and switch latency.
 *
 * The path is the one the switches give the flow's header (ECMP's hash),
 * or, for a flow spread per packet, all of them, a stage carrying what
 * its links carry together.
 */
#include "driver/flows/ideal_fct.h"
#include "nic/encap.h"


#define HOPS_MAX 32

struct hop {
    uint64_t rate; /* its stage's: the links carrying the flow there, over their shares */
    uint64_t link; /* the rate of the first path's link, which one frame crosses */
    bn_time_t lat;
    bool cut;      /* the switch at its far end forwards after the head */
};

int bn_ideal_init(struct bn_ideal *id, struct bn_sim *s, struct bn_error *err)
{
    *id = (struct bn_ideal){.s = s};
    /* room for every port in a frontier, and one switch's choices more */
    if (bn_switch_walk_init(&id->w, s->fab.nports, s->fab.nports + 1 + BN_WALK_CHOICES) != BN_OK)
        return bn_fail(err, BN_ENOMEM, "out of memory for the flows' ideal paths");
    return BN_OK;
}

void bn_ideal_free(struct bn_ideal *id)
{
    bn_switch_walk_free(&id->w);
}

/* The hops found so far, and their count once the walk arrives. */
struct hops {
    const struct bn_port *ports;
    struct hop *h;
    uint32_t k;
};

/* One hop: the latencies along the first path; the stage's rate, where
 * the flow is spread over several links (spraying, adaptive routing,
 * per-packet entropy), the least over them of rate / the flow's share, as
 * an even split at every switch gives it. Done where a branch reaches a
 * host, which every branch must do at once. */
static int on_hop(void *ctx, const struct bn_walk_hop *wh)
{
    struct hops *x = ctx;
    const struct bn_port *ports = x->ports;
    double stage = 0;
    bool done = false;
    for (uint32_t i = 0; i < wh->n; i++) {
        uint32_t p = wh->port[i];
        double r = (double)ports[p].rate_bps / wh->w[i];
        stage = stage == 0 || r < stage ? r : stage;
        done = done || (ports[ports[p].peer].flags & BN_PORT_AT_HOST);
    }
    uint32_t on = wh->on;
    bool cut = bn_port_cuts_through(ports, on, wh->on_next);
    x->h[wh->k] = (struct hop){(uint64_t)stage, ports[on].rate_bps, ports[on].lat_ps, cut};
    if (!done)
        return 0;
    x->k = wh->k + 1;
    return wh->next_n == 0 ? 1 : -1;
}

/* The hops from src to dst, as the switches send a packet like `probe`;
 * their count, 0 if no path arrives. */
static uint32_t walk(struct bn_ideal *id, const struct bn_packet *probe, uint32_t p0, bool spread,
                     struct hop *h)
{
    struct bn_sim *s = id->s;
    struct hops x = {s->fab.ports, h, 0};
    int st = bn_switch_walk(&id->w, &s->sw, s->fab.ports, p0, probe, spread, HOPS_MAX, on_hop,
                            &x);
    return st == BN_WALK_OK ? x.k : 0;
}

/* A message's frames: the first, the full ones between, the last (wire
 * bytes, preamble and gap included), and how many. */
struct frames {
    uint64_t first, full, last, n;
};

static struct frames frames_of(const struct bn_nics *n, uint64_t bytes, bool send)
{
    struct bn_msg m = {.bytes = bytes, .len = bytes,
                       .verb = send ? BN_VERB_SEND : BN_VERB_WRITE,
                       .npkts = bytes ? (uint32_t)((bytes + n->mtu - 1) / n->mtu) : 1};
    uint32_t last;
    uint64_t wire = bn_nic_msg_wire(n, &m, &last);
    uint64_t full = bn_encap_frame(n->encap, 0, n->mtu) + n->fab->wire_overhead;
    uint64_t first = m.npkts == 1 ? last : wire - last - (m.npkts - 2) * full;
    return (struct frames){first, full, last, m.npkts};
}

/* The time the message's frames take through a link of `rate`. */
static bn_time_t through(const struct frames *f, uint64_t rate)
{
    bn_time_t t = bn_serialization_ps(f->first, rate);
    if (f->n > 1)
        t += (f->n - 2) * bn_serialization_ps(f->full, rate) + bn_serialization_ps(f->last, rate);
    return t;
}

/* A frame of `bytes` passing hop h: its serialization, or its head's at a
 * cut-through switch. */
static bn_time_t pass(const struct bn_fabric *fab, const struct hop *h, uint64_t bytes)
{
    return bn_serialization_ps(h->cut && bytes > fab->head_bytes ? fab->head_bytes : bytes,
                               h->link);
}

/* Where the stream through hop h ends, from where its last frame would
 * end at the stage's rate: that frame crosses one link, and at a
 * cut-through switch only its head counts. */
static bn_time_t tail(const struct bn_fabric *fab, const struct hop *h, uint64_t last)
{
    return pass(fab, h, last) - bn_serialization_ps(last, h->rate);
}

/* A flow's stream: its path, the first hop's rate (the send DMA's, if
 * slower), the endpoint costs before each message, and its messages'
 * frames: the first, the ones between, the final one. */
struct stream {
    const struct hop *h;
    uint32_t k;
    uint64_t rate0;
    bn_time_t pre, pre_rest, gap;
    const struct frames *first, *rest, *fin;
    uint32_t messages;
};

/* When the stream's last frame reaches the receiver's NIC, less the
 * hops' latencies: the max-plus tandem bound. */
static bn_time_t arrival(const struct bn_fabric *fab, const struct stream *st)
{
    const struct hop *h = st->h;
    const struct frames *fm = st->first, *lastm = st->messages > 1 ? st->fin : fm;
    /* the first hop: messages one after the other, each once the NIC's
     * work-request engine has taken it */
    bn_time_t t = st->pre + through(fm, st->rate0);
    for (uint32_t i = 1; i < st->messages; i++) {
        bn_time_t ready = st->pre_rest + i * st->gap;
        t = (t > ready ? t : ready) + through(i + 1 < st->messages ? st->rest : st->fin, st->rate0);
    }
    struct hop first = h[0];
    first.rate = first.link = st->rate0;
    bn_time_t best = t + tail(fab, &first, lastm->last);
    for (uint32_t j = 1; j < st->k; j++)
        best += pass(fab, &h[j], lastm->last);
    /* a slower hop further on: all bytes through it */
    for (uint32_t j = 1; j < st->k; j++) {
        bn_time_t tj = st->pre;
        for (uint32_t i = 0; i < j; i++)
            tj += pass(fab, &h[i], fm->first);
        tj += through(fm, h[j].rate) + tail(fab, &h[j], lastm->last);
        for (uint32_t i = 1; i < st->messages; i++)
            tj += through(i + 1 < st->messages ? st->rest : st->fin, h[j].rate);
        for (uint32_t i = j + 1; i < st->k; i++)
            tj += pass(fab, &h[i], lastm->last);
        best = tj > best ? tj : best;
    }
    return best;
}

bn_time_t bn_ideal_fct(struct bn_ideal *id, uint32_t qpid, uint32_t src, uint32_t dst,
                       uint64_t bytes, uint32_t messages, bool send)
{
    const struct bn_sim *s = id->s;
    const struct bn_nics *n = &s->nics;
    const struct bn_ep_params *ep = &n->ep_params;
    bool nvlink = n->domain_gpus && src / n->domain_gpus == dst / n->domain_gpus;
    struct hop h[HOPS_MAX];
    struct bn_packet probe = {.qp = qpid, .dst = dst, .type = BN_PKT_DATA,
                              .entropy = qpid < n->nqps ? n->qp[qpid].entropy : 0};
    uint32_t k = walk(id, &probe, nvlink ? s->host_nvlink[src] : s->host_port[src],
                      n->spray_entropy, h);
    if (k == 0)
        return BN_TIME_NEVER;
    /* the messages as workload.messages cuts them: the remainder on the first */
    uint64_t each = bytes / messages, first_bytes = bytes - each * (messages - 1);
    struct frames fm = frames_of(n, first_bytes, send), rest = frames_of(n, each, send);
    bn_time_t pre = 0, pre_rest = 0, post = 0, gap = 0;
    uint64_t rate0 = h[0].rate;
    if (!nvlink) {
        /* the doorbell, then (unless pushed inline) the request and data
         * fetched, then send processing */
        bool inl = ep->inline_bytes && first_bytes <= ep->inline_bytes;
        bool inl_rest = ep->inline_bytes && each <= ep->inline_bytes;
        pre = ep->pcie + (inl ? 0 : 2 * ep->pcie + 2 * ep->data) + ep->tx;
        pre_rest = ep->pcie + (inl_rest ? 0 : 2 * ep->pcie + 2 * ep->data) + ep->tx;
        post = ep->rx + (send && ep->pcie > ep->data ? ep->pcie : ep->data);
        gap = ep->wqe_gap;
        /* the send DMA reads payload at the PCIe link's goodput */
        if (ep->dma_bps && bytes) {
            uint64_t wire = fm.first + fm.last + (fm.n > 2 ? (fm.n - 2) * fm.full : 0);
            double r = (double)ep->dma_bps * (double)wire / (double)first_bytes;
            rate0 = r < (double)rate0 ? (uint64_t)r : rate0;
        }
    }
    struct stream st = {h, k, rate0, pre, pre_rest, gap, &fm, &rest, &rest, messages};
    bn_time_t best = arrival(&s->fab, &st), lat = 0;
    /* the receive DMA (endpoints.md): the last packet, shorter than the
     * one before it, may wait for that one's write; no other does */
    const struct frames *fin = messages > 1 ? &rest : &fm;
    uint64_t fin_bytes = messages > 1 ? each : first_bytes;
    if (!nvlink && ep->dma_bps && fin->n >= 2) {
        uint64_t last_payload = fin_bytes - (fin->n - 1) * n->mtu;
        struct frames cut = frames_of(n, fin_bytes - last_payload, send);
        if (messages > 1)
            st.fin = &cut;
        else
            st.first = &cut;
        bn_time_t before = arrival(&s->fab, &st) + bn_serialization_ps(n->mtu, ep->dma_bps);
        best = before > best ? before : best;
    }
    for (uint32_t j = 0; j < k; j++)
        lat += h[j].lat;
    return best + lat + post;
}
