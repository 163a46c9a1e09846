/*
 * `bnet coll`: the nccl-tests sweep on the simulated cluster. Every host is
 * a GPU rank. For each size from coll.min_bytes to coll.max_bytes (times
 * coll.step_factor) the algorithm is forced (coll.algo) or chosen by the
 * tuner from alpha-beta figures read off the built fabric, lowered to a
 * schedule, and run on a fresh fabric; the row reports nccl-tests' columns.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "coll/proto.h"
#include "coll/tuner.h"
#include "core/progress.h"
#include "core/where.h"
#include "driver/coll/coll.h"
#include "core/workers.h"

static bool cut_in_blocks(enum bn_coll_kind k)
{
    return k == BN_COLL_REDUCESCATTER || k == BN_COLL_ALLGATHER || k == BN_COLL_ALLTOALL;
}

/* Serialization of a full packet on a link of `gbps`, in us. */
static double mtu_us(const struct bn_sim *s, double gbps)
{
    return bn_encap_wire_frame(s->nics.encap, s->nics.mtu) * 8.0 / (gbps * 1e3);
}

void bn_coll_cost_of(const struct bn_sim *s, struct bn_coll_cost *c)
{
    const struct bn_scenario *sc = s->sc;
    struct bn_topo_info ti;
    bn_sim_topo_info(s, &ti);
    /* the hosts' own ports (a topology file may give them any rate) */
    double nic = ti.host_rate_gbps > 0 ? ti.host_rate_gbps : sc->link.rate_gbps;
    double sw_us = sc->sw.latency_ns / 1e3;
    /* the cables as the topology builders lay them (topo/) */
    double host_prop = bn_topo_link_ns(sc, sc->link.host_cable_m, sc->link.host_cable) / 1e3;
    double fab_prop = bn_topo_link_ns(sc, sc->link.fabric_cable_m, sc->link.fabric_cable) / 1e3;
    double ends = sc->coll.step_latency_us + 2 * host_prop + mtu_us(s, nic) +
                  bn_time_to_us(bn_ep_fixed_ps(&s->nics.ep_params));
    *c = (struct bn_coll_cost){
        .net_alpha_us = ends + ti.diameter_switches * sw_us + (ti.diameter_hops - 2) * fab_prop,
        .rail_alpha_us = ends + sw_us,
        .nic_gbps = bn_encap_goodput_gbps(s->nics.encap, s->nics.mtu, nic),
        .domain_gpus = s->topo.domain_gpus, .nic_line_gbps = nic,
    };
    if (s->topo.nscaleup) {
        double nv = sc->scale_up.rate_gbps * sc->scale_up.efficiency;
        c->nv_gbps = bn_encap_goodput_gbps(s->nics.encap, s->nics.mtu, nv);
        c->nv_line_gbps = nv;
        c->nv_alpha_us = sc->coll.step_latency_us + sc->scale_up.latency_ns / 1e3 +
                         2 * host_prop + mtu_us(s, nv);
        c->nvls_eff = s->topo.nnvls ? sc->scale_up.nvls_efficiency : 0;
    }
}

static int pick_algo(const struct bn_scenario *sc, const struct bn_coll_params *p,
                     const struct bn_coll_cost *c, const struct bn_coll_algo_ops **algo,
                     double *pred, struct bn_error *err)
{
    const char *op = bn_coll_op_name(sc->coll.op);
    if (sc->coll.algo == 0) { /* auto */
        *algo = sc->coll.aggregate ? bn_coll_tune_bulk(p, c, pred) : bn_coll_tune(p, c, pred);
        if (!*algo)
            return bn_fail(err, BN_EINPUT, "%s: key 'coll.op': no algorithm can run %s on %u "
                           "ranks%s", BN_WHERE(sc, "coll.op"), op, p->nranks,
                           sc->coll.aggregate ? " in aggregate (coll.aggregate)" : "");
        return BN_OK;
    }
    *algo = bn_coll_algo_at(sc->coll.algo - 1u);
    if (!*algo || !(*algo)->supports(p))
        return bn_fail(err, BN_EINPUT, "%s: key 'coll.algo': %s cannot run %s on %u ranks%s "
                       "(docs/collectives.md lists what each algorithm runs)",
                       BN_WHERE(sc, "coll.algo"),
                       bn_coll_algo_name(sc->coll.algo - 1u), op, p->nranks,
                       *algo && (*algo)->needs_aggregation && !bn_topo_sharp(sc)->enabled
                           ? " without sharp.enabled"
                       : *algo && (*algo)->needs_nvls && !sc->scale_up.nvls
                           ? " without scale_up.nvls" : "");
    if (sc->coll.aggregate && !(*algo)->bulk)
        return bn_fail(err, BN_EINPUT, "%s: key 'coll.algo': %s has no aggregate form "
                       "(coll.aggregate takes ring or hier)", BN_WHERE(sc, "coll.algo"),
                       (*algo)->name);
    if (!bn_coll_predict(*algo, p, c, pred))
        *pred = 0;
    return BN_OK;
}

