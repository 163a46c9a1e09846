/* Max-min fair sharing by progressive filling; see maxmin.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "flow/maxmin.h"

static int oom(struct bn_error *err, const char *what)
{
    return bn_fail(err, BN_ENOMEM, "flow level: out of memory for %s", what);
}

/* A use's weight for its whole flow: a rate class of k identical members
 * loads each link k times as much, its rate being each member's. */
static inline double wt(const struct bn_maxmin *m, const struct bn_mm_use *u)
{
    return (double)u->weight * m->mult[u->flow];
}

int bn_mm_init(struct bn_maxmin *m, uint32_t nlinks, uint32_t nflows, struct bn_error *err)
{
    memset(m, 0, sizeof *m);
    m->nlinks = nlinks;
    m->cap = calloc((size_t)nlinks + 1, sizeof *m->cap);
    m->on = calloc((size_t)nlinks + 1, sizeof *m->on);
    m->all = calloc((size_t)nlinks + 1, sizeof *m->all);
    m->ldirty = calloc((size_t)nlinks + 1, 1);
    m->link_mark = calloc((size_t)nlinks + 1, sizeof *m->link_mark);
    m->bare = calloc((size_t)nlinks + 1, sizeof *m->bare);
    m->rem = calloc((size_t)nlinks + 1, sizeof *m->rem);
    m->wsum = calloc((size_t)nlinks + 1, sizeof *m->wsum);
    m->nunf = calloc((size_t)nlinks + 1, sizeof *m->nunf);
    m->comp_links = calloc((size_t)nlinks + 1, sizeof *m->comp_links);
    m->dirty = calloc((size_t)nlinks + 1, sizeof *m->dirty);
    m->pscan = calloc((size_t)nlinks + 1, sizeof *m->pscan);
    m->pscanned = calloc((size_t)nlinks + 1, 1);
    m->load = calloc((size_t)nlinks + 1, sizeof *m->load);
    m->full = calloc((size_t)nlinks + 1, 1);
    m->lvl = calloc((size_t)nlinks + 1, sizeof *m->lvl);
    m->aw = calloc((size_t)nlinks + 1, sizeof *m->aw);
    m->pmax = calloc((size_t)nlinks + 1, sizeof *m->pmax);
    m->stamp = 1;
    m->theta = INFINITY;
    if (!m->all || !m->load || !m->full || !m->aw || !m->pmax || !m->cap || !m->on || !m->ldirty || !m->link_mark ||
        !m->lvl || !m->bare || !m->rem || !m->wsum || !m->nunf || !m->comp_links || !m->dirty || !m->pscan ||
        !m->pscanned) {
        bn_mm_free(m);
        return oom(err, "links");
    }
    return bn_mm_reserve(m, nflows, err);
}

void bn_mm_free(struct bn_maxmin *m)
{
    for (uint32_t l = 0; l < m->nlinks; l++) {
        if (m->on)
            free(m->on[l].use);
        if (m->all)
            free(m->all[l].use);
    }
    free(m->cap);
    free(m->on);
    free(m->all);
    free(m->use);
    free(m->use_off);
    free(m->use_len);
    free(m->use_room);
    free(m->rate);
    free(m->mult);
    free(m->fcap);
    free(m->load);
    free(m->full);
    free(m->lvl);
    free(m->late);
    free(m->aw);
    free(m->pmax);
    free(m->frozen);
    free(m->comp_prev);
    free(m->seed);
    free(m->seeded);
    free(m->active);
    free(m->dirty);
    free(m->pscan);
    free(m->pscanned);
    free(m->ldirty);
    free(m->link_mark);
    free(m->bare);
    free(m->flow_mark);
    free(m->rem);
    free(m->wsum);
    free(m->nunf);
    free(m->comp_links);
    free(m->comp_flows);
    free(m->heap);
    free(m->changed);
    memset(m, 0, sizeof *m);
}

/* Grow a per-flow array from `old` to `n` entries, the new ones zeroed. */
static bool grow_flows(void **arr, size_t size, uint32_t old, uint32_t n)
{
    void *p = realloc(*arr, (size_t)n * size);
    if (!p)
        return false;
    memset((char *)p + (size_t)old * size, 0, (size_t)(n - old) * size);
    *arr = p;
    return true;
}

