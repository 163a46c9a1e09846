/* In-band telemetry records beside the packet pool; see telemetry.h. */
#include <stdlib.h>

#include "core/bigmem.h"
#include "link/fabric.h"
#include "link/telemetry.h"

int bn_telemetry_init(struct bn_fabric *f, bool stamps, struct bn_error *err)
{
    struct bn_telemetry *t = calloc(1, sizeof *t);
    if (!t)
        return bn_fail(err, BN_ENOMEM, "out of memory for in-band telemetry");
    /* as many records as the pool may ever hold packets */
    t->reserved = f->pool.reserved / sizeof *f->pool.pkts * sizeof *t->rec;
    t->rec = bn_big_reserve(&t->reserved, 4096 * sizeof *t->rec);
    if (!t->rec) {
        free(t);
        return bn_fail(err, BN_ENOMEM, "no address space for in-band telemetry records");
    }
    f->telemetry = t;
    for (uint32_t p = 0; stamps && p < f->nports; p++)
        if (!(f->absent && f->absent[p]) && !(f->ports[p].flags & BN_PORT_AT_HOST))
            f->ports[p].flags |= BN_PORT_STAMPS;
    return BN_OK;
}

void bn_telemetry_free(struct bn_fabric *f)
{
    struct bn_telemetry *t = f->telemetry;
    if (!t)
        return;
    bn_big_unreserve(t->rec, t->reserved);
    free(t);
    f->telemetry = NULL;
}

struct bn_int_rec *bn_telemetry_at(struct bn_fabric *f, uint32_t pkt)
{
    struct bn_telemetry *t = f->telemetry;
    if (pkt >= t->cap) { /* the pool grew: commit as many records as it has slots */
        size_t cap = f->pool.cap > pkt ? f->pool.cap : (size_t)pkt + 1;
        if (cap * sizeof *t->rec > t->reserved ||
            bn_big_commit(t->rec, t->reserved, cap * sizeof *t->rec) != 0) {
            f->oom = true;
            return NULL;
        }
        t->cap = (uint32_t)cap;
    }
    return &t->rec[pkt];
}

void bn_telemetry_stamp(struct bn_fabric *f, uint32_t p, uint32_t pkt)
{
    struct bn_int_rec *r = bn_telemetry_at(f, pkt);
    if (!r || r->nhop >= BN_INT_HOPS)
        return; /* past the fifth hop the header has no room: it goes unstamped */
    const struct bn_port *port = &f->ports[p];
    r->hop[r->nhop++] = (struct bn_int_hop){
        .ts_ns = (uint32_t)(f->now / 1000), .tx_bytes = (uint32_t)port->tx_bytes,
        .qlen = port->q.bytes, .port = p};
}