/* CollNet's reduction tree over the switches' SHARP units: a root on the
 * top tier (the first such switch), every GPU's leaf joined to it along
 * its pinned route towards the root's unit (build_agg.c), so the union of
 * those routes is a tree. Endpoints nranks.. are the units on it. */
struct agg_tree {
    uint32_t *unit_of_switch;   /* per switch: its endpoint, or UINT32_MAX */
    uint32_t *parent, *rank_agg;
    uint32_t n, levels;
};

static uint32_t tree_unit(const struct bn_sim *s, struct agg_tree *tr, uint32_t sw,
                          uint32_t *ep_host, uint32_t nranks)
{
    uint32_t i = sw - s->topo.nhosts;
    if (tr->unit_of_switch[i] == UINT32_MAX) {
        tr->unit_of_switch[i] = tr->n;
        tr->parent[tr->n] = UINT32_MAX;
        ep_host[nranks + tr->n] = s->topo.agg_first + i;
        tr->n++;
    }
    return tr->unit_of_switch[i];
}

static int build_tree(const struct bn_sim *s, struct bn_coll_params *p, struct agg_tree *tr,
                      uint32_t *ep_host)
{
    const struct bn_topo *t = &s->topo;
    uint32_t root = t->nhosts, m = t->nswitches;
    for (uint32_t x = t->nhosts; x < t->nhosts + m; x++)
        if (t->nodes[x].tier > t->nodes[root].tier)
            root = x;
    uint32_t root_unit = t->agg_first + (root - t->nhosts);
    for (uint32_t r = 0; r < p->nranks; r++) {
        uint32_t sw = t->ports[t->ports[t->nodes[r].first_port].peer].node, depth = 0;
        tr->rank_agg[r] = tree_unit(s, tr, sw, ep_host, p->nranks);
        while (sw != root) {
            uint32_t child = tree_unit(s, tr, sw, ep_host, p->nranks);
            uint32_t port = s->agg_next[(size_t)(root_unit - t->agg_first) * m + (sw - t->nhosts)];
            if (port == UINT32_MAX)
                return -1; /* the root is unreachable from this leaf */
            sw = t->ports[t->ports[port].peer].node;
            tr->parent[child] = tree_unit(s, tr, sw, ep_host, p->nranks);
            depth++;
        }
        if (depth > tr->levels)
            tr->levels = depth;
    }
    return 0;
}

/* The NVLS units (scale_up.nvls), after the SHARP tree's units. */
static int nvls_endpoints(const struct bn_topo *t, struct bn_coll_params *p, uint32_t *ep_host)
{
    if (!t->nnvls)
        return BN_OK;
    p->nvls_domain = t->domain_gpus;
    for (uint32_t d = 0; d < bn_coll_nvls_units(p); d++)
        ep_host[p->nranks + p->nagg + d] = t->nvls_first + d;
    return BN_OK;
}

/* NCCL gives each NIC two channels on servers of GPUs with a NIC each
 * (NVIDIA/nccl src/graph/search.cc: the ring search duplicates a graph's
 * channels, and H100 servers with 8 NICs run 16 to 32 of them), at most
 * its 32 (MAXCHANNELS). */
uint32_t bn_coll_channels(const struct bn_scenario *sc)
{
    uint32_t g = sc->topology.gpus_per_server;
    if (sc->coll.channels)
        return sc->coll.channels;
    return g > 1 ? (2 * g < 32 ? 2 * g : 32) : 2;
}

/* Where each endpoint of the schedule lives: rank r on GPU host r, the
 * SHARP units (with sharp.enabled) on their switches, the NVLS units on
 * their NVSwitches. */