int bn_mm_reserve(struct bn_maxmin *m, uint32_t nflows, struct bn_error *err)
{
    if (nflows <= m->nflows && m->use_off)
        return BN_OK;
    uint32_t old = m->nflows, n = old < 64 ? 64 : old;
    while (n < nflows)
        n = n > UINT32_MAX / 2 ? UINT32_MAX : n * 2;
    if (!grow_flows((void **)&m->use_off, sizeof *m->use_off, old, n) ||
        !grow_flows((void **)&m->use_len, sizeof *m->use_len, old, n) ||
        !grow_flows((void **)&m->use_room, sizeof *m->use_room, old, n) ||
        !grow_flows((void **)&m->rate, sizeof *m->rate, old, n) ||
        !grow_flows((void **)&m->mult, sizeof *m->mult, old, n) ||
        !grow_flows((void **)&m->fcap, sizeof *m->fcap, old, n) ||
        !grow_flows((void **)&m->seed, sizeof *m->seed, old, n) ||
        !grow_flows((void **)&m->seeded, sizeof *m->seeded, old, n) ||
        !grow_flows((void **)&m->active, sizeof *m->active, old, n) ||
        !grow_flows((void **)&m->flow_mark, sizeof *m->flow_mark, old, n) ||
        !grow_flows((void **)&m->comp_flows, sizeof *m->comp_flows, old, n) ||
        !grow_flows((void **)&m->comp_prev, sizeof *m->comp_prev, old, n) ||
        !grow_flows((void **)&m->frozen, sizeof *m->frozen, old, n) ||
        !grow_flows((void **)&m->changed, sizeof *m->changed, old, n))
        return oom(err, "flows");
    m->nflows = n;
    return BN_OK;
}

int bn_mm_set_path(struct bn_maxmin *m, uint32_t f, const uint32_t *links, const float *weights,
                   const uint8_t *passive, uint32_t n, struct bn_error *err)
{
    if (f >= m->nflows || m->use_len[f] || n == 0)
        return bn_fail(err, BN_EINTERNAL, "flow level: flow %u's path set twice or empty", f);
    uint32_t off = m->nuse;
    for (uint32_t i = 0; i < n; i++) {
        if (links[i] >= m->nlinks || !(weights[i] > 0))
            return bn_fail(err, BN_EINTERNAL, "flow level: flow %u uses link %u badly", f,
                           links[i]);
        struct bn_mm_list *A = &m->all[links[i]];
        if (!bn_grow((void **)&m->use, m->nuse, &m->use_cap, sizeof *m->use) ||
            !bn_grow((void **)&A->use, A->n, &A->cap, sizeof *A->use))
            return oom(err, "paths");
        A->use[A->n] = m->nuse;
        m->use[m->nuse++] = (struct bn_mm_use){.link = links[i], .flow = f, .weight = weights[i],
                                               .passive = passive && passive[i], .apos = A->n++};
    }
    m->nlive += n;
    m->use_off[f] = off;
    m->use_len[f] = m->use_room[f] = n;
    m->mult[f] = 1;
    double top = INFINITY;
    for (uint32_t i = 0; i < n; i++)
        if (!(passive && passive[i]) && m->cap[links[i]] / weights[i] < top)
            top = m->cap[links[i]] / weights[i];
    m->fcap[f] = top;
    return BN_OK;
}

static void mark_dirty(struct bn_maxmin *m, uint32_t l);

/* Room in flow g's block for one more use: else its uses move to the end
 * of the array into a block twice as large (its old place is left unused;
 * compact() reclaims it), so a flow's splits cost O(1) each on average. */
