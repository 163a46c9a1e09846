/*
 * Building a collective schedule (see sched.h): pieces, slots, transfers and
 * the dependency graph, in flat arrays that grow by doubling. Slots are found
 * by an open-addressing hash on (endpoint, piece) so an algorithm can name a
 * slot by where and what it is without keeping its own maps; the successor
 * lists are compressed (CSR) once the graph is complete, because the
 * executors walk them on every delivery.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coll/hchain.h"
#include "core/grow.h"

/* Make room for one more element in *arr (count used, *cap allocated). */
static int grow(void **arr, uint32_t *cap, uint32_t count, size_t size, const char *what,
                struct bn_error *err)
{
    if (count < *cap)
        return BN_OK;
    if (*cap == UINT32_MAX)
        return bn_fail(err, BN_EINPUT, "coll: schedule has too many %s (more than %" PRIu32 ")",
                       what, UINT32_MAX);
    if (!bn_grow(arr, count, cap, size))
        return bn_fail(err, BN_ENOMEM, "coll: out of memory for %" PRIu32 " %s", count + 1, what);
    return BN_OK;
}

static int check_params(const struct bn_coll_params *p, struct bn_error *err)
{
    if (p->kind >= BN_COLL_NKINDS)
        return bn_fail(err, BN_EINPUT, "coll: unknown collective kind %d", (int)p->kind);
    if (p->nranks < 1)
        return bn_fail(err, BN_EINPUT, "coll: nranks must be >= 1 (got 0)");
    if (p->type_bytes < 1)
        return bn_fail(err, BN_EINPUT, "coll: type size must be >= 1 byte");
    if (p->bytes % p->type_bytes)
        return bn_fail(err, BN_EINPUT,
                       "coll: size %" PRIu64 " bytes is not a multiple of the type size %" PRIu32,
                       p->bytes, p->type_bytes);
    if (p->channels < 1)
        return bn_fail(err, BN_EINPUT, "coll: channels must be >= 1 (got 0)");
    if (p->slice_bytes < p->type_bytes)
        return bn_fail(err, BN_EINPUT,
                       "coll: slice of %" PRIu64 " bytes is smaller than one element (%" PRIu32
                       " bytes)", p->slice_bytes, p->type_bytes);
    if (p->root >= p->nranks)
        return bn_fail(err, BN_EINPUT, "coll: root %" PRIu32 " is not a rank (nranks %" PRIu32 ")",
                       p->root, p->nranks);
    /* The collectives cut into n blocks need a whole number of elements per block. */
    bool blocked = p->kind == BN_COLL_REDUCESCATTER || p->kind == BN_COLL_ALLGATHER ||
                   p->kind == BN_COLL_ALLTOALL;
    uint64_t unit = (uint64_t)p->nranks * p->type_bytes;
    if (blocked && p->bytes % unit)
        return bn_fail(err, BN_EINPUT,
                       "coll: %s size %" PRIu64 " bytes is not a multiple of nranks x type size"
                       " (%" PRIu64 ")", bn_coll_kind_name(p->kind), p->bytes, unit);
    if (p->nagg > 0 && (!p->agg_parent || !p->rank_agg))
        return bn_fail(err, BN_EINPUT, "coll: %" PRIu32 " aggregation units but no unit tree",
                       p->nagg);
    if (p->nagg > UINT32_MAX - p->nranks - bn_coll_nvls_units(p))
        return bn_fail(err, BN_EINPUT, "coll: too many endpoints");
    return BN_OK;
}

/* Contributors a set keeps past BN_SCHED_EXACT_RANKS ranks: the first and
 * the last quarter of that many, and one from each of the rest's equal
 * stretches of the middle, at an offset that moves from stretch to stretch
 * so that every place in a server and in a tree's level is represented
 * (the root's stretch gives the root). A
 * transfer that drops, doubles or misroutes a sampled rank's contribution
 * is still counted wrong; one that touches no sampled rank's is not (a
 * bitset of every rank would take n/8 bytes per slot: 16 KiB at 131,072). */