static int endpoints(const struct bn_sim *s, struct bn_coll_params *p, struct agg_tree *tr,
                     uint32_t **ep_host, struct bn_error *err)
{
    const struct bn_topo *t = &s->topo;
    *ep_host = malloc(((size_t)p->nranks + t->nagg + 1) * sizeof **ep_host);
    if (!*ep_host)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    for (uint32_t r = 0; r < p->nranks; r++)
        (*ep_host)[r] = r;
    if (!t->nsharp)
        return nvls_endpoints(t, p, *ep_host);
    tr->unit_of_switch = malloc((size_t)t->nswitches * sizeof *tr->unit_of_switch);
    tr->parent = malloc(((size_t)t->nagg + 1) * sizeof *tr->parent);
    tr->rank_agg = malloc(((size_t)p->nranks + 1) * sizeof *tr->rank_agg);
    if (!tr->unit_of_switch || !tr->parent || !tr->rank_agg)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    memset(tr->unit_of_switch, 0xff, (size_t)t->nswitches * sizeof *tr->unit_of_switch);
    if (build_tree(s, p, tr, *ep_host) != 0)
        return bn_fail(err, BN_EINPUT, "%s: key 'sharp.enabled': the fabric's top tier cannot "
                       "be reached from every leaf; no aggregation tree", s->sc->source);
    p->nagg = tr->n;
    p->agg_parent = tr->parent;
    p->rank_agg = tr->rank_agg;
    return nvls_endpoints(t, p, *ep_host);
}

static void free_tree(struct agg_tree *tr)
{
    free(tr->unit_of_switch);
    free(tr->parent);
    free(tr->rank_agg);
}

