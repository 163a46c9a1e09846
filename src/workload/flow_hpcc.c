/*
 * HPCC's flow.txt (alibaba-edu/High-Precision-Congestion-Control,
 * traffic_gen/traffic_gen.py writes it, simulation/ reads it): a line with
 * the number of flows, then one flow per line, `src dst priority dport
 * size start_s`, the start in seconds. The priority class and the
 * destination port (ns-3's application demultiplexing) are read and not
 * modelled: every flow is one queue pair. Note that HPCC's generator
 * starts its flows at 2 s; the simulation goes straight there.
 *
 * src and dst are ns-3 node ids: on a topology.kind ns3 fabric they are
 * looked up among its node ids (a switch's id is refused), elsewhere they
 * are host indices. As HPCC's simulation reads the file (ReadFlowInput in
 * scratch/third.cc), only the declared number of flows is read; lines
 * after them (HPCC's own flow.txt has 256 more and a note on the format)
 * are ignored, with a warning. Fewer flows than declared is an error.
 */
#include <stdlib.h>
#include <string.h>

#include "core/warn.h"
#include "workload/flow_file.h"

struct hpcc {
    uint64_t declared;
    unsigned count_line, ignored_line;  /* ignored_line: the first one past the flows */
    bool counted;
};

/* Field `name`'s node id as a host: through the topology's ids if it has
 * them, else the id is the host index. */
static bool host_of(struct bn_flow_reader *r, const char *name, uint64_t id, uint64_t *host,
                    unsigned lineno, struct bn_error *err)
{
    if (!r->file_host) {
        *host = id;
        return true;
    }
    if (id >= r->nfile_ids)
        bn_fail(err, BN_EINPUT, "%s:%u: field '%s': node %llu is not in the topology file "
                "(node ids 0..%u)", r->path, lineno, name, (unsigned long long)id,
                r->nfile_ids - 1);
    else if (r->file_host[id] == UINT32_MAX)
        bn_fail(err, BN_EINPUT, "%s:%u: field '%s': node %llu is a switch in the topology "
                "file, not a host", r->path, lineno, name, (unsigned long long)id);
    else
        *host = r->file_host[id];
    return id < r->nfile_ids && r->file_host[id] != UINT32_MAX;
}

static int begin(struct bn_flow_reader *r, struct bn_error *err)
{
    r->state = calloc(1, sizeof(struct hpcc));
    return r->state ? BN_OK : bn_fail(err, BN_ENOMEM, "out of memory");
}

static void release(struct bn_flow_reader *r)
{
    free(r->state);
    r->state = NULL;
}

static int line(struct bn_flow_reader *r, char *const *tok, int n, unsigned lineno,
                struct bn_error *err)
{
    struct hpcc *h = r->state;
    if (!h->counted) {
        if (n != 1 || !bn_flow_u64(tok[0], &h->declared))
            return bn_fail(err, BN_EINPUT, "%s:%u: expected the number of flows alone on the "
                           "first line", r->path, lineno);
        h->counted = true;
        h->count_line = lineno;
        return BN_OK;
    }
    if (r->out->n == h->declared) {
        if (!h->ignored_line)
            h->ignored_line = lineno;
        return BN_OK;
    }
    static const char *const names[] = {"src", "dst", "priority", "dport", "size"};
    if (n != 6)
        return bn_fail(err, BN_EINPUT, "%s:%u: expected 6 fields 'src dst priority dport size "
                       "start_s', got %d", r->path, lineno, n);
    uint64_t v[5];
    double start_s;
    for (int i = 0; i < 5; i++)
        if (!bn_flow_u64(tok[i], &v[i]))
            return bn_fail(err, BN_EINPUT, "%s:%u: field '%s': '%s' is not a non-negative integer",
                           r->path, lineno, names[i], tok[i]);
    if (!bn_flow_real(tok[5], &start_s) || start_s > 1e6)
        return bn_fail(err, BN_EINPUT, "%s:%u: field 'start_s': '%s' is not a time in seconds "
                       "(0..1e6)", r->path, lineno, tok[5]);
    uint64_t src, dst;
    if (!host_of(r, "src", v[0], &src, lineno, err) || !host_of(r, "dst", v[1], &dst, lineno, err))
        return BN_EINPUT;
    return bn_flow_file_add(r, lineno, src, dst, v[4], start_s * 1e6, err);
}

static int end(struct bn_flow_reader *r, unsigned lines, struct bn_error *err)
{
    (void)lines;
    const struct hpcc *h = r->state;
    if (h->counted && h->declared != r->out->n)
        return bn_fail(err, BN_EINPUT, "%s:%u: %llu flows declared, %u given", r->path,
                       h->count_line, (unsigned long long)h->declared, r->out->n);
    if (h->ignored_line)
        bn_warn("%s:%u: ignored from here on: the first line declares %llu flows, and HPCC's "
                "simulation reads no further", r->path, h->ignored_line,
                (unsigned long long)h->declared);
    return BN_OK;
}

/* A count alone on the first line. */
static bool claims(char *const *tok, int n)
{
    uint64_t v;
    return n == 1 && bn_flow_u64(tok[0], &v);
}

const struct bn_flow_format bn_flow_hpcc = {
    .name = "hpcc",
    .claims = claims,
    .begin = begin,
    .line = line,
    .end = end,
    .free = release,
};