static int sample_ranks(struct bn_sched *s, struct bn_error *err)
{
    uint32_t n = s->p.nranks, k = BN_SCHED_EXACT_RANKS, edge = k / 4, mid = k - 2 * edge;
    s->rank_bit = malloc((size_t)n * sizeof *s->rank_bit);
    if (!s->rank_bit)
        return bn_fail(err, BN_ENOMEM, "coll: out of memory for %" PRIu32 " ranks", n);
    for (uint32_t r = 0; r < n; r++)
        s->rank_bit[r] = UINT32_MAX;
    uint32_t bit = 0;
    for (uint32_t r = 0; r < edge; r++)
        s->rank_bit[r] = bit++;
    uint64_t span = n - 2 * edge;
    for (uint32_t i = 0; i < mid; i++) {
        uint64_t lo = edge + span * i / mid, hi = edge + span * (i + 1) / mid;
        uint64_t r = lo + (uint64_t)i * 7919 % (hi - lo);
        if (s->p.root >= lo && s->p.root < hi)
            r = s->p.root; /* a Broadcast's source, a Reduce's sink: always followed */
        s->rank_bit[r] = bit++;
    }
    for (uint32_t r = n - edge; r < n; r++)
        s->rank_bit[r] = bit++;
    s->words = k / 64;
    return BN_OK;
}

int bn_sched_init(struct bn_sched *s, const struct bn_coll_params *p, struct bn_error *err)
{
    memset(s, 0, sizeof *s);
    int rc = check_params(p, err);
    if (rc != BN_OK)
        return rc;
    s->p = *p;
    if (p->nagg == 0) {
        s->p.agg_parent = NULL;
        s->p.rank_agg = NULL;
    }
    s->nendpoints = p->nranks + p->nagg + bn_coll_nvls_units(p);
    s->lanes = 1;
    s->words = (p->nranks + 63) / 64;
    s->elems = bn_coll_elems(p);
    return p->nranks > BN_SCHED_EXACT_RANKS ? sample_ranks(s, err) : BN_OK;
}

void bn_sched_free(struct bn_sched *s)
{
    free(s->pieces);
    free(s->slots);
    free(s->slot_hash);
    free(s->xfers);
    free(s->edges);
    free(s->succ_off);
    free(s->succ);
    free(s->chains);
    free(s->hchains);
    free(s->piece_chain);
    free(s->crit);
    free(s->rank_bit);
    memset(s, 0, sizeof *s);
}

int bn_sched_piece(struct bn_sched *s, uint64_t lo, uint64_t hi, uint32_t *id,
                   struct bn_error *err)
{
    if (lo >= hi || hi > s->elems)
        return bn_fail(err, BN_EINPUT,
                       "coll: piece [%" PRIu64 ", %" PRIu64 ") is empty or outside the %" PRIu64
                       " elements", lo, hi, s->elems);
    int rc = grow((void **)&s->pieces, &s->pieces_cap, s->npieces, sizeof *s->pieces, "pieces",
                  err);
    if (rc != BN_OK)
        return rc;
    s->pieces[s->npieces] = (struct bn_piece){.lo = lo, .hi = hi};
    if (id)
        *id = s->npieces;
    s->npieces++;
    return BN_OK;
}

static uint32_t hash_index(const struct bn_sched *s, uint32_t endpoint, uint32_t piece)
{
    uint64_t h = ((uint64_t)endpoint << 32 | piece) * UINT64_C(0x9E3779B97F4A7C15);
    h ^= h >> 29;
    return (uint32_t)h & (s->hash_cap - 1);
}

uint32_t bn_sched_find_slot(const struct bn_sched *s, uint32_t endpoint, uint32_t piece)
{
    if (s->hash_cap == 0)
        return UINT32_MAX;
    for (uint32_t i = hash_index(s, endpoint, piece);; i = (i + 1) & (s->hash_cap - 1)) {
        uint64_t e = s->slot_hash[i];
        if (e == 0)
            return UINT32_MAX;
        const struct bn_slot *sl = &s->slots[e - 1];
        if (sl->endpoint == endpoint && sl->piece == piece)
            return (uint32_t)(e - 1);
    }
}

static void hash_put(struct bn_sched *s, uint32_t slot)
{
    uint32_t i = hash_index(s, s->slots[slot].endpoint, s->slots[slot].piece);
    while (s->slot_hash[i])
        i = (i + 1) & (s->hash_cap - 1);
    s->slot_hash[i] = (uint64_t)slot + 1;
}