/* One row: build the fabric, lower the collective, run it. */
static int run_size(const struct bn_scenario *sc, uint64_t size, const struct bn_ranks *ranks,
                    struct bn_coll_row *row, struct bn_error *err)
{
    struct bn_sim *s = calloc(1, sizeof *s);
    if (!s)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    int rc = bn_sim_build(s, sc, err);
    struct bn_sched sched = {0};
    struct agg_tree tree = {0};
    uint32_t *ep_host = NULL;
    if (rc == BN_OK) {
        struct bn_coll_params p = {
            .nranks = s->topo.nhosts, .bytes = size,
            .type_bytes = row->type_bytes,
            .root = sc->coll.root, .channels = bn_coll_channels(sc),
            .slice_bytes = sc->coll.slice_bytes, .gpus_per_server = sc->topology.gpus_per_server,
            .agg_max_trees = bn_topo_sharp(sc)->max_trees, .algo_keys = sc->algo,
        };
        p.kind = (enum bn_coll_kind)sc->coll.op;
        struct bn_coll_cost cost, hw;
        bn_coll_cost_of(s, &cost);
        hw = cost;
        const struct bn_coll_proto *proto = sc->coll.proto ? bn_coll_proto_at(sc->coll.proto - 1u)
                                                           : NULL;
        /* what NCCL's tuning model would pick here; with coll.tuner nccl it
         * is what runs */
        const struct bn_coll_algo_ops *algo = NULL;
        struct bn_nccl_system sys;
        struct bn_nccl_pick pick;
        bn_coll_nccl_system(sc, &p, &cost, &sys);
        if (bn_coll_nccl_choice(sc, &sys, p.kind, size, &pick)) {
            snprintf(row->nccl_algo, sizeof row->nccl_algo, "%s", bn_nccl_algo_name(pick.algo));
            snprintf(row->nccl_proto, sizeof row->nccl_proto, "%s",
                     bn_nccl_proto_name(pick.proto));
            row->nccl_predicted_us = pick.us;
            if (sc->coll.tuner == BN_SC_TUNER_NCCL) {
                algo = bn_coll_algo_find(bn_nccl_bnet_algo(&sys, pick.algo));
                proto = bn_nccl_bnet_proto(pick.proto);
            }
        }
        /* a protocol: its steps are the pipelining unit, and the tuner's
         * model sees its wire bytes and its step latency */
        if (proto) {
            p.slice_bytes = proto->step_payload;
            bn_coll_cost_proto(&cost, proto, sc->coll.step_latency_us,
                               bn_coll_proto_step_us(sc, proto, &hw));
            snprintf(row->proto, sizeof row->proto, "%s", proto->name);
        }
        /* each family's NCCL latencies, for the tuner as the run will pay them */
        struct bn_coll_steps steps[BN_FAMILIES];
        for (int f = 0; f < BN_FAMILIES; f++) {
            const struct bn_coll_steps *st = &steps[f];
            bn_coll_steps_of(sc, &sys, &hw, (enum bn_coll_family)f, proto, p.kind, size, &steps[f]);
            double step = sc->coll.step_latency_us;
            cost.family[f] = (struct bn_coll_family_cost){
                .set = true, .net_alpha_us = hw.net_alpha_us - step + st->net_us,
                .nv_alpha_us = hw.nv_gbps > 0 ? hw.nv_alpha_us - step + st->nv_us : 0,
                .launch_us = st->launch_us};
        }
        rc = endpoints(s, &p, &tree, &ep_host, err);
        if (tree.n) { /* one level of the tree: into a unit, through its switch */
            cost.agg_levels = tree.levels;
            cost.agg_alpha_us = cost.net_alpha_us - sc->coll.step_latency_us +
                                (bn_topo_sharp(sc)->latency_ns - sc->sw.latency_ns) / 1e3;
        }
        if (rc == BN_OK && algo && algo->supports(&p)) { /* NCCL's pick */
            if (!bn_coll_predict(algo, &p, &cost, &row->predicted_us))
                row->predicted_us = 0;
        } else if (rc == BN_OK) {
            rc = pick_algo(sc, &p, &cost, &algo, &row->predicted_us, err);
        }
        /* NCCL's tree cuts LL128 steps smaller for a small message */
        int na = rc == BN_OK && proto ? bn_nccl_algo_of_family(algo->family) : -1;
        uint64_t chunk = na >= 0 ? bn_nccl_chunk_bytes(&sys, (enum bn_nccl_algo)na, proto, size)
                                 : p.slice_bytes;
        if (chunk != p.slice_bytes) {
            p.slice_bytes = chunk;
            if (!bn_coll_predict(algo, &p, &cost, &row->predicted_us))
                row->predicted_us = 0;
        }
        if (rc == BN_OK)
            rc = bn_sched_init(&sched, &p, err);
        if (rc == BN_OK)
            rc = sc->coll.aggregate ? algo->bulk(&sched, err) : algo->build(&sched, err);
        if (rc == BN_OK)
            rc = bn_sched_finish(&sched, err);
        if (rc == BN_OK) {
            snprintf(row->algo, sizeof row->algo, "%s", algo->name);
            row->line_busbw_gbs = bn_coll_line_busbw(algo, &p, &cost);
            row->nic_busbw_gbs = bn_coll_side_busbw(algo, &p, &cost, true);
            row->nvlink_busbw_gbs = bn_coll_side_busbw(algo, &p, &cost, false);
            /* what ran: CollNet caps its trees at sharp.max_trees */
            for (uint32_t x = 0; x < sched.nexplicit; x++) /* a lane's channel: mod channels */
                if (sched.xfers[x].channel % p.channels + 1 > row->channels)
                    row->channels = sched.xfers[x].channel % p.channels + 1;
            for (uint32_t c = 0; c < sched.nchains; c++)
                if (sched.chains[c].channel + 1 > row->channels)
                    row->channels = sched.chains[c].channel + 1;
            for (uint32_t c = 0; c < sched.nhchains; c++)
                if (sched.hchains[c].channel + 1 > row->channels)
                    row->channels = sched.hchains[c].channel + 1;
            rc = bn_coll_execute(s, &sched, ep_host, sc, proto, &steps[algo->family], ranks, row,
                                 err);
        }
    }
    bn_sched_free(&sched);
    free_tree(&tree);
    free(ep_host);
    bn_sim_free(s);
    free(s);
    return rc;
}

/* coll.tuner both: NCCL's pick run as well (the row's own time when it
 * is the pair that ran). */
static int run_nccl_pick(const struct bn_scenario *sc, uint64_t size,
                         const struct bn_ranks *ranks, struct bn_coll_row *row,
                         struct bn_error *err)
{
    if (!row->nccl_algo[0])
        return BN_OK;
    struct bn_scenario *nc = malloc(sizeof *nc);
    struct bn_coll_row other = {.size = size, .type_bytes = row->type_bytes};
    if (!nc)
        return bn_fail(err, BN_ENOMEM, "out of memory for NCCL's pick");
    *nc = *sc;
    nc->coll.tuner = BN_SC_TUNER_NCCL;
    int rc = run_size(nc, size, ranks, &other, err);
    bool same = strcmp(other.algo, row->algo) == 0 && strcmp(other.proto, row->proto) == 0;
    row->nccl_time_us = same ? row->time_us : other.time_us;
    free(nc);
    return rc;
}

