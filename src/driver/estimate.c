/*
 * What a run will need, told before it is built (docs/limits.md): the
 * topology's size from its builder run in counting mode (no links laid
 * out), then the memory of each part that grows with it:
 *   routing tables   switches x leaves x 4 B, twice while built (the
 *                    distances of every leaf's search, then the table)
 *   fabric           ports x (the port's line, its counters, flow control)
 *   flows            per flow: a queue pair, its transport's state, the
 *                    driver's record (paths followed) and its result; at
 *                    the flow level, the links its data and ACKs load
 *                    (a spread flow's path set: about 1 + k/2 + k^2/4
 *                    ports each way up a three-tier fabric of radix k)
 *   time series      samples (the run's ideal length, doubled, over
 *                    observe.sample_us, at most observe.max_samples) x the
 *                    followed flows, queues and link rows
 *   collective       the largest row's schedule: transfers and slots, and
 *                    each slot's contribution set, one bit per rank; for a
 *                    compact algorithm (ring), a chain and its carried interval
 *                    per piece; for hier's two-level chains, its state per
 *                    server and piece
 * and refused (BN_EINPUT naming the key that drives the largest part)
 * when the total passes the memory available (sim.memory_limit_bytes, or
 * the least of MemAvailable, the address-space limit and the cgroup's:
 * core/memlimit.h). On mpirun's ranks the check is per rank
 * (bn_check_memory_ranks): every rank holds the whole model, MPI's own and
 * its share of the results' records, against its share of the machine.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/memlimit.h"
#include "coll/nccl_model.h"
#include "coll/proto.h"
#include "coll/sched.h"
#include "job/graph.h"
#include "driver/coll/coll.h"
#include "driver/flows/flows.h"
#include "flow/flow.h"
#include "flow/rateclass.h"
#include "switch/lb.h"
#include "job/model.h"

/* The flows the workload will start (0: a flow file, not read yet), and
 * the run's length if they ran at line rate one after another at the
 * busiest sender or receiver. */
static uint64_t flow_count(const struct bn_scenario *sc, uint64_t hosts, double *ideal_us)
{
    const struct bn_workload_ops *w = bn_workload_at(sc->workload.kind);
    uint64_t serial = 1, flows = w && w->count ? w->count(sc, hosts, &serial) : 0;
    *ideal_us = sc->workload.start_us +
                (double)serial * (double)sc->workload.message_bytes * 8 / (sc->link.rate_gbps * 1e3);
    return flows;
}

/* The links a flow loads at the flow level, data and ACKs: one path, or
 * a spread path set (about 1 + k/2 + k^2/4 ports each way up a three-tier
 * fabric of radix k), which classes of identical links (flow/linkclass.h)
 * fold to a few dozen unless per-packet entropy turns them off. */
static double flow_uses(const struct bn_scenario *sc)
{
    const struct bn_lb_ops *lb = bn_lb_at(sc->sw.load_balancing);
    bool per_packet = sc->nic.entropy == BN_SC_PER_PACKET;
    double half = sc->topology.k / 2.0;
    if (per_packet)
        return 2 * (1 + half + half * half) + 16;
    return lb->pure || lb->sticky ? 32 : 64;
}

/* At flow level a flow's use of a link (its solver entry, and a copy in
 * its rate class: port, weight, pass), and at worst a rate class of its
 * own (flow/rateclass.h: the class, its one member, a hash bucket). */
#define USE_BYTES (sizeof(struct bn_mm_use) + 8 + 9)
#define CLASS_BYTES (sizeof(struct bn_flow_cls) + sizeof(struct bn_rc_member) + 4)
/* A held two-level schedule's connection: its messages in flight and their
 * events at the flow level (coll_parts; a bound, see there). */
#define HELD_CONN_BYTES 4096.0

