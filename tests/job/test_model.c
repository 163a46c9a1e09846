/*
 * A transformer's sizes against published figures:
 * - between stages, without scatter/gather each of a stage's tp ranks
 *   sends the whole b s h activation (Narayanan et al., SC'21, sec. 4.1); with it, a 1/tp slice
 *   and an all-gather over the receiving TP group; with sequence
 *   parallelism a 1/tp slice and nothing to gather.
 */
#include "support.h"

#include "job/build.h"

/* The graph of job 0 of the scenario's defaults and these keys. */
static void build(const char *const *sets, struct bn_job_graph *g)
{
    struct bn_scenario sc;
    struct bn_error err = {0};
    struct bn_job_model m;
    test_scenario(&sc, sets);
    if (bn_job_model(&sc, 0, &m, &err) != BN_OK ||
        bn_job_build_transformer(&sc.jobs[0], &m, g, &err) != BN_OK ||
        bn_jg_finish(g, &err) != BN_OK)
        fail_msg("%s", err.msg);
}

static uint32_t comm_size(const struct bn_job_graph *g, uint32_t c)
{
    return g->comm_off[c + 1] - g->comm_off[c];
}

/* GPT-3 175B's shape (Brown et al. 2020: 96 layers, h 12288, 96 heads, s
 * 2048) at tp 8 x pp 8 x dp 2, 8 micro-batches: a send's bytes per pair
 * and every pair's in all, and the all-gathers the receiving stages run. */
struct pp_sum {
    uint64_t pair, total, gathers, gather_bytes;
};

static struct pp_sum gpt3_pp(const char *extra)
{
    const char *sets[] = {"jobs.0.layers=96", "jobs.0.hidden=12288", "jobs.0.heads=96",
                          "jobs.0.ffn_hidden=0", "jobs.0.gated_mlp=false", "jobs.0.seq_len=2048",
                          "jobs.0.vocab=51200", "jobs.0.tp=8", "jobs.0.pp=8", "jobs.0.dp=2",
                          "jobs.0.global_batch=16", extra, NULL};
    struct bn_job_graph g = {0};
    build(sets, &g);
    struct pp_sum r = {0};
    for (uint32_t t = 0; t < g.ntasks; t++) {
        const struct bn_task *k = &g.tasks[t];
        if (k->dim != BN_DIM_PP)
            continue;
        if (k->kind == BN_TASK_SEND) {
            assert_int_equal(k->npairs, 8);
            r.pair = k->bytes;
            r.total += k->bytes * k->npairs;
        } else {
            assert_int_equal(k->op, BN_COLL_ALLGATHER);
            assert_int_equal(comm_size(&g, k->comm), 8);
            r.gathers++;
            r.gather_bytes += k->bytes;
        }
    }
    bn_jg_free(&g);
    return r;
}

static void test_pp_activation_bytes(void **state)
{
    (void)state;
    /* b s h bf16; 7 boundaries x 2 replicas x 8 micro-batches x 2 ways */
    const uint64_t act = 2048ull * 12288 * 2, sends = 7 * 2 * 8 * 2;
    struct pp_sum whole = gpt3_pp("jobs.0.pp_scatter_gather=false");
    assert_int_equal(whole.pair, act);
    assert_int_equal(whole.total, sends * 8 * act); /* 90,194,313,216 */
    assert_int_equal(whole.gathers, 0);
    struct pp_sum sg = gpt3_pp("jobs.0.pp_scatter_gather=true");
    assert_int_equal(sg.pair, act / 8);
    assert_int_equal(sg.total, sends * act); /* 11,274,289,152 */
    assert_int_equal(sg.gathers, sends);     /* one per receiving TP group */
    assert_int_equal(sg.gather_bytes, sends * act);
    struct pp_sum sp = gpt3_pp("jobs.0.sequence_parallel=true");
    assert_int_equal(sp.pair, act / 8);
    assert_int_equal(sp.total, sends * act);
    assert_int_equal(sp.gathers, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pp_activation_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
