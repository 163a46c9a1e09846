/*
 * The assembly: a scenario becomes a runnable model. The topology and its
 * routes are built (topo/), the link layer allocates the ports (link/) and
 * they get their rate, propagation (topo's cable figures) and the
 * forwarding latency of what they feed; then each layer sets itself up
 * from its own keys: flow control (its module's setup hook), switches and
 * their load-balancing policies (switch/), NICs with their encapsulation,
 * transport and congestion control (nic/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "core/fail_key.h"
#include "flow/hybrid.h"

/* A port's line rate, and whether it is an endpoint's (a NIC-like port),
 * from the graph: what build_ports writes into its line, read here for
 * every port, including those a rank does not hold (bn_fabric.absent). */
static uint64_t port_rate(const struct bn_topo *t, uint32_t p)
{
    return (uint64_t)(t->ports[p].rate_gbps * 1e9 + 0.5);
}

static bool port_at_host(const struct bn_topo *t, uint32_t p)
{
    uint8_t kind = t->nodes[t->ports[p].node].kind;
    return kind == BN_NODE_HOST || kind == BN_NODE_AGG;
}

/* Propagation, FEC and, into a switch or an aggregation unit, its
 * forwarding latency: what a frame takes from port p to the next. */
static bn_time_t port_lat(const struct bn_sim *s, uint32_t p)
{
    const struct bn_scenario *sc = s->sc;
    const struct bn_topo *t = &s->topo;
    const struct bn_topo_port *tp = &t->ports[p];
    uint8_t peer_kind = t->nodes[t->ports[tp->peer].node].kind;
    bool peer_sw = peer_kind == BN_NODE_SWITCH || peer_kind == BN_NODE_SCALEUP;
    /* into a switch: its forwarding latency; into an aggregation unit:
     * the aggregation latency */
    uint32_t peer_node = t->ports[tp->peer].node;
    bool nvls = peer_kind == BN_NODE_AGG && peer_node >= t->nvls_first && t->nnvls;
    double fwd_ns = peer_kind == BN_NODE_SCALEUP ? sc->scale_up.latency_ns
                    : nvls                      ? 0 /* within the NVSwitch's own */
                    : peer_kind == BN_NODE_AGG  ? bn_topo_sharp(sc)->latency_ns
                                                : sc->sw.latency_ns;
    return bn_topo_prop_ps(sc, tp) +
           (peer_sw || peer_kind == BN_NODE_AGG ? bn_time_from_ns(fwd_ns) : 0);
}

/* Does a switch have ports of different rates (so that cut-through may have
 * to hold a packet for its tail, bn_switch_receive)? Endpoints do not count:
 * a host's NVLink port beside its NIC's is no reason to look. */
static bool mixed_rates(const struct bn_topo *t)
{
    for (uint32_t n = 0; n < t->nnodes; n++) {
        const struct bn_topo_node *nd = &t->nodes[n];
        if (nd->kind != BN_NODE_SWITCH && nd->kind != BN_NODE_SCALEUP)
            continue;
        for (uint32_t i = 1; i < nd->nports; i++)
            if (port_rate(t, nd->first_port + i) != port_rate(t, nd->first_port))
                return true;
    }
    return false;
}