static void run_parts(const struct bn_scenario *sc, const struct bn_topo_counts *c,
                      struct bn_mem_estimate *e)
{
    double ideal;
    uint64_t flows = flow_count(sc, c->hosts, &ideal);
    uint64_t tp = bn_tp_sr_window(sc) / 4 + 64; /* selective repeat's bitmaps, at most */
    e->flows_bytes = flows * (sizeof(struct bn_qp) + tp + sizeof(struct bn_flow_state) +
                              sizeof(struct bn_flow_spec) + sizeof(struct bn_flow_result) +
                              2 * sizeof(struct bn_path_memo)) +
                     flows * sc->workload.messages * (sizeof(struct bn_msg) + sizeof(bn_time_t));
    if (sc->sim.fidelity != BN_SC_FIDELITY_PACKET)
        e->flows_bytes += (uint64_t)((double)flows * (flow_uses(sc) * USE_BYTES + CLASS_BYTES));
    if (sc->observe.sample_us > 0) {
        double length = sc->sim.max_time_us > 0 ? sc->sim.max_time_us : 2 * ideal;
        uint64_t followed = flows < sc->observe.max_flows ? flows : sc->observe.max_flows;
        double samples = length / sc->observe.sample_us + 1, most = sc->observe.max_samples + 2.0;
        uint64_t ports = 2 * c->links;
        uint64_t rows = ports < sc->observe.link_rows ? ports : sc->observe.link_rows + 32;
        e->series_bytes = (uint64_t)((samples < most ? samples : most) *
                                     (double)(followed * 4 + followed + 1 + 2 * rows) * 8) +
                          ports * 4 + rows * (sizeof(struct bn_series_link) + 20);
    }
}

/* The jobs' graphs: tasks (each with its edges and run state) as the
 * builders make them (job/model.c); and their queue pairs, one per
 * connection a collective or a send opens (a ring's per rank and channel,
 * a pipeline stage's send each way: about GPUs x (channels + 2)), each
 * with the links it loads at the flow level. */
static void jobs_parts(const struct bn_scenario *sc, struct bn_mem_estimate *e)
{
    double per_task = sizeof(struct bn_task) + 3 * 3 * sizeof(uint32_t) + 40;
    double ch = sc->coll.channels ? sc->coll.channels : 2; /* job_colls.c's default */
    double per_qp = sizeof(struct bn_qp) + bn_tp_sr_window(sc) / 4 + 64 + 24;
    if (sc->sim.fidelity != BN_SC_FIDELITY_PACKET)
        per_qp += sizeof(struct bn_flow_qp) + flow_uses(sc) * USE_BYTES + CLASS_BYTES;
    for (uint32_t k = 0; k < sc->njobs; k++) {
        const struct bn_scenario_job *j = &sc->jobs[k];
        double gpus = j->gpus ? j->gpus : (double)j->tp * j->cp * j->pp * (j->dp ? j->dp : 1);
        e->jobs_bytes += (uint64_t)(per_task * (double)bn_job_task_estimate(j) +
                                    per_qp * gpus * (ch + 2));
    }
}

/* The largest row's schedule: the transfers an algorithm of the op moves
 * (a ring's 2 (n - 1) steps per rank and channel, cut into slices; an
 * all-to-all's n (n - 1) pairs per channel), each writing a slot whose
 * contribution set holds a bit per rank. */

