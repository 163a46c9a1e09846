/*
 * Alpha-beta models of each algorithm, the way NCCL's tuning model reasons
 * (NVIDIA/nccl src/graph/tuning.cc: time = latency x steps + bytes / bandwidth): Ring
 * AllReduce takes 2(n-1) steps and moves 2(n-1)/n of the buffer through
 * every rank; a double binary tree takes 2 log2(n) steps but moves about 2S
 * through an interior rank and pays a pipeline fill of one slice per level;
 * Rabenseifner 2 log2(p) steps (plus a fold when n is not a power of two);
 * the hierarchical algorithm runs the ring model twice on NVLink and once
 * per rail on the NICs with a G-th of the data; CollNet sends S up and S
 * down once per rank; NVLS is bound by its NVSwitch engine's throughput.
 * A hop inside one NVLink domain costs NVLink's alpha
 * and bandwidth, any other the backend's. The model ranks the candidates;
 * the simulation, not the model, gives the row's time.
 */
#include <math.h>
#include <string.h>

#include "coll/algo.h"
#include "coll/tuner.h"

struct hop {
    double alpha_us, gbps;
};

/* Alpha and bandwidth of the slowest link of a pattern spanning all ranks:
 * NVLink only if they all share one domain. */
static struct hop span(const struct bn_coll_params *p, const struct bn_coll_cost *c)
{
    if (c->domain_gpus && c->nv_gbps > 0 && p->nranks <= c->domain_gpus)
        return (struct hop){c->nv_alpha_us, c->nv_gbps};
    return (struct hop){c->net_alpha_us, c->nic_gbps};
}

static double us_for(double bytes, double gbps) { return bytes * 8.0 / (gbps * 1e3); }

static double slice_of(const struct bn_coll_params *p, double bytes)
{
    return bytes < (double)p->slice_bytes ? bytes : (double)p->slice_bytes;
}

/* NCCL's rings across servers of g GPUs (algo_ring.c): every GPU sends
 * once per channel over NVLink (the exit GPU to its PXN proxy) and each
 * NIC carries ceil(C/g) of the C channels, so busbw is NVLink's rate or
 * the NICs' share, the slower; a chunk's hops cross servers 2(S - 1) times
 * in an AllReduce, S - 1 otherwise (NCCL's tuning model: nInter). */
static bool rings_cross_servers(const struct bn_coll_params *p, const struct bn_coll_cost *c)
{
    uint32_t g = p->gpus_per_server;
    return g > 1 && p->nranks > g && p->nranks % g == 0 && c->domain_gpus >= g &&
           c->nv_gbps > 0;
}

static double server_rings(const struct bn_coll_params *p, const struct bn_coll_cost *c)
{
    double n = p->nranks, s = (double)p->bytes, g = p->gpus_per_server, ns = n / g;
    double ch = p->channels, per_nic = ceil(ch / g);
    double bw = fmin(c->nv_gbps, c->nic_gbps * ch / per_nic);
    bool two = p->kind == BN_COLL_ALLREDUCE;
    double steps = two ? 2 * (n - 1) : n - 1, inter = two ? 2 * (ns - 1) : ns - 1;
    double lat = (steps - inter) * c->nv_alpha_us + inter * c->net_alpha_us;
    switch (p->kind) {
    case BN_COLL_ALLREDUCE:
        return lat + us_for(2 * (n - 1) / n * s, bw);
    case BN_COLL_REDUCESCATTER:
    case BN_COLL_ALLGATHER:
        return lat + us_for((n - 1) / n * s, bw);
    default: /* broadcast, reduce: a pipelined chain */
        return lat + us_for(s + (n - 2) * slice_of(p, s / ch), bw);
    }
}

static double ring(const struct bn_coll_params *p, const struct bn_coll_cost *c)
{
    double n = p->nranks, s = (double)p->bytes;
    if (rings_cross_servers(p, c))
        return server_rings(p, c);
    struct hop h = span(p, c);
    switch (p->kind) {
    case BN_COLL_ALLREDUCE:
        return 2 * (n - 1) * h.alpha_us + us_for(2 * (n - 1) / n * s, h.gbps);
    case BN_COLL_REDUCESCATTER:
    case BN_COLL_ALLGATHER:
        return (n - 1) * h.alpha_us + us_for((n - 1) / n * s, h.gbps);
    default: /* broadcast, reduce: a pipelined chain */
        return (n - 1) * h.alpha_us + us_for(s + (n - 2) * slice_of(p, s), h.gbps);
    }
}

static double tree_depth(uint32_t n) { return ceil(log2((double)n + 1.0)) - 1.0; }

static double htree(const struct bn_coll_params *p, const struct bn_coll_cost *c);

/* Across whole servers the tree is NCCL's (algo_tree.c): htree's model. */
static double tree(const struct bn_coll_params *p, const struct bn_coll_cost *c)
{
    if (bn_coll_algo_htree.supports(p))
        return htree(p, c);
    double s = (double)p->bytes, d = tree_depth(p->nranks);
    struct hop h = span(p, c);
    if (p->kind == BN_COLL_ALLREDUCE) /* up and down, each tree half the data */
        return 2 * d * (h.alpha_us + us_for(slice_of(p, s / 2), h.gbps)) + us_for(2 * s, h.gbps);
    return d * (h.alpha_us + us_for(slice_of(p, s), h.gbps)) + us_for(2 * s, h.gbps);
}

