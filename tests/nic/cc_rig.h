/*
 * A window-based congestion-control module alone (tests/nic/test_*.c): one
 * queue pair on a 100 Gb/s NIC with a 4096-byte MTU, the module set up by
 * its own hook from the given keys, as the NIC layer sets it up; the
 * fabric's longest round trip 12 us.
 */
#ifndef BN_TESTS_CC_RIG_H
#define BN_TESTS_CC_RIG_H

#include "support.h"

#include "nic/nic.h"

struct rig {
    struct bn_fabric f;
    struct bn_nics n;
    struct bn_qp qp;
    struct bn_nic nic;
    void *params;                 /* params_size bytes, as the NIC layer gives them */
    const struct bn_cc_ops *cc;
};

/* sets: NULL-terminated "key=value" lines, nic.congestion_control first. */
static inline void rig_setup(struct rig *r, const char *const *sets, const char *module)
{
    memset(r, 0, sizeof *r);
    struct bn_scenario sc;
    struct bn_error err;
    bn_scenario_defaults(&sc);
    for (size_t i = 0; sets[i]; i++)
        assert_int_equal(bn_scenario_set(&sc, sets[i], &err), BN_OK);
    r->n.fab = &r->f;
    r->n.mtu = 4096;
    r->n.ack_every = 1;
    r->n.fabric_rtt = 12000000;
    r->nic.line_bps = 100000000000ULL;
    r->n.nic = &r->nic;
    r->cc = bn_cc_at(sc.nic.congestion_control);
    assert_string_equal(r->cc->name, module);
    bn_time_t cnp = 1;
    r->params = calloc(1, r->cc->params_size);
    assert_non_null(r->params);
    assert_int_equal(r->cc->setup(bn_cc_keys(&sc, sc.nic.congestion_control), sc.source, 100,
                                  r->params, &cnp, &err), BN_OK);
    r->n.cc_params = r->params;
    r->n.cc = r->cc;
    r->cc->init(&r->n, &r->qp);
}

static inline double rig_cwnd(struct rig *r) { return r->cc->window(&r->n, &r->qp); }

/* An ACK at the rig's clock: marked or not, with a round-trip sample (0: none). */
static inline void rig_ack(struct rig *r, bool ece, double rtt_us)
{
    r->cc->on_ack(&r->n, &r->qp, ece, (bn_time_t)(rtt_us * 1e6));
}

#endif
