/* The control planes' registry (routing.control_plane). */
#include "fault/fault.h"

extern const struct bn_cp_ops bn_cp_none, bn_cp_local;

static const struct bn_cp_ops *const planes[] = {
    &bn_cp_none,
    &bn_cp_local,
    &bn_cp_ib_sm,
    &bn_cp_ethernet,
};

const struct bn_cp_ops *bn_cp_at(size_t i)
{
    return i < sizeof planes / sizeof planes[0] ? planes[i] : NULL;
}

const char *bn_cp_name(size_t i)
{
    const struct bn_cp_ops *cp = bn_cp_at(i);
    return cp ? cp->name : NULL;
}
