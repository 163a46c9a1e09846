/*
 * What NCCL's tuning model (coll/nccl_model.c) reads of the built fabric,
 * and the pair it would pick for a row within what the scenario forces
 * (coll.algo, coll.proto: as NCCL_ALGO and NCCL_PROTO restrict NCCL's own
 * choice).
 */
#include <string.h>

#include "driver/coll.h"

void bn_coll_nccl_system(const struct bn_scenario *sc, const struct bn_coll_params *p,
                         const struct bn_coll_cost *c, struct bn_nccl_system *sys)
{
    uint32_t g = p->gpus_per_server && p->nranks % p->gpus_per_server == 0 ? p->gpus_per_server
                                                                           : 1;
    bool nvlink = c->nv_gbps > 0 && c->domain_gpus >= g && g > 1;
    *sys = (struct bn_nccl_system){
        .nranks = p->nranks, .nnodes = p->nranks / g, .channels = p->channels,
        .inter_gbs = c->nic_gbps / 8, .nvlink = nvlink, .collnet = sc->sharp.enabled,
        .nvls = c->nvls_eff > 0,
        /* without NVLink a server's GPUs meet through their NICs */
        .intra_gbs = nvlink ? c->nv_gbps / 8 : c->nic_gbps / 8,
    };
}

/* NCCL's algorithm for bnet's forced one (coll.algo), or -1: none. */
static int nccl_algo_of(const char *bnet)
{
    if (strcmp(bnet, "ring") == 0 || strcmp(bnet, "hier") == 0)
        return BN_NCCL_RING;
    if (strcmp(bnet, "tree") == 0 || strcmp(bnet, "htree") == 0)
        return BN_NCCL_TREE;
    if (strcmp(bnet, "collnet") == 0)
        return BN_NCCL_COLLNET_DIRECT;
    if (strcmp(bnet, "nvls") == 0)
        return BN_NCCL_NVLS;
    return -1;
}

bool bn_coll_nccl_choice(const struct bn_scenario *sc, const struct bn_nccl_system *sys,
                         enum bn_coll_kind kind, uint64_t bytes, struct bn_nccl_pick *out)
{
    int a_only = sc->coll.algo ? nccl_algo_of(bn_coll_algo_name(sc->coll.algo - 1u)) : -2;
    if (a_only == -1) /* a forced algorithm NCCL does not have */
        return false;
    return bn_nccl_pick(sys, kind, bytes, a_only, sc->coll.proto ? (int)sc->coll.proto - 1 : -1,
                        out);
}
