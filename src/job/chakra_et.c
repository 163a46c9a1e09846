/*
 * Reading one Chakra execution trace (.et): a GlobalMetadata message, then
 * Node messages, each preceded by its length as a base-128 varint (the
 * stream Chakra's protolib writes). protobuf-c decodes each message, from
 * bnet's own description of et_def.proto's wire format (chakra_et.proto).
 * Of a node bnet keeps its id, dependencies (ctrl_deps and data_deps both
 * order it), compute duration and the communication attributes Chakra's
 * converters write: comm_type, comm_size, pg_name, comm_src, comm_dst,
 * comm_tag. Node types it does not run are refused naming id and type.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/sched.h"
#include "core/grow.h"
#include "job/chakra.h"
#include "job/chakra_et.pb-c.h"

#define ET_MAX_BYTES (1ull << 32)   /* one rank's file: 4 GiB */
#define ET_MAX_NODES 50000000u

static const char *const type_names[] = {
    "INVALID_NODE", "METADATA_NODE", "MEM_LOAD_NODE", "MEM_STORE_NODE", "COMP_NODE",
    "COMM_SEND_NODE", "COMM_RECV_NODE", "COMM_COLL_NODE", "STORAGE_NODE", "BATCH_NODE",
    "CHECKPOINT_NODE"};
static const char *const comm_names[] = {
    "ALL_REDUCE", "REDUCE", "ALL_GATHER", "GATHER", "SCATTER", "BROADCAST", "ALL_TO_ALL",
    "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER"};
/* CollectiveCommType -> bnet's collective (-1: not run) */
static const int comm_kind[] = {
    BN_COLL_ALLREDUCE, BN_COLL_REDUCE, BN_COLL_ALLGATHER, -1, -1, BN_COLL_BROADCAST,
    BN_COLL_ALLTOALL, BN_COLL_REDUCESCATTER, BN_COLL_REDUCESCATTER, -1};

