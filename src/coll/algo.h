/*
 * Shared by the collective algorithms (coll/algo_*.c) and their registry:
 * the ops tables, and the few helpers every algorithm needs to cut the
 * logical array the same way (channel parts, chunks, slices) and to add a
 * transfer together with what it waits for. Internal to src/coll.
 */
#ifndef BN_COLL_ALGO_H
#define BN_COLL_ALGO_H

#include "coll/sched.h"

extern const struct bn_coll_algo_ops bn_coll_algo_ring;
extern const struct bn_coll_algo_ops bn_coll_algo_tree;
extern const struct bn_coll_algo_ops bn_coll_algo_rhd;
extern const struct bn_coll_algo_ops bn_coll_algo_direct;
extern const struct bn_coll_algo_ops bn_coll_algo_hier;
extern const struct bn_coll_algo_ops bn_coll_algo_collnet;
extern const struct bn_coll_algo_ops bn_coll_algo_htree;
extern const struct bn_coll_algo_ops bn_coll_algo_nvls;

/* How many parts `elems` elements are cut into for `ways` channels or
 * trees: fewer than asked when there are fewer elements, never zero-length. */
uint64_t bn_coll_nparts(uint64_t elems, uint64_t ways);

/* Range i of [lo,hi) cut into `parts` near-equal ranges (sizes differ by at
 * most one element; the first ones are the bigger). */
void bn_coll_split(uint64_t lo, uint64_t hi, uint64_t parts, uint64_t i, uint64_t *a,
                   uint64_t *b);

/* Cut [lo,hi) into ceil(len / slice elements) near-equal pieces, each at most
 * slice_bytes: ids *first .. *first + *count - 1 (none if lo == hi). */
int bn_coll_slices(struct bn_sched *s, uint64_t lo, uint64_t hi, uint32_t *first,
                   uint32_t *count, struct bn_error *err);

/* Part i of [lo,hi) cut into `parts` (bn_coll_split), itself cut into
 * slices (bn_coll_slices). */
int bn_coll_part_slices(struct bn_sched *s, uint64_t lo, uint64_t hi, uint64_t parts, uint64_t i,
                        uint32_t *first, uint32_t *count, struct bn_error *err);

/* A transfer that starts once every transfer in deps[0..ndeps) is delivered
 * (UINT32_MAX entries mean "nothing to wait for" and are skipped). */
int bn_coll_xfer_after(struct bn_sched *s, uint32_t src, uint32_t dst, uint32_t piece,
                       enum bn_xfer_op op, uint32_t channel, const uint32_t *deps,
                       uint32_t ndeps, uint32_t *id, struct bn_error *err);

/* Aggregates (the ops' bulk): the bytes each edge e of a cycle of m
 * members (member e to e + 1 mod m) carries when chunk k, of bytes[k]
 * bytes, makes `hops` hops from member (k + off) mod m; into edge[]. */
void bn_coll_cycle_load(const uint64_t *bytes, uint32_t m, uint32_t off, uint64_t hops,
                        uint64_t *edge);
/* The largest piece bn_coll_slices cuts elems elements into, in bytes. */
uint64_t bn_coll_slice_of(const struct bn_sched *s, uint64_t elems);
/* Elements of range i of `elems` elements cut into `parts` (bn_coll_split's
 * sizes: the first ones the bigger), and the same in bytes. */
static inline uint64_t bn_coll_split_len(uint64_t elems, uint64_t parts, uint64_t i)
{
    return elems / parts + (i < elems % parts);
}
static inline uint64_t bn_coll_split_bytes(const struct bn_sched *s, uint64_t elems,
                                           uint64_t parts, uint64_t i)
{
    return bn_coll_split_len(elems, parts, i) * s->p.type_bytes;
}

/* Children of `label` in NCCL's binary tree over n labels (algo_tree.c's
 * file comment): 0, 1 or 2, into kid[]. */
uint32_t bn_coll_btree_kids(uint32_t label, uint32_t n, uint32_t kid[2]);

/* Transfers of a tree over every rank, reduced up and copied down (or one
 * of the two) per slice of each of `parts` parts: at least what tree and
 * htree build. */
uint64_t bn_coll_tree_transfers(const struct bn_coll_params *p, uint64_t parts, bool both_ways);

/* The error every build() returns for params its supports() refuses. */
int bn_coll_unsupported(const struct bn_sched *s, const char *algo, struct bn_error *err);

#endif
