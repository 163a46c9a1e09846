/*
 * NCCL's three protocols (NCCL 2.x, src/include/device.h; docs/
 * collectives.md, "Protocols"):
 * - LL: 16-byte lines of 8 bytes of data and two 4-byte flags, so the
 *   receiver polls the data itself; a step is 8 lines per thread x 512
 *   threads (NCCL_LL_LINES_PER_THREAD x NCCL_LL_MAX_NTHREADS): 64 KiB on
 *   the wire, 32 KiB of payload.
 * - LL128: 128-byte lines of 120 bytes of data and an 8-byte flag; a step
 *   is 120 8-byte elements per thread x 640 threads
 *   (NCCL_LL128_ELEMS_PER_THREAD x NCCL_LL128_MAX_NTHREADS): 614400 bytes
 *   on the wire, 576000 of payload.
 * - Simple: the data as is, then a flag; a step is the 4 MiB buffer
 *   (NCCL_BUFFSIZE) over its 8 slots: 512 KiB.
 * Each connection has NCCL_STEPS = 8 slots. A step's latency is the
 * protocol's own (coll.ll_step_latency_us, coll.ll128_step_latency_us,
 * Simple's coll.step_latency_us; driver/coll/coll_nccl.c).
 */
#include <stddef.h>

#include "coll/proto.h"

#define NCCL_STEPS 8

static const struct bn_coll_proto protos[] = {
    {.name = "ll", .line_bytes = 16, .line_payload = 8, .step_payload = 8 * 512 * 8,
     .steps = NCCL_STEPS},
    {.name = "ll128", .line_bytes = 128, .line_payload = 120,
     .step_payload = 120 * 640 * 8 / 128 * 120, .steps = NCCL_STEPS},
    {.name = "simple", .line_bytes = 0, .line_payload = 0, .step_payload = (4u << 20) / NCCL_STEPS,
     .steps = NCCL_STEPS},
};

#define NPROTOS (sizeof protos / sizeof protos[0])

const struct bn_coll_proto *bn_coll_proto_at(size_t i) { return i < NPROTOS ? &protos[i] : NULL; }

const char *bn_coll_proto_name(size_t i) { return i < NPROTOS ? protos[i].name : NULL; }

uint64_t bn_coll_proto_wire(const struct bn_coll_proto *p, uint64_t payload)
{
    if (!p->line_bytes)
        return payload;
    return (payload + p->line_payload - 1) / p->line_payload * p->line_bytes;
}

double bn_coll_proto_efficiency(const struct bn_coll_proto *p)
{
    return p->line_bytes ? (double)p->line_payload / p->line_bytes : 1.0;
}
