/* random_links: `count` distinct uplinks of tier `tier`'s nodes go down,
 * drawn from the run's seed (a partial Fisher-Yates shuffle), as a
 * failure study over many placements does. */
#include <stdlib.h>

#include "core/rng.h"
#include "fault/kind.h"

/* faults[].count, faults[].tier */
struct random_keys {
    uint32_t count;              /* how many links */
    uint32_t tier;               /* uplinks of this tier's nodes (0: hosts') */
};
BN_FAULT_KEYS_CHECK(struct random_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "faults[].count", BN_ROW_INT, .info.unit = "links", .info.def = "1",
      .info.doc = "random_links: how many distinct links fail (drawn from the run's seed).",
      BN_ROW_FAULT_KIND(struct random_keys, count), BN_ROW_RANGE(1, 1000000) },
    { .info.path = "faults[].tier", BN_ROW_INT, .info.unit = "tier", .info.def = "1",
      .info.doc = "random_links: draw among the uplinks of this tier's nodes (0 = hosts' links, "
                  "1 = leaves' uplinks, 2 = spines' uplinks to cores).",
      BN_ROW_FAULT_KIND(struct random_keys, tier), BN_ROW_RANGE(0, 3) },
};

static int resolve(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    const struct bn_topo *t = ft->env.t;
    const struct random_keys *k = fa->keys;
    uint32_t *cand = malloc(((size_t)t->nports + 1) * sizeof *cand), n = 0;
    if (!cand)
        return bn_fail(err, BN_ENOMEM, "out of memory for faults");
    for (uint32_t p = 0; p < t->nports; p++) {
        uint32_t a = t->ports[p].node, b = t->ports[t->ports[p].peer].node;
        if (bn_fault_backend_link(t, p) && t->nodes[a].tier == k->tier &&
            t->nodes[b].tier > t->nodes[a].tier)
            cand[n++] = p;
    }
    int rc = BN_OK;
    if (n < k->count)
        rc = bn_fail(err, BN_EINPUT, "%s: key 'faults[%u].count': %u links asked, tier %u has %u "
                     "uplinks", ft->env.sc->source, fa->index, k->count, k->tier, n);
    struct bn_rng rng;
    bn_rng_init(&rng, ft->env.sc->seed, BN_STREAM_FAULT | fa->index);
    for (uint32_t i = 0; i < k->count && rc == BN_OK; i++) { /* partial Fisher-Yates */
        uint32_t j = i + (uint32_t)bn_rng_below(&rng, n - i), p = cand[j];
        cand[j] = cand[i];
        cand[i] = p;
        rc = bn_fault_add_port(fa, p, err);
    }
    free(cand);
    return rc;
}

const struct bn_fault_kind_ops bn_fault_random_links = {
    .name = "random_links",
    .summary = "`count` random links above tier `tier` go down, seeded",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .draws_links = true,
    .resolve = resolve,
    .strike = bn_fault_strike_down,
    .end = bn_fault_end_up,
};
