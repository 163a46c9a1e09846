/*
 * The network executor of collective schedules: each transfer of a
 * bn_sched becomes an RDMA WRITE on the queue pair of its (source,
 * destination, channel), posted a step's software latency after the
 * transfers it depends on have been delivered (the receiver's completion),
 * as NCCL's proxy posts a step once its buffer slot is ready; an iteration
 * starts after NCCL's launch latency (coll_nccl.c, bn_coll_steps_of).
 * Under an NCCL protocol (coll.proto) a transfer carries the protocol's
 * lines, its step latency is the protocol's share, and a connection holds at most its 8 slots: a
 * slot frees when the receiver has consumed its step, that is once every
 * transfer that depends on it has been sent (NCCL's receiver posts the
 * slot back after its next primitive), or at delivery if none does. That
 * needs each connection's steps in NCCL's order (bn_sched.in_order); other
 * schedules free a slot at delivery. Every delivery updates
 * the slots' contribution sets (coll/sched.h), so the row's #wrong comes
 * from what the fabric actually delivered, in the order it delivered it.
 *
 * Held transfers (flow level, a schedule of two-level chains only): a
 * hierarchical AllReduce makes every server's first reduce hop of every
 * piece ready at once, n^2 / g of them (537 M at 16,384 GPUs), each an
 * event and then a message queued on its NVLink connection. Those are
 * held instead, in runs per connection (a run: hops of consecutive
 * chains, ids hchain_hops apart), and posted one at a time as the
 * connection's last message leaves (bn_nics.refill); a transfer that
 * becomes ready on a connection still holding some joins the end of its
 * runs. Over NVLink a post costs nothing at the host and the flow engine
 * sends a queue pair's messages back to back, so the connection sends the
 * same messages at the same times as if all were posted at once.
 *
 * An aggregate schedule (coll.aggregate, flow level) posts one transfer
 * per connection; its row is then at least the schedule's longest chain of
 * hops (bn_coll_chain_us), which flows of whole connections cannot show.
 *
 * A partitioned run on ranks (sim/ranks.c, docs/parallel.md) keeps the
 * schedule's state whole on every rank from the parts' delivery notes.
 *
 * One fresh fabric per message size (rows are independent and each is
 * deterministic); coll.warmup + coll.iters iterations run back to back on
 * it, then coll.iters more in place (coll.in_place), and each group's time
 * is the mean of its iterations.
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "driver/coll/coll.h"

struct exec {
    struct bn_sim *s;
    const struct bn_sched *sched;
    struct bn_sched_run run;
    const uint32_t *ep_host;     /* endpoint -> host */
    uint32_t *ready;             /* scratch: transfers that became ready */
    uint64_t *qp_key;            /* open addressing: (src, dst, channel) + 1 */
    uint32_t *qp_val, qp_cap;
    /* an NCCL protocol: wire bytes per transfer, and each connection's
     * slots (coll/proto.h); transfers past them wait in its queue, a list
     * of nodes (one per ready transfer at most) */
    const struct bn_coll_proto *proto;
    uint32_t pxn_g;              /* coll.pxn: GPUs per server (0: off) */
    uint32_t *inflight, *wait_head, *wait_tail; /* per connection (qp_key slot) */
    uint32_t *node_xfer, *node_next, free_node;
    /* slots held until consumed (in_order schedules): per explicit
     * transfer its predecessors, and its successors not yet sent */
    bool consume;
    uint32_t *pred_off, *pred, *unsent;
    uint32_t *to_free, nto_free; /* connections whose step was consumed */
    bool freeing;
    bn_time_t step_net_ps, step_nv_ps, launch_ps; /* software latencies (bn_coll_steps) */
    /* coll.channel_gbs: ps per wire byte a channel's sends take at a rank
     * (0: unpaced), and per (rank, channel) when its CTA is next free */
    double cta_ps_per_byte;
    bn_time_t *cta_next, *cta_at; /* and when its last copy posted, of which piece + 1 */
    uint32_t *cta_piece;
    uint64_t *cta_bytes;         /* an aggregate: per (rank, channel), its wire bytes */
    uint32_t domain_gpus;        /* ranks r with equal r / domain_gpus share NVLink (0: none) */
    uint32_t iter, iters_total, warmup, iters;
    bn_time_t iter_start;
    bn_time_t iter_last_in;      /* this iteration's latest delivery: its end */
    double timed_ps[2];          /* out of place, in place */
    uint64_t wrong[2];
    bool finished;
    uint32_t *sent;              /* per endpoint: its sends delivered this iteration */
    bn_time_t *bulk_at;          /* an aggregate: per transfer, when posted and delivered */
    uint8_t *legs_left;          /* an aggregate with PXN: per transfer, legs not yet delivered */
    bool failed;                 /* a queue pair gave up: the collective cannot finish */
    double failed_us;
    uint32_t failed_rank, failed_peer, failed_step;
    struct bn_error *err;        /* first failure inside a callback */
    int rc;
    /* A partitioned run on ranks (docs/parallel.md): this part posts the
     * transfers its nodes send, records those they receive, and keeps the
     * schedule's state whole from every part's delivery notes. */
    bool ranked;
    uint32_t here_expected;      /* transfers this part's nodes receive, per iteration */
    uint32_t here_delivered;     /* of them, in this iteration */
    struct coll_note *notes;     /* this part's deliveries since the last exchange */
    uint32_t nnotes, notes_cap;
    bn_time_t scheduled;         /* the earliest post a note's delivery scheduled */
    /* Held transfers (see above): per connection (qp_key slot) its first
     * and last run (UINT32_MAX: none held); the runs, a free list; per
     * queue pair its connection; the first reduce hops' runs of every
     * class of chains ((member, channel): one connection per group), and
     * the classes in the order of their first chain. */
    bool hold;
    uint32_t *held_head, *held_tail;
    struct held_run { uint32_t first, count, next; } *runs;
    uint32_t nruns, runs_cap, free_run;
    uint32_t *qp_conn, qp_conn_cap;
    struct held_run *init;       /* first = a chain, next: the class's next run */
    uint32_t *cls_head, *cls_tail, *cls_order, ncls_order;
    bn_time_t hold_step;         /* the first reduce hops' step latency */
};

