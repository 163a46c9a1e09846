/* The fabric's memory: ports, their stats, the pool and the event queue,
 * and the flow-control module's state. See fabric.h. */
#include <string.h>

#include "core/bigmem.h"
#include "link/fabric.h"
#include "link/impair.h"
#include "link/telemetry.h"

int bn_fabric_init_on(struct bn_fabric *f, uint32_t nports, const uint8_t *absent,
                      struct bn_error *err)
{
    memset(f, 0, sizeof *f);
    f->nports = nports;
    f->absent = absent;
    if (absent) { /* only the records written become resident */
        f->ports = bn_big_sparse_calloc(nports + 1, sizeof *f->ports);
        f->stats = bn_big_sparse_calloc(nports + 1, sizeof *f->stats);
    } else {
        f->ports = bn_big_calloc(nports + 1, sizeof *f->ports);
        f->stats = bn_big_calloc(nports + 1, sizeof *f->stats);
    }
    f->port_node = bn_big_calloc(nports + 1, sizeof *f->port_node);
    if (!f->ports || !f->port_node || !f->stats)
        return bn_fail(err, BN_ENOMEM, "out of memory for %u ports", nports);
    for (uint32_t p = 0; p < nports; p++)
        if (!absent || !absent[p])
            bn_pktq_init(&f->ports[p].q);
    if (bn_pool_init(&f->pool, 4096) != 0 || bn_evq_init(&f->evq, 4096) != 0)
        return bn_fail(err, BN_ENOMEM, "out of memory for the packet pool and event queue");
    return BN_OK;
}

int bn_fabric_init(struct bn_fabric *f, uint32_t nports, struct bn_error *err)
{
    return bn_fabric_init_on(f, nports, NULL, err);
}

int bn_fabric_fc_setup(struct bn_fabric *f, const struct bn_fc_ops *fc, const struct bn_fc_setup *in,
                       struct bn_error *err)
{
    f->fc = fc;
    return fc->setup ? fc->setup(f, in, err) : BN_OK;
}

void bn_fabric_free(struct bn_fabric *f)
{
    if (f->fc && f->fc->fc_free)
        f->fc->fc_free(f);
    bn_impair_free(f);
    bn_telemetry_free(f);
    if (f->absent) {
        bn_big_sparse_free(f->ports, f->nports + 1, sizeof *f->ports);
        bn_big_sparse_free(f->stats, f->nports + 1, sizeof *f->stats);
    } else {
        bn_big_free(f->ports);
        bn_big_free(f->stats);
    }
    bn_big_free(f->port_node);
    bn_pool_free(&f->pool);
    bn_evq_free(&f->evq);
    memset(f, 0, sizeof *f);
}
