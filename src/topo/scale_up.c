/*
 * NVLink scale-up domains beside the backend fabric. In a DGX/HGX server the
 * 8 GPUs reach each other through NVSwitch chips at NVLink rate (H100: 18
 * NVLink 4 links, 900 GB/s per GPU both ways; NVLink generation table at
 * juejin.cn, 18 links per NVIDIA's health-validation docs), and a GB200 NVL72
 * rack spans 72 GPUs in one NVLink domain; every GPU also has its own NIC
 * into the backend fabric. So each domain is one scale-up switch node (the
 * NVSwitch fabric, non-blocking, as NVIDIA builds it) with one link per GPU
 * at scale_up.rate_gbps: intra-domain traffic contends on the GPUs' NVLink
 * ports and the switch's egress, inter-domain traffic on the NICs. The
 * ports carry data at scale_up.efficiency of the line rate: NVLink's own
 * protocol (request and response headers, flow-control credits) takes the
 * rest, as NCCL's topology counts it (20.6 of 25 GB/s per NVLink 4 link).
 *
 * Hosts are GPUs numbered server by server, so domain d holds hosts
 * d*G .. d*G+G-1 (the last domain may be smaller).
 */
#include "topo/topo.h"

int bn_topo_add_scale_up(struct bn_topo *t, const struct bn_scenario *sc, struct bn_error *err)
{
    uint32_t g = sc->scale_up.domain_gpus;
    if (g == 0)
        return BN_OK;
    uint32_t d = (t->nhosts + g - 1) / g;
    int rc = bn_topo_append_nodes(t, d, BN_NODE_SCALEUP, t->nhosts, &t->scaleup_first, err);
    if (rc != BN_OK)
        return rc;
    t->nscaleup = d;
    t->domain_gpus = g;
    for (uint32_t h = 0; h < t->nhosts; h++)
        bn_topo_connect(t, h, t->scaleup_first + h / g,
                        sc->scale_up.rate_gbps * sc->scale_up.efficiency, sc->link.host_cable_m,
                        BN_CABLE_COPPER);
    return BN_OK;
}
