/* ocs_reconfigure: an optical circuit switch moves two circuits, a-b and
 * c-d become a-d and c-b (target "a b c d"); both carry nothing for
 * dark_us while its MEMS mirrors settle, then light on their new peers. */
#include "fault/kind.h"

/* faults[].dark_us */
struct ocs_keys {
    double dark_us;              /* the moved circuits carry nothing this long */
};
BN_FAULT_KEYS_CHECK(struct ocs_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "faults[].dark_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "10000",
      .info.doc = "ocs_reconfigure: how long the circuits being moved carry nothing (MEMS "
                  "mirrors settling).",
      BN_ROW_FAULT_KIND(struct ocs_keys, dark_us), BN_ROW_RANGE(0, 1e9) },
};

static int resolve(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    const struct bn_topo *t = ft->env.t;
    const char *rest = fa->sf->target, *next;
    for (int i = 0; i < 2; i++) {
        uint32_t p = bn_fault_parse_link(t, rest, &next);
        if (p == UINT32_MAX || t->nodes[t->ports[p].node].kind != BN_NODE_SWITCH ||
            t->nodes[t->ports[t->ports[p].peer].node].kind != BN_NODE_SWITCH)
            return bn_fault_bad_target(fa, "two switch-to-switch links expected, 'a b c d' "
                                       "(circuits a-b and c-d become a-d and c-b)", err);
        int rc = bn_fault_add_port(fa, p, err);
        if (rc != BN_OK)
            return rc;
        rest = next;
    }
    if (fa->ports[0] == fa->ports[1] || fa->ports[0] == t->ports[fa->ports[1]].peer)
        return bn_fault_bad_target(fa, "the two circuits must differ", err);
    return BN_OK;
}

/* The circuits a-b and c-d become a-d and c-b (an OCS's new permutation). */
static void rewire(struct bn_faults *ft, const struct fault *fa)
{
    struct bn_topo *t = ft->env.t;
    struct bn_fabric *f = ft->env.f;
    uint32_t a = fa->ports[0], b = t->ports[a].peer, c = fa->ports[1], d = t->ports[c].peer;
    t->ports[a].peer = d;
    t->ports[d].peer = a;
    t->ports[c].peer = b;
    t->ports[b].peer = c;
    f->ports[a].peer = d;
    f->ports[d].peer = a;
    f->ports[c].peer = b;
    f->ports[b].peer = c;
    bn_switches_rewired(ft->env.sw);
}

static int strike(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    bn_fault_schedule(ft, ft->env.f->now + bn_time_from_us(((const struct ocs_keys *)fa->keys)->dark_us), BN_EV_FAULT,
                      (uint32_t)(fa - ft->fault), PH_LIT);
    return bn_fault_hold_all(ft, fa, true, err);
}

static int lit(struct bn_faults *ft, struct fault *fa, uint32_t ph, struct bn_error *err)
{
    (void)ph; /* PH_LIT: its only phase */
    rewire(ft, fa);
    return bn_fault_hold_all(ft, fa, false, err);
}

const struct bn_fault_kind_ops bn_fault_ocs_reconfigure = {
    .name = "ocs_reconfigure",
    .summary = "the target optical circuits swap peers after dark_us",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .ends_itself = true,
    .resolve = resolve,
    .strike = strike,
    .end = bn_fault_end_up,
    .phase = lit,
};
