/*
 * Collective schedules: a collective (AllReduce, AllGather ...) is lowered by
 * an algorithm (ring, tree ...) into point-to-point *transfers* between
 * endpoints, with dependencies between them. The schedule is plain data: the
 * network executor (sim/coll_run.c) posts each transfer as an RDMA WRITE once
 * the transfers it depends on have been delivered; the symbolic executor
 * (bn_sched_verify) runs the same graph without a network. A real runtime
 * could execute it on buffers.
 *
 * Data model, so correctness is checked rather than assumed. The collective's
 * data is a logical array of elements (its layout per collective is fixed by
 * bn_sched_semantics, not by the algorithm). The algorithm cuts that array
 * into *pieces* (element ranges). A *slot* is one endpoint's copy of one
 * piece; it holds the set of ranks whose contributions it contains, as a
 * bitset of nranks bits. A transfer moves the content of a slot at its source
 * to a slot at its destination and either REDUCEs it in (the two sets must be
 * disjoint, else a contribution would count twice) or COPYs over it. At the
 * end every rank's output pieces must hold exactly the set the collective's
 * semantics demand; each element of a piece that does not is one #wrong.
 *
 * Endpoints 0..nranks-1 are the ranks (GPUs); endpoints from nranks on are
 * aggregation units in switches (CollNet/SHARP units, then NVLS units in
 * NVSwitches), which hold slots but have no output of their own.
 *
 * Compact form: a ring's transfers are O(ranks^2) (each of the n x channels
 * x slices pieces makes 2(n-1) hops), too many to store at thousands of
 * ranks. A *chain* stands for a piece carried around the ring of ranks:
 * hop h goes from rank (start + h) mod n to the next, REDUCE for the first
 * nred hops and COPY after, each hop once the one before is delivered. Its
 * hops are transfers numbered after the explicit ones, chain by chain, and
 * described on demand (bn_sched_view); they hold no slots: a run carries
 * each chain's contribution set along and checks a rank's output when the
 * chain leaves it for the last time. Chains and explicit transfers may not
 * depend on each other, nor share pieces. A chain's ring may turn inside
 * every server (rot, NCCL's rings across servers: bn_chain_rank): hop h
 * then goes between the ranks at ring positions start + h and the next,
 * and what it carries is an interval of positions.
 *
 * A *two-level chain* (hchain) is the compact form of a piece of a
 * hierarchical AllReduce over m groups of g consecutive ranks (servers): a
 * ring reduce inside every group, from member pos + 1 round to member pos;
 * the group sums carried round the ring of the groups' members pos from
 * group `start`, m - 1 REDUCE hops then m - 1 COPY hops, a hop leaving a
 * group only once that group's reduce is done; then a ring copy inside every
 * group from member pos, once the piece's final value is there. Its
 * 2m(g - 1) + 2(m - 1) hops are numbered after the chains' (sched_hchain.c
 * gives their order); a run keeps two hop counts per group and the set the
 * groups' ring carries, O(m) per piece where its slots would be O(n).
 */
#ifndef BN_COLL_SCHED_H
#define BN_COLL_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bnet/error.h"
#include "core/keyrow.h"

enum bn_coll_kind {
    BN_COLL_ALLREDUCE = 0,
    BN_COLL_REDUCESCATTER,
    BN_COLL_ALLGATHER,
    BN_COLL_BROADCAST,
    BN_COLL_REDUCE,
    BN_COLL_ALLTOALL,
    BN_COLL_SENDRECV,
    BN_COLL_NKINDS
};

enum bn_xfer_op { BN_XFER_COPY = 0, BN_XFER_REDUCE = 1 };

/* Ranks up to which slot sets hold every contributor; beyond, a sample of
 * this many (sched.c). */
#define BN_SCHED_EXACT_RANKS 1024u

