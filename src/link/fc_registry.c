/*
 * Flow-control modules selectable by name (link.flow_control stores the
 * index: keep the order), and their own keys, which the scenario registry
 * splices in (scenario/keys.c), each module's parsed into its block of the
 * scenario (bn_scenario.fc[index]).
 */

#include "link/fabric.h"

extern const struct bn_fc_ops bn_fc_lossy;
extern const struct bn_fc_ops bn_fc_credit;
extern const struct bn_fc_ops bn_fc_pfc;

static const struct bn_fc_ops *const modules[] = {
    &bn_fc_lossy,
    &bn_fc_credit,
    &bn_fc_pfc,
};

#define NMODULES (sizeof modules / sizeof modules[0])
_Static_assert(NMODULES <= BN_SC_FC_MAX, "bn_scenario.fc has no block for every module");

/* link.flow_control's doc: each module's name and summary, in registry
 * order (a constant for the key's row: tests/scenario/test_module_keys.c
 * fails when it and the summaries disagree). */
const char bn_fc_doc[] =
    "Link-level flow control: lossy (drop-tail), credit (InfiniBand credits, "
    "needs nic.encap ib), pfc (Ethernet PFC, needs nic.encap roce).";

const struct bn_fc_ops *bn_fc_at(size_t i)
{
    return i < NMODULES ? modules[i] : NULL;
}

const char *bn_fc_name(size_t i)
{
    return i < NMODULES ? modules[i]->name : NULL;
}

const char *bn_fc_summary(size_t i)
{
    return i < NMODULES ? modules[i]->summary : NULL;
}

const void *bn_fc_keys(const struct bn_scenario *sc, const struct bn_fc_ops *ops)
{
    for (size_t i = 0; i < NMODULES; i++)
        if (modules[i] == ops)
            return &sc->fc[i];
    return NULL;
}

static const struct bn_key_row *rows_of(size_t i, size_t *nrows)
{
    *nrows = modules[i]->nkeys;
    return modules[i]->keys;
}

const struct bn_key_modules bn_fc_key_modules = {NMODULES, rows_of, NULL};
