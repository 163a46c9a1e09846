/*
 * `bnet topo` as a library call: build the topology and its routing tables
 * only (no ports, NICs or switches state), describe it as a run would, and
 * add the planner's figures: capacity and oversubscription per tier, links
 * by rate, cables and transceivers by the rule in docs/topologies.md (the
 * medium each link was given; 2 transceivers per fiber link, none for a
 * copper DAC), Gb/s per PFLOPS, minimal paths between two hosts, DOT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bnet/output.h"
#include "sim/sim.h"

static void count_rate(struct bn_topo_info *out, double gbps)
{
    uint32_t i = 0;
    while (i < out->nrates && out->rates[i].gbps != gbps)
        i++;
    if (i == out->nrates) {
        if (out->nrates == sizeof out->rates / sizeof out->rates[0])
            return; /* more distinct rates than we list; counts stay in links */
        out->rates[out->nrates++].gbps = gbps;
    }
    out->rates[i].links++;
}

static int by_rate_desc(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? 1 : a > b ? -1 : 0;
}

static void fill_links(const struct bn_topo *t, struct bn_topo_info *out)
{
    for (uint32_t p = 0; p < t->nports; p++) {
        const struct bn_topo_port *tp = &t->ports[p];
        if (tp->peer < p || !bn_topo_in_fabric(t, tp->node) ||
            !bn_topo_in_fabric(t, t->ports[tp->peer].node))
            continue; /* NVLink and aggregation units are not cabled fabric */
        bool host = t->nodes[tp->node].kind == BN_NODE_HOST ||
                    t->nodes[t->ports[tp->peer].node].kind == BN_NODE_HOST;
        bool copper = tp->cable == BN_CABLE_COPPER;
        *(host ? (copper ? &out->host_copper : &out->host_fiber)
               : (copper ? &out->fabric_copper : &out->fabric_fiber)) += 1;
        count_rate(out, tp->rate_gbps);
    }
    out->transceivers = 2 * (out->host_fiber + out->fabric_fiber);
    qsort(out->rates, out->nrates, sizeof out->rates[0], by_rate_desc);
}

/* The classes of the price and power table left at 0 (not stated) while
 * the network has such devices, for the reader: "NIC power, DAC price". */
static void cost_unstated(const struct bn_scenario_cost *c, const struct bn_topo *t,
                          uint32_t copper, uint32_t fiber, uint32_t transceivers, char *buf,
                          size_t len)
{
    const struct { bool missing; const char *what; } parts[] = {
        {t->nswitches && !c->switch_usd, "switch price"},
        {t->nswitches && !c->switch_w, "switch power"},
        {t->nhosts && !c->nic_usd, "NIC price"},
        {t->nhosts && !c->nic_w, "NIC power"},
        {transceivers && !c->transceiver_usd, "transceiver price"},
        {transceivers && !c->transceiver_w, "transceiver power"},
        {copper && !c->dac_usd, "DAC price"},
        {fiber && !c->fiber_usd, "fiber price"},
    };
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i].missing && at < len)
            at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", parts[i].what);
}

static void fill_plan(const struct bn_topo *t, const struct bn_scenario *sc,
                      struct bn_topo_info *out)
{
    struct bn_topo_tier_stats st[BN_MAX_TIERS + 1];
    bn_topo_tier_stats(t, st);
    for (uint32_t i = 0; i <= t->ntiers && i < 5; i++) {
        struct bn_tier_info *ti = &out->tier[i];
        ti->nodes = st[i].nodes;
        ti->ports_max = st[i].ports_max;
        ti->down_links = st[i].down_links;
        ti->up_links = st[i].up_links;
        ti->down_gbps = st[i].down_gbps;
        ti->up_gbps = st[i].up_gbps;
        ti->oversubscription = st[i].up_gbps > 0 && i > 0 ? st[i].down_gbps / st[i].up_gbps : 0;
    }
    fill_links(t, out);
    if (t->rail_servers)
        out->gpus_per_server = sc->topology.gpus_per_server;
    const struct bn_scenario_cost *c = &sc->cost;
    uint32_t copper = out->host_copper + out->fabric_copper;
    uint32_t fiber = out->host_fiber + out->fabric_fiber;
    /* switches in units of the class: their ports over its ports, or whole */
    double switches = c->switch_ports ? (double)(out->host_copper + out->host_fiber +
                                                 2 * (out->fabric_copper + out->fabric_fiber)) /
                                            c->switch_ports
                                      : t->nswitches;
    out->cost_usd = switches * c->switch_usd + t->nhosts * c->nic_usd +
                    out->transceivers * c->transceiver_usd + copper * c->dac_usd +
                    fiber * c->fiber_usd;
    out->power_w = switches * c->switch_w + t->nhosts * c->nic_w +
                   out->transceivers * c->transceiver_w;
    out->cost_stated = out->cost_usd > 0 || out->power_w > 0;
    cost_unstated(c, t, copper, fiber, out->transceivers, out->cost_unstated,
                  sizeof out->cost_unstated);
    out->cost_per_gpu_usd = t->nhosts ? out->cost_usd / t->nhosts : 0;
    out->power_per_gpu_w = t->nhosts ? out->power_w / t->nhosts : 0;
    out->planned = true;
}

static int write_dot(const struct bn_topo *t, const char *path, struct bn_error *err)
{
    struct bn_output *o = bn_output_open(path, "DOT", err); /* temporary file, renamed */
    if (!o)
        return err ? err->status : BN_EINPUT;
    return bn_output_close(o, bn_topo_write_dot(t, bn_output_stream(o)) != 0, err);
}

int bn_plan_topology(const struct bn_scenario *sc, const struct bn_topo_query *q,
                     struct bn_topo_info *out, struct bn_error *err)
{
    struct bn_sim *s = calloc(1, sizeof *s);
    if (!s)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    s->sc = sc;
    int rc = bn_scenario_locate(sc, bn_topo_build(&s->topo, sc, err), err);
    if (rc == BN_OK)
        rc = bn_routes_build(&s->routes, &s->topo, err);
    if (rc == BN_OK) {
        bn_sim_topo_info(s, out);
        fill_plan(&s->topo, sc, out);
    }
    if (rc == BN_OK && q && q->paths) {
        out->paths_asked = true;
        out->path_src = q->src;
        out->path_dst = q->dst;
        rc = bn_topo_min_paths(&s->topo, q->src, q->dst, &out->path_hops, &out->minimal_paths,
                               err);
    }
    if (rc == BN_OK && q && q->dot_path)
        rc = write_dot(&s->topo, q->dot_path, err);
    bn_routes_free(&s->routes);
    bn_topo_free(&s->topo);
    free(s);
    return rc;
}
