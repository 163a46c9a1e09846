/*
 * A partitioned run (sim.partitions, docs/parallel.md): the fabric cut
 * into parts along links, run in synchronous windows as separate processes
 * would run it (Chandy and Misra's conservative synchronization, in its
 * synchronous-window form: Lubachevsky, "Efficient distributed event-driven
 * simulations of multiple-loop networks", CACM 32(1), 1989). A window
 * starts at the earliest pending event and is as long as the lookahead,
 * the least propagation delay over a cut link: nothing sent across a cut
 * within a window can land inside it, so each part may run its window
 * alone. Frames and flow-control signals crossing a cut are held
 * (link/port.c, bn_cut_hold) and delivered when the window ends, frames
 * into fresh pool slots, in an order other than they were sent: under the
 * keyed event order (core/evq.h) the results do not change, which is what
 * makes them byte-identical for any number of parts.
 *
 * The cut: every host stays with its leaf, or in NVLink domains with its
 * server, and an aggregation unit with its switch; `pods` also keeps whole
 * pods. Those units go to parts in node order, balancing hosts; every
 * other switch joins the part most of its links reach.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

static uint32_t find(uint32_t *up, uint32_t x)
{
    while (up[x] != x)
        x = up[x] = up[up[x]];
    return x;
}

static void unite(uint32_t *up, uint32_t a, uint32_t b)
{
    a = find(up, a);
    b = find(up, b);
    if (a != b)
        up[a > b ? a : b] = a < b ? a : b; /* the lower id leads: node order */
}

static uint32_t peer_node(const struct bn_topo *t, uint32_t port)
{
    return t->ports[t->ports[port].peer].node;
}

/* The units no cut splits: a host with its leaf, or, in NVLink domains,
 * a server (its GPUs and NVSwitch: a rail-optimized fabric's servers reach
 * every rail's leaf, so leaves and servers together would be one unit);
 * an aggregation unit with what it sits in; with pods, hosts with their
 * leaves, a pod's aggregation switches with its leaves (three tiers and
 * more) or a Dragonfly+ group. */
static void units(const struct bn_topo *t, bool pods, uint32_t *up)
{
    for (uint32_t i = 0; i < t->nnodes; i++)
        up[i] = i;
    for (uint32_t i = 0; i < t->nnodes; i++) {
        const struct bn_topo_node *n = &t->nodes[i];
        for (uint32_t k = 0; k < n->nports; k++) {
            uint32_t j = peer_node(t, n->first_port + k);
            const struct bn_topo_node *m = &t->nodes[j];
            bool whole = n->kind == BN_NODE_AGG ||
                         (n->kind == BN_NODE_HOST &&
                          (m->kind == BN_NODE_SCALEUP || pods || !t->nscaleup));
            if (whole || (pods && t->ntiers >= 3 && n->tier == 2 && m->tier == 1))
                unite(up, i, j);
            if (pods && t->ngroups && n->kind == BN_NODE_SWITCH && m->kind == BN_NODE_SWITCH &&
                n->group == m->group)
                unite(up, i, j);
        }
    }
}

/* Units with hosts, in node order, to parts of about equal hosts; how
 * many units there are (UINT32_MAX: out of memory). */
static uint32_t place_host_units(const struct bn_topo *t, uint32_t parts, uint32_t *up,
                                 uint32_t *owner)
{
    uint32_t *hosts = calloc(t->nnodes, sizeof *hosts), nunits = 0;
    if (!hosts)
        return UINT32_MAX;
    for (uint32_t h = 0; h < t->nhosts; h++)
        if (hosts[find(up, h)]++ == 0)
            nunits++;
    uint64_t before = 0;
    for (uint32_t i = 0; i < t->nnodes; i++) {
        if (find(up, i) != i || hosts[i] == 0)
            continue;
        /* the part its middle host falls in */
        uint64_t mid = before + hosts[i] / 2;
        owner[i] = (uint32_t)(mid * parts / t->nhosts);
        before += hosts[i];
    }
    for (uint32_t i = 0; i < t->nnodes; i++)
        if (hosts[find(up, i)])
            owner[i] = owner[find(up, i)];
    free(hosts);
    return nunits;
}

/* Every other unit (switches above the leaves), lowest tier first, to the
 * part most of its links reach (ties: the part with the fewest nodes). */