/* What to lower: the collective and how the cluster is arranged. */
struct bn_coll_params {
    enum bn_coll_kind kind;
    uint32_t nranks;
    /* nccl-tests' `size`: bytes of the collective as nccl-tests counts them
     * (AllReduce/Broadcast/Reduce/SendRecv: the buffer; ReduceScatter: the
     * whole input, n blocks; AllGather: the whole output, n blocks;
     * AllToAll: one rank's whole send buffer, n blocks). */
    uint64_t bytes;
    uint32_t type_bytes;       /* element size; bytes is a multiple of it */
    uint32_t root;             /* Broadcast, Reduce */
    uint32_t channels;         /* parallel rings/trees, each on its own queue pairs */
    uint64_t slice_bytes;      /* pipelining unit: pieces are at most this big */
    uint32_t gpus_per_server;  /* ranks r with equal r / gpus_per_server share a server */
    /* CollNet: aggregation units (endpoints nranks..nranks+nagg-1) arranged
     * as a tree over the switch hierarchy: agg_parent[a] is a's parent unit
     * (UINT32_MAX for the root), rank_agg[r] the unit rank r reports to. */
    uint32_t nagg;
    const uint32_t *agg_parent;
    const uint32_t *rank_agg;
    uint32_t agg_max_trees;    /* concurrent aggregation trees a unit holds */
    /* NVLS: ranks r with equal r / nvls_domain share an NVLink domain whose
     * NVSwitch reduces and multicasts (0: none); its unit is endpoint
     * nranks + nagg + r / nvls_domain. */
    uint32_t nvls_domain;
    /* The algorithms' own keys, by registry index (bn_scenario.algo; an
     * algorithm reads its block with bn_coll_algo_keys). NULL: none given
     * (an algorithm with keys refuses to build). */
    const struct bn_scenario_algo_block *algo_keys;
};

struct bn_piece {
    uint64_t lo, hi;           /* element range [lo, hi) of the logical array */
};

struct bn_slot {
    uint32_t endpoint, piece;
};

struct bn_xfer {
    uint32_t src_slot, dst_slot;
    uint64_t bytes;            /* piece elements x type_bytes */
    uint32_t channel;          /* transfers of one (src, dst, channel) share a queue pair */
    uint32_t ndeps;            /* transfers that must be delivered before this one starts */
    uint8_t op;                /* enum bn_xfer_op */
};

/* A piece carried around the ring (see above). */
struct bn_chain {
    uint32_t piece;
    uint32_t start;            /* the rank the first hop leaves */
    uint32_t nred, ncopy;      /* REDUCE hops, then COPY hops */
    uint32_t channel;
    uint32_t rot;              /* its ring's turn inside each server (0: ranks in order) */
    uint32_t first;            /* its first hop's transfer id (set by finish) */
};

/* A piece carried by a two-level chain (see above). */
struct bn_hchain {
    uint32_t piece;
    uint32_t pos;              /* the group member that carries the groups' ring */
    uint32_t start;            /* the group the groups' ring starts from */
    uint32_t channel;
    uint32_t first;            /* its first hop's transfer id (set by finish) */
};

/* A transfer as the executors see it, explicit or a chain's hop. */
struct bn_xfer_view {
    uint32_t src, dst;         /* endpoints */
    uint32_t piece, channel;
    uint64_t bytes;
    uint8_t op;                /* enum bn_xfer_op */
};

