/*
 * Technology presets: `fabric: NAME` in a scenario (or --set fabric=NAME)
 * sets a group of keys to one technology's values before the scenario's own
 * keys apply, so any of them can still be overridden. Values and sources are
 * tabulated in docs/presets.md; a preset that needs a module bnet does not
 * have yet says so and refuses, rather than falling back silently.
 */
#include <stdio.h>
#include <string.h>

#include "bnet/scenario.h"
#include "scenario/keys.h"

struct preset {
    const char *name;
    const char *about;
    const char *missing;         /* non-NULL: the module it needs is not built yet */
    const char *const sets[32];
};

/* The price and power table (docs/topologies.md), every key so that a
 * preset replaces another's: a switch of the class (USD, W, its ports), a
 * NIC (USD, W), an optical module (USD, W); cables are not stated. "0": not
 * stated. Estimates from reseller prices and vendor power figures. */
#define COST(sw_usd, sw_w, sw_ports, nic_usd, nic_w, trx_usd, trx_w)                       \
    "cost.switch_usd=" sw_usd, "cost.switch_w=" sw_w, "cost.switch_ports=" sw_ports,         \
        "cost.nic_usd=" nic_usd, "cost.nic_w=" nic_w, "cost.transceiver_usd=" trx_usd,       \
        "cost.transceiver_w=" trx_w, "cost.dac_usd=0", "cost.fiber_usd=0"

static const struct preset presets[] = {
    {.name = "ib-ndr",
     .about = "InfiniBand NDR: 400 Gb/s, credits, IB congestion control, adaptive routing, "
              "ConnectX-7-class NICs on PCIe Gen5 x16",
     .sets = {"link.rate_gbps=400", "nic.encap=ib", "nic.mtu_bytes=4096",
              "link.flow_control=credit", "nic.congestion_control=ib_cc",
              "switch.load_balancing=adaptive", "nic.transport=selective_repeat",
              "switch.latency_ns=130", "switch.forwarding=cut_through",
              "nic.tx_ns=125", "nic.rx_ns=125", "nic.msg_rate_mpps=330", "host.pcie_gen=5", "host.pcie_ns=210", "host.gpu_pcie_ns=210",
              COST("32870", "747", "64", "1599", "24.9", "700", "8")}},
    {.name = "ib-xdr",
     .about = "InfiniBand XDR: 800 Gb/s, credits, IB congestion control, adaptive routing, "
              "ConnectX-8-class NICs on PCIe Gen6 x16",
     .sets = {"link.rate_gbps=800", "nic.encap=ib", "nic.mtu_bytes=4096",
              "link.flow_control=credit", "nic.congestion_control=ib_cc",
              "switch.load_balancing=adaptive", "nic.transport=selective_repeat",
              "switch.latency_ns=130", "switch.forwarding=cut_through",
              "nic.tx_ns=125", "nic.rx_ns=125", "nic.msg_rate_mpps=370", "host.pcie_gen=6", "host.pcie_ns=210", "host.gpu_pcie_ns=210",
              COST("0", "0", "0", "2519", "0", "1250", "15")}},
    {.name = "roce-400g",
     .about = "RoCEv2 400GbE: PFC, DCQCN (NVIDIA defaults), per-flow ECMP, go-back-N",
     .sets = {"link.rate_gbps=400", "nic.encap=roce", "nic.mtu_bytes=4096",
              "link.flow_control=pfc", "nic.congestion_control=dcqcn", "dcqcn.preset=nvidia",
              "switch.load_balancing=ecmp", "nic.transport=go_back_n", "switch.latency_ns=400",
              "switch.forwarding=cut_through",
              "nic.tx_ns=125", "nic.rx_ns=125", "nic.msg_rate_mpps=330", "host.pcie_gen=5", "host.pcie_ns=210", "host.gpu_pcie_ns=210",
              COST("51999", "940", "128", "1599", "24.9", "700", "8")}},
    {.name = "roce-800g",
     .about = "RoCEv2 800GbE: PFC, DCQCN (NVIDIA defaults), per-flow ECMP, go-back-N",
     .sets = {"link.rate_gbps=800", "nic.encap=roce", "nic.mtu_bytes=4096",
              "link.flow_control=pfc", "nic.congestion_control=dcqcn", "dcqcn.preset=nvidia",
              "switch.load_balancing=ecmp", "nic.transport=go_back_n", "switch.latency_ns=400",
              "switch.forwarding=cut_through",
              "nic.tx_ns=125", "nic.rx_ns=125", "nic.msg_rate_mpps=370", "host.pcie_gen=6", "host.pcie_ns=210", "host.gpu_pcie_ns=210",
              COST("51999", "940", "64", "2519", "0", "1250", "15")}},
    {.name = "uec-800g",
     .about = "Ultra Ethernet 800G: packet spraying, selective repeat, NSCC-style window, trimming",
     .sets = {"link.rate_gbps=800", "nic.encap=roce", "nic.mtu_bytes=4096",
              "link.flow_control=lossy", "switch.trim=true", "nic.entropy=per_packet",
              "switch.load_balancing=ecmp", "nic.transport=selective_repeat",
              "nic.congestion_control=nscc",
              "switch.latency_ns=400", "switch.forwarding=cut_through",
              "nic.tx_ns=125", "nic.rx_ns=125", "nic.msg_rate_mpps=370", "host.pcie_gen=6", "host.pcie_ns=210", "host.gpu_pcie_ns=210",
              COST("51999", "940", "64", "2519", "0", "1250", "15")}},
    {.name = "nvlink5",
     .about = "NVLink 5 scale-up (GB200 NVL72): 72 GPUs per NVLink domain, 18 links x 100 GB/s "
              "= 1.8 TB/s per GPU both ways, NVLink SHARP",
     .sets = {"scale_up.domain_gpus=72", "scale_up.rate_gbps=7200", "scale_up.efficiency=0.802",
              "scale_up.latency_ns=250",
              "scale_up.nvls=true", "scale_up.nvls_efficiency=0.74"}},
};