static void coll_parts(const struct bn_scenario *sc, const struct bn_topo_counts *c,
                       struct bn_mem_estimate *e)
{
    double n = (double)c->hosts, ch = bn_coll_channels(sc);
    double slices = (double)sc->coll.max_bytes / (n * ch * (double)sc->coll.slice_bytes);
    if (slices < 1)
        slices = 1;
    double xfers;
    switch ((enum bn_coll_kind)sc->coll.op) {
    case BN_COLL_ALLTOALL:
        xfers = n * (n - 1) * ch;
        break;
    case BN_COLL_BROADCAST:
    case BN_COLL_REDUCE:
    case BN_COLL_SENDRECV:
        xfers = n * ch * slices;
        break;
    default: /* allreduce, reduce-scatter, all-gather: a ring's steps */
        xfers = 2 * n * (n - 1) * ch * slices;
        break;
    }
    if (sc->scale_up.nvls && sc->coll.op <= BN_COLL_ALLGATHER) {
        /* NVLS in one domain: 2n + 1 steps per 128 KiB chunk (algo_nvls.c) */
        double chunk = sc->coll.slice_bytes < 131072 ? (double)sc->coll.slice_bytes : 131072;
        double nvls = (2 * n + 1) * ((double)sc->coll.max_bytes / chunk + n * ch);
        xfers = nvls > xfers ? nvls : xfers;
    }
    if (sc->coll.aggregate) {
        /* a transfer per connection and phase (hier: three per rank and
         * channel), its queue pair and its flow's links */
        double conns = 3 * n * ch;
        e->coll_bytes = (uint64_t)(conns * (sizeof(struct bn_xfer) + 6 * sizeof(uint32_t) +
                                            sizeof(struct bn_qp) + sizeof(struct bn_msg) +
                                            16 * (sizeof(struct bn_mm_use) + 8)) +
                                   n * sizeof(struct bn_slot) * 4);
        return;
    }
    /* slot sets: every rank up to BN_SCHED_EXACT_RANKS, a sample beyond */
    double words = ((n < BN_SCHED_EXACT_RANKS ? n : BN_SCHED_EXACT_RANKS) + 63) / 64;
    const struct bn_coll_algo_ops *forced =
        sc->coll.algo ? bn_coll_algo_at(sc->coll.algo - 1u) : NULL;
    /* a forced protocol's steps are the slices */
    uint64_t forced_step = sc->coll.proto ? bn_coll_proto_at(sc->coll.proto - 1u)->step_payload
                                          : sc->coll.slice_bytes;
    if (forced && forced->transfers) {
        /* the most its rows could make: NCCL's tuner may pick any
         * protocol's steps, cut in whole elements of any type */
        uint64_t slice = forced_step;
        for (size_t i = 0; !sc->coll.proto && sc->coll.tuner != BN_SC_TUNER_BNET &&
                           bn_coll_proto_at(i); i++)
            if (bn_coll_proto_at(i)->step_payload < slice)
                slice = bn_coll_proto_at(i)->step_payload;
        /* NCCL's tree cuts LL128 steps down to 18000 B (bn_nccl_chunk_bytes) */
        const struct bn_coll_proto *ll128 = bn_nccl_bnet_proto(BN_NCCL_LL128);
        if (bn_nccl_algo_of_family(forced->family) == BN_NCCL_TREE &&
            (sc->coll.proto ? bn_coll_proto_at(sc->coll.proto - 1u) == ll128
                            : sc->coll.tuner != BN_SC_TUNER_BNET)) {
            uint32_t g = sc->topology.gpus_per_server ? sc->topology.gpus_per_server : 1;
            struct bn_nccl_system sys = {.nranks = (uint32_t)c->hosts,
                                         .nnodes = (uint32_t)c->hosts / g,
                                         .channels = bn_coll_channels(sc)};
            uint64_t chunk = bn_nccl_chunk_bytes(&sys, BN_NCCL_TREE, ll128, sc->coll.max_bytes);
            slice = chunk < slice ? chunk : slice;
        }
        bool one_type = bn_coll_type_name(sc->coll.datatype) != NULL, first = true;
        for (size_t t = 0; bn_coll_type_bytes(t); t++) {
            if (one_type && t != sc->coll.datatype)
                continue;
            struct bn_coll_params p = {.kind = (enum bn_coll_kind)sc->coll.op,
                                       .nranks = (uint32_t)c->hosts, .bytes = sc->coll.max_bytes,
                                       .type_bytes = bn_coll_type_bytes(t),
                                       .channels = bn_coll_channels(sc), .slice_bytes = slice,
                                       .algo_keys = sc->algo};
            double x = (double)forced->transfers(&p);
            xfers = first || x > xfers ? x : xfers;
            first = false;
        }
    }
    if (forced && forced->compact && sc->coll.op != BN_COLL_ALLTOALL &&
        sc->coll.op != BN_COLL_SENDRECV) {
        /* chains: a piece, a chain and the interval it carries per slice,
         * and per rank and channel a queue pair of the NIC layer */
        double cut = (double)sc->coll.max_bytes / (n * ch * (double)forced_step);
        double pieces = n * ch * (cut > 1 ? cut : 1), conns = n * ch, conns_extra = 0;
        double per_piece = sizeof(struct bn_piece) + sizeof(struct bn_chain) +
                           sizeof(struct bn_chain_set) + 16;
        if (forced->compact == BN_COMPACT_TWO_LEVEL) {
            /* two-level: per group, two hop counts; unless the executor
             * holds the first hops back (coll_exec.c: flow level, push
             * order, NVLink across each server, no protocol, pacing or
             * parts), a hop that may be ready (its id, a protocol's node
             * for it) and posted at once: every server's first reduce hop
             * of every piece is (its event, its message, in pools that
             * grow by doubling). Held, a chain's run of them (12 bytes),
             * and per connection the messages in flight, HELD_CONN_BYTES:
             * a bound (2026-12-07: 4096 GPUs, 16 channels, 203 MB peak
             * 240 s in, against 0.7 GB; 1024 GPUs 59.8 MB against 0.2). */
            double g = sc->topology.gpus_per_server ? sc->topology.gpus_per_server : 1;
            double groups = n / g;
            uint32_t dom = sc->scale_up.domain_gpus;
            bool held = sc->sim.fidelity == BN_SC_FIDELITY_FLOW && !sc->coll.proto &&
                        sc->coll.tuner != BN_SC_TUNER_NCCL && sc->coll.channel_gbs <= 0 &&
                        sc->sim.partitions == 0 && sc->sim.event_order != BN_SC_ORDER_KEYED &&
                        dom && g >= 2 && dom % (uint32_t)g == 0;
            per_piece = sizeof(struct bn_piece) + sizeof(struct bn_hchain) +
                        sizeof(struct bn_chain_set) + 4 + 12 +
                        (held ? groups * 2
                              : (groups + 1) * (2 + 4 + 12 + 24 + 2 * sizeof(struct bn_msg)));
            conns = 2 * n * ch; /* servers' rings and rails */
            if (held)
                conns_extra = conns * HELD_CONN_BYTES;
        }
        e->coll_bytes = (uint64_t)(pieces * per_piece + conns * sizeof(struct bn_qp) +
                                   conns_extra);
        return;
    }
    double per_slot = sizeof(struct bn_slot) + 2 * sizeof(uint64_t) + words * 8 + 4;
    double per_xfer = sizeof(struct bn_xfer) + 4 * sizeof(uint32_t) + 2 * sizeof(uint32_t);
    /* a transfer's destination is a new slot; its source, an earlier one's,
     * but for an all-to-all, whose every block is its own piece */
    double slots = sc->coll.op == BN_COLL_ALLTOALL ? 2 : 1;
    e->coll_bytes = (uint64_t)(xfers * (per_xfer + slots * per_slot));
}

