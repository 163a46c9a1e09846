/* The control planes' registry (routing.control_plane). */
#include <stdlib.h>

#include "fault/fault.h"

extern const struct bn_cp_ops bn_cp_none, bn_cp_local;

static const struct bn_cp_ops *const planes[] = {
    &bn_cp_none,
    &bn_cp_local,
    &bn_cp_ib_sm,
    &bn_cp_ethernet,
};

#define NPLANES (sizeof planes / sizeof planes[0])
_Static_assert(NPLANES <= BN_SC_CP_MAX, "bn_scenario.cp has no block for every control plane");

/* routing.control_plane's doc: each plane's name and summary, in registry
 * order, a run of equal summaries said once, then what auto is (a constant
 * for the key's row: tests/scenario/test_module_keys.c fails when it and
 * the summaries disagree). */
const char bn_cp_doc[] =
    "What reroutes around failures: none (static tables), local (switches repair their own "
    "tables, NVIDIA SHIELD style), ib_sm (an InfiniBand subnet manager sweeps, recomputes, "
    "uploads), ethernet (BFD or loss of signal, BGP withdrawals hop by hop); auto = ib_sm "
    "with credit flow control, else ethernet. See docs/failures.md.";

const struct bn_cp_ops *bn_cp_at(size_t i)
{
    return i < sizeof planes / sizeof planes[0] ? planes[i] : NULL;
}

const char *bn_cp_name(size_t i)
{
    const struct bn_cp_ops *cp = bn_cp_at(i);
    return cp ? cp->name : NULL;
}

const char *bn_cp_summary(size_t i)
{
    const struct bn_cp_ops *cp = bn_cp_at(i);
    return cp ? cp->summary : NULL;
}

const void *bn_cp_keys(const struct bn_scenario *sc, const struct bn_cp_ops *cp)
{
    for (size_t i = 0; i < NPLANES; i++)
        if (planes[i] == cp)
            return &sc->cp[i];
    abort(); /* not a registered plane: a bug */
}

static const struct bn_key_row *rows_of(size_t i, size_t *nrows)
{
    *nrows = planes[i]->nkeys;
    return planes[i]->keys;
}

const struct bn_key_modules bn_cp_key_modules = {NPLANES, rows_of, NULL};
