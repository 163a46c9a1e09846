/*
 * A partitioned run's parts on separate processes (docs/parallel.md): each
 * runs its part's events in partition.c's synchronous windows, what crosses
 * the cut travels through the caller's transport (struct bn_ranks: MPI in
 * the bnet command), and the run ends exactly where one process would have
 * ended it. Every process builds the model, less the switch ports with
 * neither end in its part (bn_ranks_place: untouched pages), and runs
 * the driver's own events where the driver needs them (a flow's start
 * everywhere, a collective's post at its sender and, recorded, at its
 * receiver: the receiving end needs the messages posted); a node's ports,
 * NIC and the sending end of its queue pairs run only in its part
 * (nics.elsewhere keeps the others' senders quiet). A driver may keep
 * state whole on every part with notes the exchange carries (the
 * driver's ranks->notes).
 *
 * The end. One process stops after the first event that leaves no frame
 * in the fabric and the work done. Here each part is idle (no frame in its
 * pool, its senders' work done) or not, and marks the event that last left
 * it idle. An idle part pauses: a timer it ran past the end would be an
 * event one process never ran. After each window's exchange every process
 * knows every part's state: all idle and nothing crossing means the run
 * ended at the latest mark, and each part runs its events up to it (in the
 * keyed order marks compare across parts); else a paused part runs the rest
 * of its window (a second exchange carries what that sent) and the windows
 * go on.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/interrupt.h"
#include "sim/ranks_buf.h"
#include "sim/sim.h"

/* What each part tells every other at an exchange. */
enum { ST_IDLE = 1, ST_PAUSED = 2, ST_MARKED = 4, ST_STOP = 8, ST_INTR = 16 };
struct status {
    int64_t next;               /* the earliest event here or sent from here */
    int64_t mark_time;
    uint32_t mark_kind, mark_obj;
    uint64_t bytes;             /* the messages for the receiving part */
    uint64_t msgs;              /* sent to all */
    uint64_t work, delivered;   /* the livelock watchdog's, on its windows */
    uint64_t drv[2];            /* the driver's (ranks->state) */
    uint64_t notes;             /* of `bytes`, the driver's notes (the last) */
    uint32_t flags, pad;
};

struct decision {
    bn_time_t next;
    struct bn_event end;        /* the latest mark */
    uint64_t msgs, work, delivered;
    bool all_idle, any_paused, stop, intr, marked;
};

/* The exchange's buffers, kept across windows. */
struct ranks_bufs {
    struct status *st_out, *st_in;
    size_t *send_len, *recv_len;
    uint32_t *count;
    uint64_t (*drv)[2];         /* every part's driver counts */
    size_t *off;                /* per part: where its share goes in outb */
    char *outb, *inb, *notes_in;
    uint32_t outb_cap, inb_cap, notes_cap;
    struct bn_cut_msg *in;
    uint32_t in_cap;
};

static struct ranks_bufs *bufs_of(struct bn_partition *pt)
{
    return (struct ranks_bufs *)pt->ranks_bufs;
}

static int transport_failed(struct bn_error *err)
{
    return bn_fail(err, BN_EINTERNAL, "the exchange between processes failed");
}

int bn_ranks_place(struct bn_sim *s, const struct bn_ranks *ranks, struct bn_error *err)
{
    struct bn_partition *pt = s->part;
    const struct bn_topo *t = &s->topo;
    if (pt->parts != (uint32_t)ranks->size)
        return BN_OK;
    pt->elsewhere = calloc(t->nnodes + 1, 1);
    pt->absent = calloc(t->nports + 1, 1);
    if (!pt->elsewhere || !pt->absent)
        return bn_fail(err, BN_ENOMEM, "out of memory for %u ports", t->nports);
    for (uint32_t i = 0; i < t->nnodes; i++)
        pt->elsewhere[i] = pt->owner[i] != (uint32_t)ranks->rank;
    /* in-band telemetry: a sender reads the line rate of every port that
     * stamped its frames (HPCC), wherever it is */
    const struct bn_cc_ops *cc = bn_cc_at(s->sc->nic.congestion_control);
    for (uint32_t p = 0; (!cc || !cc->telemetry_bytes) && p < t->nports; p++) {
        uint32_t node = t->ports[p].node, peer = t->ports[t->ports[p].peer].node;
        pt->absent[p] = pt->elsewhere[node] && pt->elsewhere[peer] &&
                        t->nodes[node].kind == BN_NODE_SWITCH;
    }
    if (cc && cc->telemetry_bytes) { /* every port here */
        free(pt->absent);
        pt->absent = NULL;
    }
    return BN_OK;
}

