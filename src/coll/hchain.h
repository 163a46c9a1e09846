/*
 * Two-level chains (coll/sched.h) inside the schedule and its runs: what
 * sched.c and sched_run.c call, kept out of the public header.
 */
#ifndef BN_COLL_HCHAIN_H
#define BN_COLL_HCHAIN_H

#include "coll/sched.h"

/* Number the two-level chains' hops from *next on (advancing it) and note
 * their pieces in piece_chain; BN_EINPUT if a piece is carried twice or the
 * ids or the ready transfers would pass 32 bits. */
int bn_hchain_finish(struct bn_sched *s, uint64_t *next, struct bn_error *err);
/* Run state: allocate and clear (BN_ENOMEM), free. */
int bn_hchain_run_start(struct bn_sched_run *r, struct bn_error *err);
void bn_hchain_run_free(struct bn_sched_run *r);
/* Their hops ready at the start, appended at out; how many. */
uint32_t bn_hchain_run_initial(const struct bn_sched_run *r, uint32_t *out);
/* Apply their hop xfer (>= hchain_first); the hops now ready go to out. */
uint32_t bn_hchain_deliver(struct bn_sched_run *r, uint32_t xfer, uint32_t *out);

/* A chain's interval (sched_run.c): add contributions a (false: one was
 * in it already); whether it is exactly `want`. */
bool bn_chain_set_add(struct bn_chain_set *set, struct bn_coll_answer a, uint32_t n);
bool bn_chain_set_is(const struct bn_chain_set *set, struct bn_coll_answer want, uint32_t n);

#endif
