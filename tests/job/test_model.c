/*
 * A transformer's sizes against published figures:
 * - the GPT models of Narayanan et al. (SC'21, Table 1: V 51200, s 2048)
 *   have, counted from the gradients the graph reduces over DP, the
 *   parameters of the paper's formula P = 12 l h^2 (1 + 13/(12h) +
 *   (V + s)/(12 l h)) within 1 %: the embedding and the output layer are
 *   one weight, as in Megatron-LM; untied, the small ones are 6.8 % over;
 * - with tied embeddings over a pipeline, the first and the last stage's
 *   copies are all-reduced between the two, per replica and rank, after
 *   their DP reductions and before their optimizer steps;
 * - between stages, without scatter/gather each of a stage's tp ranks
 *   sends the whole b s h activation (sec. 4.1); with it, a 1/tp slice
 *   and an all-gather over the receiving TP group; with sequence
 *   parallelism a 1/tp slice and nothing to gather.
 */
#include "support.h"

#include <math.h>

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

/* A DP-dimension all-reduce between two ranks `apart` ranks apart. */
static bool pair_apart(const struct bn_job_graph *g, uint32_t t, uint32_t apart)
{
    const struct bn_task *k = &g->tasks[t];
    if (k->kind != BN_TASK_COLL || k->dim != BN_DIM_DP || comm_size(g, k->comm) != 2)
        return false;
    const uint32_t *r = &g->comm_rank[g->comm_off[k->comm]];
    return r[1] - r[0] == apart;
}

/* Parameters of a GPT of SC'21 Table 1, from the DP gradient bytes (bf16)
 * of its graph on 2 GPUs of data parallelism. */
static double gpt_params(uint32_t h, uint32_t l, uint32_t heads, bool untie)
{
    char sh[32], sl[32], sa[32];
    snprintf(sh, sizeof sh, "jobs.0.hidden=%u", h);
    snprintf(sl, sizeof sl, "jobs.0.layers=%u", l);
    snprintf(sa, sizeof sa, "jobs.0.heads=%u", heads);
    const char *sets[] = {sh, sl, sa, "jobs.0.ffn_hidden=0", "jobs.0.gated_mlp=false",
                          "jobs.0.seq_len=2048", "jobs.0.vocab=51200", "jobs.0.dp=2",
                          "jobs.0.global_batch=2",
                          untie ? "jobs.0.untie_embeddings=true" : "jobs.0.untie_embeddings=false",
                          NULL};
    struct bn_job_graph g = {0};
    build(sets, &g);
    double bytes = 0;
    for (uint32_t t = 0; t < g.ntasks; t++)
        if (g.tasks[t].dim == BN_DIM_DP)
            bytes += (double)g.tasks[t].bytes;
    bn_jg_free(&g);
    return bytes / 2;
}

static void test_table1_parameters(void **state)
{
    (void)state;
    /* Table 1: the count as printed (billions), heads, hidden, layers */
    static const struct { double published; uint32_t heads, h, l; } gpt[] = {
        {1.7, 24, 2304, 24},     {3.6, 32, 3072, 30},     {7.5, 32, 4096, 36},
        {18.4, 48, 6144, 40},    {39.1, 64, 8192, 48},    {76.1, 80, 10240, 60},
        {145.6, 96, 12288, 80},  {310.1, 128, 16384, 96}, {529.6, 128, 20480, 105},
        {1008.0, 160, 25600, 128},
    };
    for (size_t i = 0; i < sizeof gpt / sizeof gpt[0]; i++) {
        double h = gpt[i].h, l = gpt[i].l, V = 51200, s = 2048;
        double formula = 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
        /* the printed counts are the formula's, rounded (to 0.1 B; the
         * smallest three to two digits) */
        assert_true(fabs(formula / 1e9 - gpt[i].published) <= 0.05);
        double bnet = gpt_params(gpt[i].h, gpt[i].l, gpt[i].heads, false);
        if (fabs(bnet / formula - 1) > 0.01)
            fail_msg("%.1fB: %.0f parameters, the formula %.0f (%+.2f %%)", gpt[i].published,
                     bnet, formula, 100 * (bnet / formula - 1));
    }
    /* untied, the output layer adds V h: 6.8 % on the 1.7B model */
    double h = 2304, untied = gpt_params(2304, 24, 24, true);
    assert_true(untied - gpt_params(2304, 24, 24, false) == 51200 * h);
}

static void test_tied_embedding_group(void **state)
{
    (void)state;
    /* tp 2 x pp 3 x dp 2: the embedding on stage 0, its copy on stage 2 */
    const char *sets[] = {"jobs.0.tp=2", "jobs.0.pp=3", "jobs.0.dp=2", "jobs.0.layers=3",
                          "jobs.0.global_batch=6", NULL};
    struct bn_job_graph g = {0};
    build(sets, &g);
    /* ranks t + tp (c + cp (d + dp p)): the same rank of stages 0 and 2
     * are tp x dp x 2 apart (a DP group's two, tp) */
    const uint32_t apart = 2 * 2 * 2;
    uint64_t emb = 32000ull * 4096 / 2 * 2; /* V h / tp, bf16 */
    uint32_t pairs = 0;
    for (uint32_t t = 0; t < g.ntasks; t++) {
        const struct bn_task *k = &g.tasks[t];
        if (!pair_apart(&g, t, apart))
            continue;
        assert_int_equal(k->bytes, emb);
        assert_true(g.comm_rank[g.comm_off[k->comm]] < 4);
        pairs++;
        /* the first and the last stage's optimizer steps wait for it */
        uint32_t opt = 0;
        for (uint32_t e = g.succ_off[t]; e < g.succ_off[t + 1]; e++) {
            const struct bn_task *n = &g.tasks[g.succ[e]];
            if (n->phase == BN_PHASE_OPTIMIZER)
                opt |= 1u << (n->unit / 2);
        }
        assert_int_equal(opt, 1u | 4u);
    }
    assert_int_equal(pairs, 2 * 2); /* per replica and TP rank */
    bn_jg_free(&g);

    const char *untied[] = {"jobs.0.tp=2", "jobs.0.pp=3", "jobs.0.dp=2", "jobs.0.layers=3",
                            "jobs.0.global_batch=6", "jobs.0.untie_embeddings=true", NULL};
    build(untied, &g);
    for (uint32_t t = 0; t < g.ntasks; t++)
        assert_false(pair_apart(&g, t, apart));
    bn_jg_free(&g);
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
        cmocka_unit_test(test_table1_parameters),
        cmocka_unit_test(test_tied_embedding_group),
        cmocka_unit_test(test_pp_activation_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
