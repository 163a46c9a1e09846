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

#define WALK_HOPS 16      /* more switches than any minimal path crosses */
#define WALK_CHOICES 512  /* next hops of one switch */

static double ps_per_byte(uint64_t rate_bps)
{
    return 8.0 * (double)BN_PS_PER_S / (double)rate_bps;
}

/* Add weight w of port p to a list (p, w)[0..*n), merging a port already
 * in it (mark[p] == stamp: at slot[p]). */
static void add(uint32_t *slot, uint32_t *p, float *w, uint32_t *n, uint32_t *mark,
                uint32_t stamp, uint32_t port, float weight)
{
    if (mark[port] == stamp) {
        w[slot[port]] += weight;
        return;
    }
    mark[port] = stamp;
    slot[port] = *n;
    p[*n] = port;
    w[*n] = weight;
    (*n)++;
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
    const struct bn_port *ports = e->f->ports;
    uint32_t cur_n = 1, next_n;
    wk->cur[0] = p0;
    wk->curw[0] = 1;
    uint32_t on = p0; /* the port the latency follows */
    *lat_a = 0;
    *lat_b = -ps_per_byte(ports[p0].rate_bps); /* the first frame's time is the flow's */
    for (uint32_t hop = 0; cur_n; hop++) {
        if (hop > WALK_HOPS)
            return bn_fail(err, BN_EINPUT, "flow level: a path passes %u switches", WALK_HOPS);
        uint32_t fstamp = ++wk->stamp;
        next_n = 0;
        for (uint32_t i = 0; i < cur_n; i++) {
            uint32_t p = wk->cur[i];
            add(wk->use_slot, wk->use_p, wk->use_w, &wk->nuse, wk->use_mark, wk->walk_stamp, p,
                wk->curw[i] * scale);
            uint32_t peer = ports[p].peer;
            bool to_host = ports[peer].flags & BN_PORT_AT_HOST;
            if (p == on && to_host) {
                *lat_a += ports[p].lat_ps;
                *lat_b += ps_per_byte(ports[p].rate_bps);
            }
            if (to_host)
                continue;
            uint32_t pick, k = bn_switch_choices(e->sw, ports[peer].node, probe, spread,
                                                 wk->cand, WALK_CHOICES, &pick);
            if (k == 0 || k > WALK_CHOICES)
                return bn_fail(err, BN_EINPUT, "flow level: no minimal route at node %u "
                               "(or more than %u next hops)", ports[peer].node, WALK_CHOICES);
            if (next_n + k > wk->cap)
                return bn_fail(err, BN_EINPUT, "flow level: a path set wider than %u links",
                               wk->cap);
            if (p == on) {
                on = pick != UINT32_MAX ? pick : wk->cand[0];
                /* cut-through passes a frame on after its head, but not
                 * onto a faster link (switch.c waits for the tail) */
                bool cut = (ports[p].flags & (BN_PORT_PEER_SWITCH | BN_PORT_CUT_OUT)) ==
                               (BN_PORT_PEER_SWITCH | BN_PORT_CUT_OUT) &&
                           ports[on].rate_bps <= ports[p].rate_bps;
                *lat_a += ports[p].lat_ps;
                if (cut)
                    *lat_a += bn_serialization_ps(e->f->head_bytes, ports[p].rate_bps);
                else
                    *lat_b += ps_per_byte(ports[p].rate_bps);
            }
            if (pick != UINT32_MAX)
                add(wk->front_slot, wk->next, wk->nextw, &next_n, wk->front_mark, fstamp, pick,
                    wk->curw[i]);
            else
                for (uint32_t j = 0; j < k; j++)
                    add(wk->front_slot, wk->next, wk->nextw, &next_n, wk->front_mark, fstamp,
                        wk->cand[j], wk->curw[i] / (float)k);
        }
        uint32_t *tp = wk->cur;
        float *tw = wk->curw;
        wk->cur = wk->next;
        wk->curw = wk->nextw;
        wk->next = tp;
        wk->nextw = tw;
        cur_n = next_n;
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
    return bn_lc_set_path(&e->lc, &e->mm, qpid, wk->use_p, wk->use_w, wk->use_passive, wk->nuse,
                          err);
}

int bn_flow_walk_init(struct bn_flow_walk *wk, uint32_t nports, struct bn_error *err)
{
    wk->cap = 1u << 16;
    wk->use_mark = calloc((size_t)nports + 1, sizeof *wk->use_mark);
    wk->front_mark = calloc((size_t)nports + 1, sizeof *wk->front_mark);
    wk->use_slot = calloc((size_t)nports + 1, sizeof *wk->use_slot);
    wk->front_slot = calloc((size_t)nports + 1, sizeof *wk->front_slot);
    wk->cur = malloc(wk->cap * sizeof *wk->cur);
    wk->next = malloc(wk->cap * sizeof *wk->next);
    wk->curw = malloc(wk->cap * sizeof *wk->curw);
    wk->nextw = malloc(wk->cap * sizeof *wk->nextw);
    wk->use_p = malloc(2 * ((size_t)nports + 1) * sizeof *wk->use_p); /* each direction's */
    wk->use_w = malloc(2 * ((size_t)nports + 1) * sizeof *wk->use_w);
    wk->use_passive = malloc(2 * ((size_t)nports + 1));
    wk->cand = malloc(WALK_CHOICES * sizeof *wk->cand);
    if (!wk->use_mark || !wk->front_mark || !wk->use_slot || !wk->front_slot || !wk->cur ||
        !wk->next || !wk->curw || !wk->nextw || !wk->use_p || !wk->use_w || !wk->use_passive || !wk->cand)
        return bn_fail(err, BN_ENOMEM, "flow level: out of memory for the path walk");
    return BN_OK;
}

void bn_flow_walk_free(struct bn_flow_walk *wk)
{
    free(wk->use_mark);
    free(wk->front_mark);
    free(wk->use_slot);
    free(wk->front_slot);
    free(wk->cur);
    free(wk->next);
    free(wk->curw);
    free(wk->nextw);
    free(wk->use_p);
    free(wk->use_w);
    free(wk->use_passive);
    free(wk->cand);
}
