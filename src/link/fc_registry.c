/* Flow-control modules selectable by name (link.flow_control). */
#include <string.h>

#include "link/fabric.h"

extern const struct bn_fc_ops bn_fc_lossy;
extern const struct bn_fc_ops bn_fc_credit;
extern const struct bn_fc_ops bn_fc_pfc;

static const struct bn_fc_ops *const modules[] = {
    &bn_fc_lossy,
    &bn_fc_credit,
    &bn_fc_pfc,
};

const struct bn_fc_ops *bn_fc_find(const char *name)
{
    for (size_t i = 0; i < sizeof modules / sizeof modules[0]; i++)
        if (strcmp(modules[i]->name, name) == 0)
            return modules[i];
    return NULL;
}