static int build_ports(struct bn_sim *s, struct bn_error *err)
{
    const struct bn_scenario *sc = s->sc;
    const struct bn_topo *t = &s->topo;
    struct bn_fabric *f = &s->fab;
    const uint8_t *absent = s->part ? s->part->absent : NULL;
    int rc = bn_fabric_init_on(f, t->nports, absent, err);
    if (rc != BN_OK)
        return rc;
    bool cut = sc->sw.forwarding == BN_SC_CUT_THROUGH;
    for (uint32_t p = 0; p < t->nports; p++) {
        const struct bn_topo_port *tp = &t->ports[p];
        bn_time_t lat = port_lat(s, p);
        if (lat < 0 || lat > (bn_time_t)UINT32_MAX) {
            char name[BN_TOPO_PORT_NAME_MAX];
            bn_topo_port_name(t, p, name, sizeof name);
            return bn_fail(err, BN_EINPUT, "%s: link from port %s: latency %.3f us (cable "
                           "length, link.fec_ns and the switch latency) is more than the "
                           "4294.967 us a link may have", sc->source, name, bn_time_to_us(lat));
        }
        f->port_node[p] = tp->node;
        if (absent && absent[p]) /* another rank's: its pages stay untouched */
            continue;
        struct bn_port *port = &f->ports[p];
        uint8_t kind = t->nodes[tp->node].kind;
        bool at_host = port_at_host(t, p);
        uint8_t peer_kind = t->nodes[t->ports[tp->peer].node].kind;
        bool peer_sw = peer_kind == BN_NODE_SWITCH || peer_kind == BN_NODE_SCALEUP;
        port->rate_bps = port_rate(t, p);
        port->lat_ps = (uint32_t)lat;
        /* NVLink's credit flow control never drops: an NVSwitch queue is
         * not bounded by the backend switches' buffer (docs/model.md) */
        bool nvswitch = kind == BN_NODE_SCALEUP;
        port->buffer_bytes = at_host || nvswitch ? BN_PORT_UNBOUNDED : (uint32_t)sc->sw.buffer_bytes;
        port->node = tp->node;
        port->peer = tp->peer;
        bool peer_host = peer_kind == BN_NODE_HOST || peer_kind == BN_NODE_AGG;
        port->flags = (uint8_t)((at_host ? BN_PORT_AT_HOST : 0) | (peer_sw ? BN_PORT_PEER_SWITCH : 0) |
                                (cut ? BN_PORT_CUT_OUT : 0) | (cut && !at_host ? BN_PORT_CUT_IN : 0) |
                                (peer_host ? BN_PORT_PEER_HOST : 0));
        bn_rng_init(&f->stats[p].rng, sc->seed, BN_STREAM_PORT + p);
    }
    f->cut_may_hold = cut && mixed_rates(t);
    if (s->part)
        f->cut = &s->part->cut;
    return BN_OK;
}

/* Flow control: what its set-up needs to know of each port's link and
 * place (a NIC's port, an NVSwitch's with unbounded queues, and a switch's
 * port from its SHARP unit never pause their senders). */
static int build_fc(struct bn_sim *s, uint32_t max_wire, struct bn_error *err)
{
    const struct bn_topo *t = &s->topo;
    struct bn_fc_link *link = calloc(t->nports + 1, sizeof *link);
    if (!link)
        return bn_fail(err, BN_ENOMEM, "out of memory for %u ports", t->nports);
    for (uint32_t p = 0; p < t->nports; p++) {
        const struct bn_topo_port *tp = &t->ports[p];
        uint8_t kind = t->nodes[tp->node].kind, peer = t->nodes[t->ports[tp->peer].node].kind;
        link[p] = (struct bn_fc_link){
            .rate_gbps = tp->rate_gbps, .cable_m = tp->length_m,
            .prop_ps = bn_topo_prop_ps(s->sc, tp), .switch_port = kind == BN_NODE_SWITCH,
            .never_pauses = port_at_host(t, p) ||
                            kind == BN_NODE_SCALEUP || peer == BN_NODE_AGG,
            .scale_up = kind == BN_NODE_SCALEUP || peer == BN_NODE_SCALEUP,
        };
    }
    struct bn_fc_setup in = {.sc = s->sc, .max_wire = max_wire, .link = link};
    int rc = bn_fabric_fc_setup(&s->fab, bn_fc_at(s->sc->link.flow_control), &in, err);
    free(link);
    return rc;
}

static int build_host_maps(struct bn_sim *s, struct bn_error *err)
{
    const struct bn_topo *t = &s->topo;
    s->host_route = calloc(t->nhosts + 1, sizeof *s->host_route);
    s->host_port = calloc(t->nhosts + 1, sizeof *s->host_port);
    s->scaleup_port = calloc(t->nnodes + 1, sizeof *s->scaleup_port); /* by node: hosts, NVLS */
    s->host_nvlink = calloc(t->nhosts + 1, sizeof *s->host_nvlink);
    if (!s->host_route || !s->host_port || !s->scaleup_port || !s->host_nvlink)
        return bn_fail(err, BN_ENOMEM, "out of memory for host maps");
    for (uint32_t h = 0; h < t->nhosts; h++) {
        s->host_port[h] = t->nodes[h].first_port;
        s->host_route[h] = (struct bn_host_route){.leaf = t->nodes[h].leaf,
                                                  .deliver_port = t->ports[s->host_port[h]].peer};
        s->host_nvlink[h] = t->nscaleup ? s->host_port[h] + 1 : BN_NONE;
        s->scaleup_port[h] = t->nscaleup ? t->ports[s->host_nvlink[h]].peer : BN_NONE;
    }
    for (uint32_t i = 0; i < t->nnvls; i++) /* an NVLS unit's one port faces its NVSwitch */
        s->scaleup_port[t->nvls_first + i] = t->ports[t->nodes[t->nvls_first + i].first_port].peer;
    return BN_OK;
}