/* A row of a scenario with faults, and the same row without them. */
static int run_row(const struct bn_scenario *sc, uint64_t size, const struct bn_ranks *ranks,
                   struct bn_coll_row *row, struct bn_error *err)
{
    int rc = run_size(sc, size, ranks, row, err);
    if (rc == BN_OK && sc->coll.tuner == BN_SC_TUNER_BOTH)
        rc = run_nccl_pick(sc, size, ranks, row, err);
    if (rc != BN_OK || sc->nfaults == 0 || !sc->routing.baseline)
        return rc;
    struct bn_scenario *clean = malloc(sizeof *clean);
    struct bn_coll_row base = {.size = size, .type_bytes = row->type_bytes};
    if (!clean)
        return bn_fail(err, BN_ENOMEM, "out of memory for the baseline row");
    *clean = *sc;
    clean->nfaults = 0;
    rc = run_size(clean, size, ranks, &base, err);
    row->baseline_us = base.time_us;
    free(clean);
    return rc;
}

int bn_coll_sweep(const struct bn_scenario *sc, struct bn_coll_results *out, struct bn_error *err)
{
    return bn_coll_sweep_jobs(sc, 1, NULL, NULL, out, err);
}

int bn_coll_sweep_rows(const struct bn_scenario *sc, bn_coll_row_fn on_row, void *ud,
                       struct bn_coll_results *out, struct bn_error *err)
{
    return bn_coll_sweep_jobs(sc, 1, on_row, ud, out, err);
}

/* nccl-tests' count and bandwidths of a finished row. */
static void finish_row(struct bn_coll_results *out, enum bn_coll_kind kind, struct bn_coll_row *row)
{
    uint64_t elems = row->size / row->type_bytes;
    row->count = cut_in_blocks(kind) ? elems / out->nranks : elems;
    row->algbw_gbs = row->time_us > 0 ? row->size / (row->time_us * 1e3) : 0;
    row->busbw_gbs = row->algbw_gbs * bn_coll_busbw_factor(kind, out->nranks);
    row->inplace_algbw_gbs = row->inplace_time_us > 0 ? row->size / (row->inplace_time_us * 1e3)
                                                      : 0;
    row->inplace_busbw_gbs = row->inplace_algbw_gbs * bn_coll_busbw_factor(kind, out->nranks);
}

/* The rows of type t and reduction o, one per size of the sweep (whole
 * elements, and whole blocks where the buffer is cut per rank), appended
 * at out->rows[*n] (room for *cap). */
static int add_sizes(const struct bn_scenario *sc, struct bn_coll_results *out, size_t t,
                     size_t o, uint32_t *n, uint32_t *cap, struct bn_error *err)
{
    bool blocks = cut_in_blocks((enum bn_coll_kind)sc->coll.op);
    uint64_t unit = bn_coll_type_bytes(t) * (blocks ? (uint64_t)out->nranks : 1), last = 0;
    for (uint64_t size = sc->coll.min_bytes; size <= sc->coll.max_bytes;) {
        uint64_t bytes = size / unit * unit;
        if (bytes > 0 && bytes != last) {
            if (*n == *cap) {
                *cap = *cap ? 2 * *cap : 32;
                struct bn_coll_row *r = realloc(out->rows, *cap * sizeof *r);
                if (!r)
                    return bn_fail(err, BN_ENOMEM, "out of memory");
                out->rows = r;
            }
            struct bn_coll_row *w = &out->rows[(*n)++];
            *w = (struct bn_coll_row){.size = bytes, .type_bytes = bn_coll_type_bytes(t)};
            snprintf(w->type, sizeof w->type, "%s", bn_coll_type_name(t));
            snprintf(w->redop, sizeof w->redop, "%s", bn_coll_redop_name(o));
            last = bytes;
        }
        /* nccl-tests: times the factor, or plus -i with a factor of 1 */
        if (sc->coll.step_factor > 1 ? size > sc->coll.max_bytes / sc->coll.step_factor
                                     : size > sc->coll.max_bytes - sc->coll.step_bytes)
            break;
        size = sc->coll.step_factor > 1 ? size * sc->coll.step_factor
                                        : size + sc->coll.step_bytes;
    }
    return BN_OK;
}

/* The header fields, the topology and every row's size (out->rows has
 * room for them, out->nrows stays 0 until rows are measured). */
