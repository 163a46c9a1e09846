/*
 * NCCL's tuning model (coll.tuner: nccl; docs/collectives.md, "NCCL's
 * tuning model"): the cost NCCL 2.20.3's src/graph/tuning.cc assigns each
 * (algorithm, protocol) for a collective, size and system, and the pair it
 * picks, mapped to bnet's algorithms and protocols. Constants and formulas
 * as that release states them (the table in the docs); what the model
 * reads of the system comes from the built fabric.
 */
#ifndef BN_COLL_NCCL_MODEL_H
#define BN_COLL_NCCL_MODEL_H

#include "coll/proto.h"
#include "coll/sched.h"

/* NCCL's algorithms the model covers (its index order) and protocols. */
enum bn_nccl_algo {
    BN_NCCL_TREE = 0, BN_NCCL_RING, BN_NCCL_COLLNET_DIRECT, BN_NCCL_NVLS, BN_NCCL_NALGOS
};
enum bn_nccl_proto { BN_NCCL_LL = 0, BN_NCCL_LL128, BN_NCCL_SIMPLE, BN_NCCL_NPROTOS };

/* What NCCL's model reads of the system, as its topology search would
 * find it on this fabric. */
struct bn_nccl_system {
    uint32_t nranks, nnodes;   /* GPUs; servers (ppn = nranks / nnodes) */
    uint32_t channels;         /* NCCL's nChannels: coll.channels */
    double intra_gbs;          /* a GPU's bandwidth inside its server, GB/s (NVLink, or PCIe) */
    double inter_gbs;          /* a GPU's network bandwidth (its NIC's goodput), GB/s */
    bool nvlink;               /* the server's GPUs share an NVLink domain (else PCIe) */
    bool collnet;              /* in-network reduction available (sharp.enabled) */
    bool nvls;                 /* the server's NVSwitch does NVLink SHARP (scale_up.nvls) */
};

/* Predicted time (us) of algo/proto for kind and bytes; false if NCCL's
 * model leaves it out (not modelled for kind, or disabled). */
bool bn_nccl_time(const struct bn_nccl_system *sys, enum bn_coll_kind kind, enum bn_nccl_algo a,
                  enum bn_nccl_proto p, uint64_t bytes, double *us);

struct bn_nccl_pick {
    enum bn_nccl_algo algo;
    enum bn_nccl_proto proto;
    double us;                 /* the model's time */
};
/* The pair NCCL would pick (the fastest the model allows), within
 * only_algo and only_proto when they are >= 0 (as NCCL_ALGO and
 * NCCL_PROTO restrict it); false if it models none for kind (AllToAll,
 * SendRecv: NCCL sends them point to point). */
bool bn_nccl_pick(const struct bn_nccl_system *sys, enum bn_coll_kind kind, uint64_t bytes,
                  int only_algo, int only_proto, struct bn_nccl_pick *out);

/* NCCL's latencies (us): a collective's fixed part (baseLat: its launch
 * and set-up, which nccl-tests' time includes) and one step's on NVLink
 * or the network (hwLat), for algorithm a and protocol p. */
double bn_nccl_base_lat_us(enum bn_nccl_algo a, enum bn_nccl_proto p);
double bn_nccl_step_lat_us(enum bn_nccl_algo a, enum bn_nccl_proto p, bool net);
/* NCCL's algorithm of a bnet family (-1: none of NCCL's). */
int bn_nccl_algo_of_family(enum bn_coll_family f);

/* The payload bytes NCCL pipelines (a, proto) in for `bytes` over the
 * system's channels: a step, or Tree/LL128's smaller chunk. */
uint64_t bn_nccl_chunk_bytes(const struct bn_nccl_system *sys, enum bn_nccl_algo a,
                             const struct bn_coll_proto *proto, uint64_t bytes);
/* "Tree", "Ring", "CollNetDirect", "NVLS"; "LL", "LL128", "Simple". */
const char *bn_nccl_algo_name(enum bn_nccl_algo a);
const char *bn_nccl_proto_name(enum bn_nccl_proto p);
/* bnet's algorithm for NCCL's a on this system (bnet's ring and tree are
 * NCCL's across servers too) and protocol. */
const char *bn_nccl_bnet_algo(const struct bn_nccl_system *sys, enum bn_nccl_algo a);
const struct bn_coll_proto *bn_nccl_bnet_proto(enum bn_nccl_proto p);

#endif
