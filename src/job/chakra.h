/*
 * Chakra execution traces (MLCommons Chakra, the workload format of
 * ASTRA-sim): one .et file per rank, read by chakra_et.c into the plain
 * nodes below, then joined into one job graph by chakra.c.
 */
#ifndef BN_JOB_CHAKRA_H
#define BN_JOB_CHAKRA_H

#include <stdint.h>

#include "bnet/error.h"

/* What bnet runs of a node (et_def.proto's NodeType it came from). */
enum bn_et_kind { BN_ET_COMPUTE, BN_ET_COLL, BN_ET_SEND, BN_ET_RECV };

struct bn_et_node {
    uint64_t id;
    uint64_t dur_us;       /* compute: duration_micros */
    uint64_t bytes;        /* communication: comm_size */
    int64_t peer, tag;     /* send: comm_dst; recv: comm_src; both comm_tag (0 if none) */
    uint32_t group;        /* collective: its pg_name's index in bn_et_trace.groups */
    uint32_t dep_first, ndeps; /* ctrl_deps then data_deps, in bn_et_rank.deps */
    uint32_t task;         /* chakra.c: the graph task it became */
    uint8_t kind;          /* enum bn_et_kind */
    uint8_t op;            /* collective: enum bn_coll_kind */
};

struct bn_et_rank {
    char path[1024];
    struct bn_et_node *nodes;
    uint32_t n, cap;
    uint64_t *deps;
    uint32_t ndeps, deps_cap;
};

struct bn_et_trace {
    struct bn_et_rank *ranks;
    uint32_t nranks;
    char **groups;         /* pg_name of each process group seen ("" : none given) */
    uint32_t ngroups, groups_cap;
};

/* Read rank r's file `path` into t->ranks[r] (t->ranks sized by the
 * caller); BN_EINPUT naming the file and the node at fault. */
int bn_et_read(struct bn_et_trace *t, uint32_t r, const char *path, struct bn_error *err);
void bn_et_free(struct bn_et_trace *t);

#endif
