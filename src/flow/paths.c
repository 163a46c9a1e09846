/*
 * A flow's links and latency (flow.h). The walk asks each switch on the way
 * which next hops it may take (bn_switch_choices): one, when every packet
 * of the flow goes the same way (ECMP's hash of this queue pair's header,
 * as the packet engine computes it), else all of them, each with an equal
 * share of what arrived: a flow spread per packet loads every link of its
 * path set by the fraction of its packets that cross it. ACKs go back the
 * same way with their own header, loading the reverse links by an ACK's
 * wire bytes per nic.ack_every data frames.
 */
#include <stdlib.h>

#include "flow/flow.h"
#include "flow/hybrid.h"

#define WALK_HOPS 16      /* more switches than any minimal path crosses */

static double ps_per_byte(uint64_t rate_bps)
{
    return 8.0 * (double)BN_PS_PER_S / (double)rate_bps;
}

/* One direction's walk: its uses scaled by `scale`, its latency. */
struct dir {
    struct bn_flow_walk *wk;
    const struct bn_fabric *f;
    float scale;
    bn_time_t *lat_a;
    double *lat_b;
};

/* Add weight w of port p to the walk's uses, merging a port already in
 * them (this direction's: use_mark[p] == walk_stamp, at use_slot[p]). */
static void add_use(struct bn_flow_walk *wk, uint32_t port, float weight)
{
    if (wk->use_mark[port] == wk->walk_stamp) {
        wk->use_w[wk->use_slot[port]] += weight;
        return;
    }
    wk->use_mark[port] = wk->walk_stamp;
    wk->use_slot[port] = wk->nuse;
    wk->use_p[wk->nuse] = port;
    wk->use_w[wk->nuse++] = weight;
}

/* One hop: each port's use; the followed path's latency, a frame's head
 * only through a cut-through switch. */
static int on_hop(void *ctx, const struct bn_walk_hop *h)
{
    struct dir *d = ctx;
    const struct bn_port *ports = d->f->ports;
    for (uint32_t i = 0; i < h->n; i++)
        add_use(d->wk, h->port[i], (float)h->w[i] * d->scale);
    uint32_t p = h->on;
    *d->lat_a += ports[p].lat_ps;
    if (h->on_next != UINT32_MAX && bn_port_cuts_through(ports, p, h->on_next))
        *d->lat_a += bn_serialization_ps(d->f->head_bytes, ports[p].rate_bps);
    else
        *d->lat_b += ps_per_byte(ports[p].rate_bps);
    return 0;
}

/* One direction: from endpoint port p0, a packet like `probe` (spread per
 * packet or not), its links' weights scaled by `scale` appended to the
 * walk's uses (passive ones: ACKs); *lat_a, *lat_b the latency of a last frame of B bytes after
 * it has left p0: lat_a + lat_b x B (along the first of equal paths). */
static int walk_one(struct bn_flow_engine *e, uint32_t p0, const struct bn_packet *probe,
                    bool spread, float scale, bool passive, bn_time_t *lat_a, double *lat_b,
                    struct bn_error *err)
{
    struct bn_flow_walk *wk = &e->walk;
    uint32_t first_use = wk->nuse;
    wk->walk_stamp = ++wk->stamp; /* each direction its own uses */
    *lat_a = 0;
    *lat_b = -ps_per_byte(e->f->ports[p0].rate_bps); /* the first frame's time is the flow's */
    struct dir d = {wk, e->f, scale, lat_a, lat_b};
    switch (bn_switch_walk(&wk->sw, e->sw, e->f->ports, p0, probe, spread, WALK_HOPS + 1, on_hop,
                           &d)) {
    case BN_WALK_OK:
        break;
    case BN_WALK_LONG:
        return bn_fail(err, BN_EINPUT, "flow level: a path passes %u switches", WALK_HOPS);
    case BN_WALK_NO_ROUTE:
        return bn_fail(err, BN_EINPUT, "flow level: no minimal route at node %u "
                       "(or more than %u next hops)", wk->sw.node, BN_WALK_CHOICES);
    default:
        return bn_fail(err, BN_EINPUT, "flow level: a path set wider than %u links", wk->sw.cap);
    }
    for (uint32_t i = first_use; i < wk->nuse; i++)
        wk->use_passive[i] = passive;
    return BN_OK;
}

