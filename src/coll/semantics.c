/*
 * What each collective means, element by element, independent of how an
 * algorithm lowers it: the layout of its logical array, which contributions
 * every rank holds before it starts and must hold after it ends, its names
 * and nccl-tests' bus-bandwidth factor (NVIDIA/nccl-tests doc/PERFORMANCE.md;
 * the GetBw functions in its src .cu files).
 *
 * Layouts (E = bytes / type_bytes):
 *   AllReduce, Reduce, Broadcast  one array of E elements.
 *   ReduceScatter, AllGather      E elements in n blocks of E/n; block b is
 *                                 rank b's output (RS) or input (AG).
 *   AllToAll                      E per rank, so n*E in all: n*n blocks of
 *                                 E/n, block s*n+d goes from rank s to rank d.
 *   SendRecv                      n blocks of E: block r goes from r to r+1.
 * Every answer is constant within a block, so it is computed per block as a
 * small value (none / empty / everyone / one rank) and expanded into a bitset
 * only once the whole range is known to agree.
 */
#include <string.h>

#include "coll/sched.h"

static struct bn_coll_answer one(uint32_t r)
{
    return (struct bn_coll_answer){BN_ANS_ONE, r};
}
static struct bn_coll_answer just(enum bn_coll_answer_kind k)
{
    return (struct bn_coll_answer){k, 0};
}

uint64_t bn_coll_elems(const struct bn_coll_params *p)
{
    uint64_t e = p->type_bytes ? p->bytes / p->type_bytes : 0;
    if (p->kind == BN_COLL_ALLTOALL || p->kind == BN_COLL_SENDRECV)
        return e * p->nranks;
    return e;
}

uint64_t bn_coll_block_elems(const struct bn_coll_params *p)
{
    uint64_t e = p->type_bytes ? p->bytes / p->type_bytes : 0;
    switch (p->kind) {
    case BN_COLL_REDUCESCATTER:
    case BN_COLL_ALLGATHER:
    case BN_COLL_ALLTOALL:
        return p->nranks ? e / p->nranks : 0;
    default:
        return e; /* SendRecv: one rank's buffer; others: the whole array */
    }
}

/* Contributions endpoint `ep` holds in block b before the collective. */
static struct bn_coll_answer initial_block(const struct bn_coll_params *p, uint32_t ep,
                                           uint64_t b)
{
    if (ep >= p->nranks)
        return just(BN_ANS_EMPTY); /* aggregation units start empty */
    switch (p->kind) {
    case BN_COLL_BROADCAST:
        return ep == p->root ? one(ep) : just(BN_ANS_EMPTY);
    case BN_COLL_ALLGATHER:
    case BN_COLL_SENDRECV:
        return b == ep ? one(ep) : just(BN_ANS_EMPTY);
    case BN_COLL_ALLTOALL:
        return b / p->nranks == ep ? one(ep) : just(BN_ANS_EMPTY);
    default:
        return one(ep); /* AllReduce, Reduce, ReduceScatter: everyone's whole input */
    }
}

/* What rank r must hold in block b at the end. */
static struct bn_coll_answer wanted_block(const struct bn_coll_params *p, uint32_t r, uint64_t b)
{
    uint32_t n = p->nranks;
    switch (p->kind) {
    case BN_COLL_ALLREDUCE:
        return just(BN_ANS_ALL);
    case BN_COLL_REDUCE:
        return r == p->root ? just(BN_ANS_ALL) : just(BN_ANS_NONE);
    case BN_COLL_BROADCAST:
        return one(p->root);
    case BN_COLL_REDUCESCATTER:
        return b == r ? just(BN_ANS_ALL) : just(BN_ANS_NONE);
    case BN_COLL_ALLGATHER:
        return one((uint32_t)b);
    case BN_COLL_ALLTOALL:
        return b % n == r ? one((uint32_t)(b / n)) : just(BN_ANS_NONE);
    case BN_COLL_SENDRECV:
        return b == (r + n - 1) % n ? one((uint32_t)b) : just(BN_ANS_NONE);
    default:
        return just(BN_ANS_NONE);
    }
}

/* The answer over [lo,hi) if all its blocks agree; false otherwise. */
static bool range_answer(const struct bn_sched *s, uint32_t who, uint64_t lo, uint64_t hi,
                         bool initial, struct bn_coll_answer *out)
{
    if (lo >= hi || hi > s->elems)
        return false;
    uint64_t bsz = bn_coll_block_elems(&s->p);
    if (bsz == 0)
        return false;
    uint64_t first = lo / bsz, last = (hi - 1) / bsz;
    for (uint64_t b = first; b <= last; b++) {
        struct bn_coll_answer a = initial ? initial_block(&s->p, who, b)
                                          : wanted_block(&s->p, who, b);
        if (b == first)
            *out = a;
        else if (a.kind != out->kind || a.rank != out->rank)
            return false;
    }
    return true;
}

bool bn_coll_answer_of(const struct bn_sched *s, uint32_t ep, uint64_t lo, uint64_t hi,
                       bool initial, struct bn_coll_answer *out)
{
    if (initial ? ep >= s->nendpoints : ep >= s->p.nranks)
        return false;
    return range_answer(s, ep, lo, hi, initial, out);
}

