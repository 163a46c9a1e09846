/* The load-balancing policies selectable by name (switch.load_balancing). */
#include <string.h>

#include "switch/lb.h"

extern const struct bn_lb_ops bn_lb_ecmp;
extern const struct bn_lb_ops bn_lb_adaptive;
extern const struct bn_lb_ops bn_lb_flowlet;
extern const struct bn_lb_ops bn_lb_spray_random;
extern const struct bn_lb_ops bn_lb_spray_rr;

static const struct bn_lb_ops *const policies[] = {
    &bn_lb_ecmp, &bn_lb_adaptive, &bn_lb_flowlet, &bn_lb_spray_random, &bn_lb_spray_rr,
};

#define NPOLICIES (sizeof policies / sizeof policies[0])

const struct bn_lb_ops *bn_lb_at(size_t i)
{
    return i < NPOLICIES ? policies[i] : NULL;
}

const char *bn_lb_name(size_t i)
{
    return i < NPOLICIES ? policies[i]->name : NULL;
}

const struct bn_lb_ops *bn_lb_find(const char *name)
{
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++)
        if (strcmp(policies[i]->name, name) == 0)
            return policies[i];
    return NULL;
}