static int place_rest(const struct bn_topo *t, uint32_t parts, uint32_t *up, uint32_t *owner)
{
    uint32_t n = t->nnodes;
    uint32_t *votes = calloc(parts, sizeof *votes), *size = calloc(parts, sizeof *size);
    uint32_t *first = calloc((size_t)n + 1, sizeof *first), *member = malloc(n * sizeof *member);
    int rc = votes && size && first && member ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < n; i++) /* each unit's members, by its root */
        first[find(up, i) + 1]++;
    for (uint32_t i = 0; rc == 0 && i < n; i++)
        first[i + 1] += first[i];
    for (uint32_t i = 0; rc == 0 && i < n; i++) /* first[r] walks to unit r's end... */
        member[first[find(up, i)]++] = i;
    for (uint32_t i = n; rc == 0 && i > 0; i--) /* ...which is where unit r + 1 starts */
        first[i] = first[i - 1];
    if (rc == 0)
        first[0] = 0;
    for (uint32_t i = 0; rc == 0 && i < n; i++)
        if (owner[i] != UINT32_MAX)
            size[owner[i]]++;
    /* by tier, then whatever is left (a unit of a tier beyond the fabric's) */
    for (unsigned pass = 0; rc == 0 && pass <= BN_MAX_TIERS + 1; pass++) {
        for (uint32_t root = 0; root < n; root++) {
            if (owner[root] != UINT32_MAX || up[root] != root ||
                (pass <= BN_MAX_TIERS && t->nodes[root].tier != pass))
                continue;
            memset(votes, 0, parts * sizeof *votes);
            for (uint32_t m = first[root]; m < first[root + 1]; m++) {
                const struct bn_topo_node *nd = &t->nodes[member[m]];
                for (uint32_t k = 0; k < nd->nports; k++) {
                    uint32_t o = owner[peer_node(t, nd->first_port + k)];
                    if (o != UINT32_MAX)
                        votes[o]++;
                }
            }
            uint32_t best = 0;
            for (uint32_t p = 1; p < parts; p++)
                if (votes[p] > votes[best] || (votes[p] == votes[best] && size[p] < size[best]))
                    best = p;
            for (uint32_t m = first[root]; m < first[root + 1]; m++)
                owner[member[m]] = best;
            size[best] += first[root + 1] - first[root];
        }
    }
    free(votes);
    free(size);
    free(first);
    free(member);
    return rc;
}

int bn_partition_init(struct bn_sim *s, struct bn_error *err)
{
    const struct bn_scenario *sc = s->sc;
    const struct bn_topo *t = &s->topo;
    uint32_t parts = sc->sim.partitions;
    struct bn_partition *pt = calloc(1, sizeof *pt);
    uint32_t *up = malloc((size_t)t->nnodes * sizeof *up);
    if (pt) {
        pt->owner = malloc((size_t)t->nnodes * sizeof *pt->owner);
        pt->events = calloc(parts, sizeof *pt->events);
        pt->cut.port = calloc(t->nports, 1);
    }
    s->part = pt;
    if (!pt || !up || !pt->owner || !pt->events || !pt->cut.port) {
        free(up);
        return bn_fail(err, BN_ENOMEM, "out of memory for %u partitions", parts);
    }
    pt->parts = parts;
    memset(pt->owner, 0xff, (size_t)t->nnodes * sizeof *pt->owner);
    units(t, sc->sim.partition == BN_SC_PARTITION_PODS, up);
    uint32_t nunits = place_host_units(t, parts, up, pt->owner);
    int rc = nunits == UINT32_MAX ? -1 : nunits >= parts ? place_rest(t, parts, up, pt->owner) : -2;
    free(up);
    char at[BN_PATH_MAX + 16];
    bn_scenario_where(sc, "sim.partitions", at, sizeof at);
    if (rc == -2)
        return bn_fail(err, BN_EINPUT, "%s: key 'sim.partitions': %u parts, but the fabric "
                       "holds %u %s that no cut splits (sim.partition %s)", at, parts,
                       nunits, sc->sim.partition == BN_SC_PARTITION_PODS ? "pods" : "units",
                       sc->sim.partition == BN_SC_PARTITION_PODS ? "pods" : "auto");
    if (rc != 0)
        return bn_fail(err, BN_ENOMEM, "out of memory for %u partitions", parts);
    pt->lookahead = BN_TIME_NEVER;
    for (uint32_t p = 0; p < t->nports; p++) {
        if (pt->owner[t->ports[p].node] == pt->owner[peer_node(t, p)])
            continue;
        pt->cut.port[p] = 1;
        pt->cut_links += p < t->ports[p].peer;
        bn_time_t prop = bn_topo_prop_ps(sc, &t->ports[p]);
        pt->lookahead = prop < pt->lookahead ? prop : pt->lookahead;
    }
    if (pt->lookahead <= 0)
        return bn_fail(err, BN_EINPUT, "%s: key 'sim.partitions': a cut link has no "
                       "propagation delay, so the parts could never run apart (lengthen "
                       "the fabric's cables)", at);
    s->fab.cut = &pt->cut;
    return BN_OK;
}

void bn_partition_free(struct bn_sim *s)
{
    struct bn_partition *pt = s->part;
    if (!pt)
        return;
    free(pt->owner);
    free(pt->events);
    free(pt->cut.port);
    free(pt->cut.msg);
    bn_ranks_free(pt);
    free(pt);
    s->part = NULL;
    s->fab.cut = NULL;
}

bn_time_t bn_partition_window(struct bn_sim *s, bn_time_t next)
{
    struct bn_partition *pt = s->part;
    pt->windows++;
    /* a single part has no cut: its window is the whole run */
    pt->cut.window_end = pt->lookahead == BN_TIME_NEVER ? BN_TIME_NEVER : next + pt->lookahead;
    return pt->cut.window_end;
}

/* Delivery order: by receiving port, highest first, each port's in the
 * order held (they all came from its one peer, which sent them in order). */
