/* The load-balancing policies selectable by name (switch.load_balancing). */
#include <string.h>

#include "switch/lb.h"

extern const struct bn_lb_ops bn_lb_ecmp;

static const struct bn_lb_ops *const policies[] = {
    &bn_lb_ecmp,
};

const struct bn_lb_ops *bn_lb_find(const char *name)
{
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++)
        if (strcmp(policies[i]->name, name) == 0)
            return policies[i];
    return NULL;
}
