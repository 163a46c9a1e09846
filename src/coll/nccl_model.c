/*
 * NCCL 2.20.3's tuning model (NVIDIA/nccl src/graph/tuning.cc at release
 * 2.20.3; its constants are tabulated in docs/collectives.md), for Hopper
 * GPUs (compute capability 9.0) on x86 Intel hosts, with NVLS inside one
 * server and without NVLS Tree and CollNet Chain:
 *   busBw = the graph's per-GPU bandwidth, refined per (algorithm,
 *           protocol), times a ratio (Ring: n / steps; Tree, CollNet: 1/2;
 *           NVLS: 5/6);
 *   lat   = baseLat + per-step hardware latencies (NVLink or PCIe inside a
 *           server, the network between them);
 *   time  = lat + bytes / (1000 busBw), Tree's bandwidth corrected per size.
 * What NCCL's topology search would find (the graph's bandwidths, NVLink
 * or PCIe inside a server) comes from the built fabric (bn_nccl_system).
 */
#include <math.h>

#include "coll/nccl_model.h"

/* [algorithm][LL, LL128, Simple], us */
static const double base_lat[BN_NCCL_NALGOS][BN_NCCL_NPROTOS] = {
    {6.8, 14.0, 0}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}};
enum { HW_NVLINK, HW_PCI, HW_NET };
static const double hw_lat[3][BN_NCCL_NALGOS][BN_NCCL_NPROTOS] = {
    {{.6, 1.25, 28}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 23}},   /* NVLink */
    {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 0}},   /* PCIe */
    {{5.0, 8.5, 28}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 18}}}; /* network */

/* Per-channel ceilings, GB/s, by nodes: 1, 2, more. llMaxBw's row is the
 * GPU's on one node (Hopper) and the CPU vendor's across nodes (Intel). */
static const double ll_max_one_node[3] = {87.7, 22.5, 19.0};
static const double ll_max_intel[3] = {39.0, 39.0, 20.4};
static const double ring_ll128_max[3] = {36.7, 36.7, 36.7};
static const double tree_ll128_max[3] = {36.7, 36.7, 29.0};
static const double tree_max[3] = {38.7, 41.4, 36.0};

/* Tree bandwidth corrections per log2(bytes / 64), powers of two 64 B to
 * 256 MiB. */
static const double tree_correction[BN_NCCL_NPROTOS][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0,
     1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0,
     1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

/* NCCL_NET_OVERHEAD's default on an Intel x86 host, us per step */
#define NET_OVERHEAD_US 1.0

static int log2i(uint64_t v)
{
    int l = 0;
    while (v >>= 1)
        l++;
    return l;
}

/* Whether the model covers (kind, algorithm) at all. */
static bool modelled(enum bn_coll_kind kind, enum bn_nccl_algo a)
{
    switch (kind) {
    case BN_COLL_ALLREDUCE:
        return true;
    case BN_COLL_REDUCESCATTER:
    case BN_COLL_ALLGATHER: /* CollNet Direct's AG/RS needs a plugin's */
        return a == BN_NCCL_RING || a == BN_NCCL_NVLS;
    case BN_COLL_BROADCAST:
    case BN_COLL_REDUCE:
        return a == BN_NCCL_RING;
    default:
        return false;
    }
}

static bool enabled(const struct bn_nccl_system *sys, enum bn_nccl_algo a, enum bn_nccl_proto p)
{
    if (a == BN_NCCL_COLLNET_DIRECT) /* needs SHARP and an NVSwitch system; Simple only */
        return sys->collnet && sys->nvlink && p == BN_NCCL_SIMPLE && sys->nnodes > 1;
    if (a == BN_NCCL_NVLS) /* Simple only; across servers only with CollNet (not built) */
        return sys->nvls && sys->nvlink && p == BN_NCCL_SIMPLE && sys->nnodes == 1;
    if (p == BN_NCCL_LL128) /* on by default only with NVLink inside the server */
        return sys->nvlink;
    return true;
}

/* The algorithm bandwidth (GB/s) NCCL's model gives (a, p), 0 if none. */
static double bandwidth(const struct bn_nccl_system *sys, enum bn_coll_kind kind,
                        enum bn_nccl_algo a, enum bn_nccl_proto p)
{
    uint32_t n = sys->nranks, nodes = sys->nnodes, ch = sys->channels ? sys->channels : 1;
    int i2 = nodes <= 2 ? (int)nodes - 1 : 2;
    double ppn = (double)n / nodes;
    double ll_max = nodes == 1 ? ll_max_one_node[i2] : ll_max_intel[i2];
    /* the graphs' bandwidths: a ring or tree across servers runs at the
     * slower of NVLink and the NIC, inside one server at NVLink's */
    double intra = nodes == 1 ? sys->intra_gbs : fmin(sys->intra_gbs, sys->inter_gbs);
    double bus = nodes <= 2 || a == BN_NCCL_COLLNET_DIRECT ? intra : sys->inter_gbs;
    bool ar = kind == BN_COLL_ALLREDUCE, red = kind == BN_COLL_REDUCE;
    if (a == BN_NCCL_RING && p == BN_NCCL_LL)
        bus = fmin(ll_max, bus * (nodes > 1 || ar || red ? 1.0 / 4.0 : 1.0 / 3.0));
    if (a == BN_NCCL_RING && p == BN_NCCL_LL128)
        bus = fmin(bus * (ppn < 2 ? 0.7 : 0.92), ch * ring_ll128_max[i2]);
    if (a == BN_NCCL_TREE)
        bus = fmin(bus * .92, ch * tree_max[i2]);
    if (a == BN_NCCL_TREE && p == BN_NCCL_LL)
        bus = fmin(bus / 3.8, ll_max);
    if (a == BN_NCCL_TREE && p == BN_NCCL_LL128)
        bus = fmin(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), ch * tree_ll128_max[i2]);
    if (a == BN_NCCL_COLLNET_DIRECT) { /* every GPU needs its NIC at full speed */
        double f = ppn / ch;
        f -= (f - 1) / 2;
        bus = bus / f * .85;
    }
    double steps = ar ? 2.0 * (n - 1) : kind == BN_COLL_REDUCESCATTER ||
                                                kind == BN_COLL_ALLGATHER ? n - 1.0 : n;
    return bus * (a == BN_NCCL_RING ? n / steps : a == BN_NCCL_NVLS ? 5.0 / 6.0 : .5);
}