struct bn_sched {
    struct bn_coll_params p;
    uint32_t nendpoints;       /* nranks + nagg + NVLS units */
    /* connections per channel: a transfer's channel field is below
     * channels x lanes (1; NVLS 2: its up and down connections) */
    uint32_t lanes;
    /* Each connection carries one pipeline's steps, in the order NCCL's
     * kernel sends them (trees: a tree's lane, slice after slice), so a
     * step's slot can be held until the receiver consumes it without a
     * connection ever waiting on itself (coll/proto.h's slots). */
    bool in_order;
    uint32_t words;            /* 64-bit words per slot bitset */
    /* Past BN_SCHED_EXACT_RANKS ranks the sets hold a sample of the
     * contributors (see sched.c): rank -> its bit, UINT32_MAX if not
     * sampled. NULL: every rank, bit = rank. */
    uint32_t *rank_bit;
    uint64_t elems;            /* elements of the logical array */
    struct bn_piece *pieces;
    uint32_t npieces, pieces_cap;
    struct bn_slot *slots;
    uint32_t nslots, slots_cap;
    uint64_t *slot_hash;       /* open addressing on (endpoint, piece): entry = slot + 1, 0 empty */
    uint32_t hash_cap;
    struct bn_xfer *xfers;     /* the explicit transfers, ids 0 .. nexplicit-1 */
    uint32_t nexplicit, xfers_cap;
    uint32_t nxfers;           /* all transfers: explicit, then the chains' hops (after finish) */
    struct bn_chain *chains;
    uint32_t nchains, chains_cap;
    struct bn_hchain *hchains; /* two-level chains, hops after the chains' */
    uint32_t nhchains, hchains_cap;
    uint32_t hchain_hops;      /* hops of each: 2m(g - 1) + 2(m - 1) */
    uint32_t hchain_first;     /* transfer id of the first one's first hop */
    /* after finish: per piece, its chain, nchains + its hchain, or UINT32_MAX */
    uint32_t *piece_chain;
    uint32_t (*edges)[2];      /* (before, after) pairs until finish() */
    uint32_t nedges, edges_cap;
    uint32_t *succ_off, *succ; /* after finish(): successors of xfer i are succ[succ_off[i] .. succ_off[i+1]) */
    /* An aggregate schedule (coll.aggregate, bn_sched_bulk): one transfer
     * per connection carrying all its bytes at once, no dependencies and no
     * contribution sets (nothing to verify). What it leaves out, the time a
     * piece takes along the pipeline, is the longest chain of hops a piece
     * makes: the transfers whose connections it crosses, how many times
     * each, every time with a piece of crit_piece_bytes. Its first
     * crit_head hops come before every connection has data (a pipeline's
     * head: hier's phase 1 before the rails), and delay the whole. */
    bool bulk;
    struct bn_crit_hop { uint32_t xfer, times; } *crit;
    uint32_t ncrit, crit_cap, crit_head;
    uint64_t crit_piece_bytes;
};

/* A contribution set as a collective's meaning gives one, constant over a
 * range of blocks: no requirement (wanted only), nobody, everyone, one
 * rank. */
enum bn_coll_answer_kind { BN_ANS_NONE, BN_ANS_EMPTY, BN_ANS_ALL, BN_ANS_ONE };
struct bn_coll_answer {
    enum bn_coll_answer_kind kind;
    uint32_t rank;             /* BN_ANS_ONE */
};

/* Element-level meaning of a collective (independent of the algorithm). */
uint64_t bn_coll_elems(const struct bn_coll_params *p);          /* logical array length */
/* The contributions rank/endpoint `ep` holds for piece range [lo,hi) before
 * the collective starts, into `set` (words words); false if the range
 * straddles blocks that differ (algorithms must cut at block boundaries). */
bool bn_coll_initial(const struct bn_sched *s, uint32_t ep, uint64_t lo, uint64_t hi,
                     uint64_t *set);
/* What rank `r` must hold for [lo,hi) at the end; false: no requirement. */
bool bn_coll_wanted(const struct bn_sched *s, uint32_t r, uint64_t lo, uint64_t hi,
                    uint64_t *set);
/* The same as one answer: what endpoint ep holds before (initial) or rank
 * ep must hold after; false where the range straddles blocks that differ. */
bool bn_coll_answer_of(const struct bn_sched *s, uint32_t ep, uint64_t lo, uint64_t hi,
                       bool initial, struct bn_coll_answer *out);
/* Elements of a block: the unit the collective's answers change at (RS/AG/
 * AllToAll: E/n, SendRecv: E per rank, otherwise the whole array). */
uint64_t bn_coll_block_elems(const struct bn_coll_params *p);
/* How many elements rank `r` must hold at the end (its output's size). */
uint64_t bn_coll_wanted_elems(const struct bn_sched *s, uint32_t r);

/* Building (used by algorithms). All return BN_OK or BN_ENOMEM/BN_EINPUT. */
int bn_sched_init(struct bn_sched *s, const struct bn_coll_params *p, struct bn_error *err);
void bn_sched_free(struct bn_sched *s);
/* Append piece [lo, hi); *id its index. */
int bn_sched_piece(struct bn_sched *s, uint64_t lo, uint64_t hi, uint32_t *id,
                   struct bn_error *err);