int bn_flow_walk(struct bn_flow_engine *e, uint32_t qpid, struct bn_error *err)
{
    struct bn_flow_walk *wk = &e->walk;
    int rc = bn_flow_reserve(e, qpid);
    if (rc != BN_OK)
        return rc;
    const struct bn_qp *qp = &e->n->qp[qpid];
    struct bn_flow_qp *fq = &e->q[qpid];
    wk->nuse = 0;
    struct bn_packet data = {.qp = qpid, .dst = qp->dst, .entropy = qp->entropy,
                             .type = BN_PKT_DATA};
    rc = walk_one(e, e->n->nic[qp->snic].port, &data, e->n->spray_entropy, 1.0f, false, &fq->lat_a,
                      &fq->lat_b, err);
    /* ACKs: as bn_nic_send_ctrl heads them */
    struct bn_packet ack = {.qp = qpid, .dst = qp->src, .entropy = qp->entropy ^ 0x9e3779b9u,
                            .type = BN_PKT_ACK};
    uint32_t back = e->n->nic[qp->rnic].port;
    bn_time_t a;
    double b;
    float share = (float)e->ack_wire / ((float)e->ack_every * (float)e->full_wire);
    if (rc == BN_OK)
        rc = walk_one(e, back, &ack, false, share, true, &a, &b, err);
    if (rc != BN_OK)
        return rc;
    /* an ACK's own serialization at its NIC counts: it is the whole message */
    b += ps_per_byte(e->f->ports[back].rate_bps);
    fq->ack_lat = a + (bn_time_t)(b * e->ack_wire + 0.5);
    fq->walked = 1;
    if (e->hy) { /* each queue pair its own class, of its own id */
        fq->cls = qpid;
        if (bn_hybrid_classify(e, qpid) && wk->nuse == 0)
            return BN_OK; /* packets carry it, on no link a flow crosses */
        return bn_lc_set_path(&e->lc, &e->mm, qpid, wk->use_p, wk->use_w, wk->use_passive,
                              wk->nuse, err);
    }
    /* a flow like one seen before joins its class; a new one is a new
     * solver flow (whose uses may split classes of links) */
    bool fresh;
    rc = bn_rc_find(&e->rcl, wk->use_p, wk->use_w, wk->use_passive, wk->nuse, &fq->cls, &fresh,
                    err);
    if (rc != BN_OK || !fresh)
        return rc;
    return bn_lc_set_path(&e->lc, &e->mm, fq->cls, wk->use_p, wk->use_w, wk->use_passive,
                          wk->nuse, err);
}

int bn_flow_walk_init(struct bn_flow_walk *wk, uint32_t nports, struct bn_error *err)
{
    wk->use_mark = calloc((size_t)nports + 1, sizeof *wk->use_mark);
    wk->use_slot = calloc((size_t)nports + 1, sizeof *wk->use_slot);
    wk->use_p = malloc(2 * ((size_t)nports + 1) * sizeof *wk->use_p); /* each direction's */
    wk->use_w = malloc(2 * ((size_t)nports + 1) * sizeof *wk->use_w);
    wk->use_passive = malloc(2 * ((size_t)nports + 1));
    if (bn_switch_walk_init(&wk->sw, nports, 1u << 16) != BN_OK || !wk->use_mark ||
        !wk->use_slot || !wk->use_p || !wk->use_w || !wk->use_passive)
        return bn_fail(err, BN_ENOMEM, "flow level: out of memory for the path walk");
    return BN_OK;
}

void bn_flow_walk_free(struct bn_flow_walk *wk)
{
    bn_switch_walk_free(&wk->sw);
    free(wk->use_mark);
    free(wk->use_slot);
    free(wk->use_p);
    free(wk->use_w);
    free(wk->use_passive);
}
