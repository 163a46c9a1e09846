/* The fault kinds' registry (faults[].kind stores the index: keep the order). */
#include <stdlib.h>

#include "fault/kind.h"

extern const struct bn_fault_kind_ops bn_fault_link_down, bn_fault_link_degrade,
    bn_fault_link_ber, bn_fault_link_flap, bn_fault_switch_down, bn_fault_nic_down,
    bn_fault_random_links, bn_fault_ocs_reconfigure, bn_fault_nic_degrade;

static const struct bn_fault_kind_ops *const kinds[] = {
    &bn_fault_link_down,   &bn_fault_link_degrade, &bn_fault_link_ber,
    &bn_fault_link_flap,   &bn_fault_switch_down,  &bn_fault_nic_down,
    &bn_fault_random_links, &bn_fault_ocs_reconfigure, &bn_fault_nic_degrade,
};

const struct bn_fault_kind_ops *bn_fault_kind_at(size_t i)
{
    return i < sizeof kinds / sizeof kinds[0] ? kinds[i] : NULL;
}

/* The registry's room: a block in each faults[] item per kind. */
_Static_assert(sizeof kinds / sizeof kinds[0] <= BN_SC_FAULT_KINDS_MAX,
               "a faults[] item has no block for every kind");

const void *bn_fault_keys(const struct bn_scenario_fault *sf, const struct bn_fault_kind_ops *k)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i] == k)
            return &sf->kinds[i];
    abort(); /* not a registered kind: a bug */
}

/* faults[].kind's doc: each kind's name and summary, in registry order (a
 * constant for the key's row: tests/scenario/test_module_keys.c fails when
 * it and the summaries disagree). */
const char bn_fault_kind_doc[] =
    "What fails (a list item of faults:, at most 16): link_down (the target link goes "
    "down), link_degrade (the target link runs at rate_gbps, lanes lost), link_ber (the "
    "target link corrupts frames at bit-error rate ber), link_flap (the target link goes "
    "down for down_us, up for up_us, again), switch_down (every link of the target switch "
    "goes down), nic_down (the target host's backend link goes down), random_links (`count` "
    "random links above tier `tier` go down, seeded), ocs_reconfigure (the target optical "
    "circuits swap peers after dark_us), nic_degrade (the target host's backend link runs "
    "at rate_gbps, reduced width).";

const char *bn_fault_kind_name(size_t i)
{
    const struct bn_fault_kind_ops *k = bn_fault_kind_at(i);
    return k ? k->name : NULL;
}

const char *bn_fault_kind_summary(size_t i)
{
    const struct bn_fault_kind_ops *k = bn_fault_kind_at(i);
    return k ? k->summary : NULL;
}

static const struct bn_key_row *rows_of(size_t i, size_t *nrows)
{
    *nrows = kinds[i]->nkeys;
    return kinds[i]->keys;
}

const struct bn_key_modules bn_fault_kind_key_modules = {sizeof kinds / sizeof kinds[0], rows_of,
                                                         NULL};