int bn_estimate_memory(const struct bn_scenario *sc, enum bn_est_what what,
                       struct bn_mem_estimate *e, struct bn_error *err)
{
    memset(e, 0, sizeof *e);
    struct bn_topo_counts c;
    int rc = bn_scenario_locate(sc, bn_topo_count(sc, &c, err), err);
    if (rc != BN_OK)
        return rc;
    uint64_t ports = 2 * c.links;
    e->topology_bytes = (c.hosts + c.switches) * sizeof(struct bn_topo_node) +
                        ports * sizeof(struct bn_topo_port) + c.links * sizeof(struct bn_topo_edge);
    e->routes_bytes = 2 * c.switches * c.leaves * sizeof(uint32_t) + ports * 2 * sizeof(uint32_t);
    /* 96: three queued packets a port; in-band telemetry adds their records */
    uint64_t per_port = sizeof(struct bn_port) + sizeof(struct bn_port_stats) + 4 + 96;
    if (bn_cc_at(sc->nic.congestion_control)->telemetry_bytes)
        per_port += 3 * sizeof(struct bn_int_rec);
    e->fabric_bytes = ports * per_port + c.hosts * sizeof(struct bn_nic);
    if (what == BN_EST_TOPO) /* the planner lays out the graph and routes it, no more */
        e->fabric_bytes = 0;
    else if (what == BN_EST_COLL)
        coll_parts(sc, &c, e);
    else if (what == BN_EST_JOBS)
        jobs_parts(sc, e);
    else
        run_parts(sc, &c, e);
    e->total_bytes = e->topology_bytes + e->routes_bytes + e->fabric_bytes + e->flows_bytes +
                     e->series_bytes + e->coll_bytes + e->jobs_bytes;
    e->available_bytes = sc->sim.memory_limit_bytes ? sc->sim.memory_limit_bytes
                                                   : bn_mem_available("", NULL);
    /* one leaf's search touches every port: 4 ns each on the development
     * machine (a k=64 fat-tree, 2048 leaves x 393k ports, in 3.4 s) */
    e->route_s = (double)c.leaves * (double)ports * 4e-9;
    e->switches = c.switches;
    e->leaves = c.leaves;
    e->hosts = c.hosts;
    return BN_OK;
}

/* The key that drives the largest part, and what that part is. */
static const char *culprit(const struct bn_scenario *sc, const struct bn_mem_estimate *e,
                           char *what, size_t len)
{
    const uint64_t parts[] = {e->routes_bytes, e->flows_bytes, e->series_bytes, e->coll_bytes,
                              e->fabric_bytes + e->topology_bytes, e->jobs_bytes};
    size_t big = 0;
    for (size_t i = 1; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i] > parts[big])
            big = i;
    double gb = (double)parts[big] / 1e9;
    switch (big) {
    case 0:
        snprintf(what, len, "routing tables %.1f GB for %llu switches x %llu leaves", gb,
                 (unsigned long long)e->switches, (unsigned long long)e->leaves);
        return "topology.k";
    case 1: {
        const struct bn_workload_ops *w = bn_workload_at(sc->workload.kind);
        double ideal;
        unsigned long long n = (unsigned long long)flow_count(sc, e->hosts, &ideal);
        if (w->needs_flow_file)
            snprintf(what, len, "%.1f GB for its %llu lines' flows", gb, n);
        else
            snprintf(what, len, "%.1f GB for %llu flows of %llu hosts", gb, n,
                     (unsigned long long)e->hosts);
        /* the workload's own key when its flows are many per host */
        return w->count_key && e->flows_bytes > 64 * e->hosts * sizeof(struct bn_qp)
                   ? w->count_key
                   : "topology.k";
    }
    case 2:
        snprintf(what, len, "time series %.1f GB", gb);
        return "observe.sample_us";
    case 3:
        snprintf(what, len, "the collective's schedule %.1f GB for %llu ranks", gb,
                 (unsigned long long)e->hosts);
        return sc->coll.op == BN_COLL_ALLTOALL ? "coll.op" : "coll.max_bytes";
    case 5:
        snprintf(what, len, "the jobs' graphs %.1f GB", gb);
        return "jobs";
    default:
        snprintf(what, len, "the fabric %.1f GB", gb);
        return "topology.k";
    }
}