static bool room_for_one(struct bn_maxmin *m, uint32_t g)
{
    uint32_t off = m->use_off[g], len = m->use_len[g], room = 2 * len + 2;
    if (len < m->use_room[g])
        return true;
    while (m->nuse + room > m->use_cap)
        if (!bn_grow((void **)&m->use, m->use_cap, &m->use_cap, sizeof *m->use))
            return false;
    for (uint32_t k = 0; k < len; k++) {
        uint32_t to = m->nuse + k;
        m->use[to] = m->use[off + k];
        m->all[m->use[to].link].use[m->use[to].apos] = to;
        if (m->active[g])
            m->on[m->use[to].link].use[m->use[to].pos] = to;
    }
    for (uint32_t k = len; k < room; k++) /* spare slots name their flow: compact() skips them */
        m->use[m->nuse + k] = (struct bn_mm_use){.flow = g};
    m->use_off[g] = m->nuse;
    m->use_room[g] = room;
    m->nuse += room;
    return true;
}

/* Every flow's uses packed again once half the array is left behind: a
 * flow's current block is the newest copy, so one pass upwards moves each
 * block down to its place. */
static void compact(struct bn_maxmin *m)
{
    if (m->nuse < 2 * m->nlive + 1024)
        return;
    uint32_t to = 0;
    for (uint32_t i = 0; i < m->nuse;) {
        uint32_t f = m->use[i].flow, len = m->use_len[f];
        if (m->use_off[f] != i) { /* a copy left behind */
            i++;
            continue;
        }
        for (uint32_t k = 0; k < len; k++) {
            m->use[to + k] = m->use[i + k];
            m->all[m->use[to + k].link].use[m->use[to + k].apos] = to + k;
            if (m->active[f])
                m->on[m->use[to + k].link].use[m->use[to + k].pos] = to + k;
        }
        i += m->use_room[f];
        m->use_off[f] = to;
        m->use_room[f] = len;
        to += len;
    }
    m->nuse = to;
}

int bn_mm_split(struct bn_maxmin *m, uint32_t c, uint32_t d, struct bn_error *err)
{
    if (c >= m->nlinks || d >= m->nlinks || m->all[d].n || c == d)
        return bn_fail(err, BN_EINTERNAL, "flow level: link %u split into %u badly", c, d);
    m->cap[d] = m->cap[c];
    m->load[d] = m->load[c];
    m->full[d] = m->full[c];
    m->lvl[d] = m->lvl[c];
    m->aw[d] = m->aw[c];
    m->pmax[d] = m->pmax[c];
    struct bn_mm_list *A = &m->all[c], *D = &m->all[d], *O = &m->on[d];
    for (uint32_t i = 0; i < A->n; i++) {
        struct bn_mm_use u = m->use[A->use[i]];
        if (!room_for_one(m, u.flow) || !bn_grow((void **)&D->use, D->n, &D->cap, sizeof *D->use))
            return oom(err, "paths");
        uint32_t at = m->use_off[u.flow] + m->use_len[u.flow];
        u.link = d;
        u.apos = D->n;
        D->use[D->n++] = at;
        if (m->active[u.flow]) {
            if (!bn_grow((void **)&O->use, O->n, &O->cap, sizeof *O->use))
                return oom(err, "a link's flows");
            u.pos = O->n;
            O->use[O->n++] = at;
        }
        m->use[at] = u;
        m->use_len[u.flow]++;
        m->nlive++;
    }
    if (m->ldirty[c])
        mark_dirty(m, d);
    if (m->pscanned[c]) {
        m->pscanned[d] = 1;
        m->pscan[m->npscan++] = d;
    }
    compact(m);
    return BN_OK;
}

static void mark_dirty(struct bn_maxmin *m, uint32_t l)
{
    if (!m->ldirty[l]) {
        m->ldirty[l] = 1;
        m->dirty[m->ndirty++] = l; /* at most nlinks: each once */
    }
}

/* A use joining (+1) or leaving (-1) its link's sums for the floors. */
static void hold(struct bn_maxmin *m, const struct bn_mm_use *u, int sign)
{
    uint32_t l = u->link;
    if (u->passive)
        m->pmax[l] += sign * wt(m, u) * m->fcap[u->flow];
    else
        m->aw[l] += sign * wt(m, u);
    if (m->on[l].n == 0)
        m->aw[l] = m->pmax[l] = 0; /* no drift on an idle link */
}

