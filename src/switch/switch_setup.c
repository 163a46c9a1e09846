/*
 * Switch set-up from the scenario: the policy of every tier
 * (switch.load_balancing, then the tiers switch.lb_per_tier names), each
 * switch's salt, random stream and policy state (set up by the policy from
 * its own keys), the salts alone where every switch hashes, Dragonfly+
 * groups for non-minimal routing, and whether flows' paths are memoized.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bigmem.h"
#include "switch/switch.h"

/* "1=ecmp 2=adaptive": tier numbers as bn_topo (1 = leaves). */
static int per_tier(const struct bn_scenario *sc, const struct bn_lb_ops **tier_ops,
                    struct bn_error *err)
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
        tier_ops[tier] = bn_lb_find(eq + 1);
        if (!tier_ops[tier]) {
            char names[160] = "";
            for (size_t i = 0, at = 0; bn_lb_name(i) && at < sizeof names; i++)
                at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", i ? ", " : "",
                                       bn_lb_name(i));
            return bn_fail(err, BN_EINPUT, "%s: key 'switch.lb_per_tier': unknown policy '%s' "
                           "(%s)", sc->source, eq + 1, names);
        }
    }
    return BN_OK;
}

static size_t priv_size(const struct bn_lb_ops *ops, const struct bn_scenario *sc)
{
    return ops->priv_size ? (ops->priv_size(sc) + 7) & ~(size_t)7 : 0;
}

/* Every switch's policy state, in one block. */
static int setup_policies(struct bn_switches *s, const struct bn_scenario *sc)
{
    size_t total = 0;
    for (uint32_t i = 0; i < s->routes->nswitches; i++)
        total += priv_size(s->state[i].ops, sc);
    if (!total)
        return 0;
    char *block = bn_big_calloc(total + 1, 1);
    if (!block)
        return -1;
    s->lb_priv = block;
    for (uint32_t i = 0; i < s->routes->nswitches; i++) {
        struct bn_lb_switch_state *st = &s->state[i];
        size_t n = priv_size(st->ops, sc);
        st->priv = n ? block : NULL;
        if (n && st->ops->setup)
            st->ops->setup(block, sc);
        block += n;
    }
    return 0;
}

static int setup_state(struct bn_switches *s, const struct bn_topo *t,
                       const struct bn_lb_ops *const *tier_ops, const struct bn_scenario *sc)
{
    const struct bn_routes *r = s->routes;
    bool same_salt = sc->sw.ecmp_salt == BN_SC_SALT_SAME, hashes = true;
    s->state = calloc(r->nswitches + 1, sizeof *s->state);
    if (!s->state)
        return -1;
    for (uint32_t i = 0; i < r->nswitches; i++) {
        struct bn_lb_switch_state *st = &s->state[i];
        uint32_t node = r->first_switch + i;
        st->ops = tier_ops[t->nodes[node].tier];
        st->salt = bn_mix64(bn_mix64(sc->seed) ^ bn_mix64(BN_STREAM_SWITCH + (same_salt ? 0 : node)));
        bn_rng_init(&st->rng, sc->seed, BN_STREAM_SWITCH + node);
        hashes &= st->ops->hashes;
    }
    if (hashes) {
        s->hash_salt = malloc((r->nswitches + 1) * sizeof *s->hash_salt);
        if (!s->hash_salt)
            return -1;
        for (uint32_t i = 0; i < r->nswitches; i++)
            s->hash_salt[i] = s->state[i].salt;
    }
    return setup_policies(s, sc);
}

static const uint8_t hash_fields[] = {
    [BN_SC_HASH_DST_ENTROPY] = BN_HASH_DST | BN_HASH_ENTROPY,
    [BN_SC_HASH_DST] = BN_HASH_DST,
    [BN_SC_HASH_ENTROPY] = BN_HASH_ENTROPY,
};

static const uint8_t nonminimal[] = {
    [BN_SC_NM_NONE] = BN_NM_NONE, [BN_SC_NM_VALIANT] = BN_NM_VALIANT, [BN_SC_NM_UGAL] = BN_NM_UGAL,
};

int bn_switches_init(struct bn_switches *s, struct bn_fabric *f, const struct bn_routes *r,
                     const struct bn_topo *t, const struct bn_host_route *host_route,
                     const struct bn_scenario *sc, struct bn_error *err)
{
    memset(s, 0, sizeof *s);
    s->routes = r;
    s->topo = t;
    s->host_route = host_route;
    s->scaleup_first = s->agg_first = UINT32_MAX;
    s->ctx = (struct bn_lb_ctx){.f = f, .hash_fields = hash_fields[sc->sw.ecmp_fields]};
    const struct bn_lb_ops *tier_ops[BN_MAX_TIERS + 1];
    const struct bn_lb_ops *all = bn_lb_at(sc->sw.load_balancing);
    if (!all) /* the scenario's setter checked it */
        return bn_fail(err, BN_EINTERNAL, "switch.load_balancing: no policy %u",
                       sc->sw.load_balancing);
    for (uint32_t i = 0; i <= BN_MAX_TIERS; i++)
        tier_ops[i] = all;
    int rc = per_tier(sc, tier_ops, err);
    if (rc != BN_OK)
        return rc;
    uint8_t nm = nonminimal[sc->sw.nonminimal];
    if (setup_state(s, t, tier_ops, sc) != 0 || bn_groups_init(&s->groups, t, nm) != 0)
        return bn_fail(err, BN_ENOMEM, "out of memory for switch state");
    bool memo = nm == BN_NM_NONE && sc->nic.entropy != BN_SC_PER_PACKET;
    for (uint32_t i = 0; memo && i < r->nswitches; i++)
        memo = s->state[i].ops->pure;
    s->memo_on = memo;
    return BN_OK;
}