/* The event queue's slot width from the fabric's event spacing, as a
 * calendar queue sizes its buckets (Brown 1988): about a 256th of the
 * shortest time a full frame takes on any port, within 2^8 .. 2^10 ps.
 * Wide slots spare a sparse fabric entering a slot for nearly every event;
 * narrow ones spare a dense fabric sorting crowded slots (100G: 2^10;
 * 400G or NVLink: 2^8; measured in docs/performance.md). */
static unsigned slot_shift(const struct bn_fabric *f, const struct bn_topo *t, uint32_t frame)
{
    bn_time_t fastest = BN_TIME_NEVER;
    for (uint32_t p = 0; p < t->nports; p++) {
        uint64_t rate = port_rate(t, p);
        if (!rate)
            continue;
        bn_time_t ser = bn_serialization_ps(frame + f->wire_overhead, rate);
        if (ser < fastest)
            fastest = ser;
    }
    unsigned shift = BN_EVQ_SHIFT_MIN;
    while (shift < BN_EVQ_SHIFT_MAX && (fastest >> (shift + 1)) >= 256)
        shift++;
    return shift;
}

/* One way from host src to dst along the first minimal path, a frame of
 * `bytes` serialized at every hop (store-and-forward: an upper bound). */
static bn_time_t one_way(const struct bn_sim *s, uint32_t src, uint32_t dst, uint32_t bytes)
{
    const struct bn_topo *t = &s->topo; /* not the ports: a rank holds only its own */
    bn_time_t at = 0;
    uint32_t p = s->host_port[src];
    for (uint32_t hop = 0; hop < 64; hop++) {
        at += (bn_time_t)(uint32_t)port_lat(s, p) + bn_serialization_ps(bytes, port_rate(t, p));
        uint32_t peer = t->ports[p].peer;
        if (port_at_host(t, peer))
            return at;
        struct bn_route_set set = bn_routes_lookup(&s->routes, t->ports[peer].node,
                                                   s->host_route[dst].leaf);
        if (set.cnt == 0 && set.run)
            return 0;
        p = set.cnt ? bn_route_port(&s->routes, set, 0) : s->host_route[dst].deliver_port;
    }
    return 0;
}

/* The longest idle round trip from host 0: a full data frame to the first
 * host of every leaf, an ACK back (what congestion control's windows are
 * sized from: nscc's bandwidth-delay product). */
static bn_time_t fabric_rtt(const struct bn_sim *s, const struct bn_encap *e, uint32_t mtu)
{
    uint32_t data = bn_encap_wire_frame(e, mtu), ack = bn_encap_frame(e, e->aeth_bytes, 0) +
                                                       e->wire_overhead;
    bn_time_t worst = 0;
    uint32_t last_leaf = UINT32_MAX;
    for (uint32_t h = 1; h < s->topo.nhosts; h++) {
        if (s->host_route[h].leaf == last_leaf)
            continue;
        last_leaf = s->host_route[h].leaf;
        bn_time_t rtt = one_way(s, 0, h, data) + one_way(s, h, 0, ack);
        worst = rtt > worst ? rtt : worst;
    }
    return worst;
}

/* In hybrid, what fails must touch the region: the flows outside it are
 * never rerouted (docs/hybrid.md). */
static int check_hybrid_faults(const struct bn_sim *s, struct bn_error *err)
{
    if (!s->flow || !s->flow->hy || !bn_hybrid_ready(s->flow))
        return BN_OK; /* a job's region: checked once the job is placed */
    for (uint32_t i = 0; i < s->sc->nfaults; i++) {
        uint32_t n;
        const uint32_t *ports = bn_faults_ports(s->faults, i, &n);
        for (uint32_t j = 0; j < n; j++)
            if (!bn_hybrid_touches(s->flow, ports[j])) {
                char name[BN_TOPO_PORT_NAME_MAX];
                bn_topo_port_name(&s->topo, ports[j], name, sizeof name);
                return bn_fail_item(err, BN_EINPUT, "faults", i, "target",
                                    "the link at %s is outside sim.region; at sim.fidelity "
                                    "hybrid only packets see failures, so the region must hold "
                                    "what fails", name);
            }
    }
    return BN_OK;
}

