/*
 * Cross-field checks, run once after the YAML file and every --set override
 * are applied (single values are already checked by the registry setter).
 * Errors name the key and, when the scenario file gave it, its line:
 * "FILE:LINE: key 'topology.k': must be even (got 7)".
 */
#include <stdio.h>
#include <string.h>

#include "bnet/scenario.h"
#include "link/fc.h"
#include "nic/encap.h"
#include "scenario/keys.h"
#include "core/units.h"
#include "workload/workload.h"

#define K_MAX 256u
#define MTU_MIN 256u

/* Buffer for bn_scenario_where: a path and ":LINE". */
typedef char where_buf[BN_PATH_MAX + 16];

static uint32_t key_line(const struct bn_scenario *sc, const char *path)
{
    const struct bn_key_row *k = bn_scn_find(path);
    return k ? sc->key_line[bn_scn_index(k)] : 0;
}

/* Where `key` was given; a key the file left at its default takes the
 * line of `other` (the key that made it matter), if that one has one, and
 * so does one the command line left alone when it set `other`. */
static const char *where(const struct bn_scenario *sc, const char *key, const char *other,
                         where_buf buf)
{
    uint32_t kl = key_line(sc, key), ol = other ? key_line(sc, other) : 0;
    bool cli_other = ol == BN_SCENARIO_LINE_CLI || ol == BN_SCENARIO_LINE_FLAG;
    bool cli_key = kl == BN_SCENARIO_LINE_CLI || kl == BN_SCENARIO_LINE_FLAG;
    const char *at = other && (!kl || (cli_other && !cli_key)) ? other : key;
    return bn_scenario_where(sc, at, buf, sizeof(where_buf));
}

static int check_k(const struct bn_scenario *sc, struct bn_error *err)
{
    unsigned long k = sc->topology.k;
    where_buf at;
    const char *src = where(sc, "topology.k", NULL, at);
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
    where_buf at;
    if (e->kmin_bytes > e->kmax_bytes)
        return bn_fail(err, BN_EINPUT,
                       "%s: key 'switch.ecn.kmin_bytes': must be <= switch.ecn.kmax_bytes "
                       "(got %llu > %llu)", where(sc, "switch.ecn.kmin_bytes",
                                                 "switch.ecn.kmax_bytes", at),
                       (unsigned long long)e->kmin_bytes, (unsigned long long)e->kmax_bytes);
    return BN_OK;
}

static int check_mtu(const struct bn_scenario *sc, struct bn_error *err)
{
    unsigned long mtu = sc->nic.mtu_bytes;
    const struct bn_encap *e = bn_encap_at(sc->nic.encap);
    where_buf at;
    if (mtu < MTU_MIN || mtu > e->max_mtu)
        return bn_fail(err, BN_EINPUT,
                       "%s: key 'nic.mtu_bytes': must be %u..%u for nic.encap %s (got %lu)",
                       where(sc, "nic.mtu_bytes", "nic.encap", at), MTU_MIN, e->max_mtu,
                       e->name, mtu);
    return BN_OK;
}

/* Link-level flow control belongs to one link layer: InfiniBand credits
 * to the ib encapsulation, Ethernet PFC to roce. */
static int check_link_layer(const struct bn_scenario *sc, struct bn_error *err)
{
    const struct bn_fc_ops *fc = bn_fc_at(sc->link.flow_control);
    const struct bn_encap *e = bn_encap_at(sc->nic.encap);
    if (fc->link_layer == BN_LL_ANY || fc->link_layer == e->link_layer)
        return BN_OK;
    const char *needs = "?";
    for (size_t i = 0; bn_encap_at(i); i++)
        if (bn_encap_at(i)->link_layer == fc->link_layer)
            needs = bn_encap_at(i)->name;
    where_buf at;
    return bn_fail(err, BN_EINPUT, "%s: key 'link.flow_control': '%s' needs nic.encap %s (got %s)",
                   where(sc, "link.flow_control", "nic.encap", at), fc->name, needs, e->name);
}

/* A lossy switch queue must hold one whole frame (as credits must admit
 * one): below that every data packet is dropped, and resent until the run
 * is declared stuck, or with switch.trim cut to its header and resent
 * forever. PFC checks its own, larger, minimum when it sets up. */
static int check_buffer(const struct bn_scenario *sc, struct bn_error *err)
{
    const struct bn_fc_ops *fc = bn_fc_at(sc->link.flow_control);
    const struct bn_encap *e = bn_encap_at(sc->nic.encap);
    uint32_t frame = bn_encap_wire_frame(e, sc->nic.mtu_bytes);
    if (fc->lossless || sc->sw.buffer_bytes >= frame)
        return BN_OK;
    where_buf at;
    return bn_fail(err, BN_EINPUT, "%s: key 'switch.buffer_bytes': %llu bytes cannot hold one "
                   "%u-byte frame (nic.mtu_bytes %lu with %s headers) on %s links%s",
                   where(sc, "switch.buffer_bytes", NULL, at),
                   (unsigned long long)sc->sw.buffer_bytes, frame,
                   (unsigned long)sc->nic.mtu_bytes, e->name, fc->name,
                   sc->sw.trim ? ": every packet would be trimmed and resent forever" : "");
}