/* Keep the table at most half full so probes stay short. */
static int hash_reserve(struct bn_sched *s, struct bn_error *err)
{
    if (((uint64_t)s->nslots + 1) * 2 <= s->hash_cap)
        return BN_OK;
    if (s->hash_cap >= (UINT32_C(1) << 31))
        return bn_fail(err, BN_EINPUT, "coll: schedule has too many slots");
    uint32_t ncap = s->hash_cap ? s->hash_cap * 2 : 64;
    uint64_t *t = calloc(ncap, sizeof *t);
    if (!t)
        return bn_fail(err, BN_ENOMEM, "coll: out of memory for a slot table of %" PRIu32, ncap);
    free(s->slot_hash);
    s->slot_hash = t;
    s->hash_cap = ncap;
    for (uint32_t i = 0; i < s->nslots; i++)
        hash_put(s, i);
    return BN_OK;
}

static int slot_of(struct bn_sched *s, uint32_t endpoint, uint32_t piece, uint32_t *out,
                   struct bn_error *err)
{
    uint32_t id = bn_sched_find_slot(s, endpoint, piece);
    if (id != UINT32_MAX) {
        *out = id;
        return BN_OK;
    }
    int rc = hash_reserve(s, err);
    if (rc == BN_OK)
        rc = grow((void **)&s->slots, &s->slots_cap, s->nslots, sizeof *s->slots, "slots", err);
    if (rc != BN_OK)
        return rc;
    id = s->nslots++;
    s->slots[id] = (struct bn_slot){.endpoint = endpoint, .piece = piece};
    hash_put(s, id);
    *out = id;
    return BN_OK;
}

int bn_sched_xfer(struct bn_sched *s, uint32_t src, uint32_t dst, uint32_t piece,
                  enum bn_xfer_op op, uint32_t channel, uint32_t *id, struct bn_error *err)
{
    if (s->succ_off)
        return bn_fail(err, BN_EINPUT, "coll: transfer added after the schedule was finished");
    if (src >= s->nendpoints || dst >= s->nendpoints || src == dst)
        return bn_fail(err, BN_EINPUT,
                       "coll: transfer %" PRIu32 " -> %" PRIu32 " is not between two distinct"
                       " endpoints (%" PRIu32 " exist)", src, dst, s->nendpoints);
    if (piece >= s->npieces)
        return bn_fail(err, BN_EINPUT, "coll: transfer of unknown piece %" PRIu32, piece);
    if (channel >= s->p.channels * s->lanes)
        return bn_fail(err, BN_EINPUT, "coll: transfer on connection %" PRIu32 " of %" PRIu32,
                       channel, s->p.channels * s->lanes);
    if (op != BN_XFER_COPY && op != BN_XFER_REDUCE)
        return bn_fail(err, BN_EINPUT, "coll: unknown transfer op %d", (int)op);
    struct bn_xfer x = {.channel = channel, .op = (uint8_t)op};
    int rc = slot_of(s, src, piece, &x.src_slot, err);
    if (rc == BN_OK)
        rc = slot_of(s, dst, piece, &x.dst_slot, err);
    if (rc == BN_OK)
        rc = grow((void **)&s->xfers, &s->xfers_cap, s->nexplicit, sizeof *s->xfers, "transfers",
                  err);
    if (rc != BN_OK)
        return rc;
    const struct bn_piece *pc = &s->pieces[piece];
    x.bytes = (pc->hi - pc->lo) * s->p.type_bytes;
    s->xfers[s->nexplicit] = x;
    if (id)
        *id = s->nexplicit;
    s->nexplicit++;
    return BN_OK;
}

