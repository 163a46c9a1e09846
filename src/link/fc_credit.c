/*
 * InfiniBand credit-based flow control (IBTA spec vol. 1, 7.9): a port may
 * send only what the receiver has buffer for. Each port holds the credits
 * (bytes) its peer's receive buffer for this virtual lane still has free;
 * sending spends them, and when a frame leaves the receiving switch (or is
 * taken by the NIC) its bytes return to the sender one propagation delay
 * later, as IB's flow-control packets carry them. Nothing is ever dropped:
 * a sender without credit simply waits. One data VL is modelled.
 */
#include "core/bigmem.h"
#include "core/fail_key.h"
#include "link/fabric.h"

struct credit_port {
    int64_t credits;        /* bytes the peer can still accept from this port */
    uint64_t ingress_bytes; /* bytes that entered the switch by this port, still inside */
    bn_time_t prop_ps;      /* one-way propagation to the peer (the credit's trip) */
    int64_t buffer;         /* the peer's whole receive buffer for this port */
};

static struct credit_port *cp(const struct bn_fabric *f, uint32_t p)
{
    return &((struct credit_port *)f->fc_state)[p];
}

/* Every port starts with a whole buffer of credit (switch.buffer_bytes,
 * which must admit the largest frame; on NVLink at least its credit
 * loop's worth). */
static int credit_setup(struct bn_fabric *f, const struct bn_fc_setup *in, struct bn_error *err)
{
    const struct bn_scenario *sc = in->sc;
    if (sc->sw.buffer_bytes < in->max_wire)
        return bn_fail_key(err, BN_EINPUT, "switch.buffer_bytes",
                           "%llu bytes of credit cannot admit one "
                           "%u-byte frame",
                           (unsigned long long)sc->sw.buffer_bytes, in->max_wire);
    struct credit_port *c = bn_big_calloc(f->nports + 1, sizeof *c);
    if (!c)
        return bn_fail(err, BN_ENOMEM, "out of memory for flow-control state");
    f->fc_state = c;
    for (uint32_t p = 0; p < f->nports; p++) {
        int64_t buffer = (int64_t)sc->sw.buffer_bytes;
        /* NVLink is built to run at its line rate: its receive buffers
         * cover the credit loop (a frame's way there, through the switch
         * and the credit's way back), where switch.buffer_bytes sizes the
         * backend's. An NVLS engine at 8 x 900 GB/s needs a few MB. */
        if (in->link[p].scale_up) { /* the latency both ways, and two frames each way */
            double bytes_per_ps = (double)f->ports[p].rate_bps / 8e12;
            int64_t bdp = (int64_t)(2.0 * f->ports[p].lat_ps * bytes_per_ps) +
                          4 * (int64_t)in->max_wire;
            buffer = bdp > buffer ? bdp : buffer;
        }
        c[p] = (struct credit_port){.credits = buffer, .prop_ps = in->link[p].prop_ps,
                                    .buffer = buffer};
    }
    return BN_OK;
}

static void credit_free(struct bn_fabric *f)
{
    bn_big_free(f->fc_state);
    f->fc_state = NULL;
}

static bool credit_may_send(const struct bn_fabric *f, uint32_t p, uint32_t bytes)
{
    return cp(f, p)->credits >= (int64_t)bytes;
}

static void credit_on_transmit(struct bn_fabric *f, uint32_t p, uint32_t bytes)
{
    struct credit_port *c = cp(f, p);
    c->credits -= bytes;
    if (c->credits < 0)
        f->lossless_overflows++; /* sent without credit: the receiver would drop */
}

static void credit_on_arrive(struct bn_fabric *f, uint32_t in, uint32_t bytes)
{
    cp(f, in)->ingress_bytes += bytes;
}

static void credit_on_depart(struct bn_fabric *f, uint32_t in, uint32_t bytes)
{
    struct credit_port *c = cp(f, in);
    c->ingress_bytes -= bytes;
    bn_fabric_signal(f, f->now + c->prop_ps, f->ports[in].peer, BN_FC_CREDIT, bytes);
}

static void credit_on_signal(struct bn_fabric *f, uint32_t p, uint32_t signal, uint32_t amount)
{
    (void)signal;
    cp(f, p)->credits += amount;
}

/* A link going down or up: port p's credit is what its peer's buffer has
 * free now. Frames lost on the link never return theirs, and credits sent
 * to a dead port are lost with it (the engine drops signals to it); the
 * frames still inside the peer's switch return theirs as they leave. */
static void credit_link_reset(struct bn_fabric *f, uint32_t p)
{
    struct credit_port *c = cp(f, p);
    c->credits = c->buffer - (int64_t)cp(f, f->ports[p].peer)->ingress_bytes;
}

const struct bn_fc_ops bn_fc_credit = {
    .name = "credit",
    .summary = "InfiniBand credits, needs nic.encap ib",
    .lossless = true,
    .link_layer = BN_LL_INFINIBAND,
    .setup = credit_setup,
    .fc_free = credit_free,
    .may_send = credit_may_send,
    .on_transmit = credit_on_transmit,
    .on_arrive = credit_on_arrive,
    .on_depart = credit_on_depart,
    .on_signal = credit_on_signal,
    .link_reset = credit_link_reset,
};
