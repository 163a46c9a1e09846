/*
 * Flow-control set-up: which module, the per-port state lossless modes need,
 * and the checks that make a lossless configuration safe before it runs:
 * credits must admit the largest frame; PFC headroom must hold what is in
 * flight when a pause takes effect (else the error names the key to raise).
 */
#include <stdlib.h>
#include <string.h>

#include "core/bigmem.h"
#include "link/pfc.h"
#include "sim/sim.h"

static int check_encap(const struct bn_scenario *sc, const char *fc, const char *encap,
                       struct bn_error *err)
{
    if (strcmp(sc->link.flow_control, fc) == 0 && strcmp(sc->nic.encap, encap) != 0)
        return bn_fail(err, BN_EINPUT,
                       "%s: key 'link.flow_control': '%s' needs nic.encap %s (got %s)",
                       sc->source, fc, encap, sc->nic.encap);
    return BN_OK;
}

static int setup_credit(struct bn_sim *s, uint32_t max_wire, struct bn_error *err)
{
    const struct bn_scenario *sc = s->sc;
    if (sc->sw.buffer_bytes < max_wire)
        return bn_fail(err, BN_EINPUT,
                       "%s: key 'switch.buffer_bytes': %llu bytes of credit cannot admit one "
                       "%u-byte frame",
                       sc->source, (unsigned long long)sc->sw.buffer_bytes, max_wire);
    for (uint32_t p = 0; p < s->fab.nports; p++)
        s->fab.fcs[p].credits = (int64_t)sc->sw.buffer_bytes;
    return BN_OK;
}

static int setup_pfc_port(struct bn_sim *s, uint32_t p, uint32_t max_wire, struct bn_error *err)
{
    const struct bn_scenario *sc = s->sc;
    const struct bn_topo_port *tp = &s->topo.ports[p];
    struct bn_port_fc *fc = &s->fab.fcs[p];
    double gbps = tp->rate_gbps;
    uint64_t head = sc->pfc.headroom_bytes ? sc->pfc.headroom_bytes
                                           : bn_pfc_headroom_bytes(gbps, tp->length_m, sc->nic.mtu_bytes);
    /* a frame counts against this port only after propagation, FEC and this
     * switch's forwarding latency: all of that is in flight at a pause */
    uint64_t inflight =
        bn_pfc_inflight_bytes(gbps, s->fab.ports[s->fab.ports[p].peer].lat_ps, max_wire, 0);
    if (head < inflight)
        return bn_fail(err, BN_EINPUT,
                       "%s: key 'pfc.headroom_bytes': %llu bytes cannot hold the %llu bytes in "
                       "flight on a %g Gb/s, %g m link when a pause takes effect",
                       sc->source, (unsigned long long)head, (unsigned long long)inflight, gbps,
                       tp->length_m);
    if (sc->sw.buffer_bytes < head + 2ull * max_wire)
        return bn_fail(err, BN_EINPUT,
                       "%s: key 'switch.buffer_bytes': %llu bytes leave no room for XOFF/XON "
                       "above %llu bytes of PFC headroom",
                       sc->source, (unsigned long long)sc->sw.buffer_bytes,
                       (unsigned long long)head);
    fc->headroom = head;
    fc->xoff = sc->sw.buffer_bytes - head;
    fc->xon = fc->xoff - max_wire;
    return BN_OK;
}

/* Dynamic thresholds: each switch pools its ports' buffers, less the
 * headroom every port keeps for itself. */
static int setup_shared_buffers(struct bn_sim *s, uint32_t max_wire, struct bn_error *err)
{
    const struct bn_topo *t = &s->topo;
    struct bn_pfc_shared *dt = &s->fab.pfc_dt;
    dt->shared = calloc(t->nnodes, sizeof *dt->shared);
    dt->used = calloc(t->nnodes, sizeof *dt->used);
    if (!dt->shared || !dt->used)
        return bn_fail(err, BN_ENOMEM, "out of memory for shared buffers");
    dt->shift = s->sc->pfc.dt_shift;
    dt->resume_gap = max_wire;
    for (uint32_t n = t->nhosts; n < t->nnodes; n++) {
        const struct bn_topo_node *nd = &t->nodes[n];
        if (nd->kind != BN_NODE_SWITCH)
            continue; /* NVSwitches and SHARP units never pause (below) */
        uint64_t total = s->sc->sw.buffer_bytes * nd->nports, reserved = 0;
        for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++)
            reserved += s->fab.fcs[p].headroom;
        dt->shared[n] = total - reserved; /* > 0: each port's buffer exceeds its headroom */
    }
    return BN_OK;
}

static int setup_pfc(struct bn_sim *s, uint32_t max_wire, struct bn_error *err)
{
    for (uint32_t p = 0; p < s->fab.nports; p++) {
        struct bn_port_fc *fc = &s->fab.fcs[p];
        /* NICs take frames at line rate; an NVSwitch's queues are unbounded
         * (NVLink never drops) and a switch takes its SHARP unit's results
         * internally: none of them ever pauses its sender */
        const struct bn_topo_port *tp = &s->topo.ports[p];
        if ((s->fab.ports[p].flags & BN_PORT_AT_HOST) ||
            s->topo.nodes[tp->node].kind == BN_NODE_SCALEUP ||
            s->topo.nodes[s->topo.ports[tp->peer].node].kind == BN_NODE_AGG) {
            fc->xoff = fc->xon = UINT64_MAX / 2;
            continue;
        }
        int rc = setup_pfc_port(s, p, max_wire, err);
        if (rc != BN_OK)
            return rc;
    }
    return strcmp(s->sc->pfc.threshold, "dynamic") == 0 ? setup_shared_buffers(s, max_wire, err)
                                                         : BN_OK;
}

int bn_sim_build_fc(struct bn_sim *s, uint32_t max_wire, struct bn_error *err)
{
    const struct bn_scenario *sc = s->sc;
    struct bn_fabric *f = &s->fab;
    f->fc = bn_fc_find(sc->link.flow_control);
    if (!f->fc)
        return bn_fail(err, BN_EINPUT, "%s: key 'link.flow_control': unknown mode '%s'",
                       sc->source, sc->link.flow_control);
    int rc = check_encap(sc, "credit", "ib", err);
    if (rc == BN_OK)
        rc = check_encap(sc, "pfc", "roce", err);
    if (rc != BN_OK || !f->fc->lossless)
        return rc;
    f->fcs = bn_big_calloc(f->nports + 1, sizeof *f->fcs);
    if (!f->fcs)
        return bn_fail(err, BN_ENOMEM, "out of memory for flow-control state");
    for (uint32_t p = 0; p < f->nports; p++) {
        const struct bn_topo_port *tp = &s->topo.ports[p];
        f->fcs[p].prop_ps = bn_sim_prop_ps(sc, tp);
    }
    return strcmp(f->fc->name, "credit") == 0 ? setup_credit(s, max_wire, err)
                                              : setup_pfc(s, max_wire, err);
}
