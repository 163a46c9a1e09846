/*
 * Load-balancing set-up: the policy of every switch tier (switch.
 * load_balancing, then the tiers switch.lb_per_tier names) and the knobs
 * the policies share.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

static int lookup(const struct bn_scenario *sc, const char *name, const char *key,
                  const struct bn_lb_ops **out, struct bn_error *err)
{
    *out = bn_lb_find(name);
    if (!*out)
        return bn_fail(err, BN_EINPUT, "%s: key '%s': unknown policy '%s' (ecmp, adaptive, "
                       "flowlet, spray_random, spray_rr)", sc->source, key, name);
    return BN_OK;
}

/* "1=ecmp 2=adaptive": tier numbers as bn_topo (1 = leaves). */
static int per_tier(const struct bn_scenario *sc, struct bn_lb_config *cfg, struct bn_error *err)
{
    char buf[BN_NAME_MAX], *save = NULL;
    snprintf(buf, sizeof buf, "%s", sc->sw.lb_per_tier);
    for (char *tok = strtok_r(buf, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
        char *eq = strchr(tok, '=');
        char *end = NULL;
        long tier = eq ? strtol(tok, &end, 10) : 0;
        if (!eq || end != eq || tier < 1 || tier > BN_MAX_TIERS)
            return bn_fail(err, BN_EINPUT,
                           "%s: key 'switch.lb_per_tier': '%s' is not TIER=POLICY with TIER 1..%d",
                           sc->source, tok, BN_MAX_TIERS);
        int rc = lookup(sc, eq + 1, "switch.lb_per_tier", &cfg->tier_ops[tier], err);
        if (rc != BN_OK)
            return rc;
    }
    return BN_OK;
}

int bn_sim_build_lb(struct bn_sim *s, struct bn_error *err)
{
    const struct bn_scenario *sc = s->sc;
    struct bn_lb_config cfg = {
        .hash_fields = strcmp(sc->sw.ecmp_fields, "dst") == 0       ? BN_HASH_DST
                       : strcmp(sc->sw.ecmp_fields, "entropy") == 0 ? BN_HASH_ENTROPY
                                                                     : BN_HASH_DST | BN_HASH_ENTROPY,
        .same_salt = strcmp(sc->sw.ecmp_salt, "same") == 0,
        .ar_metric = strcmp(sc->sw.ar_metric, "load") == 0 ? BN_AR_LOAD : BN_AR_QUEUE,
        .flowlet_gap = bn_time_from_us(sc->sw.flowlet_gap_us),
        .flowlet_slots = sc->sw.flowlet_slots,
    };
    const struct bn_lb_ops *all;
    int rc = lookup(sc, sc->sw.load_balancing, "switch.load_balancing", &all, err);
    for (uint32_t t = 0; t <= BN_MAX_TIERS; t++)
        cfg.tier_ops[t] = all;
    if (rc == BN_OK)
        rc = per_tier(sc, &cfg, err);
    if (rc == BN_OK && bn_switches_init(&s->sw, &s->fab, &s->routes, &s->topo, &cfg, sc->seed) != 0)
        rc = bn_fail(err, BN_ENOMEM, "out of memory for switch state");
    uint8_t nm = strcmp(sc->sw.nonminimal, "valiant") == 0 ? BN_NM_VALIANT
                 : strcmp(sc->sw.nonminimal, "ugal") == 0  ? BN_NM_UGAL
                                                            : BN_NM_NONE;
    if (rc == BN_OK && bn_groups_init(&s->sw.groups, &s->topo, nm) != 0)
        rc = bn_fail(err, BN_ENOMEM, "out of memory for switch groups");
    if (rc == BN_OK)
        bn_switches_enable_memo(&s->sw, nm == BN_NM_NONE &&
                                            strcmp(sc->nic.entropy, "per_packet") != 0);
    return rc;
}
