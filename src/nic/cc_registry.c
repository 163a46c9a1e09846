/* Congestion-control modules selectable by name (nic.congestion_control). */
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

const struct bn_cc_ops *bn_cc_at(size_t i)
{
    return i < NMODULES ? modules[i] : NULL;
}

const char *bn_cc_name(size_t i)
{
    return i < NMODULES ? modules[i]->name : NULL;
}

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
