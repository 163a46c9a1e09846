/*
 * The load-balancing policies selectable by name (switch.load_balancing
 * stores the index: keep the order), and their own keys, which the
 * scenario registry splices in (scenario/keys.c), each policy's parsed
 * into its block of the scenario (bn_scenario.lb[index]).
 */
#include <string.h>

#include "switch/lb.h"

extern const struct bn_lb_ops bn_lb_ecmp;
extern const struct bn_lb_ops bn_lb_adaptive;
extern const struct bn_lb_ops bn_lb_flowlet;
extern const struct bn_lb_ops bn_lb_spray_random;
extern const struct bn_lb_ops bn_lb_spray_rr;

static const struct bn_lb_ops *const policies[] = {
    &bn_lb_ecmp, &bn_lb_adaptive, &bn_lb_flowlet, &bn_lb_spray_random, &bn_lb_spray_rr,
};

#define NPOLICIES (sizeof policies / sizeof policies[0])
_Static_assert(NPOLICIES <= BN_SC_LB_MAX, "bn_scenario.lb has no block for every policy");

/* switch.load_balancing's doc: each policy's name and summary, in registry
 * order, a run of equal summaries said once (a constant for the key's
 * row: tests/scenario/test_module_keys.c fails when it and the summaries
 * disagree). */
const char bn_lb_doc[] =
    "How a switch picks among equal-cost next hops: ecmp (per-flow hash), adaptive "
    "(least-loaded, per packet), flowlet (re-pick after an idle gap), spray_random, "
    "spray_rr (per packet).";

const struct bn_lb_ops *bn_lb_at(size_t i)
{
    return i < NPOLICIES ? policies[i] : NULL;
}

const char *bn_lb_name(size_t i)
{
    return i < NPOLICIES ? policies[i]->name : NULL;
}

const char *bn_lb_summary(size_t i)
{
    return i < NPOLICIES ? policies[i]->summary : NULL;
}

const struct bn_lb_ops *bn_lb_find(const char *name)
{
    for (size_t i = 0; i < NPOLICIES; i++)
        if (strcmp(policies[i]->name, name) == 0)
            return policies[i];
    return NULL;
}

const void *bn_lb_keys(const struct bn_scenario *sc, const struct bn_lb_ops *ops)
{
    for (size_t i = 0; i < NPOLICIES; i++)
        if (policies[i] == ops)
            return &sc->lb[i];
    return NULL;
}

static const struct bn_key_row *rows_of(size_t i, size_t *nrows)
{
    *nrows = policies[i]->nkeys;
    return policies[i]->keys;
}

const struct bn_key_modules bn_lb_key_modules = {NPOLICIES, rows_of, NULL};