/* The needs of sc changed as one hint says, if they fit: the flow level
 * for a packet-level run, then (at flow level) a collective's connections
 * as whole flows (coll.aggregate, docs/flow_level.md). "" if neither. */
static void what_would_fit(const struct bn_scenario *sc, enum bn_est_what what_for,
                           char *hint, size_t len)
{
    hint[0] = '\0';
    if (what_for == BN_EST_TOPO)
        return;
    struct bn_scenario alt = *sc; /* read only: shares sc's arrays */
    struct bn_mem_estimate e;
    struct bn_error ignored;
    bool coll = what_for == BN_EST_COLL || what_for == BN_EST_JOBS;
    if (alt.sim.fidelity != BN_SC_FIDELITY_FLOW) {
        alt.sim.fidelity = BN_SC_FIDELITY_FLOW;
        if (bn_estimate_memory(&alt, what_for, &e, &ignored) == BN_OK &&
            e.total_bytes <= e.available_bytes) {
            snprintf(hint, len, "; at flow level it would need about %.1f GB (--fidelity flow)",
                     (double)e.total_bytes / 1e9);
            return;
        }
    }
    if (coll && !alt.coll.aggregate && !alt.coll.proto && alt.coll.tuner == BN_SC_TUNER_BNET) {
        alt.coll.aggregate = true;
        if (bn_estimate_memory(&alt, what_for, &e, &ignored) == BN_OK &&
            e.total_bytes <= e.available_bytes)
            snprintf(hint, len, "; at flow level with each connection as one flow it would need "
                     "about %.1f GB (%s--set coll.aggregate=true)", (double)e.total_bytes / 1e9,
                     sc->sim.fidelity == BN_SC_FIDELITY_FLOW ? "" : "--fidelity flow ");
    }
}

int bn_check_memory(const struct bn_scenario *sc, enum bn_est_what what_for,
                    struct bn_error *err)
{
    struct bn_mem_estimate e;
    int rc = bn_estimate_memory(sc, what_for, &e, err);
    if (rc != BN_OK || e.total_bytes <= e.available_bytes)
        return rc;
    char what[160], hint[160];
    const char *key = culprit(sc, &e, what, sizeof what);
    enum bn_mem_bound bound = BN_MEM_PHYSICAL;
    if (!sc->sim.memory_limit_bytes)
        bn_mem_available("", &bound);
    what_would_fit(sc, what_for, hint, sizeof hint);
    return bn_fail(err, BN_EINPUT, "%s: key '%s': %s would need about %.1f GB (%s), more "
                   "than the %.1f GB %s%s", sc->source, key,
                   what_for == BN_EST_TOPO ? "the topology" : "the run",
                   (double)e.total_bytes / 1e9, what,
                   (double)e.available_bytes / 1e9,
                   sc->sim.memory_limit_bytes ? "of sim.memory_limit_bytes" : bn_mem_bound_name(bound),
                   hint);
}

/*
 * Time. Packet level: events = data packets x the events a packet costs,
 * measured (2026-12-07, this build): a bnet run of 2 MB flows on a
 * three-tier fat-tree takes 17 to 31 events per data packet (its hops,
 * the ACK's, the NIC's and the switches' events, retransmissions; k = 4 to
 * 16, ECMP, go-back-N, with or without DCQCN), an all-to-all of 100 KB
 * flows 24: 24 is taken; a collective on cluster128 (rails, NVLink inside
 * servers) 12.8 at 16 and 64 MiB (small rows cost more per packet, but
 * little in all): 13. Each event at 8 M events/s, the large fabrics' rate
 * of docs/performance.md's table (7.1 to 15.1 M events/s). Flow level:
 * a recomputation per flow or transfer starting or ending, at 25 us for
 * flows (the 8192-host permutation of docs/flow_level.md: 0.44 s for 16k
 * changes; Poisson traffic, whose components are most of the fabric, costs
 * up to 40x that) and 1.5 us for a collective's transfers (the 1024-GPU
 * ring there: 12.4 s for 8.4 M changes).
 */
