/*
 * Collective algorithms selectable by name (coll.algo). The order is the
 * listing order and the order the tuner tries them in.
 */
#include <string.h>

#include "coll/algo.h"

static const struct bn_coll_algo_ops *const algos[] = {
    &bn_coll_algo_ring,
    &bn_coll_algo_tree,
    &bn_coll_algo_rhd,
    &bn_coll_algo_direct,
    &bn_coll_algo_hier,
    &bn_coll_algo_collnet,
    &bn_coll_algo_htree,
    &bn_coll_algo_nvls,
};

#define NALGOS (sizeof algos / sizeof algos[0])
_Static_assert(NALGOS <= BN_SC_ALGO_MAX, "bn_scenario.algo has no block for every algorithm");

/* coll.algo's doc: what auto does, then each algorithm's name and summary,
 * in registry order, a run of equal summaries said once (a constant for the
 * key's row: tests/scenario/test_module_keys.c fails when it and the
 * summaries disagree). */
const char bn_coll_algo_doc[] =
    "Algorithm, like NCCL_ALGO: auto lets the tuner pick per size from its latency + "
    "bandwidth model; the others force one: ring (each rank sends to the next, 2(n-1) "
    "steps), tree (NCCL's double binary tree: reduce up, copy down), rhd (Rabenseifner: "
    "recursive halving, then doubling), direct (every rank to each peer at once, no "
    "dependencies), hier (ring in each server, then across servers per rail), collnet "
    "(reduced in the switches' SHARP aggregation units), htree (NCCL's tree on servers: a "
    "chain in each, a tree across), nvls (reduced and multicast by the NVSwitch, with "
    "scale_up.nvls). See docs/collectives.md.";

const struct bn_coll_algo_ops *bn_coll_algo_find(const char *name)
{
    for (size_t i = 0; name && i < NALGOS; i++)
        if (strcmp(algos[i]->name, name) == 0)
            return algos[i];
    return NULL;
}

const struct bn_coll_algo_ops *bn_coll_algo_at(uint32_t i)
{
    return i < NALGOS ? algos[i] : NULL;
}

const char *bn_coll_algo_name(size_t i)
{
    return i < NALGOS ? algos[i]->name : NULL;
}

const char *bn_coll_algo_summary(size_t i)
{
    return i < NALGOS ? algos[i]->summary : NULL;
}

const void *bn_coll_algo_keys(const struct bn_coll_params *p, const struct bn_coll_algo_ops *a)
{
    for (size_t i = 0; i < NALGOS && p->algo_keys; i++)
        if (algos[i] == a)
            return &p->algo_keys[i];
    return NULL;
}

static const struct bn_key_row *rows_of(size_t i, size_t *nrows)
{
    *nrows = algos[i]->nkeys;
    return algos[i]->keys;
}

const struct bn_key_modules bn_coll_algo_key_modules = {NALGOS, rows_of, NULL};