int bn_mm_activate(struct bn_maxmin *m, uint32_t f, struct bn_error *err)
{
    if (m->active[f])
        return BN_OK;
    for (uint32_t i = 0; i < m->use_len[f]; i++) {
        uint32_t u = m->use_off[f] + i;
        struct bn_mm_list *L = &m->on[m->use[u].link];
        if (!bn_grow((void **)&L->use, L->n, &L->cap, sizeof *L->use))
            return oom(err, "a link's flows");
        m->use[u].pos = L->n;
        L->use[L->n++] = u;
        mark_dirty(m, m->use[u].link);
        hold(m, &m->use[u], 1);
    }
    for (uint32_t i = 0; i < m->use_len[f]; i++) { /* nothing moves below these links' floors */
        uint32_t l = m->use[m->use_off[f] + i].link;
        double floor = m->aw[l] > 0 ? (m->cap[l] - m->pmax[l]) / m->aw[l] : 0;
        if (floor < m->theta)
            m->theta = floor;
    }
    m->active[f] = 1;
    if (!m->seeded[f]) { /* its own rate, even where no link binds it */
        m->seeded[f] = 1;
        m->seed[m->nseed++] = f;
    }
    return BN_OK;
}

int bn_mm_deactivate(struct bn_maxmin *m, uint32_t f, struct bn_error *err)
{
    (void)err;
    if (!m->active[f])
        return BN_OK;
    for (uint32_t i = 0; i < m->use_len[f]; i++) {
        uint32_t u = m->use_off[f] + i;
        struct bn_mm_list *L = &m->on[m->use[u].link];
        uint32_t last = L->use[--L->n];
        L->use[m->use[u].pos] = last;
        m->use[last].pos = m->use[u].pos;
        double *load = &m->load[m->use[u].link];
        *load = L->n ? *load - wt(m, &m->use[u]) * m->rate[f] : 0; /* no drift on an idle link */
        mark_dirty(m, m->use[u].link);
        hold(m, &m->use[u], -1);
        uint32_t l = m->use[u].link;
        if (m->use[u].passive && m->full[l] && !m->pscanned[l]) { /* its level falls */
            m->pscanned[l] = 1;
            m->pscan[m->npscan++] = l;
        }
    }
    if (m->rate[f] < m->theta) /* flows slower than it never shared its bottleneck */
        m->theta = m->rate[f];
    m->active[f] = 0;
    m->rate[f] = 0;
    return BN_OK;
}

int bn_mm_set_mult(struct bn_maxmin *m, uint32_t f, uint32_t k, struct bn_error *err)
{
    if (f >= m->nflows || k == 0)
        return bn_fail(err, BN_EINTERNAL, "flow level: rate class %u given %u members", f, k);
    if (m->mult[f] == k)
        return BN_OK;
    if (!m->active[f]) {
        m->mult[f] = k;
        return BN_OK;
    }
    /* the class as it was leaves and the new one joins: the same marks,
     * floors and re-solve as any flow leaving and joining */
    int rc = bn_mm_deactivate(m, f, err);
    m->mult[f] = k;
    return rc == BN_OK ? bn_mm_activate(m, f, err) : rc;
}

/* A binary min-heap of (key, link), ties by link so the order never
 * depends on anything but the data. A link's entry may be below its level
 * (fill() puts it back) or left over from a link now without rising flows
 * (skipped). */
static bool heap_less(const struct bn_mm_heap *a, const struct bn_mm_heap *b)
{
    return a->key < b->key || (a->key == b->key && a->link < b->link);
}

static bool heap_push(struct bn_maxmin *m, double key, uint32_t link)
{
    if (!bn_grow((void **)&m->heap, m->nheap, &m->heap_cap, sizeof *m->heap))
        return false;
    uint32_t i = m->nheap++;
    struct bn_mm_heap e = {key, link};
    while (i > 0 && heap_less(&e, &m->heap[(i - 1) / 2])) {
        m->heap[i] = m->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    m->heap[i] = e;
    return true;
}

static struct bn_mm_heap heap_pop(struct bn_maxmin *m)
{
    struct bn_mm_heap top = m->heap[0], e = m->heap[--m->nheap];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= m->nheap)
            break;
        if (c + 1 < m->nheap && heap_less(&m->heap[c + 1], &m->heap[c]))
            c++;
        if (!heap_less(&m->heap[c], &e))
            break;
        m->heap[i] = m->heap[c];
        i = c;
    }
    if (m->nheap)
        m->heap[i] = e;
    return top;
}