static double rhd(const struct bn_coll_params *p, const struct bn_coll_cost *c)
{
    double s = (double)p->bytes;
    double pw = pow(2.0, floor(log2((double)p->nranks)));
    struct hop h = span(p, c);
    if (p->kind != BN_COLL_ALLREDUCE) /* halving or doubling alone (n = 2^k) */
        return log2(pw) * h.alpha_us + us_for((pw - 1) / pw * s, h.gbps);
    double t = 2 * log2(pw) * h.alpha_us + us_for(2 * (pw - 1) / pw * s, h.gbps);
    if (pw < p->nranks) /* fold in, and hand the result back */
        t += 2 * (h.alpha_us + us_for(s, h.gbps));
    return t;
}

/* Everyone to everyone at once: the NICs carry the traffic that leaves the
 * domain, NVLink the rest, in parallel. */
static double direct(const struct bn_coll_params *p, const struct bn_coll_cost *c)
{
    double n = p->nranks, s = (double)p->bytes;
    if (p->kind == BN_COLL_SENDRECV) {
        struct hop h = n <= c->domain_gpus && c->nv_gbps > 0
                           ? (struct hop){c->nv_alpha_us, c->nv_gbps}
                           : (struct hop){c->net_alpha_us, c->nic_gbps};
        return h.alpha_us + us_for(s, h.gbps);
    }
    double g = c->domain_gpus && c->nv_gbps > 0 ? fmin(c->domain_gpus, n) : 1;
    double out_net = (n - g) / n * s, out_nv = (g - 1) / n * s;
    double t = fmax(us_for(out_net, c->nic_gbps), c->nv_gbps > 0 ? us_for(out_nv, c->nv_gbps) : 0);
    return (n > g ? c->net_alpha_us : c->nv_alpha_us) + t;
}

static double hier(const struct bn_coll_params *p, const struct bn_coll_cost *c)
{
    double g = p->gpus_per_server, ns = p->nranks / g, s = (double)p->bytes;
    bool nv = c->domain_gpus >= p->gpus_per_server && c->nv_gbps > 0;
    struct hop in = nv ? (struct hop){c->nv_alpha_us, c->nv_gbps}
                       : (struct hop){c->net_alpha_us, c->nic_gbps};
    return 2 * (g - 1) * in.alpha_us + us_for(2 * (g - 1) / g * s, in.gbps) +
           2 * (ns - 1) * c->net_alpha_us + us_for(2 * (ns - 1) / ns * s / g, c->nic_gbps);
}

/* NCCL's tree on servers: a chain of G GPUs inside (NVLink when the
 * domain holds the server), a binary tree of depth d across servers; each
 * tree carries half the data up and down, the NIC moving 2 S in all. */
static double htree(const struct bn_coll_params *p, const struct bn_coll_cost *c)
{
    double g = p->gpus_per_server, s = (double)p->bytes;
    double d = tree_depth(p->nranks / p->gpus_per_server);
    bool nv = c->domain_gpus >= p->gpus_per_server && c->nv_gbps > 0;
    struct hop in = nv ? (struct hop){c->nv_alpha_us, c->nv_gbps}
                       : (struct hop){c->net_alpha_us, c->nic_gbps};
    double half = slice_of(p, s / 2);
    return 2 * d * (c->net_alpha_us + us_for(half, c->nic_gbps)) +
           2 * (g - 1) * (in.alpha_us + us_for(half, in.gbps)) + us_for(2 * s, c->nic_gbps);
}

static double collnet(const struct bn_coll_params *p, const struct bn_coll_cost *c)
{
    double s = (double)p->bytes;
    return 2 * (c->agg_levels + 1) * c->agg_alpha_us +
           2 * c->agg_levels * us_for(slice_of(p, s), c->nic_gbps) + us_for(s, c->nic_gbps);
}

/* NVLS in one domain: the ld_reduce, its return, the store and the
 * multicast are four NVLink transfers in a row (AllReduce; one or two
 * steps for the others); the engine moves (n + 1) S of an AllReduce
 * through its link of nvls_eff x n GPUs' rate, the slowest stage. */
static double nvls(const struct bn_coll_params *p, const struct bn_coll_cost *c)
{
    double n = p->nranks, s = (double)p->bytes, rate = c->nvls_eff * n * c->nv_gbps;
    if (rate <= 0)
        return INFINITY;
    if (p->kind == BN_COLL_ALLREDUCE)
        return 4 * c->nv_alpha_us + us_for((n + 1) * s, rate);
    if (p->kind == BN_COLL_REDUCESCATTER) /* every rank's whole input in */
        return 2 * c->nv_alpha_us + us_for(n * s, rate);
    return 2 * c->nv_alpha_us + us_for((n - 1) * s, rate); /* AllGather: (n-1) S out */
}

