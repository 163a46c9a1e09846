/* Congestion-control modules selectable by name (nic.congestion_control). */
#include <string.h>

#include "nic/nic.h"

extern const struct bn_cc_ops bn_cc_none;
extern const struct bn_cc_ops bn_cc_dcqcn;
extern const struct bn_cc_ops bn_cc_ib;
extern const struct bn_cc_ops bn_cc_nscc;

static const struct bn_cc_ops *const modules[] = {
    &bn_cc_none,
    &bn_cc_dcqcn,
    &bn_cc_ib,
    &bn_cc_nscc,
};

const struct bn_cc_ops *bn_cc_find(const char *name)
{
    for (size_t i = 0; i < sizeof modules / sizeof modules[0]; i++)
        if (strcmp(modules[i]->name, name) == 0)
            return modules[i];
    return NULL;
}