int bn_sched_bulk(struct bn_sched *s, uint32_t src, uint32_t dst, uint32_t channel,
                  uint64_t bytes, uint32_t *id, struct bn_error *err)
{
    uint32_t x = UINT32_MAX;
    if (id)
        *id = x;
    if (bytes == 0)
        return BN_OK;
    int rc = BN_OK;
    if (!s->bulk) { /* every aggregate transfer moves piece 0, the whole array */
        if (s->npieces || s->nchains || s->nhchains)
            return bn_fail(err, BN_EINPUT, "coll: an aggregate transfer in a stepwise schedule");
        s->bulk = true;
        rc = bn_sched_piece(s, 0, s->elems, NULL, err);
    }
    if (rc == BN_OK)
        rc = bn_sched_xfer(s, src, dst, 0, BN_XFER_COPY, channel, &x, err);
    if (rc == BN_OK) {
        s->xfers[x].bytes = bytes;
        if (id)
            *id = x;
    }
    return rc;
}

int bn_sched_crit(struct bn_sched *s, uint32_t x, uint32_t mult, struct bn_error *err)
{
    if (x == UINT32_MAX || mult == 0)
        return BN_OK;
    if (x >= s->nexplicit)
        return bn_fail(err, BN_EINPUT, "coll: the longest chain names transfer %" PRIu32, x);
    int rc = grow((void **)&s->crit, &s->crit_cap, s->ncrit, sizeof *s->crit, "chain hops", err);
    if (rc == BN_OK)
        s->crit[s->ncrit++] = (struct bn_crit_hop){.xfer = x, .times = mult};
    return rc;
}

int bn_sched_chain(struct bn_sched *s, uint32_t piece, uint32_t start, uint32_t nred,
                   uint32_t ncopy, uint32_t channel, uint32_t rot, struct bn_error *err)
{
    if (s->succ_off)
        return bn_fail(err, BN_EINPUT, "coll: chain added after the schedule was finished");
    uint32_t g = s->p.gpus_per_server;
    if (start >= s->p.nranks || piece >= s->npieces || channel >= s->p.channels ||
        nred + (uint64_t)ncopy == 0 || s->p.nranks < 2 ||
        (rot && (g < 2 || rot >= g || s->p.nranks % g)))
        return bn_fail(err, BN_EINPUT, "coll: chain of piece %" PRIu32 " from rank %" PRIu32
                       " (%" PRIu32 " + %" PRIu32 " hops, channel %" PRIu32 ") is not one",
                       piece, start, nred, ncopy, channel);
    int rc = grow((void **)&s->chains, &s->chains_cap, s->nchains, sizeof *s->chains, "chains",
                  err);
    if (rc != BN_OK)
        return rc;
    s->chains[s->nchains++] = (struct bn_chain){.piece = piece, .start = start, .rot = rot,
                                                .nred = nred,
                                                .ncopy = ncopy, .channel = channel};
    return BN_OK;
}

