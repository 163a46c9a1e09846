/*
 * Adaptive routing: every packet goes to a minimal next hop of the least
 * load: queued bytes (switch.ar_metric: queue), or queued plus
 * still-to-serialize bytes (load: a port-load estimate that also counts the
 * frame on the wire). Loads are graded in bands of switch.ar_band_bytes,
 * and the pick is random (the switch's seeded stream) among the next hops
 * of the best band, as Broadcom's dynamic load balancing grades ports into
 * quality bands: compared to the byte, an ACK's difference sends every
 * packet of a flow onto one path, and flows herd onto the same downstream
 * links that no local queue shows. As InfiniBand adaptive routing and
 * Spectrum's per-packet AR do, it trades in-order delivery for balance:
 * the transport must tolerate reordering.
 */
#include "switch/lb.h"

/* switch.ar_metric: queued bytes, or queued plus still on the wire. */
enum ar_metric { AR_QUEUE = 0, AR_LOAD };

static const char *metric_choice(size_t i)
{
    static const char *const v[] = {"queue", "load"}; /* enum ar_metric's order */
    return i < sizeof v / sizeof v[0] ? v[i] : NULL;
}

/* switch.ar_* */
struct adaptive_keys {
    uint8_t metric;               /* enum ar_metric */
    uint32_t band_bytes;          /* next hops this close in load tie */
};
BN_LB_KEYS_CHECK(struct adaptive_keys);

#define KEY(m) BN_ROW_LB(struct adaptive_keys, m)
static const struct bn_key_row keys[] = {
    { .info.path = "switch.ar_metric", BN_ROW_ENUM, .info.unit = "", .info.def = "queue",
      .info.choice = metric_choice,
      .info.doc = "Adaptive routing's port metric: queued bytes, or queued + still on the wire.",
      KEY(metric) },
    { .info.path = "switch.ar_band_bytes", BN_ROW_INT, .info.unit = "bytes", .info.def = "8192",
      .info.doc = "Adaptive routing grades next hops in bands of this much load and picks at "
                  "random in the best band (Broadcom DLB's quality bands); 1 = exact.",
      KEY(band_bytes), BN_ROW_RANGE(1, 1 << 30) },
};
#undef KEY

/* A switch's copy of the keys, as pick reads them. */
struct adaptive {
    uint8_t metric;               /* enum ar_metric */
    uint32_t band;                /* bytes of load that grade alike */
    uint64_t mask;                /* a power-of-two band: ~(band - 1), else 0 */
};

extern const struct bn_lb_ops bn_lb_adaptive; /* below: its keys' block is found by it */

static size_t adaptive_priv_size(const struct bn_scenario *sc)
{
    (void)sc;
    return sizeof(struct adaptive);
}

static void adaptive_setup(void *priv, const struct bn_scenario *sc)
{
    const struct adaptive_keys *k = bn_lb_keys(sc, &bn_lb_adaptive);
    struct adaptive *ar = priv;
    ar->metric = k->metric;
    ar->band = k->band_bytes ? k->band_bytes : 1;
    ar->mask = (ar->band & (ar->band - 1)) == 0 ? ~((uint64_t)ar->band - 1) : 0;
}

static uint64_t load_of(const struct bn_lb_ctx *ctx, uint8_t metric, uint32_t p)
{
    const struct bn_port *port = &ctx->f->ports[p];
    uint64_t load = port->q.bytes;
    if (metric == AR_LOAD && port->busy_until > ctx->f->now)
        load += (uint64_t)((double)(port->busy_until - ctx->f->now) * (double)port->rate_bps / 8e12);
    return load;
}

static uint32_t adaptive_pick(struct bn_lb_ctx *ctx, struct bn_lb_switch_state *sw,
                              const uint32_t *ports, uint32_t nports, const struct bn_packet *pk)
{
    (void)pk;
    const struct adaptive *ar = sw->priv;
    uint64_t lo = UINT64_MAX, hi = 0; /* the best band so far: loads in [lo, hi) */
    uint32_t pick = ports[0], ties = 0;
    for (uint32_t i = 0; i < nports; i++) {
        uint64_t l = load_of(ctx, ar->metric, ports[i]);
        if (l < lo) { /* a better band (a division only for a band not a power of two) */
            lo = ar->mask ? l & ar->mask : l - l % ar->band;
            hi = lo + ar->band;
            pick = ports[i];
            ties = 1;
        } else if (l < hi && bn_rng_below(&sw->rng, ++ties) == 0) {
            pick = ports[i]; /* reservoir choice: each of the best band equally likely */
        }
    }
    return pick;
}

const struct bn_lb_ops bn_lb_adaptive = {
    .name = "adaptive",
    .summary = "least-loaded, per packet",
    .keys = keys,
    .nkeys = sizeof keys / sizeof keys[0],
    .priv_size = adaptive_priv_size,
    .setup = adaptive_setup,
    .pick = adaptive_pick,
};