int bn_ranks_bind(struct bn_sim *s, const struct bn_ranks *ranks, struct bn_error *err)
{
    struct bn_partition *pt = s->part;
    const char *at = s->sc->source;
    if (!pt || pt->parts != (uint32_t)ranks->size)
        return bn_fail(err, BN_EINPUT, "%s: key 'sim.partitions': %u parts for %d processes; "
                       "a run on mpirun's ranks needs one part each (--partitions %d)",
                       at, pt ? pt->parts : 0, ranks->size, ranks->size);
    if (s->faults || s->fab.impair)
        return bn_fail(err, BN_EINPUT, "%s: faults and link impairments are not run across "
                       "processes (their state is the whole fabric's): run them in one",
                       at);
    /* A sender completes a message no earlier than its receiver did
     * (nic/wr.c, tx_done), which it reads from the shared record; its ACK
     * crosses the cut, so the receiver's later write can only matter when
     * it lags the receive by more than the lookahead. */
    const struct bn_ep_params *ep = &s->nics.ep_params;
    if (ep->data > ep->pcie && ep->data - ep->pcie > pt->lookahead)
        return bn_fail(err, BN_EINPUT, "%s: key 'host.gpu_pcie_ns': data writes %.0f ns slower "
                       "than PCIe outlast the lookahead (%.0f ns), which processes cannot "
                       "share a message's completion within", at,
                       (double)(ep->data - ep->pcie) / 1000.0, (double)pt->lookahead / 1000.0);
    uint32_t n = (uint32_t)ranks->size;
    struct ranks_bufs *b = calloc(1, sizeof *b);
    if (!pt->elsewhere) /* not placed while built */
        pt->elsewhere = calloc(s->topo.nnodes + 1, 1);
    if (!b || !pt->elsewhere) {
        free(b);
        return bn_fail(err, BN_ENOMEM, "out of memory for %u processes", n);
    }
    pt->ranks_bufs = b;
    b->st_out = calloc(n, sizeof *b->st_out);
    b->st_in = calloc(n, sizeof *b->st_in);
    b->send_len = calloc(n, sizeof *b->send_len);
    b->recv_len = calloc(n, sizeof *b->recv_len);
    b->count = calloc(n + 1, sizeof *b->count);
    b->drv = calloc(n, sizeof *b->drv);
    b->off = calloc(n, sizeof *b->off);
    if (!b->st_out || !b->st_in || !b->send_len || !b->recv_len || !b->count || !b->drv ||
        !b->off)
        return bn_fail(err, BN_ENOMEM, "out of memory for %u processes", n);
    for (uint32_t i = 0; i < s->topo.nnodes; i++)
        pt->elsewhere[i] = pt->owner[i] != (uint32_t)ranks->rank;
    pt->ranks = ranks;
    s->nics.elsewhere = pt->elsewhere;
    return BN_OK;
}

void bn_ranks_free(struct bn_partition *pt)
{
    struct ranks_bufs *b = bufs_of(pt);
    if (b) {
        free(b->st_out);
        free(b->st_in);
        free(b->send_len);
        free(b->recv_len);
        free(b->count);
        free(b->drv);
        free(b->off);
        free(b->outb);
        free(b->inb);
        free(b->notes_in);
        free(b->in);
        free(b);
    }
    free(pt->elsewhere);
    free(pt->absent);
    free(pt->fc_final);
}

void bn_ranks_after_event(struct bn_sim *s, const struct bn_event *ev)
{
    struct bn_partition *pt = s->part;
    bool idle = s->fab.pool.in_use == 0 && s->drv.ops->done(s->drv.self);
    if (idle && !pt->idle) {
        pt->mark = *ev;
        pt->marked = true;
    }
    pt->idle = idle;
}

