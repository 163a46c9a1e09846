/*
 * Adaptive routing: every packet goes to the minimal next hop with the
 * least queued bytes (switch.ar_metric: queue), or the least queued plus
 * still-to-serialize bytes (load: a port-load estimate that also counts the
 * frame on the wire), ties broken by the switch's seeded stream. As
 * InfiniBand adaptive routing and Spectrum's per-packet AR do, it trades
 * in-order delivery for balance: the transport must tolerate reordering.
 */
#include "switch/lb.h"

struct adaptive {
    uint8_t metric;               /* enum bn_sc_ar_metric */
};

static size_t adaptive_priv_size(const struct bn_scenario *sc)
{
    (void)sc;
    return sizeof(struct adaptive);
}

static void adaptive_setup(void *priv, const struct bn_scenario *sc)
{
    ((struct adaptive *)priv)->metric = sc->sw.ar_metric;
}

static uint64_t load_of(const struct bn_lb_ctx *ctx, uint8_t metric, uint32_t p)
{
    const struct bn_port *port = &ctx->f->ports[p];
    uint64_t load = port->q.bytes;
    if (metric == BN_SC_AR_LOAD && port->busy_until > ctx->f->now)
        load += (uint64_t)((double)(port->busy_until - ctx->f->now) * (double)port->rate_bps / 8e12);
    return load;
}

static uint32_t adaptive_pick(struct bn_lb_ctx *ctx, struct bn_lb_switch_state *sw,
                              const uint32_t *ports, uint32_t nports, const struct bn_packet *pk)
{
    (void)pk;
    uint8_t metric = ((const struct adaptive *)sw->priv)->metric;
    uint64_t best = UINT64_MAX;
    uint32_t pick = ports[0], ties = 0;
    for (uint32_t i = 0; i < nports; i++) {
        uint64_t l = load_of(ctx, metric, ports[i]);
        if (l < best) {
            best = l;
            pick = ports[i];
            ties = 1;
        } else if (l == best && bn_rng_below(&sw->rng, ++ties) == 0) {
            pick = ports[i]; /* reservoir choice: each tie equally likely */
        }
    }
    return pick;
}

const struct bn_lb_ops bn_lb_adaptive = {
    .name = "adaptive",
    .priv_size = adaptive_priv_size,
    .setup = adaptive_setup,
    .pick = adaptive_pick,
};