/* The varint at buf[*at..n) into *v; false if it runs past n or 10 bytes. */
static bool varint(const uint8_t *buf, size_t n, size_t *at, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 70 && *at < n; shift += 7) {
        uint8_t b = buf[(*at)++];
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

/* An integer attribute `name` (any of the integer encodings, or bool). */
static bool attr_int(const ChakraProtoMsg__Node *nd, const char *name, int64_t *v)
{
    for (size_t i = 0; i < nd->n_attr; i++) {
        const ChakraProtoMsg__AttributeProto *a = nd->attr[i];
        if (strcmp(a->name, name) != 0)
            continue;
        switch (a->value_case) {
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL: *v = a->int32_val; return true;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL: *v = a->int64_val; return true;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL: *v = a->uint32_val; return true;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
            *v = a->uint64_val > INT64_MAX ? -1 : (int64_t)a->uint64_val;
            return true;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL: *v = a->sint32_val; return true;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL: *v = a->sint64_val; return true;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL: *v = a->fixed32_val; return true;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL: *v = a->sfixed32_val; return true;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED64_VAL: *v = a->sfixed64_val; return true;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL:
            *v = a->fixed64_val > INT64_MAX ? -1 : (int64_t)a->fixed64_val;
            return true;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL: *v = a->bool_val; return true;
        default: return false;
        }
    }
    return false;
}

static const char *attr_str(const ChakraProtoMsg__Node *nd, const char *name)
{
    for (size_t i = 0; i < nd->n_attr; i++)
        if (strcmp(nd->attr[i]->name, name) == 0 &&
            nd->attr[i]->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
            return nd->attr[i]->string_val;
    return NULL;
}

static int group_of(struct bn_et_trace *t, const char *name, uint32_t *g, struct bn_error *err)
{
    for (uint32_t i = 0; i < t->ngroups; i++)
        if (strcmp(t->groups[i], name) == 0) {
            *g = i;
            return BN_OK;
        }
    char *copy = strdup(name);
    if (!copy || !bn_grow((void **)&t->groups, t->ngroups, &t->groups_cap, sizeof *t->groups)) {
        free(copy);
        return bn_fail(err, BN_ENOMEM, "out of memory for process groups");
    }
    t->groups[t->ngroups] = copy;
    *g = t->ngroups++;
    return BN_OK;
}

/* A communication node's attributes: comm_size always; a collective's
 * comm_type and pg_name; a send's comm_dst, a receive's comm_src. */
static int comm_attrs(struct bn_et_trace *t, const char *path, const ChakraProtoMsg__Node *nd,
                      struct bn_et_node *e, struct bn_error *err)
{
    int64_t size, v;
    const char *what = type_names[nd->type];
    if (!attr_int(nd, "comm_size", &size) || size < 0)
        return bn_fail(err, BN_EINPUT, "%s: node %llu (%s): no comm_size attribute (bytes)", path,
                       (unsigned long long)nd->id, what);
    e->bytes = (uint64_t)size;
    e->tag = attr_int(nd, "comm_tag", &v) ? v : 0;
    if (e->kind == BN_ET_COLL) {
        if (!attr_int(nd, "comm_type", &v) || v < 0 || v > 9)
            return bn_fail(err, BN_EINPUT, "%s: node %llu (COMM_COLL_NODE): no comm_type attribute "
                           "(a CollectiveCommType)", path, (unsigned long long)nd->id);
        if (comm_kind[v] < 0)
            return bn_fail(err, BN_EINPUT, "%s: node %llu (COMM_COLL_NODE): collective %s is not "
                           "one bnet runs (ALL_REDUCE, REDUCE, ALL_GATHER, BROADCAST, ALL_TO_ALL, "
                           "REDUCE_SCATTER)", path, (unsigned long long)nd->id, comm_names[v]);
        e->op = (uint8_t)comm_kind[v];
        const char *pg = attr_str(nd, "pg_name");
        return group_of(t, pg ? pg : "", &e->group, err);
    }
    const char *peer = e->kind == BN_ET_SEND ? "comm_dst" : "comm_src";
    if (!attr_int(nd, peer, &e->peer) || e->peer < 0)
        return bn_fail(err, BN_EINPUT, "%s: node %llu (%s): no %s attribute (a rank)", path,
                       (unsigned long long)nd->id, what, peer);
    return BN_OK;
}

static int add_node(struct bn_et_trace *t, struct bn_et_rank *rk, const ChakraProtoMsg__Node *nd,
                    struct bn_error *err)
{
    static const int kinds[] = {[CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE] = BN_ET_COMPUTE + 1,
                                [CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE] = BN_ET_SEND + 1,
                                [CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE] = BN_ET_RECV + 1,
                                [CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE] = BN_ET_COLL + 1};
    unsigned type = (unsigned)nd->type;
    int kind = type < sizeof kinds / sizeof kinds[0] ? kinds[type] - 1 : -1;
    if (kind < 0)
        return bn_fail(err, BN_EINPUT, "%s: node %llu (\"%.60s\") is a %s, which bnet does not run "
                       "(it runs COMP_NODE, COMM_COLL_NODE, COMM_SEND_NODE, COMM_RECV_NODE)",
                       rk->path, (unsigned long long)nd->id, nd->name,
                       type < sizeof type_names / sizeof type_names[0] ? type_names[type]
                                                                       : "node of unknown type");
    if (rk->n >= ET_MAX_NODES)
        return bn_fail(err, BN_EINPUT, "%s: more than %u nodes", rk->path, ET_MAX_NODES);
    if (!bn_grow((void **)&rk->nodes, rk->n, &rk->cap, sizeof *rk->nodes))
        return bn_fail(err, BN_ENOMEM, "out of memory reading %s", rk->path);
    struct bn_et_node *e = &rk->nodes[rk->n];
    *e = (struct bn_et_node){.id = nd->id, .dur_us = nd->duration_micros, .kind = (uint8_t)kind,
                             .dep_first = rk->ndeps};
    int rc = kind == BN_ET_COMPUTE ? BN_OK : comm_attrs(t, rk->path, nd, e, err);
    for (size_t i = 0; rc == BN_OK && i < nd->n_ctrl_deps + nd->n_data_deps; i++) {
        if (!bn_grow((void **)&rk->deps, rk->ndeps, &rk->deps_cap, sizeof *rk->deps))
            return bn_fail(err, BN_ENOMEM, "out of memory reading %s", rk->path);
        rk->deps[rk->ndeps++] = i < nd->n_ctrl_deps ? nd->ctrl_deps[i]
                                                    : nd->data_deps[i - nd->n_ctrl_deps];
    }
    if (rc == BN_OK) {
        e->ndeps = rk->ndeps - e->dep_first;
        rk->n++;
    }
    return rc;
}

/* The file's bytes (malloc'd) and their count. */
static int slurp(const char *path, uint8_t **buf, size_t *n, struct bn_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return bn_fail(err, BN_EINPUT, "%s: cannot open it: %s", path, strerror(errno));
    size_t cap = 1 << 16;
    *n = 0;
    *buf = malloc(cap);
    while (*buf) {
        *n += fread(*buf + *n, 1, cap - *n, f);
        if (*n < cap || cap >= ET_MAX_BYTES)
            break;
        uint8_t *g = realloc(*buf, cap *= 2);
        if (!g) {
            free(*buf);
            *buf = NULL;
        } else {
            *buf = g;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!*buf)
        return bn_fail(err, BN_ENOMEM, "out of memory reading %s", path);
    if (bad || *n >= ET_MAX_BYTES) {
        free(*buf);
        *buf = NULL;
        return bn_fail(err, BN_EINPUT, "%s: %s", path, bad ? "read error" : "larger than 4 GiB");
    }
    return BN_OK;
}

int bn_et_read(struct bn_et_trace *t, uint32_t r, const char *path, struct bn_error *err)
{
    struct bn_et_rank *rk = &t->ranks[r];
    snprintf(rk->path, sizeof rk->path, "%s", path);
    uint8_t *buf = NULL;
    size_t n = 0, at = 0;
    int rc = slurp(path, &buf, &n, err);
    for (uint64_t msg = 0; rc == BN_OK && at < n; msg++) {
        uint64_t len;
        size_t start = at;
        if (!varint(buf, n, &at, &len) || len > n - at) {
            rc = bn_fail(err, BN_EINPUT, "%s: byte %zu: a message length past the end of the file "
                         "(not a Chakra execution trace, or cut short)", path, start);
            break;
        }
        if (msg == 0) { /* GlobalMetadata: only checked to decode */
            ChakraProtoMsg__GlobalMetadata *gm =
                chakra_proto_msg__global_metadata__unpack(NULL, (size_t)len, buf + at);
            if (!gm)
                rc = bn_fail(err, BN_EINPUT, "%s: byte %zu: the first message is not Chakra's "
                             "GlobalMetadata", path, start);
            chakra_proto_msg__global_metadata__free_unpacked(gm, NULL);
        } else {
            ChakraProtoMsg__Node *nd = chakra_proto_msg__node__unpack(NULL, (size_t)len, buf + at);
            rc = nd ? add_node(t, rk, nd, err)
                    : bn_fail(err, BN_EINPUT, "%s: byte %zu: message %llu is not a Chakra Node",
                              path, start, (unsigned long long)msg);
            chakra_proto_msg__node__free_unpacked(nd, NULL);
        }
        at += (size_t)len;
    }
    if (rc == BN_OK && rk->n == 0)
        rc = bn_fail(err, BN_EINPUT, "%s: no nodes (a Chakra trace is a GlobalMetadata, then its "
                     "nodes)", path);
    free(buf);
    return rc;
}

void bn_et_free(struct bn_et_trace *t)
{
    for (uint32_t r = 0; t->ranks && r < t->nranks; r++) {
        free(t->ranks[r].nodes);
        free(t->ranks[r].deps);
    }
    free(t->ranks);
    for (uint32_t g = 0; g < t->ngroups; g++)
        free(t->groups[g]);
    free(t->groups);
    *t = (struct bn_et_trace){0};
}
