/* Link impairments: down links, lowered rates, bit errors; see impair.h. */
#include <math.h>
#include <stdlib.h>

#include "core/bigmem.h"
#include "link/impair.h"

struct bn_impair {
    uint32_t ndown;         /* ports down */
    uint32_t nber;          /* ports with a bit-error rate */
    double *ber;            /* per port: frames arriving here see it (NULL: none yet) */
    struct bn_rng rng;      /* bit-error draws */
};

static struct bn_impair *state(struct bn_fabric *f, struct bn_error *err)
{
    if (!f->impair && !(f->impair = calloc(1, sizeof *f->impair)))
        bn_fail(err, BN_ENOMEM, "out of memory for link faults");
    return f->impair;
}

static void refresh(struct bn_fabric *f)
{
    f->impaired = f->impair->ndown || f->impair->nber;
}

bool bn_link_is_down(const struct bn_fabric *f, uint32_t p)
{
    return (f->ports[p].flags & BN_PORT_DOWN) != 0;
}

/* Everything queued at port p is lost with its link. */
static void flush(struct bn_fabric *f, uint32_t p)
{
    struct bn_port *port = &f->ports[p];
    bool at_switch = !(port->flags & BN_PORT_AT_HOST);
    bn_port_queue_settle(f);
    while (!bn_pktq_empty(&port->q))
        bn_fabric_lose(f, p, bn_pktq_pop(&port->q, &f->pool), at_switch);
}

static void set_port_down(struct bn_fabric *f, uint32_t p, bool down)
{
    struct bn_port *port = &f->ports[p];
    if (down == ((port->flags & BN_PORT_DOWN) != 0))
        return;
    if (down) {
        port->flags |= BN_PORT_DOWN;
        f->impair->ndown++;
        flush(f, p);
    } else {
        port->flags &= (uint8_t)~BN_PORT_DOWN;
        f->impair->ndown--;
    }
}

int bn_link_set_down(struct bn_fabric *f, uint32_t p, bool down, struct bn_error *err)
{
    if (!state(f, err))
        return BN_ENOMEM;
    uint32_t q = f->ports[p].peer;
    set_port_down(f, p, down);
    set_port_down(f, q, down);
    if (f->fc->link_reset) {
        f->fc->link_reset(f, p);
        f->fc->link_reset(f, q);
    }
    refresh(f);
    if (!down) { /* both ends may have work that waited on the link */
        bn_port_want_wake(f, p);
        bn_port_want_wake(f, q);
    }
    return BN_OK;
}

void bn_link_set_rate(struct bn_fabric *f, uint32_t p, uint64_t bps, bool both)
{
    f->ports[p].rate_bps = bps;
    if (both)
        f->ports[f->ports[p].peer].rate_bps = bps;
}

int bn_link_set_ber(struct bn_fabric *f, uint32_t p, double ber, uint64_t seed,
                    struct bn_error *err)
{
    struct bn_impair *im = state(f, err);
    if (!im)
        return BN_ENOMEM;
    if (!im->ber) {
        im->ber = calloc(f->nports + 1, sizeof *im->ber);
        if (!im->ber)
            return bn_fail(err, BN_ENOMEM, "out of memory for link bit-error rates");
        bn_rng_init(&im->rng, seed, BN_STREAM_BER);
    }
    uint32_t ends[2] = {p, f->ports[p].peer};
    for (int i = 0; i < 2; i++) {
        im->nber += (ber > 0) - (im->ber[ends[i]] > 0);
        im->ber[ends[i]] = ber;
    }
    refresh(f);
    return BN_OK;
}

double bn_link_frame_error_prob(double ber, uint64_t bits)
{
    return ber <= 0 ? 0 : ber >= 1 ? 1 : -expm1((double)bits * log1p(-ber));
}

bool bn_link_loses(struct bn_fabric *f, uint32_t in, uint32_t pkt)
{
    struct bn_impair *im = f->impair;
    if (f->ports[in].flags & BN_PORT_DOWN) {
        bn_fabric_lose(f, in, pkt, false);
        return true;
    }
    if (!im->ber || im->ber[in] <= 0)
        return false;
    uint64_t bits = 8ull * (f->pool.pkts[pkt].bytes + f->wire_overhead);
    if (bn_rng_uniform(&im->rng) >= bn_link_frame_error_prob(im->ber[in], bits))
        return false;
    f->pkts_corrupted++;
    bn_fabric_lose(f, in, pkt, false);
    return true;
}

void bn_impair_free(struct bn_fabric *f)
{
    if (f->impair)
        free(f->impair->ber);
    free(f->impair);
    f->impair = NULL;
    f->impaired = false;
}