void bn_coll_cost_proto(struct bn_coll_cost *c, const struct bn_coll_proto *proto,
                        double step_latency_us, double proto_step_us)
{
    double eff = bn_coll_proto_efficiency(proto);
    double less = step_latency_us - proto_step_us;
    c->nic_gbps *= eff;
    c->nv_gbps *= eff;
    c->net_alpha_us -= less;
    if (c->nv_gbps > 0)
        c->nv_alpha_us -= less;
}

bool bn_coll_predict(const struct bn_coll_algo_ops *algo, const struct bn_coll_params *p,
                     const struct bn_coll_cost *c, double *us)
{
    static const struct {
        const struct bn_coll_algo_ops *algo;
        double (*model)(const struct bn_coll_params *, const struct bn_coll_cost *);
    } models[] = {{&bn_coll_algo_ring, ring},     {&bn_coll_algo_tree, tree},
                  {&bn_coll_algo_rhd, rhd},       {&bn_coll_algo_direct, direct},
                  {&bn_coll_algo_hier, hier},     {&bn_coll_algo_collnet, collnet},
                  {&bn_coll_algo_htree, htree},   {&bn_coll_algo_nvls, nvls}};
    if (!algo->supports(p))
        return false;
    const struct bn_coll_family_cost *f = &c->family[algo->family];
    struct bn_coll_cost fc = *c;
    if (f->set) {
        fc.net_alpha_us = f->net_alpha_us;
        fc.nv_alpha_us = f->nv_alpha_us;
    }
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        if (models[i].algo == algo) {
            *us = models[i].model(p, &fc) + (f->set ? f->launch_us : 0);
            return true;
        }
    }
    return false; /* an algorithm without a model is never auto-picked */
}

/* NVLink and the NICs work at once (a pipelined collective keeps both
 * busy), so the bound is the slower of the two, each timed with the other
 * taken as free; an algorithm on one of them is timed by that one. */
double bn_coll_line_busbw(const struct bn_coll_algo_ops *algo, const struct bn_coll_params *p,
                          const struct bn_coll_cost *c)
{
    const double free_gbps = 1e30;
    struct bn_coll_cost line = *c;
    line.net_alpha_us = line.nv_alpha_us = line.agg_alpha_us = 0;
    memset(line.family, 0, sizeof line.family);
    double us[2];
    for (int i = 0; i < 2; i++) {
        line.nic_gbps = i ? free_gbps : c->nic_line_gbps;
        line.nv_gbps = c->nv_line_gbps > 0 ? (i ? c->nv_line_gbps : free_gbps) : 0;
        if (!bn_coll_predict(algo, p, &line, &us[i]))
            return 0;
    }
    double t = us[0] > us[1] ? us[0] : us[1];
    if (p->bytes == 0 || !(t > 0))
        return 0;
    return (double)p->bytes / (t * 1e3) * bn_coll_busbw_factor(p->kind, p->nranks);
}

double bn_coll_side_busbw(const struct bn_coll_algo_ops *algo, const struct bn_coll_params *p,
                          const struct bn_coll_cost *c, bool nics)
{
    const double free_gbps = 1e30;
    struct bn_coll_cost side = *c;
    side.net_alpha_us = side.nv_alpha_us = side.agg_alpha_us = 0;
    memset(side.family, 0, sizeof side.family);
    if (nics)
        side.nv_gbps = c->nv_gbps > 0 ? free_gbps : 0;
    else
        side.nic_gbps = free_gbps;
    double us;
    if (p->bytes == 0 || !bn_coll_predict(algo, p, &side, &us) || !(us > 0) ||
        us < 1e-12 * (double)p->bytes) /* the side carries nothing: no bound */
        return 0;
    return (double)p->bytes / (us * 1e3) * bn_coll_busbw_factor(p->kind, p->nranks);
}

static const struct bn_coll_algo_ops *tune(const struct bn_coll_params *p,
                                           const struct bn_coll_cost *c, bool bulk, double *us)
{
    const struct bn_coll_algo_ops *best = NULL;
    for (uint32_t i = 0; bn_coll_algo_at(i); i++) {
        double t;
        /* Rabenseifner's exchanges at distance 2^k cross the whole fabric at
         * every step; their ECMP collisions, which an alpha-beta model
         * cannot see, cost it 30 % and more in simulation (docs/
         * collectives.md). NCCL's tuner does not offer it either: forced
         * only. */
        if (bn_coll_algo_at(i)->forced_only || (bulk && !bn_coll_algo_at(i)->bulk))
            continue;
        if (bn_coll_predict(bn_coll_algo_at(i), p, c, &t) && (!best || t < *us)) {
            best = bn_coll_algo_at(i);
            *us = t;
        }
    }
    return best;
}

const struct bn_coll_algo_ops *bn_coll_tune(const struct bn_coll_params *p,
                                            const struct bn_coll_cost *c, double *us)
{
    return tune(p, c, false, us);
}

const struct bn_coll_algo_ops *bn_coll_tune_bulk(const struct bn_coll_params *p,
                                                 const struct bn_coll_cost *c, double *us)
{
    return tune(p, c, true, us);
}
