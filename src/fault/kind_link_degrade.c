/* link_degrade: a link runs at rate_gbps, as a port that lost lanes
 * (a 400G port on half its lanes runs at 200G) or trained down; it loses
 * no frame, so nothing reroutes and its traffic is not told apart. */
#include <stdlib.h>

#include "fault/kind.h"
#include "link/impair.h"

extern const struct bn_fault_kind_ops bn_fault_link_degrade;

/* faults[].rate_gbps (nic_degrade's too: it borrows it) */
struct degrade_keys {
    double rate_gbps;            /* the rate the link falls to */
};
BN_FAULT_KEYS_CHECK(struct degrade_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "faults[].rate_gbps", BN_ROW_FLOAT, .info.unit = "Gb/s", .info.def = "0",
      .info.doc = "link_degrade, nic_degrade: the rate the link falls to (e.g. 200 for a 400G "
                  "port with half its lanes).",
      BN_ROW_FAULT_KIND(struct degrade_keys, rate_gbps), BN_ROW_RANGE(0, 1e6) },
};

/* The rate key, in link_degrade's block of the item whatever its kind. */
static const struct degrade_keys *rate_keys(const struct bn_scenario_fault *sf)
{
    return bn_fault_keys(sf, &bn_fault_link_degrade);
}

int bn_fault_rate_validate(const struct bn_scenario_fault *sf, const char *src, uint32_t index,
                           const char *kind, const char *what, struct bn_error *err)
{
    if (rate_keys(sf)->rate_gbps < 0.001)
        return bn_fail(err, BN_EINPUT, "%s: key 'faults[%u].rate_gbps': %s needs the rate %s "
                       "(>= 0.001 Gb/s)", src, index, kind, what);
    return BN_OK;
}

static int validate(const struct bn_scenario_fault *sf, const void *keys_, const char *src,
                    uint32_t index, struct bn_error *err)
{
    (void)keys_;
    return bn_fault_rate_validate(sf, src, index, "link_degrade", "the link falls to", err);
}

/* fa's links at rate_gbps (degraded), or back at their own rate. */
static int set_rate(struct bn_faults *ft, struct fault *fa, bool degraded, struct bn_error *err)
{
    struct bn_fabric *f = ft->env.f;
    if (!ft->rate0 && !(ft->rate0 = calloc(f->nports + 1, sizeof *ft->rate0)))
        return bn_fail(err, BN_ENOMEM, "out of memory for faults");
    for (uint32_t i = 0; i < fa->nports; i++) {
        uint32_t p = fa->ports[i];
        if (!ft->rate0[p])
            ft->rate0[p] = f->ports[p].rate_bps;
        if (!ft->rate0[f->ports[p].peer])
            ft->rate0[f->ports[p].peer] = f->ports[f->ports[p].peer].rate_bps;
        uint64_t to = degraded ? (uint64_t)(rate_keys(fa->sf)->rate_gbps * 1e9 + 0.5)
                               : ft->rate0[p];
        bn_link_set_rate(f, p, to, !fa->one_way);
    }
    return BN_OK;
}

int bn_fault_rate_strike(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    fa->planned = true; /* nothing to reroute: converged at once */
    fa->converged = fa->at;
    return set_rate(ft, fa, true, err);
}

int bn_fault_rate_end(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    return set_rate(ft, fa, false, err);
}

const struct bn_fault_kind_ops bn_fault_link_degrade = {
    .name = "link_degrade",
    .summary = "the target link runs at rate_gbps, lanes lost",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .loses_nothing = true,
    .validate = validate,
    .resolve = bn_fault_resolve_link,
    .strike = bn_fault_rate_strike,
    .end = bn_fault_rate_end,
};