#define NPRESETS (sizeof presets / sizeof presets[0])

size_t bn_scenario_preset_count(void) { return NPRESETS; }

/* snprintf at buf + *at, never past len (*at may pass len: then no more). */
static void append(char *buf, size_t len, size_t *at, const char *fmt, const char *a,
                   const char *b)
{
    if (*at < len)
        *at += (size_t)snprintf(buf + *at, len - *at, fmt, a, b);
}

const char *bn_scenario_preset_describe(size_t i, char *buf, size_t len)
{
    if (i >= NPRESETS)
        return NULL;
    const struct preset *p = &presets[i];
    size_t at = 0;
    append(buf, len, &at, "%-10s %s", p->name, p->about);
    if (p->missing)
        append(buf, len, &at, "\n%-10s   not available yet: needs %s", "", p->missing);
    for (size_t k = 0; !p->missing && k < 24 && p->sets[k]; k++)
        append(buf, len, &at, "\n%-10s   %s", "", p->sets[k]);
    return p->name;
}

const char *bn_scenario_preset_about(size_t i)
{
    return i < NPRESETS ? presets[i].about : NULL;
}

const char *bn_scenario_preset_set(size_t i, size_t k)
{
    return i < NPRESETS && k < 24 && !presets[i].missing ? presets[i].sets[k] : NULL;
}

const char *bn_scenario_preset_name(size_t i)
{
    return i < NPRESETS ? presets[i].name : NULL;
}

size_t bn_scenario_preset_find(const char *name)
{
    size_t i = 0;
    while (i < NPRESETS && strcmp(presets[i].name, name) != 0)
        i++;
    return i;
}

int bn_scenario_apply_preset(struct bn_scenario *sc, unsigned fabric, struct bn_error *err)
{
    if (fabric == 0) /* "none" */
        return BN_OK;
    if (fabric > NPRESETS)
        return bn_fail(err, BN_EINPUT, "%s: key 'fabric': no preset %u (see bnet presets)",
                       sc->source, fabric);
    const struct preset *p = &presets[fabric - 1];
    if (p->missing)
        return bn_fail(err, BN_EINPUT,
                       "%s: key 'fabric': preset '%s' needs %s, which bnet does not model yet",
                       sc->source, p->name, p->missing);
    for (size_t k = 0; k < sizeof p->sets / sizeof p->sets[0] && p->sets[k]; k++) {
        int rc = bn_scenario_set(sc, p->sets[k], err);
        if (rc != BN_OK)
            return rc;
    }
    return BN_OK;
}