static int plan_rows(const struct bn_scenario *sc, struct bn_coll_results *out, uint32_t *nsizes,
                     struct bn_error *err)
{
    enum bn_coll_kind kind = (enum bn_coll_kind)sc->coll.op;
    if (sc->coll.min_bytes > sc->coll.max_bytes)
        return bn_fail(err, BN_EINPUT, "%s: key 'coll.min_bytes': %llu is above coll.max_bytes "
                       "%llu", BN_WHERE(sc, "coll.min_bytes"),
                       (unsigned long long)sc->coll.min_bytes,
                       (unsigned long long)sc->coll.max_bytes);
    int rc = bn_provenance_keep(&out->prov, sc, err);
    if (rc != BN_OK)
        return rc;
    snprintf(out->op, sizeof out->op, "%s", bn_coll_op_name(sc->coll.op));
    out->allreduce = kind == BN_COLL_ALLREDUCE;
    const char *type = bn_coll_type_name(sc->coll.datatype);
    const char *redop = bn_coll_redop_name(sc->coll.redop);
    snprintf(out->datatype, sizeof out->datatype, "%s", type ? type : "all");
    snprintf(out->redop, sizeof out->redop, "%s", redop ? redop : "all");
    out->type_bytes = bn_coll_type_bytes(sc->coll.datatype);
    bool rooted = kind == BN_COLL_BROADCAST || kind == BN_COLL_REDUCE;
    out->root = rooted ? (int32_t)sc->coll.root : -1;
    out->gpus_per_server = sc->topology.gpus_per_server;
    out->min_bytes = sc->coll.min_bytes;
    out->max_bytes = sc->coll.max_bytes;
    out->step_bytes = sc->coll.step_bytes;
    out->step_factor = sc->coll.step_factor;
    out->warmup = sc->coll.warmup;
    out->iters = sc->coll.iters;
    out->check = sc->coll.check && !sc->coll.aggregate; /* an aggregate carries no data */
    out->in_place = sc->coll.in_place;
    rc = bn_check_memory(sc, BN_EST_COLL, err);
    if (rc == BN_OK)
        rc = bn_describe_topology(sc, &out->topo, err);
    if (rc != BN_OK)
        return rc;
    /* the hosts' ports as built, not link.rate_gbps: a topology file sets them */
    out->nic_gbps = out->topo.host_rate_gbps > 0 ? out->topo.host_rate_gbps : sc->link.rate_gbps;
    struct bn_encap encap;
    bn_nic_encap(sc, &encap);
    out->nic_goodput_gbps = bn_encap_goodput_gbps(&encap, sc->nic.mtu_bytes, out->nic_gbps);
    out->nranks = out->topo.hosts;
    uint32_t n = 0, cap = 0;
    /* as nccl-tests: each type, each reduction, each size ("all": every one) */
    size_t t0 = type ? sc->coll.datatype : 0, t1 = type ? t0 + 1 : SIZE_MAX;
    size_t o0 = redop ? sc->coll.redop : 0, o1 = redop ? o0 + 1 : SIZE_MAX;
    for (size_t t = t0; rc == BN_OK && t < t1 && bn_coll_type_name(t); t++)
        for (size_t o = o0; rc == BN_OK && o < o1 && bn_coll_redop_name(o); o++)
            rc = add_sizes(sc, out, t, o, &n, &cap, err);
    if (rc != BN_OK)
        return rc;
    if (n == 0)
        return bn_fail(err, BN_EINPUT, "%s: key 'coll.max_bytes': no size from %llu to %llu holds "
                       "a whole element%s", BN_WHERE(sc, "coll.max_bytes"),
                       (unsigned long long)sc->coll.min_bytes,
                       (unsigned long long)sc->coll.max_bytes,
                       cut_in_blocks(kind) ? " per rank" : "");
    *nsizes = n;
    return BN_OK;
}

/* The rows a process measures: every nparts-th from part (all: 0 of 1). */
struct share {
    uint32_t part, nparts;
    const struct bn_ranks *ranks;   /* each row's parts on these processes (NULL: here) */
};

static uint32_t share_rows(struct share sh, uint32_t nsizes)
{
    return nsizes > sh.part ? (nsizes - sh.part + sh.nparts - 1) / sh.nparts : 0;
}

/* Rows one after another in this process, each reported as it ends. */
/* The progress line's weight of row i: its bytes (a row's events grow
 * with them), over all rows of the share. */