/* A transfer of piece `piece` from endpoint src to dst; *id its index.
 * Slots are created on first use. */
int bn_sched_xfer(struct bn_sched *s, uint32_t src, uint32_t dst, uint32_t piece,
                  enum bn_xfer_op op, uint32_t channel, uint32_t *id, struct bn_error *err);
/* A chain: piece `piece` carried from ring position `start`, nred REDUCE
 * hops then ncopy COPY hops around the ring turned by `rot` inside every
 * server (see above; rot < gpus_per_server, 0 without servers). */
int bn_sched_chain(struct bn_sched *s, uint32_t piece, uint32_t start, uint32_t nred,
                   uint32_t ncopy, uint32_t channel, uint32_t rot, struct bn_error *err);
/* The rank at ring position `pos` of a ring turned by `rot`: server
 * pos / g's GPU (pos + rot) mod g, so the ring enters every server at its
 * GPU rot and leaves it from GPU rot - 1; and the inverse. */
static inline uint32_t bn_ring_rank(uint32_t g, uint32_t rot, uint32_t pos)
{
    return rot ? pos - pos % g + (pos % g + rot) % g : pos;
}
static inline uint32_t bn_ring_pos(uint32_t g, uint32_t rot, uint32_t rank)
{
    return rot ? rank - rank % g + (rank % g + g - rot) % g : rank;
}
/* An aggregate transfer: `bytes` from src to dst on `channel`, with no
 * dependencies (marks s bulk; see above). Zero bytes add nothing. */
int bn_sched_bulk(struct bn_sched *s, uint32_t src, uint32_t dst, uint32_t channel,
                  uint64_t bytes, uint32_t *id, struct bn_error *err);
/* The longest chain crosses aggregate transfer x's connection `mult` times
 * more (x UINT32_MAX, a transfer of no bytes: nothing). */
int bn_sched_crit(struct bn_sched *s, uint32_t x, uint32_t mult, struct bn_error *err);
/* Transfer x as the executors see it. */
void bn_sched_view(const struct bn_sched *s, uint32_t x, struct bn_xfer_view *v);
/* A two-level chain: piece `piece` over the groups of gpus_per_server
 * ranks, their members `pos` carrying it from group `start` (see above). */
int bn_sched_hchain(struct bn_sched *s, uint32_t piece, uint32_t pos, uint32_t start,
                    uint32_t channel, struct bn_error *err);
/* The chain whose hop transfer x is (nexplicit <= x < hchain_first). */
uint32_t bn_sched_chain_of(const struct bn_sched *s, uint32_t x);
/* Two-level chains' hops as the executors see them (x >= hchain_first). */
void bn_sched_hchain_view(const struct bn_sched *s, uint32_t x, struct bn_xfer_view *v);
/* NVLS units of a schedule's params: one per NVLink domain (0: none). */
static inline uint32_t bn_coll_nvls_units(const struct bn_coll_params *p)
{
    return p->nvls_domain ? (p->nranks + p->nvls_domain - 1) / p->nvls_domain : 0;
}
/* Transfers that may be ready at once at most: every explicit one, a hop
 * of each chain and, per two-level chain, one per group and one of the
 * groups' ring (bn_sched_finish checks this fits 32 bits). */
static inline uint32_t bn_sched_ready_max(const struct bn_sched *s)
{
    uint32_t g = s->p.gpus_per_server, groups = g ? s->p.nranks / g : 0;
    return s->nexplicit + s->nchains + s->nhchains * (groups + 1);
}
/* `after` starts only once `before` has been delivered. */
int bn_sched_dep(struct bn_sched *s, uint32_t before, uint32_t after, struct bn_error *err);
/* Build the successor lists; no more building after this. */
int bn_sched_finish(struct bn_sched *s, struct bn_error *err);
/* The slot of (endpoint, piece), or UINT32_MAX if no transfer touches it. */
uint32_t bn_sched_find_slot(const struct bn_sched *s, uint32_t endpoint, uint32_t piece);

