/* The endpoint model's parameters; see endpoint.h and docs/endpoints.md. */
#include "nic/nic.h"

/*
 * PCIe per generation (PCI-SIG base specifications 1.0-6.0): transfer rate
 * per lane and line-code efficiency; generation 6 sends 256-byte FLITs of
 * which 236 bytes carry TLPs (the rest DLLP, CRC and FEC bytes). A DMA of
 * 256-byte payloads (the usual max payload size) carries about 24 bytes of
 * TLP header, sequence number, LCRC and framing with each (Neugebauer et
 * al., "Understanding PCIe performance for end host networking", SIGCOMM
 * 2018, section 2); generation 6's FLIT has no per-TLP LCRC or framing, 16.
 */
uint64_t bn_pcie_goodput_bps(uint32_t gen, uint32_t lanes)
{
    static const double gts[] = {0, 2.5, 5, 8, 16, 32, 64};
    static const double code[] = {0, 0.8, 0.8, 128.0 / 130, 128.0 / 130, 128.0 / 130,
                                  236.0 / 256};
    static const double tlp[] = {0, 256.0 / 280, 256.0 / 280, 256.0 / 280, 256.0 / 280,
                                 256.0 / 280, 256.0 / 272};
    if (gen == 0 || gen > 6)
        return 0;
    return (uint64_t)(gts[gen] * 1e9 * code[gen] * tlp[gen] * lanes + 0.5);
}

int bn_ep_setup(struct bn_ep_params *p, const struct bn_scenario *sc, struct bn_error *err)
{
    (void)err; /* the keys' ranges are checked where they are read */
    const struct bn_scenario_host *h = &sc->host;
    *p = (struct bn_ep_params){
        .tx = bn_time_from_ns(sc->nic.tx_ns),
        .rx = bn_time_from_ns(sc->nic.rx_ns),
        .qp_cache = sc->nic.qp_cache,
        .max_rd = sc->nic.max_rd_atomic ? sc->nic.max_rd_atomic : 1,
        .inline_bytes = sc->nic.inline_bytes,
    };
    if (h->pcie_gen) {
        p->pcie = bn_time_from_ns(h->pcie_ns);
        p->data = h->memory == BN_SC_MEM_GPU ? bn_time_from_ns(h->gpu_pcie_ns) : p->pcie;
        p->dma_bps = bn_pcie_goodput_bps(h->pcie_gen, h->pcie_lanes);
    }
    if (sc->nic.msg_rate_mpps > 0)
        p->wqe_gap = (bn_time_t)(1e6 / sc->nic.msg_rate_mpps + 0.5); /* ps per request */
    p->on = p->dma_bps || p->qp_cache;
    return BN_OK;
}

bn_time_t bn_ep_fixed_ps(const struct bn_ep_params *p)
{
    return p->pcie + 2 * p->pcie + 2 * p->data + p->tx + p->rx + p->data;
}

/* Unlink queue pair q from NIC nic's cache list. */
static void lru_unlink(struct bn_nics *n, struct bn_nic_ep *ep, uint32_t q)
{
    uint32_t prev = n->lru[q][0], next = n->lru[q][1];
    if (prev != BN_NONE)
        n->lru[prev][1] = next;
    else
        ep->lru_head = next;
    if (next != BN_NONE)
        n->lru[next][0] = prev;
    else
        ep->lru_tail = prev;
    n->lru[q][0] = n->lru[q][1] = BN_NONE;
}

bool bn_nic_ep_touch(struct bn_nics *n, uint32_t nic, uint32_t q)
{
    struct bn_nic_ep *ep = &n->ep[nic];
    bool hit = n->lru[q][0] != BN_NONE || ep->lru_head == q; /* on the list */
    if (hit) {
        lru_unlink(n, ep, q);
    } else {
        ep->qp_misses++;
        if (++ep->lru_n > n->ep_params.qp_cache) { /* the least recently used goes */
            lru_unlink(n, ep, ep->lru_tail);
            ep->lru_n--;
        }
    }
    n->lru[q][1] = ep->lru_head;
    if (ep->lru_head != BN_NONE)
        n->lru[ep->lru_head][0] = q;
    ep->lru_head = q;
    if (ep->lru_tail == BN_NONE)
        ep->lru_tail = q;
    return hit;
}