static double rows_bytes(const struct bn_coll_results *out, uint32_t nsizes, struct share sh,
                         uint32_t upto)
{
    double b = 0;
    for (uint32_t i = sh.part; i < nsizes && i < upto; i += sh.nparts)
        b += (double)out->rows[i].size;
    return b;
}

static int run_in_turn(const struct bn_scenario *sc, uint32_t nsizes, struct share sh,
                       bn_coll_row_fn on_row, void *ud, struct bn_coll_results *out,
                       struct bn_error *err)
{
    double all = rows_bytes(out, nsizes, sh, nsizes);
    for (uint32_t i = sh.part, k = 0; i < nsizes; i += sh.nparts, k++) {
        bn_progress_stage(rows_bytes(out, nsizes, sh, i) / all, (double)out->rows[i].size / all,
                          k, share_rows(sh, nsizes));
        int rc = run_row(sc, out->rows[i].size, sh.ranks, &out->rows[i], err);
        if (rc == BN_EINTR) { /* the rows measured so far stand */
            out->interrupted = true;
            return BN_OK;
        }
        if (rc != BN_OK)
            return rc;
        finish_row(out, (enum bn_coll_kind)sc->coll.op, &out->rows[i]);
        if (sh.nparts == 1)
            out->nrows = i + 1;
        if (on_row)
            on_row(ud, out, i);
    }
    return BN_OK;
}

/* Rows in worker processes: what a worker sends back, and what the
 * parent keeps to report rows in order as the first ones are in. */
struct row_msg {
    int rc;
    struct bn_error err;
    struct bn_coll_row row;
};

struct rows_ctx {
    const struct bn_scenario *sc;
    struct share sh;           /* task k is row sh.part + k x sh.nparts */
    struct bn_coll_results *out;
    bool *done;            /* [nsizes] */
    uint32_t cut;          /* the first row interrupted (nsizes: none) */
    uint32_t nsizes, placed;   /* the progress line: rows in, and their bytes */
    double bytes, all, t0;
    bn_coll_row_fn on_row;
    void *ud;
};

static void run_row_task(void *ctx, uint32_t i, void *msg)
{
    const struct rows_ctx *x = ctx;
    struct row_msg *m = msg;
    i = x->sh.part + i * x->sh.nparts;
    m->row = x->out->rows[i]; /* its size, type and reduction */
    m->rc = run_row(x->sc, m->row.size, NULL, &m->row, &m->err);
}

static int place_row(void *ctx, uint32_t i, const void *msg, struct bn_error *err)
{
    struct rows_ctx *x = ctx;
    const struct row_msg *m = msg;
    i = x->sh.part + i * x->sh.nparts;
    if (m->rc == BN_EINTR) { /* the rows before it stand */
        x->out->interrupted = true;
        x->cut = i < x->cut ? i : x->cut;
        return BN_OK;
    }
    if (m->rc != BN_OK) {
        *err = m->err;
        return m->rc;
    }
    x->out->rows[i] = m->row;
    finish_row(x->out, (enum bn_coll_kind)x->sc->coll.op, &x->out->rows[i]);
    x->done[i] = true;
    x->bytes += (double)m->row.size;
    bn_progress_parts(x->bytes / x->all, ++x->placed, share_rows(x->sh, x->nsizes),
                      bn_wall_now() - x->t0);
    if (x->sh.nparts > 1) /* a share: the whole sweep is gathered elsewhere */
        return BN_OK;
    /* report the rows now in order after the last reported */
    while (x->out->nrows < x->cut && x->done[x->out->nrows]) {
        uint32_t r = x->out->nrows++;
        if (x->on_row)
            x->on_row(x->ud, x->out, r);
    }
    return BN_OK;
}

/* Workers at once: `jobs`, or (0) as many as the processors, the rows and
 * the memory of the largest row allow; an explicit count that does not fit
 * is refused. */