/*
 * Running a schedule: the state both executors share. start() fills the
 * slots with their initial content; deliver() applies a delivered transfer
 * (checking a reduce adds no contribution twice and that the source slot has
 * not changed since the transfer was posted, which would be a race in the
 * schedule) and returns its successors that became ready. wrong() counts the
 * elements of the ranks' outputs that are not what the collective demands.
 */
/* What a chain's piece carries: ranks first, first + 1, ... (mod n), count
 * of them (n: everyone), as a ring's hops gather them one by one; broken
 * once a hop added a rank that does not extend the run (counted wrong). */
struct bn_chain_set {
    uint32_t first, count;
    bool broken;
};

struct bn_sched_run {
    const struct bn_sched *s;
    uint64_t *content;         /* nslots x words */
    uint32_t *version;         /* per slot: bumped on every change */
    uint32_t *posted_version;  /* per xfer: the source's version when posted */
    uint32_t *waiting;         /* per xfer: dependencies not yet delivered */
    uint32_t delivered;
    uint64_t conflicts;        /* elements reduced twice or read while changing */
    uint32_t *by_lo;           /* piece ids sorted by lo: wrong() checks coverage with it */
    struct bn_chain_set *carried; /* per chain: the contributions its piece carries */
    uint32_t *hops_done;       /* per chain: hops delivered */
    uint64_t chain_wrong;      /* output elements the chains left wrong */
    /* per two-level chain: hops delivered in each group's reduce, then in
     * each group's copy (2m each), in the groups' ring, and what that ring
     * carries (ranks first.., an interval as for a chain) */
    uint8_t *group_done;
    uint32_t *ring_done;
    struct bn_chain_set *ring_set;
};

int bn_sched_run_start(struct bn_sched_run *r, const struct bn_sched *s, struct bn_error *err);
void bn_sched_run_free(struct bn_sched_run *r);
/* Transfers with no dependencies, in index order, into out (n = nxfers max);
 * returns how many. */
uint32_t bn_sched_run_initial(const struct bn_sched_run *r, uint32_t *out);
void bn_sched_run_posted(struct bn_sched_run *r, uint32_t xfer);
/* Apply xfer; its successors that are now ready go to out (returns count). */
uint32_t bn_sched_run_deliver(struct bn_sched_run *r, uint32_t xfer, uint32_t *out);
/* Wrong output elements (plus conflicts counted on the way); UINT64_MAX if
 * it cannot allocate its scratch. */
uint64_t bn_sched_run_wrong(const struct bn_sched_run *r);

/* Symbolic execution in dependency (FIFO) order: the #wrong of the schedule,
 * or BN_EINPUT if some transfers can never start (a dependency cycle). */
int bn_sched_verify(const struct bn_sched *s, uint64_t *wrong, struct bn_error *err);

/* Pairs of accesses to one slot that no chain of dependencies orders: a
 * read against a write, or a COPY against another write (two REDUCEs
 * commute). Zero means the result cannot depend on the order the network
 * delivers in, which one FIFO run cannot show. Chains are followed through
 * the piece's own transfers only, so a schedule ordering a piece through
 * other pieces' transfers gets races reported that are not there. BN_EINPUT
 * on a dependency cycle. */
int bn_sched_races(const struct bn_sched *s, uint64_t *races, struct bn_error *err);

/* How an algorithm's stepwise schedule is stored: a transfer per step
 * (memory O(pieces x n)), chains (O(pieces)) or two-level chains (O(pieces
 * x groups) while it runs). */
enum bn_coll_compact { BN_COMPACT_NO = 0, BN_COMPACT_CHAINS, BN_COMPACT_TWO_LEVEL };

/* Which of NCCL's algorithms an algorithm is (its tuning model and its
 * per-step latencies), if any. */
enum bn_coll_family {
    BN_FAMILY_OTHER = 0, BN_FAMILY_RING, BN_FAMILY_TREE, BN_FAMILY_COLLNET, BN_FAMILY_NVLS,
    BN_FAMILIES
};