#define EVENTS_PER_PACKET_RUN 24.0
#define EVENTS_PER_PACKET_COLL 13.0
#define EVENT_S (1.0 / 8e6)
#define RECOMPUTE_FLOW_S 25e-6
#define RECOMPUTE_XFER_S 1.5e-6
/* Jobs (bnet job), measured 2026-12-07: the default job (packet level,
 * 113 GB of modelled backend bytes) took 278 M events, 9.9 a packet;
 * job_llama70b_16k.yaml (flow level, 2.03 M tasks estimated) 4.6 M
 * events and 14.6 s: taken as 2 recomputations a task at 3.6 us each. */
#define EVENTS_PER_PACKET_JOB 10.0
#define RECOMPUTE_TASK 2.0
#define RECOMPUTE_JOB_S 3.6e-6
#define EVENT_JOB_S (1.0 / 16e6) /* 20 M events/s measured there and at 1 layer */

/* Bytes each rank sends per byte of a row's size, by the ring's count
 * (nccl-tests' busbw factors: 2 (n - 1) / n for AllReduce). */
static double send_factor(enum bn_coll_kind kind, double n)
{
    switch (kind) {
    case BN_COLL_ALLREDUCE:
        return 2 * (n - 1) / n;
    case BN_COLL_REDUCESCATTER:
    case BN_COLL_ALLGATHER:
    case BN_COLL_ALLTOALL:
        return (n - 1) / n;
    default: /* broadcast, reduce, sendrecv: each rank forwards the message once */
        return 1;
    }
}

/* A row's transfers, as coll_parts counts the largest's. */
static double row_transfers(const struct bn_scenario *sc, double n, double size)
{
    double ch = bn_coll_channels(sc);
    if (sc->coll.aggregate)
        return 3 * n * ch;
    double slices = size / (n * ch * (double)sc->coll.slice_bytes);
    slices = slices < 1 ? 1 : slices;
    switch ((enum bn_coll_kind)sc->coll.op) {
    case BN_COLL_ALLTOALL:
        return n * (n - 1) * ch;
    case BN_COLL_BROADCAST:
    case BN_COLL_REDUCE:
    case BN_COLL_SENDRECV:
        return n * ch * slices;
    default:
        return 2 * n * (n - 1) * ch * slices;
    }
}

static void coll_time(const struct bn_scenario *sc, double n, bool flow,
                      struct bn_time_estimate *t)
{
    double iters = ((double)sc->coll.warmup + sc->coll.iters) * (sc->coll.in_place ? 2 : 1);
    double mtu = sc->nic.mtu_bytes ? sc->nic.mtu_bytes : 4096;
    for (uint64_t size = sc->coll.min_bytes; size && size <= sc->coll.max_bytes;) {
        double bytes = n * send_factor((enum bn_coll_kind)sc->coll.op, n) * (double)size * iters;
        if (flow)
            t->recomputations += 2 * row_transfers(sc, n, (double)size) * iters;
        else
            t->events += bytes / mtu * EVENTS_PER_PACKET_COLL;
        if (sc->coll.step_factor > 1 ? size > sc->coll.max_bytes / sc->coll.step_factor
                                     : size > sc->coll.max_bytes - sc->coll.step_bytes)
            break;
        size = sc->coll.step_factor > 1 ? size * sc->coll.step_factor : size + sc->coll.step_bytes;
    }
}

/* Job k's bytes on the backend in one iteration, from its model
 * (job/model.c): DP's gradient all-reduce (a ring's 2 (dp - 1) / dp per
 * rank), PP's activations each way at each stage boundary, and TP's and
 * EP's only when the group leaves the NVLink domain. 0 when the model is
 * refused (the run says why). */
