/*
 * Rail-optimized fabric, as in NVIDIA's DGX SuperPOD reference designs: a
 * scalable unit (SU) is S servers of G GPUs, one NIC per GPU; NIC i of every
 * server in an SU plugs into rail leaf i of that SU ("each GPU rail onto a
 * different first level switch", NVIDIA InfiniBand Cluster Bring-up), so
 * same-index GPUs are one switch hop apart and cross-rail traffic goes over
 * NVLink first. Each GPU is a host here.
 *
 * Radix-k switches. A leaf has S host ports and u = S/r uplinks
 * (topology.oversubscription). While the L = G x SUs leaves fit one spine's
 * radix (L <= k) the fabric has two tiers: L*u/k spines, leaf uplinks dealt
 * round-robin so each leaf reaches every spine. Beyond, three tiers: pods of
 * Lp leaves and u spines (a spine splits its radix Lp down : u2 up by
 * topology.agg_oversubscription), and u planes of cores, spine j of every
 * pod spreading its u2 uplinks over the c = ceil(pods*u2/k) cores of plane
 * j. With k = 64, G = 8, S = 32 this gives the B200 SuperPOD table
 * (DGX SuperPOD B200 RA, docs.nvidia.com/dgx-superpod): 4 SU = 32 leaves, 16
 * spines; 16 SU = 128 leaves, 128 spines, 64 cores; 64 SU = 512/512/256.
 */
#include "core/fail_key.h"
#include "topo/topo.h"

/* Its keys (topology.*), in its block of the scenario. */
struct rail_keys {
    uint32_t servers_per_su; /* servers per scalable unit */
    uint32_t scalable_units; /* number of SUs */
};
BN_TOPO_KEYS_CHECK(struct rail_keys);

#define KEY(m) BN_ROW_TOPO(struct rail_keys, m)
static const struct bn_key_row keys[] = {
    { .info.path = "topology.servers_per_su", BN_ROW_INT, .info.unit = "servers",
      .info.def = "32", .info.doc = "rail_optimized: servers per scalable unit (SU).",
      KEY(servers_per_su), BN_ROW_RANGE(1, 4096) },
    { .info.path = "topology.scalable_units", BN_ROW_INT, .info.unit = "SUs", .info.def = "4",
      .info.doc = "rail_optimized: number of scalable units; two tiers while the rail leaves "
                  "fit one spine's radix, else three (cores).",
      KEY(scalable_units), BN_ROW_RANGE(1, 4096) },
};

struct rail_shape {
    uint32_t gpus, leaves, up;                    /* leaf uplinks */
    uint32_t spines;                              /* all spines */
    uint32_t pods, lpp, u2, plane, cores;         /* three tiers only (pods > 0) */
};

static int shape(const struct bn_scenario *sc, struct rail_shape *r, struct bn_error *err)
{
    const struct bn_scenario_topology *tp = &sc->topology;
    const struct rail_keys *rk = bn_topo_keys(sc);
    uint32_t k = tp->k, s = rk->servers_per_su;
    double u = s / tp->oversubscription;
    *r = (struct rail_shape){0};
    r->up = (uint32_t)(u + 0.5);
    if (r->up < 1 || u - r->up > 1e-9 || r->up - u > 1e-9)
        return bn_fail_key(err, BN_EINPUT, "topology.oversubscription", "%g does not divide "
                           "the %u servers of an SU into whole leaf uplinks",
                           tp->oversubscription, s);
    if (s + r->up > k)
        return bn_fail_key(err, BN_EINPUT, "topology.k", "a rail leaf needs %u host ports + "
                           "%u uplinks, more than its radix %u", s, r->up, k);
    r->gpus = tp->gpus_per_server * s * rk->scalable_units;
    r->leaves = tp->gpus_per_server * rk->scalable_units;
    if (r->leaves <= k) {
        if ((r->leaves * r->up) % k != 0)
            return bn_fail_key(err, BN_EINPUT, "topology.scalable_units", "%u leaves x %u "
                               "uplinks do not fill whole radix-%u spines",
                               r->leaves,
                               r->up, k);
        r->spines = r->leaves * r->up / k;
        return BN_OK;
    }
    int rc = bn_topo_split_ports(sc, "topology.agg_oversubscription", k,
                                 tp->agg_oversubscription, &r->lpp, &r->u2, err);
    if (rc != BN_OK)
        return rc;
    r->pods = (r->leaves + r->lpp - 1) / r->lpp;
    r->spines = r->pods * r->up;
    r->plane = (r->pods * r->u2 + k - 1) / k;
    r->cores = r->up * r->plane;
    uint32_t per_core = r->pods * ((r->u2 + r->plane - 1) / r->plane);
    if (r->pods > k || per_core > k)
        return bn_fail_key(err, BN_EINPUT, "topology.scalable_units", "%u pods of %u leaves "
                           "exceed what radix-%u cores can join",
                           r->pods, r->lpp, k);
    return BN_OK;
}