/* Algorithms: one file each behind this table (coll/algo_*.c). */
struct bn_coll_algo_ops {
    const char *name;          /* as in coll.algo: "ring", "tree" ... */
    const char *summary;       /* one line: how it moves the data (coll.algo's doc) */
    enum bn_coll_family family;
    bool needs_aggregation;    /* runs only on switches' aggregation units (sharp.enabled) */
    bool needs_nvls;           /* runs only inside one NVLink domain's NVLS (scale_up.nvls) */
    bool forced_only;          /* the tuner never picks it (coll.algo must name it) */
    enum bn_coll_compact compact;
    /* Its own scenario keys (core/keyrow.h rows, BN_ROW_ALGO: fields of its
     * keys struct, in bn_scenario.algo[its registry index], checked to fit,
     * BN_COLL_KEYS_CHECK; build reads them with bn_coll_algo_keys); nkeys
     * of them, 0: none. */
    const struct bn_key_row *keys;
    size_t nkeys;
    /* Whether it can lower this collective for these params (e.g. tree only
     * for reductions/broadcast, collnet only with aggregation units). */
    bool (*supports)(const struct bn_coll_params *p);
    /* Fill s (already bn_sched_init'ed) with pieces, transfers and deps. */
    int (*build)(struct bn_sched *s, struct bn_error *err);
    /* Or with its aggregate (bn_sched_bulk per connection, and the
     * pipeline's longest chain): O(ranks x channels) whatever the size.
     * NULL: the algorithm has none. */
    int (*bulk)(struct bn_sched *s, struct bn_error *err);
    /* At least as many transfers as build() makes, for the memory
     * estimate before building. NULL: a ring's count, 2n(n-1) per slice
     * of each rank's chunk and channel. */
    uint64_t (*transfers)(const struct bn_coll_params *p);
};

const struct bn_coll_algo_ops *bn_coll_algo_find(const char *name);
/* Registry order, for listing and for the tuner; NULL past the end. */
const struct bn_coll_algo_ops *bn_coll_algo_at(uint32_t i);
/* Algorithm i's summary, NULL past the end. */
const char *bn_coll_algo_summary(size_t i);
/* coll.algo's doc: "Algorithm, like NCCL_ALGO: ", what auto does, each
 * algorithm's "name (summary)" and "See docs/collectives.md." (written
 * beside the registry: the row needs a constant). */
extern const char bn_coll_algo_doc[];
/* Algorithm a's parsed keys: its block of p->algo_keys (NULL if none given). */
const void *bn_coll_algo_keys(const struct bn_coll_params *p, const struct bn_coll_algo_ops *a);
/* Every algorithm's own key rows, for the scenario registry to splice in
 * after coll.aggregate (core/keyrow.h's walker), in registry order. */
extern const struct bn_key_modules bn_coll_algo_key_modules;
/* Room in the scenario registry for them. */
#define BN_COLL_ALGO_KEYS_MAX 4
/* An algorithm's keys struct fits its block of the scenario (bn_scenario.algo). */
#define BN_COLL_KEYS_CHECK(type) BN_KEYS_FIT(type, struct bn_scenario_algo_block)
/* A row's field m of its keys struct `type` (core/keyrow.h). */
#define BN_ROW_ALGO(type, m) BN_ROW_IN(BN_KEY_BLOCK_ALGO, type, m)

const char *bn_coll_kind_name(enum bn_coll_kind k);   /* "allreduce" ... */
/* The registries of coll.op, coll.datatype and coll.redop: the i-th name,
 * NULL past the last (coll.op's i is enum bn_coll_kind). */
const char *bn_coll_op_name(size_t i);
const char *bn_coll_type_name(size_t i);
uint32_t bn_coll_type_bytes(size_t i);   /* element size of datatype i */
const char *bn_coll_redop_name(size_t i);
/* The algorithms' registry: the i-th name, NULL past the last. */
const char *bn_coll_algo_name(size_t i);
int bn_coll_kind_find(const char *name, enum bn_coll_kind *out);
/* nccl-tests' bus-bandwidth factor for n ranks. */
double bn_coll_busbw_factor(enum bn_coll_kind k, uint32_t n);

#endif