#define HELD_BATCH UINT32_MAX    /* a BN_EV_APP's obj: post the held first hops */

/* A delivery, told to every other part. */
struct coll_note {
    bn_time_t when;
    uint32_t cookie;
    uint32_t posted_version;     /* the source slot's, when posted */
};

static bool here(const struct exec *x, uint32_t node)
{
    return bn_sim_here(x->s, node);
}

static uint64_t qp_hash(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

/* The connection (a qp_key slot) of (src host, dst host, channel), its
 * queue pair created on first use; UINT32_MAX if that fails. */
static uint32_t conn_for(struct exec *x, uint32_t src, uint32_t dst, uint32_t ch)
{
    uint64_t key = (((uint64_t)src << 40) | ((uint64_t)dst << 16) | ch) + 1;
    uint32_t mask = x->qp_cap - 1, i = (uint32_t)qp_hash(key) & mask;
    while (x->qp_key[i] && x->qp_key[i] != key)
        i = (i + 1) & mask;
    if (!x->qp_key[i]) {
        uint32_t qp = bn_qp_create(&x->s->nics, src, dst);
        if (qp == BN_NONE)
            return UINT32_MAX;
        /* hashed by what it connects, not by when it was made (a tree's
         * first use is timing's): both levels' paths are one, as a job's */
        bn_qp_set_entropy(&x->s->nics, qp, key);
        x->qp_key[i] = key;
        x->qp_val[i] = qp;
        if (x->proto)
            x->wait_head[i] = x->wait_tail[i] = UINT32_MAX;
        if (x->hold) {
            if (qp >= x->qp_conn_cap) {
                uint32_t cap = x->qp_conn_cap ? x->qp_conn_cap : 256;
                while (cap <= qp)
                    cap *= 2;
                uint32_t *m = realloc(x->qp_conn, (size_t)cap * sizeof *m);
                if (!m) {
                    x->qp_key[i] = 0; /* its queue pair is left unused: the run fails */
                    return UINT32_MAX;
                }
                for (uint32_t q = x->qp_conn_cap; q < cap; q++)
                    m[q] = UINT32_MAX;
                x->qp_conn = m;
                x->qp_conn_cap = cap;
            }
            x->qp_conn[qp] = i;
            x->held_head[i] = x->held_tail[i] = UINT32_MAX;
        }
    }
    return i;
}

static uint32_t conn_of(struct exec *x, const struct bn_xfer_view *t)
{
    return conn_for(x, x->ep_host[t->src], x->ep_host[t->dst], t->channel);
}

static void fail_in_callback(struct exec *x, int rc, const char *what)
{
    if (x->rc == BN_OK)
        x->rc = bn_fail(x->err, rc, "collective: %s", what);
}

/* PXN (coll.pxn; NCCL's NCCL_PXN_DISABLE=0): a transfer between GPUs on
 * different servers and rails first crosses NVLink to the GPU of its own
 * server on the destination's rail, whose NIC sends it on: the first leg's
 * cookie carries this bit. An aggregate's transfer is a connection's whole
 * stream, which the relay forwards as it comes: both legs run at once, and
 * the transfer is delivered when both are. The proxy's host, or
 * UINT32_MAX: no relay. */
#define PXN_LEG 0x80000000u

static uint32_t pxn_proxy(const struct exec *x, uint32_t src_h, uint32_t dst_h)
{
    uint32_t g = x->pxn_g, n = x->sched->p.nranks;
    if (!g || src_h >= n || dst_h >= n || src_h / g == dst_h / g || src_h % g == dst_h % g)
        return UINT32_MAX;
    return src_h / g * g + dst_h % g;
}

/* What a transfer of `payload` bytes puts on the wire: the protocol's
 * lines for it, or the payload. */
static uint64_t wire(const struct exec *x, uint64_t payload)
{
    return x->proto ? bn_coll_proto_wire(x->proto, payload) : payload;
}

static void consumed_by(struct exec *x, uint32_t xi);

/* Post transfer xi on its connection's queue pair, or through its PXN
 * proxy. */
static void send(struct exec *x, uint32_t xi, const struct bn_xfer_view *t, uint32_t c)
{
    bn_sched_run_posted(&x->run, xi);
    if (x->bulk_at)
        x->bulk_at[2 * (size_t)xi] = x->s->fab.now;
    uint32_t proxy = pxn_proxy(x, x->ep_host[t->src], x->ep_host[t->dst]), cookie = xi;
    if (proxy != UINT32_MAX) {
        c = conn_for(x, x->ep_host[t->src], proxy, t->channel);
        cookie |= PXN_LEG;
        uint32_t on = x->legs_left ? conn_for(x, proxy, x->ep_host[t->dst], t->channel) : 0;
        if (c == UINT32_MAX || on == UINT32_MAX) {
            fail_in_callback(x, BN_ENOMEM, "out of memory for a queue pair");
            return;
        }
        if (x->legs_left) { /* the stream's second leg, at once */
            x->legs_left[xi] = 2;
            if (bn_qp_post(&x->s->nics, x->qp_val[on], wire(x, t->bytes), BN_VERB_WRITE, xi) != 0)
                fail_in_callback(x, BN_ENOMEM, "out of memory posting a PXN transfer");
        }
    }
    int rc = bn_qp_post(&x->s->nics, x->qp_val[c], wire(x, t->bytes), BN_VERB_WRITE, cookie);
    if (rc == -2) /* PSNs are not reused across iterations on a queue pair */
        fail_in_callback(x, BN_EINPUT, "a queue pair's 2^32 packet sequence numbers are used "
                         "up (fewer coll.iters + coll.warmup, or a larger nic.mtu_bytes)");
    else if (rc != 0)
        fail_in_callback(x, BN_ENOMEM, "out of memory posting a transfer");
    if (x->consume)
        consumed_by(x, xi);
}

/* Hold `count` transfers from xi on (hchain_hops apart) behind what
 * connection c holds: the last run grows if they continue it. */
static void hold_push(struct exec *x, uint32_t c, uint32_t xi, uint32_t count)
{
    uint32_t tail = x->held_tail[c], stride = x->sched->hchain_hops;
    if (tail != UINT32_MAX) {
        struct held_run *r = &x->runs[tail];
        if ((uint64_t)r->first + (uint64_t)r->count * stride == xi) {
            r->count += count;
            return;
        }
    }
    uint32_t n = x->free_run;
    if (n != UINT32_MAX) {
        x->free_run = x->runs[n].next;
    } else {
        if (!bn_grow((void **)&x->runs, x->nruns, &x->runs_cap, sizeof *x->runs)) {
            fail_in_callback(x, BN_ENOMEM, "out of memory holding transfers");
            return;
        }
        n = x->nruns++;
    }
    x->runs[n] = (struct held_run){xi, count, UINT32_MAX};
    if (tail == UINT32_MAX)
        x->held_head[c] = n;
    else
        x->runs[tail].next = n;
    x->held_tail[c] = n;
}

/* bn_nics.refill: queue pair qpid's last message is leaving; its
 * connection's next held transfer, if any, is posted. */
static bool refill(void *ud, uint32_t qpid)
{
    struct exec *x = ud;
    uint32_t c = qpid < x->qp_conn_cap ? x->qp_conn[qpid] : UINT32_MAX;
    if (c == UINT32_MAX || x->held_head[c] == UINT32_MAX || x->failed)
        return false;
    uint32_t h = x->held_head[c];
    struct held_run *r = &x->runs[h];
    uint32_t xi = r->first;
    r->first += x->sched->hchain_hops;
    if (--r->count == 0) {
        x->held_head[c] = r->next;
        if (r->next == UINT32_MAX)
            x->held_tail[c] = UINT32_MAX;
        r->next = x->free_run;
        x->free_run = h;
    }
    struct bn_xfer_view t;
    bn_sched_view(x->sched, xi, &t);
    send(x, xi, &t, c);
    return true;
}

/* The first reduce hop of every two-level chain in every group, at once:
 * class by class (in the order of their first chains, as the transfers'
 * order posts them first), group by group, the connection holds the
 * class's runs and sends the first. */
static void held_batch(struct exec *x)
{
    const struct bn_sched *s = x->sched;
    uint32_t g = s->p.gpus_per_server, m = s->p.nranks / g, L = g - 1;
    for (uint32_t o = 0; o < x->ncls_order && !x->failed && x->rc == BN_OK; o++) {
        uint32_t k = x->cls_order[o];
        for (uint32_t grp = 0; grp < m && x->rc == BN_OK; grp++) {
            uint32_t first = s->hchains[x->init[x->cls_head[k]].first].first + grp * L;
            struct bn_xfer_view t;
            bn_sched_view(s, first, &t);
            uint32_t c = conn_of(x, &t);
            if (c == UINT32_MAX) {
                fail_in_callback(x, BN_ENOMEM, "out of memory for a queue pair");
                return;
            }
            if (!x->s->nics.qp[x->qp_val[c]].nvlink) { /* hold_setup's rule is the NICs' */
                fail_in_callback(x, BN_EINTERNAL, "a held first hop is not on NVLink");
                return;
            }
            bool idle = x->held_head[c] == UINT32_MAX;
            for (uint32_t r = x->cls_head[k]; r != UINT32_MAX; r = x->init[r].next)
                hold_push(x, c, s->hchains[x->init[r].first].first + grp * L, x->init[r].count);
            if (idle) /* else it is sending: it asks for them in turn */
                refill(x, x->qp_val[c]);
        }
    }
}

/* Whether the first reduce hops may be held (see above), and their runs
 * per class of chains: a schedule of two-level chains alone, at the flow
 * level in push order, whose first hops all take one step latency and no
 * host costs (NVLink), without protocols, pacing or processes. */
static int hold_setup(struct exec *x, const struct bn_scenario *sc)
{
    const struct bn_sched *s = x->sched;
    struct bn_sim *sim = x->s;
    uint32_t g = s->p.gpus_per_server, dom = x->domain_gpus;
    bool nvlink = dom && dom % g == 0 && sim->nics.domain_gpus == dom;
    if (!sim->flow || sim->flow->hy || sim->part || sim->fab.evq.keyed || x->proto ||
        sc->coll.channel_gbs > 0 || sc->sim.partitions > 0 || !s->nhchains || s->nexplicit || s->nchains ||
        s->bulk || !nvlink || sim->nics.refill)
        return BN_OK;
    uint32_t ncls = g * s->p.channels;
    x->init = malloc((size_t)s->nhchains * sizeof *x->init);
    x->cls_head = malloc((size_t)ncls * sizeof *x->cls_head);
    x->cls_tail = malloc((size_t)ncls * sizeof *x->cls_tail);
    x->cls_order = malloc((size_t)ncls * sizeof *x->cls_order);
    x->held_head = malloc(x->qp_cap * sizeof *x->held_head);
    x->held_tail = malloc(x->qp_cap * sizeof *x->held_tail);
    if (!x->init || !x->cls_head || !x->cls_tail || !x->cls_order || !x->held_head ||
        !x->held_tail)
        return bn_fail(x->err, BN_ENOMEM, "out of memory for %u two-level chains", s->nhchains);
    for (uint32_t k = 0; k < ncls; k++)
        x->cls_head[k] = x->cls_tail[k] = UINT32_MAX;
    uint32_t nr = 0;
    for (uint32_t c = 0; c < s->nhchains; c++) {
        uint32_t k = s->hchains[c].pos * s->p.channels + s->hchains[c].channel;
        uint32_t t = x->cls_tail[k];
        if (t != UINT32_MAX && x->init[t].first + x->init[t].count == c) {
            x->init[t].count++;
            continue;
        }
        x->init[nr] = (struct held_run){c, 1, UINT32_MAX};
        if (t == UINT32_MAX) {
            x->cls_head[k] = nr;
            x->cls_order[x->ncls_order++] = k;
        } else {
            x->init[t].next = nr;
        }
        x->cls_tail[k] = nr++;
    }
    x->hold_step = x->step_nv_ps;
    x->free_run = UINT32_MAX;
    x->hold = true;
    sim->nics.refill = refill;
    sim->nics.refill_ud = x;
    return BN_OK;
}

/* A ready transfer: sent if its connection has a free slot (always
 * without a protocol), else queued until one frees. */
static void post(struct exec *x, uint32_t xi)
{
    struct bn_xfer_view t;
    bn_sched_view(x->sched, xi, &t);
    uint32_t c = conn_of(x, &t);
    if (c == UINT32_MAX) {
        fail_in_callback(x, BN_ENOMEM, "out of memory for a queue pair");
        return;
    }
    if (x->hold && x->held_head[c] != UINT32_MAX) {
        hold_push(x, c, xi, 1);
        return;
    }
    if (!x->proto) {
        send(x, xi, &t, c);
        return;
    }
    if (x->inflight[c] < x->proto->steps) {
        x->inflight[c]++;
        send(x, xi, &t, c);
        return;
    }
    uint32_t n = x->free_node; /* ready transfers never outnumber the nodes */
    x->free_node = x->node_next[n];
    x->node_xfer[n] = xi;
    x->node_next[n] = UINT32_MAX;
    if (x->wait_tail[c] == UINT32_MAX)
        x->wait_head[c] = n;
    else
        x->node_next[x->wait_tail[c]] = n;
    x->wait_tail[c] = n;
}

/* A step on connection c was consumed: its slot goes to the connection's
 * next waiting transfer, or frees. Sending that one may consume more
 * steps, so connections are worked off a list, not by recursion. */
static void slot_freed(struct exec *x, uint32_t c)
{
    x->to_free[x->nto_free++] = c;
    if (x->freeing)
        return;
    x->freeing = true;
    while (x->nto_free > 0) {
        c = x->to_free[--x->nto_free];
        uint32_t n = x->wait_head[c];
        if (n == UINT32_MAX) {
            x->inflight[c]--;
            continue;
        }
        x->wait_head[c] = x->node_next[n];
        if (x->wait_head[c] == UINT32_MAX)
            x->wait_tail[c] = UINT32_MAX;
        uint32_t next = x->node_xfer[n];
        x->node_next[n] = x->free_node;
        x->free_node = n;
        struct bn_xfer_view t;
        bn_sched_view(x->sched, next, &t);
        send(x, next, &t, c);
    }
    x->freeing = false;
}

/* Transfer xi was sent: the steps it depends on are consumed once all
 * their dependents are. */
static void consumed_by(struct exec *x, uint32_t xi)
{
    for (uint32_t i = x->pred_off[xi]; i < x->pred_off[xi + 1]; i++)
        if (--x->unsent[x->pred[i]] == 0) {
            struct bn_xfer_view t;
            bn_sched_view(x->sched, x->pred[i], &t);
            slot_freed(x, conn_of(x, &t));
        }
}

/* Transfer xi was delivered: its slot frees now unless a transfer that
 * depends on it will consume it. */
static void delivered_slot(struct exec *x, uint32_t xi, const struct bn_xfer_view *t)
{
    const struct bn_sched *s = x->sched;
    if (!x->consume || s->succ_off[xi + 1] == s->succ_off[xi])
        slot_freed(x, conn_of(x, t));
}

/* Each explicit transfer's predecessors, from the successor lists. */
static int consume_setup(struct exec *x)
{
    const struct bn_sched *s = x->sched;
    uint32_t nx = s->nexplicit, ne = s->succ_off[nx];
    x->pred_off = calloc((size_t)nx + 2, sizeof *x->pred_off);
    x->pred = malloc(((size_t)ne + 1) * sizeof *x->pred);
    x->unsent = malloc(((size_t)nx + 1) * sizeof *x->unsent);
    if (!x->pred_off || !x->pred || !x->unsent)
        return BN_ENOMEM;
    for (uint32_t e = 0; e < ne; e++)
        x->pred_off[s->succ[e] + 2]++;
    for (uint32_t i = 0; i < nx; i++)
        x->pred_off[i + 2] += x->pred_off[i + 1];
    for (uint32_t i = 0; i < nx; i++)
        for (uint32_t e = s->succ_off[i]; e < s->succ_off[i + 1]; e++)
            x->pred[x->pred_off[s->succ[e] + 1]++] = i;
    return BN_OK;
}

/* A step's software latency: NVLink's between ranks of one NVLink domain
 * (or into its NVSwitch's NVLS unit), the network's otherwise. */
static bn_time_t step_of(const struct exec *x, const struct bn_xfer_view *t)
{
    uint32_t g = x->domain_gpus, n = x->sched->p.nranks;
    if (!g || x->step_nv_ps == x->step_net_ps)
        return x->step_net_ps;
    uint32_t a = t->src < n ? t->src / g : UINT32_MAX, b = t->dst < n ? t->dst / g : UINT32_MAX;
    bool nvls = t->src >= n + x->sched->p.nagg || t->dst >= n + x->sched->p.nagg;
    return nvls || (a == b && a != UINT32_MAX) ? x->step_nv_ps : x->step_net_ps;
}

/* A rank's channel is one CTA copying its steps (coll.channel_gbs), one
 * after another: a send posts no sooner than the CTA's earlier copies
 * took at that rate, so a channel's sends never outrun it; a lone step
 * waits nothing (its copy overlaps its transfer: NVLink's writes, LL's
 * lines). The same piece to a second peer (a tree's children) is the same
 * copy's: it posts with the first. */
static bn_time_t cta_paced(struct exec *x, const struct bn_xfer_view *t, bn_time_t at)
{
    const struct bn_coll_params *p = &x->sched->p;
    if (t->src >= p->nranks)
        return at; /* an aggregation unit's or NVSwitch's send: no CTA */
    size_t c = (size_t)t->src * p->channels + t->channel % p->channels;
    if (x->cta_piece[c] == t->piece + 1u && at <= x->cta_at[c])
        return x->cta_at[c];
    at = at > x->cta_next[c] ? at : x->cta_next[c];
    x->cta_next[c] = at + (bn_time_t)((double)wire(x, t->bytes) * x->cta_ps_per_byte + 0.5);
    x->cta_at[c] = at;
    x->cta_piece[c] = t->piece + 1u;
    return at;
}

/* Ready transfers (at `when`) wait out their step's software latency
 * (and their channel's pace), then post (none after a failure: the
 * collective is over). On ranks, only where their sender or receiver is. */
static void release(struct exec *x, const uint32_t *xs, uint32_t n, bn_time_t when)
{
    bool one_step = x->step_nv_ps == x->step_net_ps;
    for (uint32_t i = 0; i < n && !x->failed; i++) {
        struct bn_xfer_view t;
        if (!one_step || x->ranked || x->cta_next)
            bn_sched_view(x->sched, xs[i], &t);
        bn_time_t at = when + (one_step ? x->step_net_ps : step_of(x, &t));
        if (x->cta_next)
            at = cta_paced(x, &t, at);
        if (x->ranked) {
            if (!here(x, x->ep_host[t.src]) && !here(x, x->ep_host[t.dst]))
                continue;
            x->scheduled = at < x->scheduled ? at : x->scheduled;
        }
        if (at == x->s->fab.now)
            post(x, xs[i]);
        else
            bn_fabric_schedule(&x->s->fab, at, BN_EV_APP, xs[i], 0);
    }
}

static int start_iteration(struct exec *x, bn_time_t when)
{
    bn_sched_run_free(&x->run);
    int rc = bn_sched_run_start(&x->run, x->sched, x->err);
    if (rc != BN_OK)
        return rc;
    x->iter_start = x->iter_last_in = when;
    x->here_delivered = 0;
    for (uint32_t i = 0; x->consume && i < x->sched->nexplicit; i++)
        x->unsent[i] = x->sched->succ_off[i + 1] - x->sched->succ_off[i];
    memset(x->sent, 0, x->sched->nendpoints * sizeof *x->sent);
    if (x->hold) { /* the first hops, held (see above): one event */
        bn_time_t at = when + x->launch_ps + x->hold_step;
        if (at == x->s->fab.now)
            held_batch(x);
        else
            bn_fabric_schedule(&x->s->fab, at, BN_EV_APP, HELD_BATCH, 0);
        return BN_OK;
    }
    release(x, x->ready, bn_sched_run_initial(&x->run, x->ready), when + x->launch_ps);
    return BN_OK;
}

static void end_iteration(struct exec *x, bn_time_t when)
{
    uint64_t wrong = bn_sched_run_wrong(&x->run);
    if (wrong == UINT64_MAX) { /* it could not allocate its scratch */
        fail_in_callback(x, BN_ENOMEM, "out of memory checking the result");
        return;
    }
    /* warm-up, the timed out-of-place iterations, then as many in place:
     * the same transfers, the output buffer the input */
    int group = x->iter >= x->warmup + x->iters;
    x->wrong[group] += wrong;
    if (x->iter >= x->warmup)
        x->timed_ps[group] += (double)(when - x->iter_start);
    if (++x->iter == x->iters_total) {
        x->finished = true;
        return;
    }
    int rc = start_iteration(x, when);
    if (rc != BN_OK && x->rc == BN_OK)
        x->rc = rc;
}

/* Transfer `cookie` was delivered at `when`: here (on_complete), or in
 * another part (its note). */
static void delivered(struct exec *x, uint32_t cookie, bn_time_t when)
{
    struct bn_xfer_view t;
    bn_sched_view(x->sched, cookie & ~PXN_LEG, &t);
    if (x->legs_left && x->legs_left[cookie & ~PXN_LEG]) {
        if (--x->legs_left[cookie & ~PXN_LEG])
            return; /* an aggregate's relayed stream: its other leg still runs */
        cookie &= ~PXN_LEG;
    }
    if (cookie & PXN_LEG) { /* at the proxy: its NIC sends it on, on its rail */
        uint32_t dst = x->ep_host[t.dst], proxy = pxn_proxy(x, x->ep_host[t.src], dst);
        if (x->ranked && !here(x, proxy) && !here(x, dst))
            return;
        uint32_t c = conn_for(x, proxy, dst, t.channel);
        if (c == UINT32_MAX || bn_qp_post(&x->s->nics, x->qp_val[c], wire(x, t.bytes),
                                          BN_VERB_WRITE, cookie & ~PXN_LEG) != 0)
            fail_in_callback(x, BN_ENOMEM, "out of memory posting a PXN transfer");
        return;
    }
    x->sent[t.src]++;
    if (x->bulk_at)
        x->bulk_at[2 * (size_t)cookie + 1] = when;
    if (x->proto)
        delivered_slot(x, cookie, &t);
    release(x, x->ready, bn_sched_run_deliver(&x->run, cookie, x->ready), when);
    /* The iteration ends at its latest delivery, not the one completing it:
     * on ranks the other part's come in at the exchange, after later ones. */
    if (when > x->iter_last_in)
        x->iter_last_in = when;
    if (x->run.delivered == x->sched->nxfers)
        end_iteration(x, x->iter_last_in);
}

static void on_complete(void *ud, uint32_t cookie, enum bn_completion_side side, bn_time_t when)
{
    struct exec *x = ud;
    if (side != BN_COMPLETE_RX)
        return;
    if (x->ranked) { /* the other parts hear of it at the exchange */
        if (!bn_grow((void **)&x->notes, x->nnotes, &x->notes_cap, sizeof *x->notes)) {
            fail_in_callback(x, BN_ENOMEM, "out of memory for delivery notes");
            return;
        }
        uint32_t xi = cookie & ~PXN_LEG;
        x->notes[x->nnotes++] = (struct coll_note){
            when, cookie, xi < x->sched->nexplicit ? x->run.posted_version[xi] : 0};
        x->here_delivered += !(cookie & PXN_LEG);
    }
    delivered(x, cookie, when);
}

static size_t exec_notes(void *self, const void **out)
{
    struct exec *x = self;
    *out = x->notes;
    return (size_t)x->nnotes * sizeof *x->notes;
}

static int note_order(const void *a, const void *b)
{
    const struct coll_note *p = a, *q = b;
    if (p->when != q->when)
        return p->when < q->when ? -1 : 1;
    return p->cookie < q->cookie ? -1 : p->cookie > q->cookie;
}

/* The other parts' deliveries, in time order: the schedule's state as
 * theirs (a correct schedule reads only what landed a lookahead ago). */
static bn_time_t exec_apply(void *self, const void *notes, size_t len)
{
    struct exec *x = self;
    x->nnotes = 0; /* sent */
    x->scheduled = BN_TIME_NEVER;
    size_t n = len / sizeof(struct coll_note);
    struct coll_note *in = n ? malloc(n * sizeof *in) : NULL;
    if (n && !in) {
        fail_in_callback(x, BN_ENOMEM, "out of memory for delivery notes");
        x->s->fab.oom = true;
        return BN_TIME_NEVER;
    }
    if (n) {
        memcpy(in, notes, n * sizeof *in);
        qsort(in, n, sizeof *in, note_order);
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t xi = in[i].cookie & ~PXN_LEG;
        if (xi < x->sched->nexplicit)
            x->run.posted_version[xi] = in[i].posted_version;
        delivered(x, in[i].cookie, in[i].when);
    }
    free(in);
    return x->scheduled;
}

/* A queue pair's retries ran out: the transfer at its head cannot be
 * delivered, so the collective fails there (the first failure is the one
 * reported: the rank, its peer, and which of its sends it was). */
static void exec_qp_error(void *self, uint32_t qpid, bn_time_t when)
{
    struct exec *x = self;
    const struct bn_qp *qp = &x->s->nics.qp[qpid];
    if (x->failed || qp->msg_head == BN_NONE)
        return;
    struct bn_xfer_view t;
    bn_sched_view(x->sched, x->s->nics.msg[qp->msg_head].cookie & ~PXN_LEG, &t);
    x->failed = true;
    x->failed_us = bn_time_to_us(when);
    x->failed_rank = t.src;
    x->failed_peer = t.dst;
    x->failed_step = x->sent[t.src] + 1;
}

/* On ranks, a part is done when its nodes have received the last
 * iteration's transfers: all parts done is the collective done. */
static bool exec_done(const void *self)
{
    const struct exec *x = self;
    if (x->ranked && x->iter + 1 == x->iters_total && x->here_delivered == x->here_expected)
        return true;
    return x->finished || x->failed || x->rc != BN_OK;
}

static int exec_event(struct bn_sim *s, void *self, const struct bn_event *ev,
                      struct bn_error *err)
{
    struct exec *x = self;
    (void)err;
    if (x->ranked) { /* its receiver's part records it: one process posts it once */
        struct bn_xfer_view t;
        bn_sched_view(x->sched, ev->obj, &t);
        if (!here(x, x->ep_host[t.src]))
            bn_sim_mirrored(s);
    }
    if (ev->obj == HELD_BATCH)
        held_batch(x);
    else
        post(x, ev->obj);
    return x->rc;
}

/* The first iteration's ready transfers (a schedule with nothing to move,
 * one rank, completes at once). */
static int exec_start(struct bn_sim *s, void *self, struct bn_error *err)
{
    struct exec *x = self;
    int rc = BN_OK;
    /* partitioned: every queue pair up front, in the schedule's order, so
     * every part numbers them alike */
    for (uint32_t xi = 0; s->part && xi < x->sched->nxfers && rc == BN_OK; xi++) {
        struct bn_xfer_view t;
        bn_sched_view(x->sched, xi, &t);
        uint32_t src = x->ep_host[t.src], dst = x->ep_host[t.dst];
        uint32_t proxy = pxn_proxy(x, src, dst);
        if (conn_of(x, &t) == UINT32_MAX ||
            (proxy != UINT32_MAX && (conn_for(x, src, proxy, t.channel) == UINT32_MAX ||
                                     conn_for(x, proxy, dst, t.channel) == UINT32_MAX)))
            rc = bn_fail(err, BN_ENOMEM, "out of memory for queue pairs");
        x->here_expected += x->ranked && here(x, dst);
    }
    while (rc == BN_OK && x->sched->nxfers == 0 && !x->finished) {
        rc = start_iteration(x, s->fab.now);
        if (rc == BN_OK)
            end_iteration(x, s->fab.now);
    }
    if (rc == BN_OK && !x->finished)
        rc = start_iteration(x, s->fab.now);
    return rc;
}

/* The progress line: transfers delivered, of every iteration's (halved
 * together until they fit the counts). */
static void exec_progress(const void *self, uint32_t *done, uint32_t *total)
{
    const struct exec *x = self;
    uint64_t n = x->sched->nxfers, d = x->run.delivered < n ? x->run.delivered : n;
    uint64_t all = n * x->iters_total, at = n * x->iter + d;
    while (all > UINT32_MAX)
        all >>= 1, at >>= 1;
    *done = (uint32_t)(at < all ? at : all);
    *total = (uint32_t)all;
}

static const struct bn_driver_ranks_ops coll_ranks = {
    .notes = exec_notes,
    .apply = exec_apply,
};

static const struct bn_driver_ops coll_driver = {
    .name = "collective",
    .start = exec_start,
    .event = exec_event,
    .complete = on_complete,
    .done = exec_done,
    .progress = exec_progress,
    .qp_error = exec_qp_error,
    .ranks = &coll_ranks,
};

/* A hop of an aggregate's longest chain: its last leg's queue pair, the
 * relay's NVLink leg before it under PXN, and its step latency. */
static void chain_leg(void *ctx, const struct bn_xfer_view *t, struct bn_chain_leg *leg)
{
    struct exec *x = ctx;
    uint32_t src = x->ep_host[t->src], dst = x->ep_host[t->dst], proxy = pxn_proxy(x, src, dst);
    if (proxy == UINT32_MAX) {
        leg->qp = x->qp_val[conn_of(x, t)];
    } else {
        leg->qp = x->qp_val[conn_for(x, proxy, dst, t->channel)];
        leg->relay_qp = x->qp_val[conn_for(x, src, proxy, t->channel)];
    }
    leg->step_ps = step_of(x, t);
}

/* An aggregate's streams are whole connections, which flows cannot pace:
 * the row takes at least its launch and the busiest (rank, channel)'s
 * wire bytes at coll.channel_gbs (0 without a cap). */
static double cta_bound_us(const struct exec *x, const struct bn_scenario *sc)
{
    const struct bn_sched *sd = x->sched;
    uint32_t ch = sd->p.channels, n = sd->p.nranks;
    uint64_t most = 0;
    for (uint32_t xi = 0; x->cta_bytes && ch && xi < sd->nxfers; xi++) {
        struct bn_xfer_view t;
        bn_sched_view(sd, xi, &t);
        if (t.src >= n)
            continue;
        uint64_t *b = &x->cta_bytes[(size_t)t.src * ch + t.channel % ch];
        *b += wire(x, t.bytes);
        most = *b > most ? *b : most;
    }
    return most ? bn_time_to_us(x->launch_ps) + (double)most / (sc->coll.channel_gbs * 1e3) : 0;
}

static void fill_row(const struct exec *x, struct bn_coll_row *row)
{
    const struct bn_sim *s = x->s;
    row->time_us = x->timed_ps[0] / (double)x->iters / 1e6;
    row->wrong = x->wrong[0];
    if (x->iters_total > x->warmup + x->iters) {
        row->inplace_time_us = x->timed_ps[1] / (double)x->iters / 1e6;
        row->inplace_wrong = x->wrong[1];
    }
    row->packet_hops = s->fab.packet_hops;
    row->events = s->events;
    bn_partition_report(s, &row->partition);
    row->pkts_dropped = s->fab.pkts_dropped;
    row->pkts_lost = s->fab.pkts_lost;
    row->failed = x->failed;
    row->failed_us = x->failed_us;
    row->failed_rank = x->failed_rank;
    row->failed_peer = x->failed_peer;
    row->failed_step = x->failed_step;
    if (x->failed)
        row->time_us = row->inplace_time_us = 0;
    for (uint32_t q = 0; q < s->nics.nqps; q++)
        row->retransmits += s->nics.qp[q].retransmits;
}

/* The row's parts on processes: what they cannot run apart is refused. */
static int bind_ranks(struct exec *x, const struct bn_ranks *ranks, struct bn_error *err)
{
    const struct bn_scenario *sc = x->s->sc;
    if (x->proto)
        return bn_fail(err, BN_EINPUT, "%s: key 'coll.proto': a protocol's slots free at their "
                       "sender the instant they are delivered, which processes cannot run apart "
                       "(auto runs)", sc->source);
    int rc = bn_ranks_bind(x->s, ranks, err);
    bn_time_t least = x->step_nv_ps < x->step_net_ps ? x->step_nv_ps : x->step_net_ps;
    if (rc == BN_OK && least < x->s->part->lookahead)
        rc = bn_fail(err, BN_EINPUT, "%s: key 'coll.step_latency_us': %g us is under the "
                     "lookahead (%.0f ns): a transfer another process made ready would post "
                     "late", sc->source, sc->coll.step_latency_us,
                     (double)x->s->part->lookahead / 1000.0);
    x->ranked = rc == BN_OK;
    return rc;
}

int bn_coll_execute(struct bn_sim *s, const struct bn_sched *sched, const uint32_t *ep_host,
                    const struct bn_scenario *sc, const struct bn_coll_proto *proto,
                    const struct bn_coll_steps *steps, const struct bn_ranks *ranks,
                    struct bn_coll_row *row, struct bn_error *err)
{
    struct exec x = {
        .s = s, .sched = sched, .ep_host = ep_host, .err = err, .rc = BN_OK, .proto = proto,
        /* PXN needs NVLink across the server (else the relay is the NIC's) */
        .pxn_g = sc->coll.pxn && sc->topology.gpus_per_server > 1 &&
                         sc->scale_up.domain_gpus >= sc->topology.gpus_per_server
                     ? sc->topology.gpus_per_server : 0,
        .step_net_ps = bn_time_from_us(steps->net_us), .step_nv_ps = bn_time_from_us(steps->nv_us),
        .launch_ps = bn_time_from_us(steps->launch_us),
        .domain_gpus = s->topo.domain_gpus,
        .warmup = sc->coll.warmup, .iters = sc->coll.iters,
        .iters_total = sc->coll.warmup + sc->coll.iters * (sc->coll.in_place ? 2 : 1),
    };
    /* queue pairs: one per (source, destination, channel), at most one per
     * explicit transfer or per chain hop's ring edge (ranks x channels;
     * two-level chains: the servers' rings and the rails, twice that) */
    if (x.pxn_g && sched->nxfers >= PXN_LEG)
        return bn_fail(err, BN_EINPUT, "%s: key 'coll.pxn': %u transfers leave no bit for PXN's "
                       "relay (at most 2^31)", sc->source, sched->nxfers);
    /* PXN adds a relay queue pair per (server, rail, peer) at most */
    uint64_t pairs = (uint64_t)sched->nexplicit * (x.pxn_g ? 2 : 1) +
                     (uint64_t)sched->p.nranks * sched->p.channels * (x.pxn_g ? 2 : 1) *
                         (sched->nhchains ? 2 : 1);
    x.qp_cap = 64;
    while (x.qp_cap < 4 * pairs && x.qp_cap < (1u << 30))
        x.qp_cap *= 2;
    x.qp_key = calloc(x.qp_cap, sizeof *x.qp_key);
    x.qp_val = calloc(x.qp_cap, sizeof *x.qp_val);
    int hrc = x.qp_key && x.qp_val ? hold_setup(&x, sc) : BN_OK;
    /* held, only deliveries make transfers ready: a two-level chain's at
     * most 3 at a time (sched_hchain.c) */
    x.ready = malloc(((size_t)(x.hold ? 3 : bn_sched_ready_max(sched)) + 1) * sizeof *x.ready);
    bool paced = sc->coll.channel_gbs > 0;
    size_t ctas = (size_t)sched->p.nranks * sched->p.channels + 1;
    if (paced && !sched->bulk) { /* GB/s: bytes per ns */
        x.cta_ps_per_byte = 1e3 / sc->coll.channel_gbs;
        x.cta_next = calloc(ctas, sizeof *x.cta_next);
        x.cta_at = calloc(ctas, sizeof *x.cta_at);
        x.cta_piece = calloc(ctas, sizeof *x.cta_piece);
    } else if (paced) {
        x.cta_bytes = calloc(ctas, sizeof *x.cta_bytes);
    }
    x.sent = calloc((size_t)sched->nendpoints + 1, sizeof *x.sent);
    if (sched->bulk)
        x.bulk_at = calloc(2 * (size_t)sched->nxfers + 2, sizeof *x.bulk_at);
    if (sched->bulk && x.pxn_g)
        x.legs_left = calloc((size_t)sched->nxfers + 1, 1);
    bool slots = true;
    if (proto) {
        uint32_t nodes = bn_sched_ready_max(sched) + 1;
        x.inflight = calloc(x.qp_cap, sizeof *x.inflight);
        x.wait_head = malloc(x.qp_cap * sizeof *x.wait_head);
        x.wait_tail = malloc(x.qp_cap * sizeof *x.wait_tail);
        x.node_xfer = malloc(nodes * sizeof *x.node_xfer);
        x.node_next = malloc(nodes * sizeof *x.node_next);
        /* slot_freed's list: a connection per step held at once, at most */
        x.to_free = malloc(nodes * sizeof *x.to_free);
        x.consume = sched->in_order && sched->nxfers == sched->nexplicit; /* no chains */
        slots = x.inflight && x.wait_head && x.wait_tail && x.node_xfer && x.node_next &&
                x.to_free && (!x.consume || consume_setup(&x) == BN_OK);
        for (uint32_t n = 0; slots && n < nodes; n++)
            x.node_next[n] = n + 1 < nodes ? n + 1 : UINT32_MAX;
    }
    int rc = hrc != BN_OK ? hrc
             : x.qp_key && x.qp_val && x.ready && x.sent && slots && (x.bulk_at || !sched->bulk) &&
                     ((x.cta_next && x.cta_at && x.cta_piece) || x.cta_bytes || !paced) &&
                     (x.legs_left || !(sched->bulk && x.pxn_g))
                 ? BN_OK
             : bn_fail(err, BN_ENOMEM, "out of memory for %u transfers", sched->nxfers);
    double t0 = bn_wall_now();
    if (rc == BN_OK && ranks)
        rc = bind_ranks(&x, ranks, err);
    if (rc == BN_OK)
        rc = bn_sim_attach(s, &coll_driver, &x, err);
    if (ranks)
        rc = bn_ranks_agree(ranks, rc, err);
    if (rc == BN_OK)
        rc = bn_sim_loop(s, NULL, t0, err);
    if (rc == BN_OK && x.rc != BN_OK)
        rc = x.rc;
    if (ranks) /* a callback's failure on one rank ends them all */
        rc = bn_ranks_agree(ranks, rc, err);
    if (rc == BN_OK && ranks)
        rc = bn_ranks_gather_fabric(s, err);
    rc = bn_ranks_check_ledger(s, ranks, rc, err);
    if (rc == BN_OK && !bn_sim_reports(s)) /* on ranks, rank 0 reports */
        goto out;
    if (rc == BN_OK && s->interrupted)
        rc = bn_fail(err, BN_EINTR, "interrupted");
    if (rc == BN_OK && !s->stopped_early && !x.finished && !x.failed)
        rc = bn_fail(err, BN_EINTERNAL, "the collective did not complete, yet no event is left");
    if (rc == BN_OK && s->stopped_early)
        rc = bn_fail(err, BN_EINPUT, "%s: key 'sim.max_time_us': the collective of %llu bytes "
                     "did not finish within %g us", sc->source, (unsigned long long)sched->p.bytes,
                     sc->sim.max_time_us);
    if (rc == BN_OK) {
        fill_row(&x, row);
        row->wall_s = bn_wall_now() - t0;
    }
    if (rc == BN_OK && sched->bulk && !x.failed) {
        double head, chain = bn_coll_chain_us(x.s, sched, x.bulk_at, chain_leg, &x, &head);
        double cta = cta_bound_us(&x, sc);
        chain = chain > cta ? chain : cta;
        row->time_us = row->time_us + head > chain ? row->time_us + head : chain;
        if (row->inplace_time_us > 0)
            row->inplace_time_us = row->inplace_time_us + head > chain
                                       ? row->inplace_time_us + head : chain;
    }
out:
    if (x.hold)
        s->nics.refill = NULL;
    free(x.held_head);
    free(x.held_tail);
    free(x.runs);
    free(x.qp_conn);
    free(x.init);
    free(x.cls_head);
    free(x.cls_tail);
    free(x.cls_order);
    free(x.notes);
    bn_sched_run_free(&x.run);
    free(x.qp_key);
    free(x.qp_val);
    free(x.ready);
    free(x.sent);
    free(x.bulk_at);
    free(x.legs_left);
    free(x.inflight);
    free(x.wait_head);
    free(x.wait_tail);
    free(x.node_xfer);
    free(x.node_next);
    free(x.to_free);
    free(x.pred_off);
    free(x.pred);
    free(x.unsent);
    free(x.cta_next);
    free(x.cta_at);
    free(x.cta_piece);
    free(x.cta_bytes);
    return rc;
}
