/* Reliable transports selectable by name (nic.transport). */

#include "nic/nic.h"

extern const struct bn_transport_ops bn_tp_go_back_n;
extern const struct bn_transport_ops bn_tp_selective_repeat;

static const struct bn_transport_ops *const transports[] = {
    &bn_tp_go_back_n,
    &bn_tp_selective_repeat,
};

#define NTRANSPORTS (sizeof transports / sizeof transports[0])
_Static_assert(NTRANSPORTS <= BN_SC_TP_MAX, "bn_scenario.tp has no block for every transport");

/* nic.transport's doc: each transport's name and summary, in registry
 * order, a run of equal summaries said once (a constant for the key's row:
 * tests/scenario/test_module_keys.c fails when it and the summaries
 * disagree). */
const char bn_transport_doc[] =
    "Reliability: go_back_n (resend from the first unacknowledged packet), "
    "selective_repeat (accept out of order, resend only what is missing).";

const void *bn_transport_keys(const struct bn_scenario *sc, size_t i)
{
    return &sc->tp[i];
}

static const struct bn_key_row *rows_of(size_t i, size_t *nrows)
{
    *nrows = transports[i]->nkeys;
    return transports[i]->keys;
}

const struct bn_key_modules bn_transport_key_modules = {NTRANSPORTS, rows_of, NULL};

const struct bn_transport_ops *bn_transport_at(size_t i)
{
    return i < NTRANSPORTS ? transports[i] : NULL;
}

const char *bn_transport_name(size_t i)
{
    return i < NTRANSPORTS ? transports[i]->name : NULL;
}

const char *bn_transport_summary(size_t i)
{
    return i < NTRANSPORTS ? transports[i]->summary : NULL;
}