/* Room for n items of `size` bytes (core/grow.h's doubling). */
static bool room(void *arr, uint32_t *cap, size_t n, size_t size)
{
    return n < UINT32_MAX && bn_grow(arr, (uint32_t)n, cap, size);
}

static bool later_mark(const struct status *a, const struct bn_event *b)
{
    if (a->mark_time != b->time)
        return a->mark_time > b->time;
    if (a->mark_kind != b->kind)
        return a->mark_kind > b->kind;
    return a->mark_obj > b->obj;
}

/* Each part's held messages to their parts, the driver's notes (ranks->notes)
 * and everyone's state to everyone. A part's share for another: its
 * messages, then its notes. */
static int exchange(struct bn_sim *s, bool watch, struct decision *d, struct bn_error *err)
{
    struct bn_partition *pt = s->part;
    struct ranks_bufs *b = bufs_of(pt);
    const struct bn_ranks *r = pt->ranks;
    struct bn_cut *c = &pt->cut;
    uint32_t n = (uint32_t)r->size, self = (uint32_t)r->rank;
    const void *notes = NULL;
    const struct bn_driver_ranks_ops *dr = s->drv.ops->ranks;
    size_t nlen = dr && dr->notes ? dr->notes(s->drv.self, &notes) : 0;
    /* on the wire without the telemetry records when there are none */
    size_t stride = s->fab.telemetry ? sizeof(struct bn_cut_msg) : offsetof(struct bn_cut_msg, rec);
    memset(b->count, 0, (n + 1) * sizeof *b->count);
    bn_time_t next = BN_TIME_NEVER;
    for (uint32_t i = 0; i < c->n; i++) {
        b->count[pt->owner[s->fab.port_node[c->msg[i].obj]]]++;
        next = c->msg[i].time < next ? c->msg[i].time : next;
    }
    size_t total = 0;
    for (uint32_t k = 0; k < n; k++) {
        b->send_len[k] = (size_t)b->count[k] * stride + (k != self ? nlen : 0);
        b->off[k] = total;
        total += b->send_len[k];
    }
    if (!room(&b->outb, &b->outb_cap, total, 1))
        return bn_fail(err, BN_ENOMEM, "out of memory for the exchange");
    for (uint32_t k = 0; k < n; k++) /* the notes after each part's messages */
        if (k != self && nlen)
            memcpy(b->outb + b->off[k] + (size_t)b->count[k] * stride, notes, nlen);
    for (uint32_t i = 0; i < c->n; i++) { /* each part's in the order held */
        uint32_t k = pt->owner[s->fab.port_node[c->msg[i].obj]];
        memcpy(b->outb + b->off[k], &c->msg[i], stride);
        b->off[k] += stride;
    }
    bn_time_t here;
    if (bn_evq_next_time(&s->fab.evq, &here) && here < next)
        next = here;
    struct status me = {.next = next, .msgs = c->n};
    me.flags = (pt->idle ? ST_IDLE : 0) | (pt->paused ? ST_PAUSED : 0) |
               (pt->marked ? ST_MARKED : 0) | (pt->past_stop ? ST_STOP : 0) |
               (bn_interrupt_requested() ? ST_INTR : 0);
    if (pt->marked) {
        me.mark_time = pt->mark.time;
        me.mark_kind = pt->mark.kind;
        me.mark_obj = pt->mark.obj;
    }
    if (watch) {
        me.work = s->drv.ops->work_mark(s->drv.self);
        me.delivered = s->fab.pkts_delivered;
    }
    if (dr && dr->state)
        dr->state(s->drv.self, me.drv);
    for (uint32_t k = 0; k < n; k++) {
        b->st_out[k] = me;
        b->st_out[k].bytes = b->send_len[k];
        b->st_out[k].notes = k != self ? nlen : 0;
    }
    if (r->alltoall(r->ud, b->st_out, b->st_in, sizeof *b->st_out) != 0)
        return transport_failed(err);
    size_t in = 0, in_bytes = 0, in_notes = 0;
    for (uint32_t k = 0; k < n; k++) {
        b->recv_len[k] = b->st_in[k].bytes;
        in_bytes += b->st_in[k].bytes;
        in_notes += b->st_in[k].notes;
        in += (b->st_in[k].bytes - b->st_in[k].notes) / stride;
    }
    if (!room(&b->inb, &b->inb_cap, in_bytes, 1) || !room(&b->in, &b->in_cap, in, sizeof *b->in) ||
        !room(&b->notes_in, &b->notes_cap, in_notes, 1))
        return bn_fail(err, BN_ENOMEM, "out of memory for the exchange");
    if (r->alltoallv(r->ud, b->outb, b->send_len, b->inb, b->recv_len) != 0)
        return transport_failed(err);
    size_t at = 0, m = 0, nb = 0;
    for (uint32_t k = 0; k < n; k++) { /* the messages apart, the notes in part order */
        size_t msgs = (b->st_in[k].bytes - b->st_in[k].notes) / stride;
        for (size_t j = 0; j < msgs; j++, at += stride)
            memcpy(&b->in[m++], b->inb + at, stride);
        memcpy(b->notes_in + nb, b->inb + at, b->st_in[k].notes);
        nb += b->st_in[k].notes;
        at += b->st_in[k].notes;
    }
    c->n = 0;
    if (bn_partition_deliver_msgs(s, b->in, (uint32_t)in) != 0)
        return bn_fail(err, BN_ENOMEM, "out of memory for events at t=%.3f us",
                       bn_time_to_us(s->fab.now));
    /* A frame delivered here (a done collective's last ACK, say) keeps the
     * part busy until its event takes it out: else the run ends with it in flight. */
    if (s->fab.pool.in_use)
        pt->idle = false;
    bn_time_t noted = BN_TIME_NEVER;
    if (dr && dr->notes)
        noted = dr->apply(s->drv.self, b->notes_in, nb);
    *d = (struct decision){.next = noted, .all_idle = true};
    for (uint32_t k = 0; k < n; k++) {
        const struct status *o = &b->st_in[k];
        d->next = o->next < d->next ? o->next : d->next;
        d->msgs += o->msgs;
        d->work += o->work;
        d->delivered += o->delivered;
        d->all_idle &= (o->flags & ST_IDLE) != 0;
        d->any_paused |= (o->flags & ST_PAUSED) != 0;
        d->stop |= (o->flags & ST_STOP) != 0;
        d->intr |= (o->flags & ST_INTR) != 0;
        if ((o->flags & ST_MARKED) && (!d->marked || later_mark(o, &d->end))) {
            d->marked = true;
            d->end = (struct bn_event){.time = o->mark_time, .kind = (uint16_t)o->mark_kind,
                                       .obj = o->mark_obj};
        }
        b->drv[k][0] = o->drv[0];
        b->drv[k][1] = o->drv[1];
    }
    /* the notes may have done this part's work (an iteration begun where
     * it receives nothing): idle from here, with no event of its own */
    if (!pt->idle && s->fab.pool.in_use == 0 && s->drv.ops->done(s->drv.self))
        pt->idle = true;
    if (dr && dr->sync) { /* alike on every part: its events open windows too */
        bn_time_t t = dr->sync(s->drv.self, (const uint64_t(*)[2])b->drv, n);
        d->next = t < d->next ? t : d->next;
    }
    return s->fab.oom ? bn_fail(err, BN_ENOMEM, "out of memory for events") : BN_OK;
}

