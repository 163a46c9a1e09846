/*
 * Cross-field checks, run once after the YAML file and every --set override
 * are applied (single values are already checked by the registry setter).
 * Errors name the key: "SOURCE: key 'topology.k': must be even (got 7)".
 */
#include <stdio.h>
#include <string.h>

#include "bnet/scenario.h"

#define K_MAX 256u
#define MTU_MIN 256u
#define MTU_MAX_ROCE 9000u
#define MTU_MAX_IB 4096u

static const char *source_of(const struct bn_scenario *sc)
{
    return sc->source[0] ? sc->source : "<scenario>";
}

static int check_k(const struct bn_scenario *sc, struct bn_error *err)
{
    unsigned long k = sc->topology.k;
    const char *src = source_of(sc);
    if (k < 2)
        return bn_fail(err, BN_EINPUT, "%s: key 'topology.k': must be at least 2 (got %lu)", src, k);
    if (k % 2 != 0)
        return bn_fail(err, BN_EINPUT, "%s: key 'topology.k': must be even (got %lu)", src, k);
    if (k > K_MAX)
        return bn_fail(err, BN_EINPUT, "%s: key 'topology.k': must be at most %u (got %lu)",
                       src, K_MAX, k);
    return BN_OK;
}

static int check_ecn(const struct bn_scenario *sc, struct bn_error *err)
{
    const struct bn_scenario_ecn *e = &sc->sw.ecn;
    if (e->kmin_bytes > e->kmax_bytes)
        return bn_fail(err, BN_EINPUT,
                       "%s: key 'switch.ecn.kmin_bytes': must be <= switch.ecn.kmax_bytes "
                       "(got %llu > %llu)", source_of(sc),
                       (unsigned long long)e->kmin_bytes, (unsigned long long)e->kmax_bytes);
    return BN_OK;
}

static int check_mtu(const struct bn_scenario *sc, struct bn_error *err)
{
    unsigned long mtu = sc->nic.mtu_bytes;
    bool ib = strcmp(sc->nic.encap, "ib") == 0;
    unsigned max = ib ? MTU_MAX_IB : MTU_MAX_ROCE;
    if (mtu < MTU_MIN || mtu > max)
        return bn_fail(err, BN_EINPUT,
                       "%s: key 'nic.mtu_bytes': must be %u..%u for nic.encap %s (got %lu)",
                       source_of(sc), MTU_MIN, max, ib ? "ib" : "roce", mtu);
    return BN_OK;
}

static int check_workload(const struct bn_scenario *sc, struct bn_error *err)
{
    const struct bn_scenario_workload *w = &sc->workload;
    if (w->incast_senders < 1)
        return bn_fail(err, BN_EINPUT, "%s: key 'workload.incast_senders': must be at least 1 "
                       "(got %lu)", source_of(sc), (unsigned long)w->incast_senders);
    if (strcmp(w->kind, "flow_list") == 0 && w->flow_file[0] == '\0')
        return bn_fail(err, BN_EINPUT, "%s: key 'workload.flow_file': must be set when "
                       "workload.kind is flow_list", source_of(sc));
    return BN_OK;
}

int bn_scenario_validate(const struct bn_scenario *sc, struct bn_error *err)
{
    int rc = check_k(sc, err);
    if (rc == BN_OK)
        rc = check_ecn(sc, err);
    if (rc == BN_OK)
        rc = check_mtu(sc, err);
    if (rc == BN_OK)
        rc = check_workload(sc, err);
    return rc;
}