static double link_key(const struct bn_maxmin *m, uint32_t l)
{
    double k = m->rem[l] / m->wsum[l];
    return k > 0 ? k : 0;
}

/* Add link l, flow f to the component (once each). */
static void take_link(struct bn_maxmin *m, uint32_t l, uint32_t *cl)
{
    if (m->link_mark[l] != m->stamp) {
        m->link_mark[l] = m->stamp;
        m->comp_links[(*cl)++] = l;
    }
}

static void take_flow(struct bn_maxmin *m, uint32_t f, uint32_t *cf)
{
    if (m->flow_mark[f] != m->stamp && m->active[f]) {
        m->flow_mark[f] = m->stamp;
        m->comp_prev[*cf] = m->rate[f];
        m->comp_flows[(*cf)++] = f;
    }
}

/* Close the component from links li.. and flows fi..: a link brings all
 * its active flows; a flow brings its links that were full (a full link
 * is where some flow is held, and what a change there moves). */
static void close_component(struct bn_maxmin *m, uint32_t li, uint32_t fi, uint32_t *cl,
                            uint32_t *cf)
{
    while (fi < *cf || li < *cl) {
        if (li < *cl) {
            uint32_t l = m->comp_links[li++];
            if (m->bare[l] == m->stamp) /* its flows are loads; a level it falls to calls them */
                continue;
            const struct bn_mm_list *L = &m->on[l];
            double lo = m->below; /* a full link moves only the flows it holds */
            if (m->full[l] && m->lvl[l] * (1 - 1e-9) > lo)
                lo = m->lvl[l] * (1 - 1e-9);
            for (uint32_t j = 0; j < L->n; j++) {
                const struct bn_mm_use *u = &m->use[L->use[j]];
                if (!u->passive && m->rate[u->flow] >= lo)
                    take_flow(m, u->flow, cf);
            }
            continue;
        }
        uint32_t f = m->comp_flows[fi++];
        for (uint32_t k = 0; k < m->use_len[f]; k++) {
            const struct bn_mm_use *u = &m->use[m->use_off[f] + k];
            if (!u->passive && m->full[u->link])
                take_link(m, u->link, cl);
        }
    }
}

/* What a change can move: the flows that joined with all their links, and
 * the marked links that were full; then everything connected to them
 * through full links. A marked link that was not full held no one: a flow
 * leaving it frees nothing anybody was waiting for. */
static void component(struct bn_maxmin *m, uint32_t *nl, uint32_t *nf)
{
    uint32_t cl = 0, cf = 0;
    for (uint32_t i = 0; i < m->nseed; i++) {
        uint32_t f = m->seed[i];
        m->seeded[f] = 0;
        if (!m->active[f])
            continue;
        take_flow(m, f, &cf);
    }
    m->nseed = 0;
    for (uint32_t i = 0; i < m->ndirty; i++) {
        uint32_t l = m->dirty[i];
        m->ldirty[l] = 0;
        if (m->full[l])
            take_link(m, l, &cl);
    }
    m->ndirty = 0;
    close_component(m, 0, 0, &cl, &cf);
    *nl = cl;
    *nf = cf;
}

/* Flow f stops rising at `level`: every link it loads sees its new rate;
 * the component's links lose its weight. */
static void freeze(struct bn_maxmin *m, uint32_t f, double level)
{
    m->frozen[f] = 1;
    m->rate[f] = level;
    const double mult = m->mult[f]; /* once: the stores below may alias it for the compiler */
    for (uint32_t k = 0; k < m->use_len[f]; k++) {
        const struct bn_mm_use *v = &m->use[m->use_off[f] + k];
        uint32_t l = v->link;
        double w = (double)v->weight * mult;
        m->load[l] += w * level;
        if (m->link_mark[l] != m->stamp)
            continue;
        m->rem[l] -= w * level;
        m->wsum[l] -= w;
        m->nunf[l] -= !v->passive;
    }
}