/* The livelock watchdog (loop.c's) over every part's counts, checked
 * every few thousand windows at the next window's start, which every
 * process knows alike: one process checks by events, so a stalled run
 * stops at another point here. */
enum { WATCH_WINDOWS = 4096 };
static bool stalled(struct bn_sim *s, const struct decision *d)
{
    if (d->next == BN_TIME_NEVER) /* nothing left: the run ends anyway */
        return false;
    if (d->work != s->stall_mark || d->delivered == s->stall_delivered) {
        s->stall_mark = d->work;
        s->stall_delivered = d->delivered;
        s->stall_since = d->next;
        return false;
    }
    s->stall_delivered = d->delivered;
    return d->next - s->stall_since > bn_time_from_us(s->sc->sim.stall_us);
}

static void window_done(struct bn_partition *pt, uint64_t *msgs)
{
    pt->msgs += *msgs;
    pt->msgs_max = *msgs > pt->msgs_max ? *msgs : pt->msgs_max;
    *msgs = 0;
}

static int run_loop(struct bn_sim *s, const struct bn_run_opts *opts, double t0, bn_time_t stop,
                    bool prefetch, struct bn_error *err)
{
    struct bn_partition *pt = s->part;
    bool watching = s->sc->sim.stall_us > 0 && s->drv.ops->work_mark, again = false, over = false;
    uint64_t msgs = 0;
    bn_time_t end = 0;
    pt->pausing = true;
    for (;;) {
        bool watch = watching && !again && pt->windows % WATCH_WINDOWS == WATCH_WINDOWS - 1;
        struct decision d = {0};
        int rc = exchange(s, watch, &d, err);
        if (rc != BN_OK)
            return rc;
        msgs += d.msgs;
        if (d.all_idle && d.msgs == 0 && d.marked) { /* over at the latest mark */
            window_done(pt, &msgs);
            pt->limited = true;
            pt->limit = d.end;
            pt->pausing = false;
            bool at_end = pt->marked && pt->mark.time == d.end.time &&
                          pt->mark.kind == d.end.kind && pt->mark.obj == d.end.obj;
            if (!at_end) /* the part whose mark it is stopped right after it */
                rc = bn_sim_run_events(s, opts, t0, true, BN_TIME_NEVER, stop, prefetch, &over,
                                       err);
            s->fab.now = d.end.time;
            return rc;
        }
        if (d.any_paused && !again) { /* the paused parts finish the window */
            again = true;
            pt->pausing = pt->paused = false;
            rc = bn_sim_run_events(s, opts, t0, true, end, stop, prefetch, &over, err);
            pt->pausing = true;
            if (rc != BN_OK)
                return rc;
            continue;
        }
        again = false;
        if (d.stop)
            msgs = 0; /* one process stops inside the window, holding its messages */
        window_done(pt, &msgs);
        if (d.intr) {
            s->stopped_early = s->interrupted = true;
            return BN_OK;
        }
        if (watch && stalled(s, &d)) {
            s->stopped_early = s->stalled = true;
            return BN_OK;
        }
        if (d.stop || d.next == BN_TIME_NEVER || d.next > stop) {
            if (d.next != BN_TIME_NEVER && d.next > stop && !d.stop)
                bn_partition_window(s, d.next); /* one process opens it, then stops */
            if (d.stop || d.next != BN_TIME_NEVER) {
                s->stopped_early = true;
                s->fab.now = stop;
            }
            return BN_OK;
        }
        end = bn_partition_window(s, d.next);
        pt->paused = false;
        rc = bn_sim_run_events(s, opts, t0, true, end, stop, prefetch, &over, err);
        if (rc != BN_OK)
            return rc;
        if (pt->cut.early)
            return bn_fail(err, BN_EINTERNAL, "a frame crossed a cut within its window: the "
                           "lookahead (%.3f ns) is wrong", (double)pt->lookahead / 1000.0);
    }
}

