/*
 * Turning a scenario into a runnable fabric: the topology's ports become
 * runtime ports with their rate, propagation (cable length x ns/m + FEC) and
 * the forwarding latency of the switch they feed; modules named in the
 * scenario are looked up in their registries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bigmem.h"
#include "sim/sim.h"

static int lookup_modules(const struct bn_scenario *sc, const struct bn_encap **encap,
                          const struct bn_transport_ops **tp, const struct bn_cc_ops **cc,
                          struct bn_error *err)
{
    *encap = bn_encap_find(sc->nic.encap);
    if (!*encap)
        return bn_fail(err, BN_EINPUT, "%s: key 'nic.encap': unknown encapsulation '%s'",
                       sc->source, sc->nic.encap);
    *tp = bn_transport_find(sc->nic.transport);
    if (!*tp)
        return bn_fail(err, BN_EINPUT, "%s: key 'nic.transport': unknown transport '%s'",
                       sc->source, sc->nic.transport);
    *cc = bn_cc_find(sc->nic.congestion_control);
    if (!*cc)
        return bn_fail(err, BN_EINPUT, "%s: key 'nic.congestion_control': unknown module '%s'",
                       sc->source, sc->nic.congestion_control);
    return BN_OK;
}

bn_time_t bn_sim_prop_ps(const struct bn_scenario *sc, const struct bn_topo_port *tp)
{
    double ns_per_m = tp->cable == BN_CABLE_COPPER ? sc->link.copper_ns_per_m : sc->link.fiber_ns_per_m;
    return bn_time_from_ns(tp->length_m * ns_per_m + sc->link.fec_ns);
}

/* Does a switch have ports of different rates (so that cut-through may have
 * to hold a packet for its tail, bn_switch_receive)? Endpoints do not count:
 * a host's NVLink port beside its NIC's is no reason to look. */
static bool mixed_rates(const struct bn_fabric *f, const struct bn_topo *t)
{
    for (uint32_t n = 0; n < t->nnodes; n++) {
        const struct bn_topo_node *nd = &t->nodes[n];
        if (nd->kind != BN_NODE_SWITCH && nd->kind != BN_NODE_SCALEUP)
            continue;
        for (uint32_t i = 1; i < nd->nports; i++)
            if (f->ports[nd->first_port + i].rate_bps != f->ports[nd->first_port].rate_bps)
                return true;
    }
    return false;
}