static void expand(const struct bn_sched *s, struct bn_coll_answer a, uint64_t *set)
{
    memset(set, 0, (size_t)s->words * sizeof *set);
    if (a.kind == BN_ANS_ONE) {
        uint32_t b = s->rank_bit ? s->rank_bit[a.rank] : a.rank;
        if (b != UINT32_MAX) /* not sampled: its contribution is not followed */
            set[b / 64] = UINT64_C(1) << (b % 64);
    } else if (a.kind == BN_ANS_ALL) {
        uint32_t n = s->rank_bit ? BN_SCHED_EXACT_RANKS : s->p.nranks;
        for (uint32_t w = 0; w < n / 64; w++)
            set[w] = UINT64_MAX;
        if (n % 64)
            set[n / 64] = (UINT64_C(1) << (n % 64)) - 1;
    }
}

bool bn_coll_initial(const struct bn_sched *s, uint32_t ep, uint64_t lo, uint64_t hi,
                     uint64_t *set)
{
    struct bn_coll_answer a = {0};
    if (ep >= s->nendpoints || !range_answer(s, ep, lo, hi, true, &a))
        return false;
    expand(s, a, set);
    return true;
}

bool bn_coll_wanted(const struct bn_sched *s, uint32_t r, uint64_t lo, uint64_t hi,
                    uint64_t *set)
{
    struct bn_coll_answer a = {0};
    if (r >= s->p.nranks || !range_answer(s, r, lo, hi, false, &a) || a.kind == BN_ANS_NONE)
        return false;
    expand(s, a, set);
    return true;
}

uint64_t bn_coll_wanted_elems(const struct bn_sched *s, uint32_t r)
{
    if (r >= s->p.nranks)
        return 0;
    uint64_t bsz = bn_coll_block_elems(&s->p);
    switch (s->p.kind) {
    case BN_COLL_REDUCE:
        return r == s->p.root ? s->elems : 0;
    case BN_COLL_REDUCESCATTER:
    case BN_COLL_SENDRECV:
        return bsz;                 /* one block */
    case BN_COLL_ALLTOALL:
        return bsz * s->p.nranks;   /* one block from every rank */
    default:
        return s->elems;
    }
}

static const char *const names[BN_COLL_NKINDS] = {
    [BN_COLL_ALLREDUCE] = "allreduce",     [BN_COLL_REDUCESCATTER] = "reducescatter",
    [BN_COLL_ALLGATHER] = "allgather",     [BN_COLL_BROADCAST] = "broadcast",
    [BN_COLL_REDUCE] = "reduce",           [BN_COLL_ALLTOALL] = "alltoall",
    [BN_COLL_SENDRECV] = "sendrecv",
};

/* nccl-tests' binary names (all_reduce_perf ...), so users can paste them. */
static const struct {
    const char *name;
    enum bn_coll_kind kind;
} aliases[] = {
    {"all_reduce", BN_COLL_ALLREDUCE},
    {"reduce_scatter", BN_COLL_REDUCESCATTER},
    {"all_gather", BN_COLL_ALLGATHER},
    {"all_to_all", BN_COLL_ALLTOALL},
};

const char *bn_coll_op_name(size_t i)
{
    return i < BN_COLL_NKINDS ? names[i] : NULL;
}

/* nccl-tests' datatypes (its -d flag) and their element sizes. */
static const struct {
    const char *name;
    uint32_t bytes;
} types[] = {
    {"int8", 1}, {"uint8", 1}, {"half", 2}, {"bfloat16", 2}, {"float", 4},
    {"double", 8}, {"int32", 4}, {"uint32", 4}, {"int64", 8}, {"uint64", 8},
};

const char *bn_coll_type_name(size_t i)
{
    return i < sizeof types / sizeof types[0] ? types[i].name : NULL;
}

uint32_t bn_coll_type_bytes(size_t i)
{
    return i < sizeof types / sizeof types[0] ? types[i].bytes : 0;
}

/* nccl-tests' reduction operations (its -o flag); no effect on traffic. */
static const char *const redops[] = {"sum", "prod", "max", "min", "avg"};

const char *bn_coll_redop_name(size_t i)
{
    return i < sizeof redops / sizeof redops[0] ? redops[i] : NULL;
}

const char *bn_coll_kind_name(enum bn_coll_kind k)
{
    return (unsigned)k < BN_COLL_NKINDS ? names[k] : "unknown";
}

int bn_coll_kind_find(const char *name, enum bn_coll_kind *out)
{
    if (!name)
        return BN_EINPUT;
    for (int k = 0; k < BN_COLL_NKINDS; k++)
        if (strcmp(names[k], name) == 0) {
            *out = (enum bn_coll_kind)k;
            return BN_OK;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].name, name) == 0) {
            *out = aliases[i].kind;
            return BN_OK;
        }
    return BN_EINPUT;
}

double bn_coll_busbw_factor(enum bn_coll_kind k, uint32_t n)
{
    if (n == 0)
        return 0.0;
    switch (k) {
    case BN_COLL_ALLREDUCE:
        return 2.0 * (n - 1) / n;
    case BN_COLL_REDUCESCATTER:
    case BN_COLL_ALLGATHER:
    case BN_COLL_ALLTOALL:
        return (double)(n - 1) / n;
    default:
        return 1.0; /* Broadcast, Reduce, SendRecv */
    }
}
