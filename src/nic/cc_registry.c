/*
 * Congestion-control modules selectable by name (nic.congestion_control
 * stores the index: keep the order), and their own keys, which the
 * scenario registry splices in (scenario/keys.c), each module's parsed
 * into its block of the scenario (bn_scenario.cc[index]).
 */
#include <stdio.h>

#include "nic/nic.h"

extern const struct bn_cc_ops bn_cc_none;
extern const struct bn_cc_ops bn_cc_dcqcn;
extern const struct bn_cc_ops bn_cc_ib;
extern const struct bn_cc_ops bn_cc_nscc;
extern const struct bn_cc_ops bn_cc_dctcp;
extern const struct bn_cc_ops bn_cc_timely;
extern const struct bn_cc_ops bn_cc_swift;
extern const struct bn_cc_ops bn_cc_hpcc;
extern const struct bn_cc_ops bn_cc_eqds;

static const struct bn_cc_ops *const modules[] = {
    &bn_cc_none,
    &bn_cc_dcqcn,
    &bn_cc_ib,
    &bn_cc_nscc,
    &bn_cc_dctcp,
    &bn_cc_timely,
    &bn_cc_swift,
    &bn_cc_hpcc,
    &bn_cc_eqds,
};

#define NMODULES (sizeof modules / sizeof modules[0])
_Static_assert(NMODULES <= BN_SC_CC_MAX, "bn_scenario.cc has no block for every module");

/* The order the modules' keys come in (bnet keys, results' config, the
 * default YAML): registry order but ib_cc's last, as the keys stood in
 * bn_scenario before they moved here, so those outputs did not change.
 * A new module goes at the end of both lists. */
static const unsigned char key_order[] = {0, 1, 3, 4, 5, 6, 7, 8, 2};
_Static_assert(sizeof key_order == NMODULES, "key_order lists every module once");

/* nic.congestion_control's doc: each module's name and summary, in
 * registry order (a constant for the key's row:
 * tests/scenario/test_module_keys.c fails when it and the summaries
 * disagree). */
const char bn_cc_doc[] =
    "Sender rate control: none (line rate), dcqcn (RoCE: ECN marks, CNPs, rate cuts by alpha), "
    "ib_cc (InfiniBand: FECN/BECN, CCT index), nscc (Ultra Ethernet-style window: ECN and "
    "delay), dctcp (window cut by the fraction of marked ACKs), timely (rate from the "
    "round-trip gradient), swift (window against a delay target), hpcc (window from in-band "
    "telemetry), eqds (receiver-paced credits).";

const struct bn_cc_ops *bn_cc_at(size_t i)
{
    return i < NMODULES ? modules[i] : NULL;
}

const char *bn_cc_name(size_t i)
{
    return i < NMODULES ? modules[i]->name : NULL;
}

const char *bn_cc_summary(size_t i)
{
    return i < NMODULES ? modules[i]->summary : NULL;
}

const void *bn_cc_keys(const struct bn_scenario *sc, size_t i)
{
    return &sc->cc[i];
}

static const struct bn_key_row *rows_of(size_t i, size_t *nrows)
{
    *nrows = modules[i]->nkeys;
    return modules[i]->keys;
}

const struct bn_key_modules bn_cc_key_modules = {NMODULES, rows_of, key_order};

void bn_cc_ignore(struct bn_nics *n, struct bn_qp *qp)
{
    (void)n;
    (void)qp;
}

int bn_cc_params_error(struct bn_error *err, const char *source, const char *module)
{
    char why[sizeof err->msg]; /* not reading the buffer being written */
    snprintf(why, sizeof why, "%s", err->msg);
    return bn_fail(err, BN_EINPUT, "%s: %s parameters: %s", source, module, why);
}