static int build_ports(struct bn_sim *s, struct bn_error *err)
{
    const struct bn_scenario *sc = s->sc;
    const struct bn_topo *t = &s->topo;
    struct bn_fabric *f = &s->fab;
    f->nports = t->nports;
    f->ports = bn_big_calloc(t->nports + 1, sizeof *f->ports);
    f->port_node = bn_big_calloc(t->nports + 1, sizeof *f->port_node);
    f->stats = bn_big_calloc(t->nports + 1, sizeof *f->stats);
    if (!f->ports || !f->port_node || !f->stats)
        return bn_fail(err, BN_ENOMEM, "out of memory for %u ports", t->nports);
    bool cut = strcmp(sc->sw.forwarding, "cut_through") == 0;
    for (uint32_t p = 0; p < t->nports; p++) {
        const struct bn_topo_port *tp = &t->ports[p];
        struct bn_port *port = &f->ports[p];
        uint8_t kind = t->nodes[tp->node].kind;
        bool at_host = kind == BN_NODE_HOST || kind == BN_NODE_AGG; /* NIC-like endpoints */
        uint8_t peer_kind = t->nodes[t->ports[tp->peer].node].kind;
        bool peer_sw = peer_kind == BN_NODE_SWITCH || peer_kind == BN_NODE_SCALEUP;
        /* into a switch: its forwarding latency; into an aggregation unit:
         * the aggregation latency */
        double fwd_ns = peer_kind == BN_NODE_SCALEUP ? sc->scale_up.latency_ns
                        : peer_kind == BN_NODE_AGG  ? sc->sharp.latency_ns
                                                    : sc->sw.latency_ns;
        bn_pktq_init(&port->q);
        port->rate_bps = (uint64_t)(tp->rate_gbps * 1e9 + 0.5);
        bn_time_t lat = bn_sim_prop_ps(sc, tp) +
                        (peer_sw || peer_kind == BN_NODE_AGG ? bn_time_from_ns(fwd_ns) : 0);
        if (lat < 0 || lat > (bn_time_t)UINT32_MAX) {
            char name[96];
            bn_topo_port_name(t, p, name, sizeof name);
            return bn_fail(err, BN_EINPUT, "%s: link from port %s: latency %.3f us (cable "
                           "length, link.fec_ns and the switch latency) is more than the "
                           "4294.967 us a link may have", sc->source, name, bn_time_to_us(lat));
        }
        port->lat_ps = (uint32_t)lat;
        /* NVLink's credit flow control never drops: an NVSwitch queue is
         * not bounded by the backend switches' buffer (docs/model.md) */
        bool nvswitch = kind == BN_NODE_SCALEUP;
        port->buffer_bytes = at_host || nvswitch ? BN_PORT_UNBOUNDED : (uint32_t)sc->sw.buffer_bytes;
        port->node = f->port_node[p] = tp->node;
        port->peer = tp->peer;
        bool peer_host = peer_kind == BN_NODE_HOST || peer_kind == BN_NODE_AGG;
        port->flags = (uint8_t)((at_host ? BN_PORT_AT_HOST : 0) | (peer_sw ? BN_PORT_PEER_SWITCH : 0) |
                                (cut ? BN_PORT_CUT_OUT : 0) | (cut && !at_host ? BN_PORT_CUT_IN : 0) |
                                (peer_host ? BN_PORT_PEER_HOST : 0));
        bn_rng_init(&f->stats[p].rng, sc->seed, BN_STREAM_PORT + p);
    }
    f->cut_may_hold = cut && mixed_rates(f, t);
    return BN_OK;
}

static int build_host_maps(struct bn_sim *s, struct bn_error *err)
{
    const struct bn_topo *t = &s->topo;
    s->host_route = calloc(t->nhosts + 1, sizeof *s->host_route);
    s->host_port = calloc(t->nhosts + 1, sizeof *s->host_port);
    s->scaleup_port = calloc(t->nhosts + 1, sizeof *s->scaleup_port);
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
    s->sw.host_route = s->host_route;
    s->sw.scaleup_first = t->nscaleup ? t->scaleup_first : UINT32_MAX;
    s->sw.scaleup_port = s->scaleup_port;
    return BN_OK;
}

/* The event queue's slot width from the fabric's event spacing, as a
 * calendar queue sizes its buckets (Brown 1988): about a 256th of the
 * shortest time a full frame takes on any port, within 2^8 .. 2^10 ps.
 * Wide slots spare a sparse fabric entering a slot for nearly every event;
 * narrow ones spare a dense fabric sorting crowded slots (100G: 2^10;
 * 400G or NVLink: 2^8; measured in docs/performance.md). */
static unsigned slot_shift(const struct bn_fabric *f, uint32_t frame)
{
    bn_time_t fastest = BN_TIME_NEVER;
    for (uint32_t p = 0; p < f->nports; p++) {
        if (!f->ports[p].rate_bps)
            continue;
        bn_time_t t = bn_serialization_ps(frame + f->wire_overhead, f->ports[p].rate_bps);
        if (t < fastest)
            fastest = t;
    }
    unsigned shift = BN_EVQ_SHIFT_MIN;
    while (shift < BN_EVQ_SHIFT_MAX && (fastest >> (shift + 1)) >= 256)
        shift++;
    return shift;
}