/* After the windows: what they exchanged is through, and the results'
 * gather and report come next, where rank 0 peaks (1.6 MB at 8192 hosts;
 * a later loop grows them again). */
static void release_window_bufs(struct bn_partition *pt)
{
    struct ranks_bufs *b = bufs_of(pt);
    free(b->outb);
    free(b->inb);
    free(b->notes_in);
    free(b->in);
    b->outb = b->inb = b->notes_in = NULL;
    b->in = NULL;
    b->outb_cap = b->inb_cap = b->notes_cap = b->in_cap = 0;
    if (pt->cut.n == 0) {
        free(pt->cut.msg);
        pt->cut.msg = NULL;
        pt->cut.cap = 0;
    }
}

int bn_ranks_loop(struct bn_sim *s, const struct bn_run_opts *opts, double t0, bn_time_t stop,
                  bool prefetch, struct bn_error *err)
{
    int rc = run_loop(s, opts, t0, stop, prefetch, err);
    if (rc == BN_OK)
        release_window_bufs(s->part);
    if (rc != BN_OK) { /* the others wait at the next exchange: end them all */
        const struct bn_ranks *r = s->part->ranks;
        char why[sizeof err->msg + 32];
        snprintf(why, sizeof why, "part %d: %s", r->rank, err->msg);
        r->abort(r->ud, err->status == BN_EINPUT ? 2 : 1, why);
    }
    return rc;
}

