/* Flow-control modules selectable by name (link.flow_control). */

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

const struct bn_fc_ops *bn_fc_at(size_t i)
{
    return i < NMODULES ? modules[i] : NULL;
}

const char *bn_fc_name(size_t i)
{
    return i < NMODULES ? modules[i]->name : NULL;
}