static double latency(const struct bn_nccl_system *sys, enum bn_coll_kind kind,
                      enum bn_nccl_algo a, enum bn_nccl_proto p)
{
    uint32_t n = sys->nranks, nodes = sys->nnodes;
    int intra_hw = sys->nvlink ? HW_NVLINK : HW_PCI;
    double lat = base_lat[a][p], intra = hw_lat[intra_hw][a][p], inter = hw_lat[HW_NET][a][p];
    bool ar = kind == BN_COLL_ALLREDUCE;
    bool gather = kind == BN_COLL_REDUCESCATTER || kind == BN_COLL_ALLGATHER;
    double steps = ar ? 2.0 * (n - 1) : gather ? n - 1.0 : n;
    double inter_steps = ar ? (nodes > 1 ? 2.0 * nodes : 0) : gather ? nodes - 1.0 : nodes;
    if (a == BN_NCCL_RING) {
        if (!ar && !gather) { /* Broadcast, Reduce: a chain, channels not alike */
            int hw = nodes == 1 ? intra_hw : HW_NET;
            return lat + steps * hw_lat[hw][p == BN_NCCL_SIMPLE ? BN_NCCL_TREE : a][p];
        }
        double overhead = nodes > 1 ? NET_OVERHEAD_US * (p == BN_NCCL_SIMPLE ? 3 : 1) : 0;
        intra = fmax(intra, overhead);
        return lat + (steps - inter_steps) * intra + inter_steps * inter;
    }
    if (a == BN_NCCL_TREE)
        return lat + 2 * ((double)(n / nodes - 1) * intra + log2i(nodes) * inter);
    if (a == BN_NCCL_NVLS) /* one step through the switch (one server) */
        return intra;
    double ppn1 = (double)(n / nodes) - 1; /* CollNet Direct: 0.4 us per local rank */
    return lat + 2 * (fmin(1, ppn1) * intra + ppn1 * 0.4) + inter;
}

bool bn_nccl_time(const struct bn_nccl_system *sys, enum bn_coll_kind kind, enum bn_nccl_algo a,
                  enum bn_nccl_proto p, uint64_t bytes, double *us)
{
    if (sys->nranks < 2 || !modelled(kind, a) || !enabled(sys, a, p))
        return false;
    double bw = bandwidth(sys, kind, a, p), lat = latency(sys, kind, a, p);
    if (bw <= 0)
        return false;
    int log_size = log2i(bytes >> 6);
    if (a == BN_NCCL_TREE && log_size < 23)
        bw *= tree_correction[p][log_size];
    /* the ring's plateau: a large AllReduce across servers in Simple */
    if (a == BN_NCCL_RING && p == BN_NCCL_SIMPLE && sys->nnodes > 1 &&
        kind == BN_COLL_ALLREDUCE && bytes / ((uint64_t)(sys->channels ? sys->channels : 1) *
                                             sys->nranks) >= 64)
        lat *= 1.4;
    *us = lat + (double)bytes / (1000.0 * bw);
    return true;
}