int bn_ranks_agree(const struct bn_ranks *r, int rc, struct bn_error *err)
{
    int *out = calloc((size_t)r->size, sizeof *out), *in = calloc((size_t)r->size, sizeof *in);
    int failed = 0;
    for (int k = 0; out && k < r->size; k++)
        out[k] = rc != BN_OK;
    if (!out || !in || r->alltoall(r->ud, out, in, sizeof *out) != 0) {
        free(out);
        free(in);
        r->abort(r->ud, 1, "a process could not tell the others it started");
        return bn_fail(err, BN_EINTERNAL, "a process could not tell the others it started");
    }
    for (int k = 0; k < r->size; k++)
        failed += in[k];
    free(out);
    free(in);
    if (failed == 0 || failed == r->size) /* all alike: each says it (bad input) */
        return rc;
    if (rc != BN_OK) { /* the others would wait for it: it ends them, saying why */
        char why[sizeof err->msg + 32];
        snprintf(why, sizeof why, "part %d: %s", r->rank, err->msg);
        r->abort(r->ud, err->status == BN_EINPUT ? 2 : 1, why);
    }
    return bn_fail(err, BN_EINTERNAL, "another process could not start its part");
}

int bn_ranks_check_ledger(const struct bn_sim *s, const struct bn_ranks *r, int rc,
                          struct bn_error *err)
{
    if (rc == BN_OK && bn_sim_reports(s))
        rc = bn_sim_check_ledger(s, err);
    return r ? bn_ranks_agree(r, rc, err) : rc;
}

int bn_ranks_gather(struct bn_sim *s, const void *mine, size_t len, void **all, size_t *lens,
                    struct bn_error *err)
{
    const struct bn_ranks *r = s->part->ranks;
    struct ranks_bufs *b = bufs_of(s->part);
    uint32_t n = (uint32_t)r->size;
    uint64_t *to = calloc(n, sizeof *to), *from = calloc(n, sizeof *from);
    *all = NULL;
    if (!to || !from) {
        free(to);
        free(from);
        return bn_fail(err, BN_ENOMEM, "out of memory gathering the results");
    }
    to[0] = len;
    int rc = r->alltoall(r->ud, to, from, sizeof *to);
    size_t total = 0;
    for (uint32_t k = 0; k < n; k++) {
        b->send_len[k] = k == 0 ? len : 0;
        b->recv_len[k] = lens[k] = from[k];
        total += from[k];
    }
    free(to);
    free(from);
    if (rc != 0)
        return transport_failed(err);
    *all = malloc(total + 1);
    if (!*all)
        return bn_fail(err, BN_ENOMEM, "out of memory gathering the results");
    if (r->alltoallv(r->ud, mine, b->send_len, *all, b->recv_len) != 0) {
        free(*all);
        *all = NULL;
        return transport_failed(err);
    }
    return BN_OK;
}

/* A stream's pieces: an eighth of a part's pack, at least 1 MiB (each
 * piece packs the whole again, keeping its window: 9 passes at most). */
#define PIECE_MIN (1u << 20)
static size_t piece_of(uint64_t len)
{
    uint64_t p = (len + 7) / 8;
    return p < PIECE_MIN ? PIECE_MIN : (size_t)p;
}

struct stream {
    struct bn_sim *s;
    bn_ranks_pack_fn pack;
    void *pack_ud;
    uint32_t part;
    uint64_t len, at;           /* the part's bytes; those fetched */
    char *out, *in;             /* this rank's piece; rank 0's received one */
    bool failed;                /* the transport */
};