int bn_sim_build(struct bn_sim *s, const struct bn_scenario *sc, struct bn_error *err)
{
    memset(s, 0, sizeof *s);
    s->sc = sc;
    const struct bn_encap *encap = NULL;
    const struct bn_transport_ops *tp = NULL;
    const struct bn_cc_ops *cc = NULL;
    int rc = lookup_modules(sc, &encap, &tp, &cc, err);
    if (rc == BN_OK && sc->nic.mtu_bytes > encap->max_mtu)
        rc = bn_fail(err, BN_EINPUT, "%s: key 'nic.mtu_bytes': %u exceeds %s's maximum %u",
                     sc->source, sc->nic.mtu_bytes, encap->name, encap->max_mtu);
    if (rc == BN_OK)
        rc = bn_topo_build(&s->topo, sc, err);
    if (rc == BN_OK)
        rc = bn_routes_build(&s->routes, &s->topo, err);
    if (rc == BN_OK)
        rc = build_ports(s, err);
    if (rc != BN_OK)
        return rc;
    struct bn_fabric *f = &s->fab;
    f->wire_overhead = encap->wire_overhead;
    f->head_bytes = encap->head_bytes;
    f->trim_bytes = sc->sw.trim ? bn_encap_frame(encap, 0, 0) : 0;
    f->ecn = (struct bn_ecn_params){sc->sw.ecn.enabled, sc->sw.ecn.kmin_bytes,
                                    sc->sw.ecn.kmax_bytes, sc->sw.ecn.pmax};
    if (bn_pool_init(&f->pool, 4096) != 0 || bn_evq_init(&f->evq, 4096) != 0)
        return bn_fail(err, BN_ENOMEM, "out of memory for the packet pool and event queue");
    rc = bn_sim_build_lb(s, err);
    if (rc == BN_OK)
        rc = build_host_maps(s, err);
    if (rc == BN_OK)
        rc = bn_sim_build_fc(s, bn_encap_frame(encap, encap->reth_bytes, sc->nic.mtu_bytes) +
                                    encap->wire_overhead, err);
    if (rc != BN_OK)
        return rc;
    struct bn_nic_params np = {
        .seed = sc->seed,
        .sr_window = sc->nic.sr_window, .sr_reorder_threshold = sc->nic.sr_reorder_threshold,
        .spray_entropy = strcmp(sc->nic.entropy, "per_packet") == 0,
        .encap = encap, .tp = tp, .cc = cc, .mtu = sc->nic.mtu_bytes,
        .line_rate_bps = (uint64_t)(sc->link.rate_gbps * 1e9 + 0.5), .ack_every = sc->nic.ack_every,
        .rto = bn_time_from_us(sc->nic.rto_us > 0 ? sc->nic.rto_us
                               : strcmp(sc->link.flow_control, "lossy") == 0 ? 100.0 : 10000.0),
    };
    rc = bn_sim_build_cc(s, &np, err);
    if (rc != BN_OK)
        return rc;
    np.nvlink_port = s->topo.nscaleup ? s->host_nvlink : NULL;
    np.domain_gpus = s->topo.domain_gpus;
    rc = bn_sim_build_agg(s, &np, err);
    if (rc != BN_OK)
        return rc;
    if (bn_nics_init(&s->nics, f, s->host_port, s->topo.nhosts, &np) != 0)
        return bn_fail(err, BN_ENOMEM, "out of memory for NICs");
    if (bn_evq_set_slot_width(&f->evq, slot_shift(f, s->nics.max_frame)) != 0)
        return bn_fail(err, BN_EINTERNAL, "events were scheduled while the fabric was built");
    return BN_OK;
}

void bn_sim_free(struct bn_sim *s)
{
    bn_nics_free(&s->nics);
    bn_switches_free(&s->sw);
    bn_big_free(s->fab.ports);
    bn_big_free(s->fab.port_node);
    bn_big_free(s->fab.stats);
    bn_big_free(s->fab.fcs);
    free(s->fab.pfc_dt.shared);
    free(s->fab.pfc_dt.used);
    bn_pool_free(&s->fab.pool);
    bn_evq_free(&s->fab.evq);
    bn_routes_free(&s->routes);
    bn_topo_free(&s->topo);
    free(s->host_route);
    free(s->host_port);
    free(s->scaleup_port);
    free(s->host_nvlink);
    free(s->agg_port);
    free(s->agg_next);
    free(s->fstate);
    free(s->qp_flow);
    bn_series_free(&s->series);
    bn_flow_list_free(&s->flows);
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
}