static int build(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err)
{
    struct rail_shape r;
    int rc = shape(sc, &r, err);
    if (rc != BN_OK)
        return rc;
    uint32_t links = r.gpus + r.leaves * r.up + r.spines * (r.pods ? r.u2 : 0);
    rc = bn_topo_alloc(t, r.gpus, r.leaves + r.spines + r.cores, links, err);
    if (rc != BN_OK)
        return rc;
    t->radix = sc->topology.k;
    t->tier_name[1] = "leaf";
    t->tier_name[2] = "spine";
    t->tier_name[3] = "core";
    uint32_t leaf0 = r.gpus, spine0 = leaf0 + r.leaves, core0 = spine0 + r.spines;
    for (uint32_t i = 0; i < r.leaves; i++)
        bn_topo_set_switch(t, leaf0 + i, 1);
    for (uint32_t i = 0; i < r.spines; i++)
        bn_topo_set_switch(t, spine0 + i, 2);
    for (uint32_t i = 0; i < r.cores; i++)
        bn_topo_set_switch(t, core0 + i, 3);

    const struct bn_scenario_link *lk = &sc->link;
    double fab = bn_topo_fabric_rate(sc);
    uint8_t hc = lk->host_cable, fc = lk->fabric_cable;
    /* host = (su * S + server) * G + gpu; its rail leaf = su * G + gpu */
    const struct rail_keys *rk = bn_topo_keys(sc);
    uint32_t g = sc->topology.gpus_per_server, per_su = g * rk->servers_per_su;
    for (uint32_t x = 0; x < r.gpus; x++)
        bn_topo_connect(t, x, leaf0 + (x / per_su) * g + x % g, lk->rate_gbps, lk->host_cable_m,
                        hc);
    for (uint32_t l = 0; l < r.leaves; l++) {
        for (uint32_t j = 0; j < r.up; j++) {
            uint32_t sp = r.pods ? (l / r.lpp) * r.up + j : (l * r.up + j) % r.spines;
            bn_topo_connect(t, leaf0 + l, spine0 + sp, fab, lk->fabric_cable_m, fc);
        }
    }
    for (uint32_t sp = 0; r.pods && sp < r.spines; sp++) {
        uint32_t plane = sp % r.up; /* spine j of each pod serves plane j */
        for (uint32_t j = 0; j < r.u2; j++)
            bn_topo_connect(t, spine0 + sp, core0 + plane * r.plane + j % r.plane, fab,
                            lk->fabric_cable_m, fc);
    }
    return BN_OK; /* bisection: bn_topo_build's Clos figure, once ports exist */
}

const struct bn_topo_builder_ops bn_topo_rail_optimized = {
    .name = "rail_optimized",
    .summary = "DGX SuperPOD style: GPU i of each server on rail leaf i",
    .rail_servers = true,
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .build = build,
};