static int check_workload(const struct bn_scenario *sc, struct bn_error *err)
{
    const struct bn_scenario_workload *w = &sc->workload;
    where_buf at;
    if (w->incast_senders < 1)
        return bn_fail(err, BN_EINPUT, "%s: key 'workload.incast_senders': must be at least 1 "
                       "(got %lu)", where(sc, "workload.incast_senders", NULL, at),
                       (unsigned long)w->incast_senders);
    const struct bn_workload_ops *ops = bn_workload_at(w->kind);
    if (ops->needs_flow_file && bn_flow_file(sc)[0] == '\0')
        return bn_fail(err, BN_EINPUT, "%s: key 'workload.flow_file': must be set when "
                       "workload.kind is %s", where(sc, "workload.flow_file", "workload.kind", at),
                       ops->name);
    int rc = bn_workload_validate(sc, err); /* each generator's own keys */
    if (rc != BN_OK)
        return bn_scenario_locate(sc, rc, err);
    uint64_t edges[64];
    uint32_t n;
    int bad = bn_parse_size_list(sc->observe.slowdown_edges, edges, 64, &n);
    if (bad)
        return bn_fail(err, BN_EINPUT, "%s: key 'observe.slowdown_edges': item %d of '%s' is not "
                       "a size above the one before (at most 64 sizes: '10K,100K,1M')",
                       where(sc, "observe.slowdown_edges", NULL, at), -bad,
                       sc->observe.slowdown_edges);
    return BN_OK;
}

/* The flow-level engine has no failures and no non-minimal routes; a
 * hybrid run's failures are its packets' (docs/hybrid.md). */
static int check_fidelity(const struct bn_scenario *sc, struct bn_error *err)
{
    where_buf at;
    bool hybrid = sc->sim.fidelity == BN_SC_FIDELITY_HYBRID;
    if (hybrid != (sc->sim.region[0] != '\0'))
        return bn_fail(err, BN_EINPUT, "%s: key 'sim.region': %s",
                       where(sc, "sim.region", "sim.fidelity", at),
                       hybrid ? "sim.fidelity hybrid needs a region where packets run "
                                "(\"hosts:0-15\" or \"switches:tor0,tor1\")"
                              : "a region is for sim.fidelity hybrid");
    if (hybrid && sc->sw.nonminimal != BN_SC_NM_NONE)
        return bn_fail(err, BN_EINPUT, "%s: key 'sim.fidelity': hybrid's flows do not model "
                       "non-minimal routing (switch.nonminimal)",
                       where(sc, "sim.fidelity", "switch.nonminimal", at));
    if (sc->sim.fidelity != BN_SC_FIDELITY_FLOW)
        return BN_OK;
    if (sc->nfaults)
        return bn_fail(err, BN_EINPUT, "%s: key 'sim.fidelity': flow does not model failures "
                       "(faults are given); run them at packet level",
                       where(sc, "sim.fidelity", NULL, at));
    if (sc->sw.nonminimal != BN_SC_NM_NONE)
        return bn_fail(err, BN_EINPUT, "%s: key 'sim.fidelity': flow does not model "
                       "non-minimal routing (switch.nonminimal)",
                       where(sc, "sim.fidelity", "switch.nonminimal", at));
    return BN_OK;
}

/* sim.partitions: the packet engine's windows, in the keyed order (the
 * one that does not depend on the cut: docs/parallel.md). */
static int check_partitions(const struct bn_scenario *sc, struct bn_error *err)
{
    where_buf at;
    if (sc->sim.partitions == 0)
        return BN_OK;
    if (sc->sim.event_order == BN_SC_ORDER_PUSH)
        return bn_fail(err, BN_EINPUT, "%s: key 'sim.event_order': push order depends on when "
                       "frames cross a cut; a partitioned run needs keyed (or auto)",
                       where(sc, "sim.event_order", "sim.partitions", at));
    if (sc->sim.fidelity != BN_SC_FIDELITY_PACKET)
        return bn_fail(err, BN_EINPUT, "%s: key 'sim.partitions': partitions cut the packet "
                       "engine's links; a flow-level or hybrid run has flows no cut splits",
                       where(sc, "sim.partitions", "sim.fidelity", at));
    return BN_OK;
}

/* coll.aggregate: flows of whole connections, so no protocol's slots and
 * no packets (docs/flow_level.md); a PXN relay forwards its stream as it
 * comes (coll_exec.c). */
static int check_aggregate(const struct bn_scenario *sc, struct bn_error *err)
{
    where_buf at;
    if (!sc->coll.aggregate)
        return BN_OK;
    if (sc->sim.fidelity != BN_SC_FIDELITY_FLOW)
        return bn_fail(err, BN_EINPUT, "%s: key 'coll.aggregate': needs sim.fidelity flow "
                       "(--fidelity flow)", where(sc, "coll.aggregate", "sim.fidelity", at));
    if (sc->coll.proto || sc->coll.tuner != BN_SC_TUNER_BNET)
        return bn_fail(err, BN_EINPUT, "%s: key 'coll.aggregate': an NCCL protocol's 8 slots "
                       "per connection are not modelled in aggregate; needs coll.proto auto and "
                       "coll.tuner bnet", where(sc, "coll.aggregate", "coll.proto", at));
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
        rc = check_link_layer(sc, err);
    if (rc == BN_OK)
        rc = check_buffer(sc, err);
    if (rc == BN_OK)
        rc = check_workload(sc, err);
    if (rc == BN_OK)
        rc = check_fidelity(sc, err);
    if (rc == BN_OK)
        rc = check_aggregate(sc, err);
    if (rc == BN_OK)
        rc = check_partitions(sc, err);
    return rc;
}
