/*
 * NCCL's protocols as properties of a collective's transfers (coll.proto;
 * docs/collectives.md, "Protocols"): what a step puts on the wire for its
 * payload, how big a step is and how many steps a connection has in
 * flight (a step's latency is each protocol's key: driver/coll/
 * coll_nccl.c). Facts from NCCL's sources (src/include/device.h and
 * src/graph/tuning.cc, NCCL 2.x) as coll/proto.c cites them.
 */
#ifndef BN_COLL_PROTO_H
#define BN_COLL_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bn_coll_proto {
    const char *name;         /* as in coll.proto and NCCL_PROTO (case aside) */
    uint32_t line_bytes;      /* a line on the wire (0: none, payload as is) */
    uint32_t line_payload;    /* payload bytes a line carries */
    uint64_t step_payload;    /* payload bytes of one step (a buffer slot) */
    uint32_t steps;           /* slots per connection: steps in flight (NCCL_STEPS) */
};

/* The i-th protocol (coll.proto = 1 + i), NULL past the last. */
const struct bn_coll_proto *bn_coll_proto_at(size_t i);
/* Its name, NULL past the last (coll.proto's choices after "auto"). */
const char *bn_coll_proto_name(size_t i);
/* Wire bytes of `payload` bytes under p (whole lines). */
uint64_t bn_coll_proto_wire(const struct bn_coll_proto *p, uint64_t payload);
/* payload / wire of a long transfer: LL 0.5, LL128 0.9375, Simple 1. */
double bn_coll_proto_efficiency(const struct bn_coll_proto *p);

#endif