bool bn_nccl_pick(const struct bn_nccl_system *sys, enum bn_coll_kind kind, uint64_t bytes,
                  int only_algo, int only_proto, struct bn_nccl_pick *out)
{
    bool any = false;
    for (int a = 0; a < BN_NCCL_NALGOS; a++)
        for (int p = 0; p < BN_NCCL_NPROTOS; p++) {
            double t;
            if ((only_algo >= 0 && a != only_algo) || (only_proto >= 0 && p != only_proto))
                continue;
            if (bn_nccl_time(sys, kind, a, p, bytes, &t) && (!any || t < out->us)) {
                *out = (struct bn_nccl_pick){a, p, t};
                any = true;
            }
        }
    return any;
}

/* NCCL's pipelining unit for Tree/LL128 (src/enqueue.cc, computeColl's
 * chunk rule, 2.12 to 2.21 alike): a step's buffer (614400 B, flag lines
 * included) halved, down to 76800 B, while a channel holds fewer than
 * (1 + log2 nodes + ppn / 10) x 64 / ppn chunks, then down to 19200 B below
 * a quarter of that, so a small message still fills the tree's pipeline;
 * the chunk carries that buffer's payload (72000 or 18000 B). The other
 * pairs keep a step. */
uint64_t bn_nccl_chunk_bytes(const struct bn_nccl_system *sys, enum bn_nccl_algo a,
                             const struct bn_coll_proto *proto, uint64_t bytes)
{
    if (a != BN_NCCL_TREE || proto != bn_nccl_bnet_proto(BN_NCCL_LL128) || !sys->nnodes)
        return proto->step_payload;
    uint64_t buf = bn_coll_proto_wire(proto, proto->step_payload);
    uint64_t ch = sys->channels ? sys->channels : 1;
    double ppn = (double)sys->nranks / sys->nnodes;
    double nsteps = 1 + log2i(sys->nnodes) + 0.1 * ppn;
    /* NCCL compares the whole number of buffer-sized chunks a channel holds */
    while ((double)(bytes / (ch * buf)) < nsteps * 64 / ppn && buf > 131072)
        buf /= 2;
    while ((double)(bytes / (ch * buf)) < nsteps * 16 / ppn && buf > 32768)
        buf /= 2;
    return buf / proto->line_bytes * proto->line_payload;
}

const char *bn_nccl_algo_name(enum bn_nccl_algo a)
{
    static const char *const names[] = {"Tree", "Ring", "CollNetDirect", "NVLS"};
    return (unsigned)a < BN_NCCL_NALGOS ? names[a] : "?";
}

const char *bn_nccl_proto_name(enum bn_nccl_proto p)
{
    static const char *const names[] = {"LL", "LL128", "Simple"};
    return (unsigned)p < BN_NCCL_NPROTOS ? names[p] : "?";
}

const char *bn_nccl_bnet_algo(const struct bn_nccl_system *sys, enum bn_nccl_algo a)
{
    (void)sys; /* across servers bnet's ring and tree build NCCL's graphs */
    if (a == BN_NCCL_TREE)
        return "tree";
    if (a == BN_NCCL_COLLNET_DIRECT)
        return "collnet";
    if (a == BN_NCCL_NVLS)
        return "nvls";
    return "ring";
}

double bn_nccl_base_lat_us(enum bn_nccl_algo a, enum bn_nccl_proto p)
{
    return base_lat[a][p];
}

double bn_nccl_step_lat_us(enum bn_nccl_algo a, enum bn_nccl_proto p, bool net)
{
    return hw_lat[net ? HW_NET : HW_NVLINK][a][p];
}

int bn_nccl_algo_of_family(enum bn_coll_family f)
{
    switch (f) {
    case BN_FAMILY_RING:
        return BN_NCCL_RING;
    case BN_FAMILY_TREE:
        return BN_NCCL_TREE;
    case BN_FAMILY_COLLNET:
        return BN_NCCL_COLLNET_DIRECT;
    case BN_FAMILY_NVLS:
        return BN_NCCL_NVLS;
    default:
        return -1;
    }
}

const struct bn_coll_proto *bn_nccl_bnet_proto(enum bn_nccl_proto p)
{
    return bn_coll_proto_at((size_t)p); /* bnet's registry: ll, ll128, simple */
}