/* Link l is full if its flows load it to capacity; it then holds the
 * fastest of them (it is their bottleneck). */
static void mark_if_full(struct bn_maxmin *m, uint32_t l)
{
    const struct bn_mm_list *L = &m->on[l];
    double load = 0, top = 0;
    for (uint32_t j = 0; j < L->n; j++) {
        const struct bn_mm_use *u = &m->use[L->use[j]];
        load += wt(m, u) * m->rate[u->flow];
        if (!u->passive && m->rate[u->flow] > top)
            top = m->rate[u->flow];
    }
    if (top > 0 && load >= m->cap[l] * (1 - 1e-9)) {
        m->full[l] = 1;
        m->lvl[l] = top;
    }
}

/* Progressive filling over the component (nl links, nf flows). A link's
 * level, rem / wsum, only rises as flows on it stop (they stop at or below
 * it), so a link's heap entry is never above its level: an entry found
 * below goes back in at the level it now has, instead of one entry per
 * change. */
static int fill(struct bn_maxmin *m, uint32_t nl, uint32_t nf, struct bn_error *err)
{
    for (uint32_t i = 0; i < nf; i++) { /* their loads come back as they stop */
        uint32_t f = m->comp_flows[i];
        m->frozen[f] = 0;
        const double mult = m->mult[f], r = m->rate[f];
        for (uint32_t k = 0; k < m->use_len[f]; k++) {
            const struct bn_mm_use *u = &m->use[m->use_off[f] + k];
            m->load[u->link] -= (double)u->weight * mult * r;
        }
    }
    m->nheap = 0;
    for (uint32_t i = 0; i < nl; i++) {
        uint32_t l = m->comp_links[i];
        const struct bn_mm_list *L = &m->on[l];
        m->rem[l] = m->cap[l];
        m->wsum[l] = 0;
        m->nunf[l] = 0;
        m->full[l] = 0;
        for (uint32_t j = 0; j < L->n; j++) {
            const struct bn_mm_use *u = &m->use[L->use[j]];
            if (m->flow_mark[u->flow] == m->stamp) { /* rising with the others */
                m->wsum[l] += wt(m, u);
                m->nunf[l] += !u->passive;
            } else { /* a passive user solved elsewhere: a load as it stands */
                m->rem[l] -= wt(m, u) * m->rate[u->flow];
            }
        }
        if (m->nunf[l] && !heap_push(m, link_key(m, l), l))
            return oom(err, "the filling heap");
    }
    /* each flow stops at its ceiling at the latest */
    for (uint32_t i = 0; i < nf; i++)
        if (!heap_push(m, m->fcap[m->comp_flows[i]], m->nlinks + m->comp_flows[i]))
            return oom(err, "the filling heap");
    uint32_t frozen = 0;
    while (m->nheap && frozen < nf) {
        struct bn_mm_heap top = heap_pop(m);
        uint32_t l = top.link;
        if (l >= m->nlinks) { /* a flow's ceiling */
            uint32_t f = l - m->nlinks;
            if (!m->frozen[f]) {
                freeze(m, f, top.key);
                frozen++;
            }
            continue;
        }
        if (m->nunf[l] == 0)
            continue;
        double level = link_key(m, l);
        if (level > top.key) { /* risen since it went in */
            if (!heap_push(m, level, l))
                return oom(err, "the filling heap");
            continue;
        }
        m->full[l] = 1;
        m->lvl[l] = level;
        const struct bn_mm_list *L = &m->on[l];
        for (uint32_t j = 0; j < L->n; j++) {
            const struct bn_mm_use *u = &m->use[L->use[j]];
            if (u->passive)
                continue;
            if (m->flow_mark[u->flow] != m->stamp) { /* held elsewhere: still under this level? */
                if (m->rate[u->flow] > level * (1 + 1e-9)) {
                    if (!bn_grow((void **)&m->late, m->nlate, &m->late_cap, sizeof *m->late))
                        return oom(err, "the component");
                    m->late[m->nlate++] = u->flow;
                }
                continue;
            }
            if (m->frozen[u->flow])
                continue;
            freeze(m, u->flow, level);
            frozen++;
        }
    }
    if (frozen != nf)
        return bn_fail(err, BN_EINTERNAL, "flow level: %u of %u flows got no rate", nf - frozen,
                       nf);
    for (uint32_t i = 0; i < nl; i++) { /* full with flows held elsewhere, or under the floor */
        uint32_t l = m->comp_links[i];
        if (!m->full[l] && m->load[l] >= m->cap[l] * (1 - 1e-9))
            mark_if_full(m, l);
    }
    return BN_OK;
}

