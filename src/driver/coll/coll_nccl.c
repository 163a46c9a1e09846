/*
 * What NCCL's tuning model (coll/nccl_model.c) reads of the built fabric,
 * and the pair it would pick for a row within what the scenario forces
 * (coll.algo, coll.proto: as NCCL_ALGO and NCCL_PROTO restrict NCCL's own
 * choice).
 */
#include <math.h>

#include "driver/coll/coll.h"

void bn_coll_nccl_system(const struct bn_scenario *sc, const struct bn_coll_params *p,
                         const struct bn_coll_cost *c, struct bn_nccl_system *sys)
{
    uint32_t g = p->gpus_per_server && p->nranks % p->gpus_per_server == 0 ? p->gpus_per_server
                                                                           : 1;
    bool nvlink = c->nv_gbps > 0 && c->domain_gpus >= g && g > 1;
    *sys = (struct bn_nccl_system){
        .nranks = p->nranks, .nnodes = p->nranks / g, .channels = p->channels,
        .inter_gbs = c->nic_gbps / 8, .nvlink = nvlink, .collnet = bn_topo_sharp(sc)->enabled,
        .nvls = c->nvls_eff > 0,
        /* without NVLink a server's GPUs meet through their NICs */
        .intra_gbs = nvlink ? c->nv_gbps / 8 : c->nic_gbps / 8,
    };
}

bool bn_coll_nccl_choice(const struct bn_scenario *sc, const struct bn_nccl_system *sys,
                         enum bn_coll_kind kind, uint64_t bytes, struct bn_nccl_pick *out)
{
    int a_only = sc->coll.algo ? bn_nccl_algo_of_family(bn_coll_algo_at(sc->coll.algo - 1u)->family)
                               : -2;
    if (a_only == -1) /* a forced algorithm NCCL does not have */
        return false;
    return bn_nccl_pick(sys, kind, bytes, a_only, sc->coll.proto ? (int)sc->coll.proto - 1 : -1,
                        out);
}

/*
 * NCCL's latencies on top of the simulated fabric. NCCL's tuning model
 * (src/graph/tuning.cc, 2.20.3) gives a collective a fixed latency
 * (baseLat: the kernel's launch and set-up, which nccl-tests' time holds)
 * and each step one on NVLink or the network (hwLat: the hardware and the
 * software between two steps), per algorithm and protocol. bnet simulates
 * the hardware, so a step's software share is hwLat less the fabric's own
 * latency for the shortest such hop (NVLink; a network hop through one
 * switch, as NCCL's rails run), at least 0: a hop through more switches
 * costs NCCL's figure and theirs. LL and LL128 steps, a ring's and a
 * tree's, take NCCL's figures scaled by their key over NCCL's ring network
 * step (coll.ll_step_latency_us / 2.7, coll.ll128_step_latency_us / 4.0: 1
 * at the defaults), so a fit moves one protocol's steps together, keeping
 * NCCL's ratios between NVLink and network, ring and tree. Simple's
 * hwLat (3.4 us per NVLink step, 14 per network step) is its model's
 * ceiling, and measured rings reach their bandwidth only with about
 * NCCL_NET_OVERHEAD's 1 us per step: Simple steps keep
 * coll.step_latency_us.
 */
static double proto_scale(const struct bn_scenario *sc, enum bn_nccl_proto np)
{
    double key = np == BN_NCCL_LL ? sc->coll.ll_step_latency_us : sc->coll.ll128_step_latency_us;
    return key / bn_nccl_step_lat_us(BN_NCCL_RING, np, true);
}

double bn_coll_proto_step_us(const struct bn_scenario *sc, const struct bn_coll_proto *proto,
                             const struct bn_coll_cost *hw)
{
    for (size_t i = 0; i < BN_NCCL_SIMPLE; i++)
        if (bn_coll_proto_at(i) == proto)
            return fmax(0, proto_scale(sc, (enum bn_nccl_proto)i) *
                                   bn_nccl_step_lat_us(BN_NCCL_RING, (enum bn_nccl_proto)i, true) -
                               (hw->rail_alpha_us - sc->coll.step_latency_us));
    return sc->coll.step_latency_us;
}

void bn_coll_steps_of(const struct bn_scenario *sc, const struct bn_nccl_system *sys,
                      const struct bn_coll_cost *hw, enum bn_coll_family f,
                      const struct bn_coll_proto *proto, enum bn_coll_kind kind, uint64_t bytes,
                      struct bn_coll_steps *out)
{
    int a = bn_nccl_algo_of_family(f);
    enum bn_nccl_algo na = a < 0 ? BN_NCCL_RING : (enum bn_nccl_algo)a;
    enum bn_nccl_proto np = BN_NCCL_SIMPLE;
    struct bn_nccl_pick pick;
    for (size_t i = 0; proto && bn_coll_proto_at(i); i++)
        if (bn_coll_proto_at(i) == proto)
            np = (enum bn_nccl_proto)i;
    if (!proto && bn_nccl_pick(sys, kind, bytes, (int)na, -1, &pick))
        np = pick.proto;
    double step = sc->coll.step_latency_us;
    *out = (struct bn_coll_steps){.launch_us = bn_nccl_base_lat_us(na, np),
                                  .net_us = step, .nv_us = step};
    if (np == BN_NCCL_SIMPLE || na == BN_NCCL_COLLNET_DIRECT || na == BN_NCCL_NVLS)
        return;
    double k = proto_scale(sc, np);
    double net_hw = hw->rail_alpha_us - step, nv_hw = hw->nv_alpha_us - step;
    out->net_us = out->nv_us = fmax(0, k * bn_nccl_step_lat_us(na, np, true) - net_hw);
    if (hw->nv_gbps > 0)
        out->nv_us = fmax(0, k * bn_nccl_step_lat_us(na, np, false) - nv_hw);
}