/* Every rank, for piece `at` of part st->part: its rank packs it, rank 0
 * receives it (rank 0's own: packed in place). */
static bool piece(struct stream *st)
{
    const struct bn_ranks *r = st->s->part->ranks;
    struct ranks_bufs *b = bufs_of(st->s->part);
    uint32_t n = (uint32_t)r->size, self = (uint32_t)r->rank;
    size_t cap = piece_of(st->len), want = st->len - st->at < cap ? st->len - st->at : cap;
    if (self == st->part) {
        struct bn_rbuf w;
        bn_rbuf_window(&w, self == 0 ? st->in : st->out, (uint32_t)cap, st->at);
        st->pack(st->pack_ud, &w);
    }
    st->at += want;
    if (st->part == 0)
        return true;
    memset(b->send_len, 0, n * sizeof *b->send_len);
    memset(b->recv_len, 0, n * sizeof *b->recv_len);
    if (self == st->part)
        b->send_len[0] = want;
    if (self == 0)
        b->recv_len[st->part] = want;
    if (r->alltoallv(r->ud, st->out, b->send_len, st->in, b->recv_len) != 0)
        st->failed = true;
    return !st->failed;
}

/* Rank 0's cursor: the next piece. */
static bool more(void *ud, struct bn_rcur *c)
{
    struct stream *st = ud;
    size_t before = st->at;
    if (st->at >= st->len || !piece(st))
        return false;
    c->p = st->in;
    c->len = st->at - before;
    c->rest = st->len - st->at;
    return true;
}

int bn_ranks_gather_stream(struct bn_sim *s, bn_ranks_pack_fn pack, void *pack_ud,
                           bn_ranks_read_fn read, void *read_ud, struct bn_error *err)
{
    const struct bn_ranks *r = s->part->ranks;
    uint32_t n = (uint32_t)r->size, self = (uint32_t)r->rank;
    uint64_t *to = calloc(n, sizeof *to), *len = calloc(n, sizeof *len);
    struct bn_rbuf sz = {.sizing = true};
    pack(pack_ud, &sz);
    for (uint32_t k = 0; to && k < n; k++) /* every rank learns every part's length */
        to[k] = sz.need;
    int rc = !to || !len ? -2 : r->alltoall(r->ud, to, len, sizeof *to) != 0 ? -1 : 0;
    char none = 0;
    struct stream st = {.s = s, .pack = pack, .pack_ud = pack_ud, .out = &none, .in = &none};
    size_t most = 0;
    int agreed = BN_OK;
    for (uint32_t k = 0; rc == 0 && k < n; k++)
        most = piece_of(len[k]) > most ? piece_of(len[k]) : most;
    if (rc == 0 && self == 0)
        st.in = malloc(most + 1);
    else if (rc == 0 && len[self])
        st.out = malloc(piece_of(len[self]) + 1);
    if (rc == 0) { /* one rank short of room would leave the others waiting */
        int mine = st.in && st.out ? BN_OK : bn_fail(err, BN_ENOMEM, "out of memory "
                                                     "gathering the results");
        if ((agreed = bn_ranks_agree(r, mine, err)) != BN_OK)
            rc = -3;
    }
    bool ok = true;
    for (uint32_t k = 0; rc == 0 && k < n; k++) {
        st.part = k;
        st.len = len[k];
        st.at = 0;
        if (self == 0) {
            struct bn_rcur c = {.rest = st.len, .more = more, .ud = &st};
            ok = read(read_ud, k, &c) && bn_rcur_end(&c) && ok;
        }
        /* every rank goes through every piece (rank 0 those it left) */
        while (k > 0 && st.at < st.len && piece(&st))
            ;
        rc = st.failed ? -1 : 0;
    }
    if (st.in && st.in != &none)
        free(st.in);
    if (st.out && st.out != &none)
        free(st.out);
    free(to);
    free(len);
    if (rc == -3)
        return agreed;
    if (rc == -2)
        return bn_fail(err, BN_ENOMEM, "out of memory gathering the results");
    if (rc != 0)
        return transport_failed(err);
    return ok ? BN_OK : bn_fail(err, BN_EINTERNAL, "a part's results do not match the model");
}