static int rows_at_once(const struct bn_scenario *sc, unsigned jobs, uint32_t nsizes,
                        unsigned *out, struct bn_error *err)
{
    struct bn_mem_estimate e;
    int rc = bn_estimate_memory(sc, BN_EST_COLL, &e, err);
    if (rc != BN_OK)
        return rc;
    uint64_t each = e.total_bytes ? e.total_bytes : 1;
    uint64_t fit = e.available_bytes / each;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned want = jobs ? jobs : cpus > 0 ? (unsigned)cpus : 1;
    want = want < nsizes ? want : nsizes;
    want = want < BN_WORKERS_MAX ? want : BN_WORKERS_MAX;
    if (!jobs)
        want = want < fit ? want : fit > 0 ? (unsigned)fit : 1;
    else if (want > 1 && want > fit)
        return bn_fail(err, BN_EINPUT, "coll: %u rows at once, each up to %.2f GB, need more "
                       "than the %.2f GB available: lower -j", want, each / 1e9,
                       e.available_bytes / 1e9);
    *out = want;
    return BN_OK;
}

static int sweep_share(const struct bn_scenario *sc, unsigned jobs, struct share sh,
                       bn_coll_row_fn on_row, void *ud, struct bn_coll_results *out,
                       struct bn_error *err)
{
    memset(out, 0, sizeof *out);
    double t0 = bn_wall_now();
    uint32_t nsizes = 0, mine = 0;
    unsigned at_once = 1;
    int rc = sh.nparts >= 1 && sh.part < sh.nparts
                 ? plan_rows(sc, out, &nsizes, err)
                 : bn_fail(err, BN_EINPUT, "coll: share %u of %u", sh.part, sh.nparts);
    if (rc == BN_OK)
        mine = share_rows(sh, nsizes);
    if (rc == BN_OK && mine)
        rc = rows_at_once(sc, jobs, mine, &at_once, err);
    bool *done = rc == BN_OK ? calloc(nsizes + 1, sizeof *done) : NULL;
    if (rc == BN_OK && !done)
        rc = bn_fail(err, BN_ENOMEM, "out of memory");
    if (rc == BN_OK && sh.nparts > 1)
        out->nrows = nsizes; /* planned; this share's measured */
    if (rc == BN_OK && at_once == 1) {
        rc = run_in_turn(sc, nsizes, sh, on_row, ud, out, err);
    } else if (rc == BN_OK) {
        struct rows_ctx x = {.sc = sc, .sh = sh, .out = out, .done = done, .cut = nsizes,
                             .on_row = on_row, .ud = ud, .nsizes = nsizes, .t0 = t0,
                             .all = rows_bytes(out, nsizes, sh, nsizes)};
        struct bn_workers w = {.ntasks = mine, .jobs = at_once,
                               .msg_size = sizeof(struct row_msg), .what = "coll",
                               .interruptible = true, .run = run_row_task, .place = place_row,
                               .ctx = &x};
        rc = bn_workers_run(&w, err);
        for (uint32_t i = sh.part; sh.nparts > 1 && i < nsizes; i += sh.nparts)
            out->interrupted |= !done[i];
        out->interrupted = rc == BN_OK && (out->interrupted || out->nrows < nsizes);
    }
    free(done);
    bn_progress_stage_clear();
    out->wall_s = bn_wall_now() - t0;
    struct rusage ru, rc_ru; /* the workers' peak counts too: the largest row's */
    uint64_t self = getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0;
    uint64_t kids = getrusage(RUSAGE_CHILDREN, &rc_ru) == 0 ? (uint64_t)rc_ru.ru_maxrss * 1024 : 0;
    out->peak_rss_bytes = self > kids ? self : kids;
    if (rc != BN_OK)
        bn_coll_results_free(out);
    return rc;
}

int bn_coll_sweep_jobs(const struct bn_scenario *sc, unsigned jobs, bn_coll_row_fn on_row,
                       void *ud, struct bn_coll_results *out, struct bn_error *err)
{
    return sweep_share(sc, jobs, (struct share){0, 1, NULL}, on_row, ud, out, err);
}

int bn_coll_sweep_ranks(const struct bn_scenario *sc, const struct bn_ranks *ranks,
                        bn_coll_row_fn on_row, void *ud, struct bn_coll_results *out,
                        struct bn_error *err)
{
    return sweep_share(sc, 1, (struct share){0, 1, ranks}, on_row, ud, out, err);
}

int bn_coll_sweep_part(const struct bn_scenario *sc, unsigned jobs, uint32_t part,
                       uint32_t nparts, struct bn_coll_results *out, struct bn_error *err)
{
    return sweep_share(sc, jobs, (struct share){part, nparts, NULL}, NULL, NULL, out, err);
}

void bn_coll_results_free(struct bn_coll_results *r)
{
    bn_provenance_free(&r->prov);
    free(r->rows);
    r->rows = NULL;
    r->nrows = 0;
}