static double job_bytes(const struct bn_scenario *sc, uint32_t k)
{
    struct bn_job_model m;
    struct bn_error err = {0};
    const struct bn_scenario_job *j = &sc->jobs[k];
    if (j->kind == BN_SC_JOB_BACKGROUND || bn_job_model(sc, k, &m, &err) != BN_OK)
        return 0;
    double layers = (double)j->layers / m.pp, micro = m.micro ? m.micro : 1;
    double grad = layers * (double)(m.grad_dense_layer + m.grad_expert_layer) +
                  2.0 * (double)m.grad_embedding / m.pp;
    double bytes = m.gpus * 2.0 * (m.dp - 1) / m.dp * grad;
    bytes += micro * 2 * (m.pp - 1) * (double)m.dp * m.tp * (double)m.fwd.pp_bytes;
    bool tp_out = !sc->scale_up.domain_gpus || m.tp > sc->scale_up.domain_gpus;
    if (tp_out && m.tp > 1) /* two all-reduces a layer each pass */
        bytes += m.gpus * layers * micro * 4 * 2.0 * (m.tp - 1) / m.tp * (double)m.fwd.tp_bytes;
    if (tp_out || m.ep * m.tp > sc->scale_up.domain_gpus) /* two all-to-alls a layer each pass */
        bytes += m.gpus * layers * micro * 4 * (double)m.fwd.ep_bytes;
    return bytes;
}

/* Jobs: packet level, their backend bytes at EVENTS_PER_PACKET_JOB; flow
 * level, RECOMPUTE_TASK recomputations per task of their graphs. Each
 * job's iterations, twice for one also run alone. Measured 2026-12-07: see
 * the constants. */
static void jobs_time(const struct bn_scenario *sc, uint64_t hosts, bool flow,
                      struct bn_time_estimate *t)
{
    double mtu = sc->nic.mtu_bytes ? sc->nic.mtu_bytes : 4096, gpus = 0;
    for (uint32_t k = 0; k < sc->njobs; k++) {
        struct bn_job_model m;
        struct bn_error err = {0};
        if (sc->jobs[k].kind != BN_SC_JOB_BACKGROUND && bn_job_model(sc, k, &m, &err) != BN_OK)
            return; /* refused by the run, no wait to tell */
        gpus += sc->jobs[k].kind != BN_SC_JOB_BACKGROUND ? m.gpus : 0;
    }
    if (gpus > (double)hosts) /* more than the fabric has: refused too */
        return;
    for (uint32_t k = 0; k < sc->njobs; k++) {
        const struct bn_scenario_job *j = &sc->jobs[k];
        double runs = (j->iterations ? j->iterations : 1) * (j->alone ? 2 : 1);
        if (flow)
            t->recomputations += runs * RECOMPUTE_TASK * (double)bn_job_task_estimate(j);
        else
            t->events += runs * job_bytes(sc, k) / mtu * EVENTS_PER_PACKET_JOB;
    }
}

int bn_estimate_time(const struct bn_scenario *sc, enum bn_est_what what,
                     struct bn_time_estimate *t, struct bn_error *err)
{
    memset(t, 0, sizeof *t);
    struct bn_mem_estimate e;
    int rc = bn_estimate_memory(sc, BN_EST_TOPO, &e, err);
    if (rc != BN_OK)
        return rc;
    bool flow = sc->sim.fidelity == BN_SC_FIDELITY_FLOW;
    if (what == BN_EST_COLL) {
        coll_time(sc, (double)e.hosts, flow, t);
    } else if (what == BN_EST_RUN && !bn_workload_at(sc->workload.kind)->needs_flow_file) {
        double ideal, flows = (double)flow_count(sc, e.hosts, &ideal);
        double mtu = sc->nic.mtu_bytes ? sc->nic.mtu_bytes : 4096;
        double messages = sc->workload.messages ? sc->workload.messages : 1;
        if (flow)
            t->recomputations = 2 * flows * messages;
        else
            t->events = flows * (double)sc->workload.message_bytes / mtu * EVENTS_PER_PACKET_RUN;
    } else if (what == BN_EST_JOBS) {
        jobs_time(sc, e.hosts, flow, t);
    }
    t->route_s = e.route_s;
    t->wall_s = t->route_s + t->events * (what == BN_EST_JOBS ? EVENT_JOB_S : EVENT_S) +
                t->recomputations * (what == BN_EST_COLL   ? RECOMPUTE_XFER_S
                                     : what == BN_EST_JOBS ? RECOMPUTE_JOB_S
                                                           : RECOMPUTE_FLOW_S);
    return BN_OK;
}

/* A rank's own beyond the model: MPI's library and buffers (7.6 MB a rank
 * measured at 2 and 4 ranks, docs/parallel.md). */
#define RANK_FIXED_BYTES (8ull << 20)

/* The most any rank holds on n ranks: the model (every rank builds it),
 * but for bn_run only its share of the switch ports' lines and counters
 * (its own and the cut's peers, at most twice its share: sim/ranks.c,
 * bn_ranks_place; all of them where in-band telemetry is read), MPI's
 * own, a piece of its results' records on their way to rank 0 (an eighth,
 * at least 1 MiB: bn_ranks_gather_stream), and rank 0's report of every
 * port. */