static int later_port_first(const void *a, const void *b)
{
    const struct bn_cut_msg *x = a, *y = b;
    if (x->obj != y->obj)
        return x->obj > y->obj ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int bn_partition_deliver(struct bn_sim *s)
{
    struct bn_partition *pt = s->part;
    struct bn_cut *c = &pt->cut;
    pt->msgs += c->n;
    pt->msgs_max = c->n > pt->msgs_max ? c->n : pt->msgs_max;
    /* in another order than held: the results must not depend on it */
    if (c->n > 1)
        qsort(c->msg, c->n, sizeof *c->msg, later_port_first);
    int rc = bn_partition_deliver_msgs(s, c->msg, c->n);
    c->n = 0;
    return rc == 0 && !s->fab.oom ? 0 : -1;
}

int bn_partition_deliver_msgs(struct bn_sim *s, struct bn_cut_msg *msg, uint32_t n)
{
    struct bn_fabric *f = &s->fab;
    for (uint32_t i = 0; i < n; i++) {
        const struct bn_cut_msg *m = &msg[i];
        uint32_t arg = m->arg;
        if (m->kind != BN_EV_FC_SIGNAL) { /* a frame: into a slot of its own */
            arg = bn_pool_get(&f->pool);
            if (arg == BN_PKT_NONE)
                return -1;
            f->pool.pkts[arg] = m->pkt;
            f->pool.pkts[arg].next = BN_PKT_NONE;
            struct bn_int_rec *rec = f->telemetry ? bn_telemetry_at(f, arg) : NULL;
            if (f->telemetry && !rec)
                return -1;
            if (rec)
                *rec = m->rec;
        }
        bn_fabric_schedule(f, m->time, m->kind, m->obj, arg);
    }
    return f->oom ? -1 : 0;
}

void bn_partition_count(struct bn_sim *s, const struct bn_event *ev)
{
    struct bn_partition *pt = s->part;
    uint32_t node;
    if (pt->ranks) { /* every event here is this part's, or the driver's */
        bool own = ev->kind != BN_EV_APP && ev->kind != BN_EV_COMPLETE;
        pt->events[pt->ranks->rank] += own;
        pt->unattributed += !own;
        pt->replicated += ev->kind == BN_EV_APP && s->drv.ops->ranks &&
                          s->drv.ops->ranks->app_everywhere;
        return;
    }
    switch (ev->kind) {
    case BN_EV_PORT_FREE:
    case BN_EV_ARRIVE:
    case BN_EV_ARRIVE_TAIL:
    case BN_EV_ARRIVE_HOST:
    case BN_EV_FC_SIGNAL:
        node = s->fab.port_node[ev->obj];
        break;
    case BN_EV_RTO:
    case BN_EV_QP_PACE:
    case BN_EV_CC_TIMER: /* a sender's timers */
        node = s->nics.qp[ev->obj].src;
        break;
    case BN_EV_NIC_RX:
        node = s->fab.port_node[s->nics.nic[ev->obj].port];
        break;
    case BN_EV_APP: /* on ranks, every process runs them */
        pt->replicated++;
        pt->unattributed++;
        return;
    default:
        pt->unattributed++;
        return;
    }
    pt->events[pt->owner[node]]++;
}

void bn_partition_report(const struct bn_sim *s, struct bn_partition_stats *out)
{
    const struct bn_partition *pt = s->part;
    memset(out, 0, sizeof *out);
    if (!pt)
        return;
    out->parts = pt->parts;
    out->cut_links = pt->cut_links;
    out->lookahead_ns = pt->lookahead == BN_TIME_NEVER ? 0 : (double)pt->lookahead / 1000.0;
    out->windows = pt->windows;
    double us = bn_time_to_us(s->fab.now);
    out->windows_per_us = us > 0 ? (double)pt->windows / us : 0;
    out->cut_frames = pt->cut.frames;
    out->cut_signals = pt->cut.signals;
    out->cut_bytes = pt->cut.bytes;
    out->msgs_per_window = pt->windows ? (double)pt->msgs / (double)pt->windows : 0;
    out->msgs_window_max = pt->msgs_max;
    uint64_t sum = 0;
    for (uint32_t p = 0; p < pt->parts; p++) {
        sum += pt->events[p];
        out->events_part_max = pt->events[p] > out->events_part_max ? pt->events[p]
                                                                    : out->events_part_max;
    }
    out->events_part_mean = (double)sum / pt->parts;
    out->events_unattributed = pt->unattributed;
    uint32_t *hosts = calloc(pt->parts, sizeof *hosts);
    if (hosts) {
        for (uint32_t h = 0; h < s->topo.nhosts; h++)
            hosts[pt->owner[h]]++;
        out->hosts_min = UINT32_MAX;
        for (uint32_t p = 0; p < pt->parts; p++) {
            out->hosts_max = hosts[p] > out->hosts_max ? hosts[p] : out->hosts_max;
            out->hosts_min = hosts[p] < out->hosts_min ? hosts[p] : out->hosts_min;
        }
        free(hosts);
    }
}
