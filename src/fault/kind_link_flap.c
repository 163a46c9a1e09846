/* link_flap: a link goes down for down_us, up for up_us, again, until
 * until_us (a loose connector or an optic on the edge of its budget). */
#include "fault/kind.h"
#include "link/impair.h"

/* faults[].down_us, faults[].up_us */
struct flap_keys {
    double down_us, up_us;       /* each down and up period */
};
BN_FAULT_KEYS_CHECK(struct flap_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "faults[].down_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "0",
      .info.doc = "link_flap: each down period.",
      BN_ROW_FAULT_KIND(struct flap_keys, down_us), BN_ROW_RANGE(0, 1e9) },
    { .info.path = "faults[].up_us", BN_ROW_FLOAT, .info.unit = "us", .info.def = "0",
      .info.doc = "link_flap: each up period between.",
      BN_ROW_FAULT_KIND(struct flap_keys, up_us), BN_ROW_RANGE(0, 1e9) },
};

static const struct flap_keys *flap(const struct fault *fa) { return fa->keys; }

static int validate(const struct bn_scenario_fault *sf, const void *keys_, const char *src,
                    uint32_t index, struct bn_error *err)
{
    const struct flap_keys *k = keys_;
    if (k->down_us <= 0 || k->up_us <= 0)
        return bn_fail(err, BN_EINPUT, "%s: key 'faults[%u].down_us': a flap needs down_us and "
                       "up_us above 0", src, index);
    if (sf->until_us <= 0)
        return bn_fail(err, BN_EINPUT, "%s: key 'faults[%u].until_us': a flap needs an end "
                       "(until_us)", src, index);
    return BN_OK;
}

static int strike(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    fa->flaps++;
    bn_fault_later(ft, fa, ft->env.f->now + bn_time_from_us(flap(fa)->down_us), PH_FLAP_UP);
    return bn_fault_hold_all(ft, fa, true, err);
}

static int end(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    return ft->down[fa->ports[0]] && bn_link_is_down(ft->env.f, fa->ports[0])
               ? bn_fault_hold_all(ft, fa, false, err)
               : BN_OK;
}

static int phase(struct bn_faults *ft, struct fault *fa, uint32_t ph, struct bn_error *err)
{
    if (ph == PH_FLAP_UP) {
        bn_fault_later(ft, fa, ft->env.f->now + bn_time_from_us(flap(fa)->up_us), PH_FLAP_DOWN);
        return bn_fault_hold_all(ft, fa, false, err);
    }
    fa->flaps++;
    bn_fault_later(ft, fa, ft->env.f->now + bn_time_from_us(flap(fa)->down_us), PH_FLAP_UP);
    return bn_fault_hold_all(ft, fa, true, err);
}

const struct bn_fault_kind_ops bn_fault_link_flap = {
    .name = "link_flap",
    .summary = "the target link goes down for down_us, up for up_us, again",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .validate = validate,
    .resolve = bn_fault_resolve_link,
    .strike = strike,
    .end = end,
    .phase = phase,
};
