/* link_ber: a link corrupts frames at bit-error rate ber (a dirty or
 * marginal optic); a frame of b bits is lost with 1 - (1 - ber)^b
 * (link/impair.h). */
#include "fault/kind.h"
#include "link/impair.h"

/* faults[].ber */
struct ber_keys {
    double ber;                  /* bit-error rate (errors per bit, 0..1) */
};
BN_FAULT_KEYS_CHECK(struct ber_keys);

static const struct bn_key_row keys[] = {
    { .info.path = "faults[].ber", BN_ROW_FLOAT, .info.unit = "", .info.def = "0",
      .info.doc = "link_ber: bit-error rate; a frame of b bits is dropped with probability "
                  "1 - (1 - ber)^b.",
      BN_ROW_FAULT_KIND(struct ber_keys, ber), BN_ROW_RANGE(0, 1) },
};

static int validate(const struct bn_scenario_fault *sf, const void *keys_, const char *src,
                    uint32_t index, struct bn_error *err)
{
    const struct ber_keys *k = keys_;
    (void)sf;
    if (k->ber <= 0)
        return bn_fail(err, BN_EINPUT, "%s: key 'faults[%u].ber': link_ber needs a bit-error rate "
                       "above 0", src, index);
    return BN_OK;
}

static int strike(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    fa->planned = true;
    fa->converged = fa->at;
    return bn_link_set_ber(ft->env.f, fa->ports[0], ((const struct ber_keys *)fa->keys)->ber, ft->env.sc->seed, err);
}

static int end(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    return bn_link_set_ber(ft->env.f, fa->ports[0], 0, ft->env.sc->seed, err);
}

const struct bn_fault_kind_ops bn_fault_link_ber = {
    .name = "link_ber",
    .summary = "the target link corrupts frames at bit-error rate ber",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .validate = validate,
    .resolve = bn_fault_resolve_link,
    .strike = strike,
    .end = end,
};