uint32_t bn_sched_chain_of(const struct bn_sched *s, uint32_t x)
{
    uint32_t lo = 0, hi = s->nchains; /* the last chain whose first hop is <= x */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->chains[mid].first <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void bn_sched_view(const struct bn_sched *s, uint32_t x, struct bn_xfer_view *v)
{
    if (x < s->nexplicit) {
        const struct bn_xfer *t = &s->xfers[x];
        *v = (struct bn_xfer_view){.src = s->slots[t->src_slot].endpoint,
                                   .dst = s->slots[t->dst_slot].endpoint,
                                   .piece = s->slots[t->src_slot].piece, .channel = t->channel,
                                   .bytes = t->bytes, .op = t->op};
        return;
    }
    if (x >= s->hchain_first) {
        bn_sched_hchain_view(s, x, v);
        return;
    }
    const struct bn_chain *c = &s->chains[bn_sched_chain_of(s, x)];
    uint32_t h = x - c->first, n = s->p.nranks, at = (uint32_t)((c->start + (uint64_t)h) % n);
    uint32_t g = s->p.gpus_per_server;
    const struct bn_piece *pc = &s->pieces[c->piece];
    *v = (struct bn_xfer_view){.src = bn_ring_rank(g, c->rot, at),
                               .dst = bn_ring_rank(g, c->rot, at + 1 == n ? 0 : at + 1),
                               .piece = c->piece,
                               .channel = c->channel,
                               .bytes = (pc->hi - pc->lo) * s->p.type_bytes,
                               .op = h < c->nred ? BN_XFER_REDUCE : BN_XFER_COPY};
}

int bn_sched_dep(struct bn_sched *s, uint32_t before, uint32_t after, struct bn_error *err)
{
    if (s->succ_off)
        return bn_fail(err, BN_EINPUT, "coll: dependency added after the schedule was finished");
    if (before >= s->nexplicit || after >= s->nexplicit || before == after)
        return bn_fail(err, BN_EINPUT,
                       "coll: dependency %" PRIu32 " -> %" PRIu32 " is not between two distinct"
                       " transfers (%" PRIu32 " exist)", before, after, s->nexplicit);
    int rc = grow((void **)&s->edges, &s->edges_cap, s->nedges, sizeof *s->edges, "dependencies",
                  err);
    if (rc != BN_OK)
        return rc;
    s->edges[s->nedges][0] = before;
    s->edges[s->nedges][1] = after;
    s->nedges++;
    return BN_OK;
}

/* Number the chains' hops after the explicit transfers, then the two-level
 * chains'; note each piece's chain, refusing a piece carried twice or also
 * moved explicitly. */
static int finish_chains(struct bn_sched *s, struct bn_error *err)
{
    s->piece_chain = malloc(((size_t)s->npieces + 1) * sizeof *s->piece_chain);
    if (!s->piece_chain)
        return bn_fail(err, BN_ENOMEM, "coll: out of memory for %" PRIu32 " pieces", s->npieces);
    memset(s->piece_chain, 0xff, ((size_t)s->npieces + 1) * sizeof *s->piece_chain);
    uint64_t next = s->nexplicit;
    for (uint32_t c = 0; c < s->nchains; c++) {
        struct bn_chain *ch = &s->chains[c];
        if (s->piece_chain[ch->piece] != UINT32_MAX)
            return bn_fail(err, BN_EINPUT, "coll: piece %" PRIu32 " is carried by two chains",
                           ch->piece);
        s->piece_chain[ch->piece] = c;
        ch->first = (uint32_t)next;
        next += (uint64_t)ch->nred + ch->ncopy;
        if (next > UINT32_MAX - 1)
            return bn_fail(err, BN_EINPUT, "coll: schedule has more than %" PRIu32 " transfers;"
                           " raise the slice size or use fewer channels", UINT32_MAX - 1);
    }
    int rc = bn_hchain_finish(s, &next, err);
    if (rc != BN_OK)
        return rc;
    for (uint32_t i = 0; i < s->nexplicit; i++)
        if (s->piece_chain[s->slots[s->xfers[i].src_slot].piece] != UINT32_MAX)
            return bn_fail(err, BN_EINPUT, "coll: transfer %" PRIu32 " moves a chain's piece", i);
    s->nxfers = (uint32_t)next;
    return BN_OK;
}

int bn_sched_finish(struct bn_sched *s, struct bn_error *err)
{
    if (s->succ_off)
        return BN_OK;
    int rc = finish_chains(s, err);
    if (rc != BN_OK)
        return rc;
    uint32_t nx = s->nexplicit;
    uint32_t *off = calloc((size_t)nx + 1, sizeof *off);
    uint32_t *succ = malloc(((size_t)s->nedges + 1) * sizeof *succ);
    if (!off || !succ) {
        free(off);
        free(succ);
        return bn_fail(err, BN_ENOMEM, "coll: out of memory for %" PRIu32 " dependencies",
                       s->nedges);
    }
    for (uint32_t i = 0; i < nx; i++)
        s->xfers[i].ndeps = 0;
    /* Counting sort by `before`, stable, so successors keep the order they were declared in. */
    for (uint32_t e = 0; e < s->nedges; e++) {
        off[s->edges[e][0] + 1]++;
        s->xfers[s->edges[e][1]].ndeps++;
    }
    for (uint32_t i = 0; i < nx; i++)
        off[i + 1] += off[i];
    for (uint32_t e = 0; e < s->nedges; e++)
        succ[off[s->edges[e][0]]++] = s->edges[e][1];
    /* The fill advanced each start to the next one's; shift back. */
    for (uint32_t i = nx; i > 0; i--)
        off[i] = off[i - 1];
    off[0] = 0;
    free(s->edges);
    s->edges = NULL;
    s->edges_cap = 0;
    s->succ_off = off;
    s->succ = succ;
    return BN_OK;
}