/* A link outside the component that a flow of it now loads past its
 * capacity joins it (it fills: its flows are solved with the rest). */
static uint32_t overloaded(struct bn_maxmin *m, uint32_t nf, uint32_t *nl)
{
    uint32_t before = *nl;
    for (uint32_t i = 0; i < nf; i++) {
        uint32_t f = m->comp_flows[i];
        if (!(m->rate[f] > m->comp_prev[i]))
            continue;
        for (uint32_t k = 0; k < m->use_len[f]; k++) {
            const struct bn_mm_use *u = &m->use[m->use_off[f] + k];
            uint32_t l = u->link;
            if (u->passive || m->link_mark[l] == m->stamp || !(m->load[l] > m->cap[l] * (1 + 1e-9)))
                continue;
            double load = 0; /* the running sum may drift: count it again */
            const struct bn_mm_list *L = &m->on[l];
            for (uint32_t j = 0; j < L->n; j++)
                load += wt(m, &m->use[L->use[j]]) * m->rate[m->use[L->use[j]].flow];
            m->load[l] = load;
            if (load > m->cap[l] * (1 + 1e-9)) {
                take_link(m, l, nl);
                m->bare[l] = m->stamp;
            }
        }
    }
    return *nl - before;
}

/* A full link that passive loads left has a lower level now: no rate
 * under its flows' can move (flows that joined since are solved anyway).
 * Once per link and solve, however many flows left it. */
static void passive_floors(struct bn_maxmin *m)
{
    for (uint32_t i = 0; i < m->npscan; i++) {
        uint32_t l = m->pscan[i];
        const struct bn_mm_list *L = &m->on[l];
        m->pscanned[l] = 0;
        for (uint32_t j = 0; m->full[l] && j < L->n; j++) {
            const struct bn_mm_use *u = &m->use[L->use[j]];
            if (!u->passive && !m->seeded[u->flow] && m->rate[u->flow] < m->theta)
                m->theta = m->rate[u->flow];
        }
    }
    m->npscan = 0;
}

int bn_mm_solve(struct bn_maxmin *m, struct bn_error *err)
{
    m->nchanged = 0;
    if (m->ndirty == 0 && m->nseed == 0)
        return BN_OK;
    if (++m->stamp == 0) { /* wrapped: no mark may look current */
        memset(m->link_mark, 0, (size_t)m->nlinks * sizeof *m->link_mark);
        memset(m->bare, 0, (size_t)m->nlinks * sizeof *m->bare);
        memset(m->flow_mark, 0, (size_t)m->nflows * sizeof *m->flow_mark);
        m->stamp = 1;
    }
    passive_floors(m);
    m->below = m->theta * (1 - 1e-9);
    m->theta = INFINITY;
    uint32_t nl, nf;
    component(m, &nl, &nf);
    for (;;) {
        int rc = fill(m, nl, nf, err);
        if (rc != BN_OK)
            return rc;
        uint32_t l0 = nl, f0 = nf;
        for (uint32_t i = 0; i < m->nlate; i++) /* a level fell under a flow held elsewhere */
            take_flow(m, m->late[i], &nf);
        m->nlate = 0;
        if (overloaded(m, f0, &nl) == 0 && nf == f0)
            break;
        close_component(m, l0, f0, &nl, &nf);
    }
    for (uint32_t i = 0; i < nf; i++) {
        uint32_t f = m->comp_flows[i];
        if (fabs(m->rate[f] - m->comp_prev[i]) <= 1e-12 * m->comp_prev[i])
            m->rate[f] = m->comp_prev[i]; /* rounding, not a change: no new finish time */
        else
            m->changed[m->nchanged++] = f;
    }
    return BN_OK;
}