static int build(struct bn_sim *s, const struct bn_scenario *sc, const struct bn_ranks *ranks,
                 struct bn_error *err)
{
    memset(s, 0, sizeof *s);
    s->sc = sc;
    struct bn_encap run_encap;
    const struct bn_encap *encap = &run_encap;
    /* the cross-field rules (an MTU the encapsulation carries, flow control
     * of its link layer) hold for library callers that skipped them too */
    int rc = bn_scenario_validate(sc, err);
    if (rc != BN_OK)
        return rc;
    bn_nic_encap(sc, &run_encap); /* validated: its indices are in range */
    rc = bn_topo_build(&s->topo, sc, err);
    if (rc == BN_OK)
        rc = bn_routes_build(&s->routes, &s->topo, err);
    /* on ranks the cut comes first: a rank writes only the ports it holds */
    if (rc == BN_OK && ranks && sc->sim.partitions > 0 && (rc = bn_partition_init(s, err)) == BN_OK)
        rc = bn_ranks_place(s, ranks, err);
    if (rc == BN_OK)
        rc = build_ports(s, err);
    if (rc != BN_OK)
        return rc;
    struct bn_fabric *f = &s->fab;
    f->wire_overhead = encap->wire_overhead;
    f->head_bytes = encap->head_bytes;
    f->trim_bytes = sc->sw.trim ? bn_encap_frame(encap, 0, 0) : 0;
    f->ctrl_reserve = sc->sw.trim ? sc->sw.control_reserve_bytes : 0;
    f->ecn = (struct bn_ecn_params){sc->sw.ecn.enabled, sc->sw.ecn.kmin_bytes,
                                    sc->sw.ecn.kmax_bytes, sc->sw.ecn.pmax};
    rc = build_host_maps(s, err);
    if (rc == BN_OK)
        rc = bn_switches_init(&s->sw, f, &s->routes, &s->topo, s->host_route, sc, err);
    if (rc == BN_OK)
        rc = build_fc(s, bn_encap_wire_frame(encap, sc->nic.mtu_bytes), err);
    if (rc != BN_OK)
        return rc;
    s->sw.scaleup_first = s->topo.nscaleup ? s->topo.scaleup_first : UINT32_MAX;
    s->sw.scaleup_port = s->scaleup_port;
    struct bn_nic_params np = {
        .fabric_rtt = fabric_rtt(s, encap, sc->nic.mtu_bytes),
        .fabric_switches = bn_routes_diameter_hops(&s->routes) - 1,
        .nvlink_port = s->topo.nscaleup ? s->host_nvlink : NULL,
        .domain_gpus = s->topo.domain_gpus,
    };
    rc = bn_sim_build_agg(s, &np, err);
    if (rc == BN_OK)
        rc = bn_nics_init(&s->nics, f, s->host_port, s->topo.nhosts, sc, &np, err);
    if (rc != BN_OK)
        return rc;
    bool keyed = sc->sim.event_order == BN_SC_ORDER_KEYED ||
                 (sc->sim.event_order == BN_SC_ORDER_AUTO && sc->sim.partitions > 0);
    if (bn_evq_set_slot_width(&f->evq, slot_shift(f, &s->topo, s->nics.max_frame)) != 0 ||
        bn_evq_set_keyed(&f->evq, keyed) != 0)
        return bn_fail(err, BN_EINTERNAL, "events were scheduled while the fabric was built");
    if (sc->sim.partitions > 0 && !s->part && (rc = bn_partition_init(s, err)) != BN_OK)
        return rc;
    if (sc->sim.fidelity != BN_SC_FIDELITY_PACKET) {
        s->flow = malloc(sizeof *s->flow);
        rc = s->flow ? bn_flow_init(s->flow, f, &s->sw, &s->nics, err)
                     : bn_fail(err, BN_ENOMEM, "out of memory for the flow-level engine");
        if (rc == BN_OK && sc->sim.fidelity == BN_SC_FIDELITY_HYBRID)
            rc = bn_hybrid_init(s->flow, &s->topo, sc, err);
        if (rc != BN_OK)
            return rc;
    }
    /* last: the fault schedule's first events go on the queue */
    struct bn_fault_env fe = {.sc = sc, .f = f, .t = &s->topo, .r = &s->routes, .sw = &s->sw,
                              .nics = &s->nics};
    rc = bn_faults_init(&s->faults, &fe, err);
    return rc == BN_OK ? check_hybrid_faults(s, err) : rc;
}

