/*
 * Chakra execution traces (src/job/chakra.c, chakra_et.c), one .et file per
 * rank. The traces are written here with protobuf-c from bnet's own
 * description of et_def.proto (src/job/chakra_et.proto; Chakra's own tools
 * are not in the package registries bnet builds from): a GlobalMetadata,
 * then Nodes, each after its length as a varint, as Chakra's protolib
 * writes them. Checked: compute as timed tasks, the k-th collective of a
 * process group joined across its ranks, a send met by its receive, the
 * dependencies (the replay's longest path), a whole `bnet job` run, and
 * the refusals (a node type bnet does not run, named by id and type; an
 * unmatched send; a missing dependency; a file that is no trace).
 */
#include <stdio.h>
#include <unistd.h>

#include "support.h"

#include "bnet/job.h"
#include "job/build.h"
#include "job/chakra_et.pb-c.h"

typedef ChakraProtoMsg__AttributeProto attr_t;

static void put_msg(FILE *f, const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t len[10], *buf = malloc(n + 1);
    size_t k = 0;
    for (size_t v = n;; v >>= 7) { /* base-128 varint, low groups first */
        len[k++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        if (v < 0x80)
            break;
    }
    protobuf_c_message_pack(m, buf);
    fwrite(len, 1, k, f);
    fwrite(buf, 1, n, f);
    free(buf);
}

/* A node: id, type, duration, up to 2 deps, then name=value integer
 * attributes (and pg_name when pg is not NULL). */
struct spec {
    uint64_t id;
    int type;
    uint64_t dur;
    uint64_t deps[2];
    size_t ndeps;
    const char *names[4];
    int64_t values[4];
    const char *pg;
};

static void put_node(FILE *f, const struct spec *s)
{
    ChakraProtoMsg__Node nd = CHAKRA_PROTO_MSG__NODE__INIT;
    attr_t a[5], *ap[5];
    size_t na = 0;
    nd.id = s->id;
    nd.name = (char *)"node";
    nd.type = (ChakraProtoMsg__NodeType)s->type;
    nd.duration_micros = s->dur;
    nd.n_data_deps = s->ndeps;
    nd.data_deps = (uint64_t *)s->deps;
    for (; na < 4 && s->names[na]; na++) {
        chakra_proto_msg__attribute_proto__init(&a[na]);
        a[na].name = (char *)s->names[na];
        a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
        a[na].int64_val = s->values[na];
        ap[na] = &a[na];
    }
    if (s->pg) {
        chakra_proto_msg__attribute_proto__init(&a[na]);
        a[na].name = (char *)"pg_name";
        a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
        a[na].string_val = (char *)s->pg;
        ap[na] = &a[na];
        na++;
    }
    nd.n_attr = na;
    nd.attr = ap;
    put_msg(f, &nd.base);
}

static char dir[64];

static void write_rank(unsigned r, const struct spec *nodes, size_t n)
{
    char path[128];
    snprintf(path, sizeof path, "%s/t.%u.et", dir, r);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    ChakraProtoMsg__GlobalMetadata gm = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
    gm.version = (char *)"0.0.4";
    put_msg(f, &gm.base);
    for (size_t i = 0; i < n; i++)
        put_node(f, &nodes[i]);
    fclose(f);
}

enum { COMP = 4, SEND = 5, RECV = 6, COLL = 7, MEM_LOAD = 2, ALL_REDUCE = 0, GATHER = 3 };

/* Per rank: compute 100 us; all-reduce of 1 MiB on "dp"; compute 50 us;
 * rank 0 sends 4096 B (tag 7) to rank 1; compute 10 us. */
static void write_pair(void)
{
    for (unsigned r = 0; r < 2; r++) {
        struct spec n[] = {
            {1, COMP, 100, {0}, 0, {NULL}, {0}, NULL},
            {2, COLL, 0, {1}, 1, {"comm_type", "comm_size"}, {ALL_REDUCE, 1 << 20}, "dp"},
            {3, COMP, 50, {2}, 1, {NULL}, {0}, NULL},
            {4, r ? RECV : SEND, 0, {3}, 1, {r ? "comm_src" : "comm_dst", "comm_size", "comm_tag"},
             {r ? 0 : 1, 4096, 7}, NULL},
            {5, COMP, 10, {4}, 1, {NULL}, {0}, NULL},
        };
        write_rank(r, n, sizeof n / sizeof n[0]);
    }
}

static int build(struct bn_job_graph *g, struct bn_job_model *m, struct bn_error *err)
{
    char file[160];
    snprintf(file, sizeof file, "jobs.0.workload_file=%s/t.0.et", dir);
    const char *sets[] = {"topology.k=4", file, NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    memset(g, 0, sizeof *g);
    int rc = bn_job_build_chakra(&sc, 0, 16, g, m, err);
    if (rc == BN_OK)
        rc = bn_jg_finish(g, err);
    return rc;
}

static void test_graph(void **state)
{
    (void)state;
    write_pair();
    struct bn_job_graph g;
    struct bn_job_model m;
    struct bn_error err = {0};
    if (build(&g, &m, &err) != BN_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(g.nranks, 2);
    assert_int_equal(m.gpus, 2);
    assert_int_equal(g.ntasks, 8); /* 6 computes, 1 all-reduce, 1 send */
    uint32_t colls = 0, sends = 0;
    double dur[8];
    for (uint32_t i = 0; i < g.ntasks; i++) {
        const struct bn_task *t = &g.tasks[i];
        colls += t->kind == BN_TASK_COLL;
        sends += t->kind == BN_TASK_SEND;
        if (t->kind == BN_TASK_COLL) {
            assert_int_equal(t->op, BN_COLL_ALLREDUCE);
            assert_true(t->bytes == 1 << 20);
            assert_int_equal(g.comm_off[t->comm + 1] - g.comm_off[t->comm], 2);
        }
        if (t->kind == BN_TASK_SEND) {
            assert_true(t->bytes == 4096);
            assert_int_equal(g.pair[t->comm][0], 0);
            assert_int_equal(g.pair[t->comm][1], 1);
        }
        dur[i] = t->kind == BN_TASK_COLL ? 20 : t->kind == BN_TASK_SEND ? 5 : t->dur_us;
    }
    assert_int_equal(colls, 1);
    assert_int_equal(sends, 1);
    /* 100, the all-reduce (20), 50, the send (5), 10 */
    assert_true(bn_jg_replay(&g, dur, 0, NULL) == 185);
    bn_jg_free(&g);
}

/* The same traces as `bnet job` runs them, on a 16-host fat-tree. */
static void test_job_run(void **state)
{
    (void)state;
    write_pair();
    char file[160];
    snprintf(file, sizeof file, "jobs.0.workload_file=%s/t.0.et", dir);
    const char *sets[] = {"topology.k=4", file, NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_job_results res;
    struct bn_error err = {0};
    if (bn_job_run(&sc, &(struct bn_job_opts){0}, &res, &err) != BN_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(res.njobs, 1);
    assert_int_equal(res.jobs[0].gpus, 2);
    assert_true(res.jobs[0].compute_us == 160);
    /* the 1 MiB all-reduce and the send take time on the fabric */
    assert_true(res.jobs[0].iteration_us > 160);
    bn_job_results_free(&res);
}

static void fails(const char *want)
{
    struct bn_job_graph g;
    struct bn_job_model m;
    struct bn_error err = {0};
    assert_int_equal(build(&g, &m, &err), BN_EINPUT);
    if (!strstr(err.msg, want))
        fail_msg("error '%s' lacks '%s'", err.msg, want);
    bn_jg_free(&g);
}

static void test_refused(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/t.1.et", dir);
    remove(path); /* one rank, until write_pair below */
    struct spec mem[] = {{1, COMP, 5, {0}, 0, {NULL}, {0}, NULL},
                         {9, MEM_LOAD, 0, {1}, 1, {NULL}, {0}, NULL}};
    write_rank(0, mem, 2);
    fails("t.0.et: node 9 (\"node\") is a MEM_LOAD_NODE, which bnet does not run");
    struct spec gather[] = {{3, COLL, 0, {0}, 0, {"comm_type", "comm_size"}, {GATHER, 8}, NULL}};
    write_rank(0, gather, 1);
    fails("t.0.et: node 3 (COMM_COLL_NODE): collective GATHER is not one bnet runs");
    struct spec dep[] = {{1, COMP, 5, {42}, 1, {NULL}, {0}, NULL}};
    write_rank(0, dep, 1);
    fails("t.0.et: node 1 depends on node 42, which the trace does not have");
    write_pair();
    struct spec lone[] = {{1, COMP, 5, {0}, 0, {NULL}, {0}, NULL}};
    write_rank(1, lone, 1); /* rank 1 no longer receives, nor all-reduces */
    fails("t.0.et: node 4 (COMM_SEND_NODE to rank 1, tag 7): no matching COMM_RECV_NODE");
    snprintf(path, sizeof path, "%s/t.0.et", dir);
    FILE *f = fopen(path, "wb");
    fputs("HYBRID_TRANSFORMER model_parallel_NPU_group: 8\n", f);
    fclose(f);
    fails("t.0.et: byte 0: a message length past the end of the file");
    snprintf(path, sizeof path, "%s/t.1.et", dir);
    remove(path);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/bnet_chakra_XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph),
        cmocka_unit_test(test_job_run),
        cmocka_unit_test(test_refused),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char path[128];
    for (unsigned r = 0; r < 2; r++) {
        snprintf(path, sizeof path, "%s/t.%u.et", dir, r);
        remove(path);
    }
    rmdir(dir);
    return rc;
}