static uint64_t rank_bytes(const struct bn_scenario *sc, enum bn_est_what what,
                           const struct bn_mem_estimate *e, uint64_t ports, uint32_t n)
{
    uint64_t rec = 4 + sizeof(struct bn_port) + sizeof(struct bn_port_stats) +
                   sizeof(struct bn_fc_port_stats);
    uint64_t line = sizeof(struct bn_port) + sizeof(struct bn_port_stats);
    uint64_t sw_ports = ports > e->hosts ? ports - e->hosts : 0, away = 0;
    if (what == BN_EST_RUN && !bn_cc_at(sc->nic.congestion_control)->telemetry_bytes && n > 2)
        away = sw_ports * line * (n - 2) / n;
    uint64_t piece = ports * rec / (n ? n : 1) / 8;
    piece = piece > (1u << 20) ? piece : (1u << 20);
    return e->total_bytes - away + RANK_FIXED_BYTES + piece +
           ports * (sizeof(struct bn_port_result) + sizeof(struct bn_fc_port_stats));
}

/* Bytes for a message: MB under a GB. */
static const char *amount(uint64_t b, char *buf, size_t len)
{
    if (b < 1000000000ull)
        snprintf(buf, len, "%.1f MB", (double)b / 1e6);
    else
        snprintf(buf, len, "%.2f GB", (double)b / 1e9);
    return buf;
}

int bn_check_memory_ranks(const struct bn_scenario *sc, enum bn_est_what what,
                          const struct bn_ranks *r, struct bn_error *err)
{
    int rc = bn_check_memory(sc, what, err);
    if (rc != BN_OK || !r || r->size < 2)
        return rc;
    struct bn_mem_estimate e;
    struct bn_topo_counts c;
    if ((rc = bn_estimate_memory(sc, what, &e, err)) != BN_OK ||
        (rc = bn_topo_count(sc, &c, err)) != BN_OK)
        return rc;
    uint32_t n = (uint32_t)r->size, local = r->local > 0 ? (uint32_t)r->local : n;
    uint64_t need = rank_bytes(sc, what, &e, 2 * c.links, n);
    enum bn_mem_bound bound = BN_MEM_PHYSICAL;
    if (!sc->sim.memory_limit_bytes)
        bn_mem_available("", &bound);
    /* the machine's memory is shared by its ranks; an address-space limit
     * is each process's own */
    bool shared = sc->sim.memory_limit_bytes || bound != BN_MEM_RLIMIT_AS;
    uint64_t share = shared ? e.available_bytes / local : e.available_bytes;
    if (need <= share)
        return BN_OK;
    uint64_t fit = shared ? e.available_bytes / need : 0;
    char tail[160], a[4][32];
    if (fit >= 1)
        snprintf(tail, sizeof tail, "at most %llu rank%s per machine: spread the %u ranks "
                 "over %llu machines (mpirun --map-by ppr:%llu:node)",
                 (unsigned long long)fit, fit == 1 ? " fits" : "s fit", n,
                 (unsigned long long)((n + fit - 1) / fit), (unsigned long long)fit);
    /* more ranks, one a machine: do their smaller shares fit? (no more
     * than the leaves, which the cut keeps whole) */
    uint64_t more = n, most = e.leaves > n ? e.leaves : n;
    while (fit < 1 && shared && more <= most &&
           rank_bytes(sc, what, &e, 2 * c.links, (uint32_t)more) > e.available_bytes)
        more *= 2;
    if (fit < 1 && shared && more <= most && more > n)
        snprintf(tail, sizeof tail, "%llu ranks, one a machine, would fit: each holds a "
                 "smaller share of the ports (docs/parallel.md)", (unsigned long long)more);
    else if (fit < 1)
        snprintf(tail, sizeof tail, "no rank count fits: more ranks do not divide the rest of "
                 "the model (docs/parallel.md), so one rank needs a machine with %s",
                 amount(need, a[0], sizeof a[0]));
    return bn_fail(err, BN_EINPUT, "%s: key 'sim.partitions': each of the %u ranks would need "
                   "about %s (every rank holds the model, %s, but for its share of the "
                   "switch ports, and MPI's own), more than "
                   "its share, %s of the %s %s with %u ranks on this machine; %s", sc->source,
                   n, amount(need, a[1], sizeof a[1]), amount(e.total_bytes, a[2], sizeof a[2]),
                   amount(share, a[3], sizeof a[3]), amount(e.available_bytes, a[0], sizeof a[0]),
                   sc->sim.memory_limit_bytes ? "of sim.memory_limit_bytes"
                                              : bn_mem_bound_name(bound),
                   shared ? local : 1, tail);
}
