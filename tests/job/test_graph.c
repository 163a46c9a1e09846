/*
 * The job graph: its replay is the longest path through the durations (a
 * diamond, zeroed dimensions), a cycle is refused, and the transformer
 * builder makes the tasks Megatron-LM's schedule has: per layer and
 * micro-batch two compute phases each way and the TP collectives of the
 * f/g operators; one send per stage boundary, micro-batch and direction;
 * gradient buckets once per DP group, and the tied embedding's all-reduce
 * between the first and the last stage.
 */
#include "support.h"

#include "job/build.h"

static uint32_t task(struct bn_job_graph *g, uint8_t kind, uint8_t dim, double us)
{
    struct bn_error err = {0};
    struct bn_task t = {.kind = kind, .dim = dim, .dur_us = us, .layer = UINT16_MAX};
    uint32_t id = bn_jg_task(g, &t, &err);
    assert_true(id != UINT32_MAX);
    return id;
}

static void test_replay_diamond(void **state)
{
    (void)state;
    struct bn_job_graph g = {0};
    struct bn_error err = {0};
    /* a -> (b: TP 5, c: compute 3) -> d */
    uint32_t a = task(&g, BN_TASK_COMPUTE, BN_DIM_NONE, 2);
    uint32_t b = task(&g, BN_TASK_COLL, BN_DIM_TP, 5);
    uint32_t c = task(&g, BN_TASK_COMPUTE, BN_DIM_NONE, 3);
    uint32_t d = task(&g, BN_TASK_COMPUTE, BN_DIM_NONE, 1);
    assert_int_equal(bn_jg_dep(&g, a, b, &err), BN_OK);
    assert_int_equal(bn_jg_dep(&g, a, c, &err), BN_OK);
    assert_int_equal(bn_jg_dep(&g, b, d, &err), BN_OK);
    assert_int_equal(bn_jg_dep(&g, c, d, &err), BN_OK);
    assert_int_equal(bn_jg_finish(&g, &err), BN_OK);
    double dur[4] = {2, 5, 3, 1}, fin[4];
    assert_true(bn_jg_replay(&g, dur, 0, fin) == 8);
    assert_true(fin[c] == 5 && fin[d] == 8);
    assert_true(bn_jg_replay(&g, dur, 1u << BN_DIM_TP, NULL) == 6);
    assert_true(bn_jg_replay(&g, dur, BN_JG_ZERO_COMM, NULL) == 6);
    assert_true(bn_jg_replay(&g, dur, 1u << BN_DIM_DP, NULL) == 8);
    bn_jg_free(&g);
}

static void test_cycle_refused(void **state)
{
    (void)state;
    struct bn_job_graph g = {0};
    struct bn_error err = {0};
    uint32_t a = task(&g, BN_TASK_COMPUTE, BN_DIM_NONE, 1);
    uint32_t b = task(&g, BN_TASK_COMPUTE, BN_DIM_NONE, 1);
    assert_int_equal(bn_jg_dep(&g, a, b, &err), BN_OK);
    assert_int_equal(bn_jg_dep(&g, b, a, &err), BN_OK);
    assert_int_equal(bn_jg_finish(&g, &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, "cycle"));
    bn_jg_free(&g);
}

/* The graph of job 0 of these keys, and per kind and dimension its tasks. */
static void build(const char *const *sets, struct bn_job_graph *g, uint32_t count[3][6])
{
    struct bn_scenario sc;
    struct bn_error err = {0};
    struct bn_job_model m;
    test_scenario(&sc, sets);
    if (bn_job_model(&sc, 0, &m, &err) != BN_OK ||
        bn_job_build_transformer(&sc.jobs[0], &m, g, &err) != BN_OK ||
        bn_jg_finish(g, &err) != BN_OK)
        fail_msg("%s", err.msg);
    memset(count, 0, sizeof(uint32_t[3][6]));
    for (uint32_t t = 0; t < g->ntasks; t++)
        count[g->tasks[t].kind][g->tasks[t].dim]++;
}

static void test_megatron_task_counts(void **state)
{
    (void)state;
    /* tp 2 x pp 2 x dp 2, 4 layers, 4 micro-batches */
    const char *sets[] = {"jobs.0.tp=2", "jobs.0.pp=2", "jobs.0.dp=2", "jobs.0.layers=4",
                          "jobs.0.global_batch=8", NULL};
    struct bn_job_graph g = {0};
    uint32_t n[3][6];
    build(sets, &g, n);
    uint32_t units = 4, micro = 4, layers_per_stage = 2;
    /* attention and MLP, forward and backward, plus the output layer on
     * the last stage twice per micro-batch, plus one optimizer step each */
    assert_int_equal(n[BN_TASK_COMPUTE][BN_DIM_NONE],
                     units * micro * layers_per_stage * 4 + 2 * micro * 2 + units);
    /* g forward and f backward: 2 all-reduces each way per layer */
    assert_int_equal(n[BN_TASK_COLL][BN_DIM_TP], units * micro * layers_per_stage * 4);
    /* one boundary, each direction, per replica and micro-batch */
    assert_int_equal(n[BN_TASK_SEND][BN_DIM_PP], 1 * 2 * 2 * micro);
    /* per stage and TP rank a DP group; a bucket per layer (each > 25 MB),
     * and the output layer's on the last stage; then the tied embedding's
     * all-reduce between the two stages, per replica and TP rank */
    assert_int_equal(n[BN_TASK_COLL][BN_DIM_DP], 2 * (2 * layers_per_stage + 1) + 2 * 2);
    assert_int_equal(g.nunits, units);
    bn_jg_free(&g);
}

static void test_sequence_parallel_pairs(void **state)
{
    (void)state;
    const char *sets[] = {"jobs.0.tp=4", "jobs.0.layers=1", "jobs.0.sequence_parallel=true",
                          NULL};
    struct bn_job_graph g = {0};
    uint32_t n[3][6];
    build(sets, &g, n);
    uint32_t ag = 0, rs = 0;
    for (uint32_t t = 0; t < g.ntasks; t++) {
        if (g.tasks[t].dim != BN_DIM_TP)
            continue;
        ag += g.tasks[t].op == BN_COLL_ALLGATHER;
        rs += g.tasks[t].op == BN_COLL_REDUCESCATTER;
    }
    /* one micro-batch: two of each forward, two of each backward */
    assert_int_equal(ag, 4);
    assert_int_equal(rs, 4);
    bn_jg_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_diamond),
        cmocka_unit_test(test_cycle_refused),
        cmocka_unit_test(test_megatron_task_counts),
        cmocka_unit_test(test_sequence_parallel_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
