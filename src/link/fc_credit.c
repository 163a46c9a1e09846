/*
 * InfiniBand credit-based flow control (IBTA spec vol. 1, 7.9): a port may
 * send only what the receiver has buffer for. Each port holds the credits
 * (bytes) its peer's receive buffer for this virtual lane still has free;
 * sending spends them, and when a frame leaves the receiving switch (or is
 * taken by the NIC) its bytes return to the sender one propagation delay
 * later, as IB's flow-control packets carry them. Nothing is ever dropped:
 * a sender without credit simply waits. One data VL is modelled.
 */
#include "link/fabric.h"

static bool credit_may_send(const struct bn_fabric *f, uint32_t p, uint32_t bytes)
{
    return f->fcs[p].credits >= (int64_t)bytes;
}

static void credit_on_transmit(struct bn_fabric *f, uint32_t p, uint32_t bytes)
{
    f->fcs[p].credits -= bytes;
    if (f->fcs[p].credits < 0)
        f->lossless_overflows++; /* sent without credit: the receiver would drop */
}

static void credit_on_arrive(struct bn_fabric *f, uint32_t in, uint32_t bytes)
{
    f->fcs[in].ingress_bytes += bytes;
}

static void credit_on_depart(struct bn_fabric *f, uint32_t in, uint32_t bytes)
{
    f->fcs[in].ingress_bytes -= bytes;
    bn_fabric_signal(f, f->now + f->fcs[in].prop_ps, f->ports[in].peer, BN_FC_CREDIT, bytes);
}

static void credit_on_signal(struct bn_fabric *f, uint32_t p, uint32_t signal, uint32_t amount)
{
    (void)signal;
    f->fcs[p].credits += amount;
}

const struct bn_fc_ops bn_fc_credit = {
    .name = "credit",
    .lossless = true,
    .may_send = credit_may_send,
    .on_transmit = credit_on_transmit,
    .on_arrive = credit_on_arrive,
    .on_depart = credit_on_depart,
    .on_signal = credit_on_signal,
};