int bn_sim_hybrid_place_job(struct bn_sim *s, const uint32_t *host, uint32_t n,
                            struct bn_error *err)
{
    bn_hybrid_place_job(s->flow, &s->topo, host, n);
    return bn_scenario_locate(s->sc, check_hybrid_faults(s, err), err);
}

/* The layers below name the key a refusal is about; the scenario says
 * where it was given. */
int bn_sim_build(struct bn_sim *s, const struct bn_scenario *sc, struct bn_error *err)
{
    return bn_scenario_locate(sc, build(s, sc, NULL, err), err);
}

int bn_sim_build_ranks(struct bn_sim *s, const struct bn_scenario *sc, const struct bn_ranks *ranks,
                       struct bn_error *err)
{
    return bn_scenario_locate(sc, build(s, sc, ranks, err), err);
}

void bn_sim_free(struct bn_sim *s)
{
    bn_faults_free(s->faults);
    if (s->flow)
        bn_flow_free(s->flow);
    free(s->flow);
    bn_nics_free(&s->nics);
    bn_switches_free(&s->sw);
    bn_fabric_free(&s->fab);
    bn_partition_free(s); /* after the fabric: its ports' `absent` */
    bn_routes_free(&s->routes);
    bn_topo_free(&s->topo);
    free(s->host_route);
    free(s->host_port);
    free(s->scaleup_port);
    free(s->host_nvlink);
    free(s->agg_port);
    free(s->agg_next);
    memset(s, 0, sizeof *s);
}

void bn_sim_topo_info(const struct bn_sim *s, struct bn_topo_info *out)
{
    const struct bn_topo *t = &s->topo;
    memset(out, 0, sizeof *out);
    snprintf(out->kind, sizeof out->kind, "%s", t->kind);
    out->k = t->names ? 0 : s->sc->topology.k; /* a fabric from a file has no k */
    out->hosts = t->nhosts;
    out->switches = t->nswitches;
    out->links = t->nports / 2 - (t->nscaleup ? t->nhosts : 0) - t->nagg; /* backend links */
    out->scaleup_domains = t->nscaleup;
    out->scaleup_gpus_per_domain = t->domain_gpus;
    out->scaleup_rate_gbps = t->nscaleup ? s->sc->scale_up.rate_gbps : 0;
    out->tiers = t->ntiers;
    for (uint32_t i = 1; i <= t->ntiers && i < 5; i++) {
        out->switches_per_tier[i] = t->switches_per_tier[i];
        snprintf(out->tier_name[i], sizeof out->tier_name[i], "%s",
                 t->tier_name[i] ? t->tier_name[i] : "switch");
    }
    out->radix = t->radix;
    out->diameter_hops = bn_routes_diameter_hops(&s->routes);
    out->diameter_switches = out->diameter_hops - 1;
    out->bisection_gbps = t->bisection_gbps;
    /* as built: a file's links carry their own rates */
    bn_topo_link_rates(t, &out->host_rate_gbps, &out->fabric_rate_gbps);
    /* Gb/s per PFLOPS for every result, not only the planner's: the hosts'
     * injection (and the bisection) over their compute */
    out->gpu_tflops = s->sc->topology.gpu_tflops;
    if (out->gpu_tflops > 0) {
        struct bn_topo_tier_stats st[BN_MAX_TIERS + 1];
        bn_topo_tier_stats(t, st);
        double pflops = t->nhosts * out->gpu_tflops / 1000.0;
        out->gbps_per_pflops = st[0].up_gbps / pflops;
        out->bisection_gbps_per_pflops = t->bisection_gbps / pflops;
    }
}

int bn_describe_topology(const struct bn_scenario *sc, struct bn_topo_info *out,
                         struct bn_error *err)
{
    struct bn_sim s;
    int rc = bn_sim_build(&s, sc, err);
    if (rc == BN_OK)
        bn_sim_topo_info(&s, out);
    bn_sim_free(&s);
    return rc;
}
