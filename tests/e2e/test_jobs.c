/*
 * Jobs on the fabric against independent figures:
 * - with communication taking no time, an iteration is exactly the sum of
 *   its compute, and that sum is Narayanan et al.'s FLOPs (SC'21: a layer's
 *   forward 24 b s h^2 + 4 b s^2 h, backward twice, logits 2 b s h V) over
 *   the sustained rate, computed here;
 * - a 1F1B pipeline of p stages and m micro-batches takes (m + p - 1)
 *   (t_f + t_b), bubbles (p - 1)(t_f + t_b) (Narayanan et al., sec. 2.2);
 * - a pure data-parallel job's exposed communication is the alpha-beta
 *   cost of its gradient all-reduce (one bucket after the backward), or
 *   the serial bucket chain minus the backward it overlaps, within 5 %;
 * - a job beside an idle second job takes exactly the time it takes alone,
 *   and `alone` reports a slowdown of 1;
 * - tensor parallelism inside an NVLink domain sends nothing on the
 *   backend, and the tuner's NVLink model is within 10 % of the packets;
 * - the exposed share of inference's decode step is its TP all-reduces;
 * - MoE all-to-alls come four per layer and micro-batch per EP group;
 * - a pipeline's bytes are every pair's: GPT-3 175B at tp 8 x pp 8 moves
 *   8 b s h per boundary and micro-batch each way, a slice each with
 *   scatter/gather (Narayanan et al. SC'21, sec. 4.1);
 * - a SimAI/AICB workload file's layers run as ASTRA-sim runs them: its
 *   iteration is its compute plus the weight-gradient all-reduces the
 *   backward does not hide, each the alpha-beta cost of a ring, within 5 %;
 * - a trainer beside background traffic slows under per-flow ECMP and not
 *   under per-packet spraying (scenarios/jobs_noisy_neighbor.yaml);
 * - the same scenario and seed give byte-identical JSON.
 */
#include "support.h"
#include <math.h>

#include "bnet/job.h"

static void run_jobs(const char *const *sets, struct bn_job_results *r)
{
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_error err = {0};
    if (bn_job_run(&sc, NULL, r, &err) != BN_OK)
        fail_msg("bn_job_run: %s", err.msg);
}

static void assert_near(double got, double want, double rel, const char *what)
{
    if (fabs(got - want) > rel * fabs(want))
        fail_msg("%s: %.6f, expected %.6f (within %.1f %%)", what, got, want, 100 * rel);
}

static const struct bn_job_dim_row *dim(const struct bn_job_result *j, const char *name)
{
    for (uint32_t d = 0; d < j->ndims; d++)
        if (strcmp(j->dims[d].dim, name) == 0)
            return &j->dims[d];
    fail_msg("no dimension %s", name);
    return NULL;
}

/* Non-blocking k=4 fat-tree, 16 GPUs, InfiniBand credits (lossless). */
#define IB16 "topology.k=4", "fabric=ib-ndr", "link.rate_gbps=100", \
             "nic.congestion_control=none"
/* A small dense model: h 512, FFN 4h (two matrices), 8 heads, s 1024. */
#define SMALL "jobs.0.layers=4", "jobs.0.hidden=512", "jobs.0.ffn_hidden=2048", \
              "jobs.0.heads=8", "jobs.0.seq_len=1024", "jobs.0.gated_mlp=false", \
              "jobs.0.vocab=8192"

static double flops_us(double flops) { return flops / (989e12 * 0.5) * 1e6; }

static void test_no_comm_is_sum_of_compute(void **state)
{
    (void)state;
    const char *sets[] = {IB16, SMALL, "jobs.0.dp=16", "jobs.0.global_batch=32",
                          "jobs.0.network=false", NULL};
    struct bn_job_results r;
    run_jobs(sets, &r);
    const struct bn_job_result *j = &r.jobs[0];
    double b = 1, s = 1024, h = 512, L = 4, V = 8192, m = 2;
    double layer = 24 * b * s * h * h + 4 * b * s * s * h, logits = 2 * b * s * h * V;
    double want = m * 3 * flops_us(L * layer + logits);
    assert_int_equal(j->micro_batches, 2);
    assert_near(j->iteration_us, want, 1e-6, "iteration");
    assert_near(j->compute_us, want, 1e-6, "compute");
    assert_true(fabs(j->exposed_comm_us) < 1e-6);
    assert_int_equal(r.backend_tx_bytes, 0);
    bn_job_results_free(&r);
}

static void test_1f1b_pipeline(void **state)
{
    (void)state;
    const char *sets[] = {IB16, SMALL, "jobs.0.layers=8", "jobs.0.pp=4", "jobs.0.dp=4",
                          "jobs.0.global_batch=32", "jobs.0.forward_us=10",
                          "jobs.0.network=false", NULL};
    struct bn_job_results r;
    run_jobs(sets, &r);
    const struct bn_job_result *j = &r.jobs[0];
    double p = 4, m = 8, tf = 2 * 10, tb = 2 * tf; /* two layers a stage */
    assert_int_equal(j->micro_batches, 8);
    assert_near(j->iteration_us, (m + p - 1) * (tf + tb), 1e-9, "1F1B iteration");
    assert_near(j->bubble_us, (p - 1) * (tf + tb), 1e-9, "1F1B bubbles");
    bn_job_results_free(&r);
}

/* The fabric's alpha and goodput for a ring all-reduce of IB16 (as
 * tests/e2e/test_coll.c derives them). */
static double ring_ar_us(double n, double bytes)
{
    double goodput_bps = 100e9 * 4096.0 / (4096 + 26); /* RETH on first packets only */
    double alpha_us = 1.0 + 5 * 0.130 + (2 * 2 * 4.3 + 4 * 10 * 5.0) / 1e3 +
                      (4096 + 42) * 8 / 100e3;
    return 2 * (n - 1) * alpha_us + 2 * (n - 1) / n * bytes * 8 / goodput_bps * 1e6;
}

static void test_dp_exposed_is_alpha_beta(void **state)
{
    (void)state;
    /* one bucket, reduced after the backward: all of it is exposed */
    const char *after[] = {IB16, SMALL, "jobs.0.dp=16", "jobs.0.overlap=false",
                           "jobs.0.bucket_mb=100000", "coll.algo=ring", NULL};
    struct bn_job_results r;
    run_jobs(after, &r);
    double h = 512, V = 8192, layer = 12 * h * h * 2, emb = V * h * 2;
    double total = 4 * layer + emb; /* bf16 gradients, one tied embedding */
    assert_int_equal(dim(&r.jobs[0], "dp")->bytes, (uint64_t)total);
    assert_near(r.jobs[0].exposed_comm_us, ring_ar_us(16, total), 0.05, "exposed, no overlap");
    bn_job_results_free(&r);

    /* a bucket per layer during the backward: the chain of all-reduces
     * minus the backward it hides behind */
    const char *during[] = {IB16, SMALL, "jobs.0.dp=16", "jobs.0.bucket_mb=1",
                            "coll.algo=ring", NULL};
    run_jobs(during, &r);
    double b = 1, s = 1024;
    double bwd_layer = 2 * flops_us(24 * b * s * h * h + 4 * b * s * s * h);
    /* the output layer's backward first; its gradient is the tied
     * embedding's, complete after layer 0's backward */
    double t = 2 * flops_us(2 * b * s * h * V);
    double done = 0;
    for (int k = 0; k < 4; k++) {
        t += bwd_layer;
        double bytes = layer + (k == 3 ? emb : 0); /* layer 0 holds the embedding */
        done = fmax(done, t) + ring_ar_us(16, bytes);
    }
    assert_near(r.jobs[0].exposed_comm_us, done - t, 0.05, "exposed, overlapped");
    assert_true(r.jobs[0].exposed_comm_us < dim(&r.jobs[0], "dp")->busy_us);
    bn_job_results_free(&r);
}

static void test_alone_equals_beside_idle(void **state)
{
    (void)state;
    const char *alone[] = {IB16, SMALL, "jobs.0.dp=8", "jobs.0.alone=true", NULL};
    const char *beside[] = {IB16, SMALL, "jobs.0.dp=8", "jobs.0.alone=true",
                            "jobs.1.gpus=8", "jobs.1.dp=8", "jobs.1.network=false",
                            "jobs.1.layers=4", NULL};
    struct bn_job_results a, b;
    run_jobs(alone, &a);
    run_jobs(beside, &b);
    assert_true(a.jobs[0].iteration_us > a.jobs[0].compute_us); /* it communicates */
    assert_true(a.jobs[0].iteration_us == b.jobs[0].iteration_us);
    assert_true(b.jobs[0].slowdown == 1.0);
    assert_int_equal(b.jobs[1].first_host, 8);
    bn_job_results_free(&a);
    bn_job_results_free(&b);
}

/* 16 GPUs, two servers of 8 on NVLink 4, 400 Gb/s rails. */
#define NV16 "fabric=ib-ndr", "nic.congestion_control=none", "topology.kind=rail_optimized", \
             "topology.k=8", "topology.gpus_per_server=8", "topology.servers_per_su=2", \
             "topology.scalable_units=1", "scale_up.domain_gpus=8", "scale_up.rate_gbps=3600"

static void test_tp_in_nvlink_stays_off_backend(void **state)
{
    (void)state;
    const char *packet[] = {NV16, SMALL, "jobs.0.tp=8", "jobs.0.scaleup=packet", NULL};
    const char *model[] = {NV16, SMALL, "jobs.0.tp=8", NULL};
    struct bn_job_results p, m;
    run_jobs(packet, &p);
    run_jobs(model, &m);
    assert_int_equal(p.backend_tx_bytes, 0);
    assert_true(p.nvlink_tx_bytes > 0);
    assert_int_equal(m.backend_tx_bytes + m.nvlink_tx_bytes, 0);
    const struct bn_job_coll_row *cp = &p.jobs[0].colls[0], *cm = &m.jobs[0].colls[0];
    assert_string_equal(cp->dim, "tp");
    assert_false(cp->modelled);
    assert_true(cm->modelled);
    assert_near(cm->mean_us, cp->mean_us, 0.10, "NVLink model vs packets");
    bn_job_results_free(&p);
    bn_job_results_free(&m);
}

static void test_inference_decode_network(void **state)
{
    (void)state;
    const char *sets[] = {NV16, SMALL, "jobs.0.kind=inference", "jobs.0.tp=8",
                          "jobs.0.dp=2", "jobs.0.micro_batch=4", NULL};
    struct bn_job_results r;
    run_jobs(sets, &r);
    const struct bn_job_result *j = &r.jobs[0];
    assert_true(j->prefill_us > 0 && j->decode_us > 0);
    assert_near(j->prefill_us + j->decode_us, j->iteration_us, 1e-9, "prefill + decode");
    /* the decode step's all-reduces: 8 KB x 4 requests of h 512 bf16 */
    double tp_us = 0;
    for (uint32_t c = 0; c < j->ncolls; c++)
        if (j->colls[c].bytes == 4 * 512 * 2)
            tp_us = j->colls[c].mean_us * 2 * 4; /* two per layer, four layers */
    assert_true(tp_us > 0);
    assert_near(j->decode_network_us, tp_us, 1e-6, "decode network");
    assert_near(j->tokens_per_s, 4 * 2 / (j->decode_us * 1e-6), 1e-9, "tokens/s");
    bn_job_results_free(&r);
}

static void test_moe_all_to_alls(void **state)
{
    (void)state;
    const char *sets[] = {IB16, SMALL, "jobs.0.dp=16", "jobs.0.experts=8", "jobs.0.ep=4",
                          "jobs.0.global_batch=32", "jobs.0.network=false", NULL};
    struct bn_job_results r;
    run_jobs(sets, &r);
    /* 4 EP groups x 4 layers x 2 micro-batches x 4 (dispatch and combine,
     * forward and backward) */
    assert_int_equal(dim(&r.jobs[0], "ep")->count, 4 * 4 * 2 * 4);
    /* top-2 of 1024 tokens x h 512 x bf16 out of each rank */
    assert_int_equal(r.jobs[0].colls[0].bytes, 2 * 1024 * 512 * 2);
    bn_job_results_free(&r);
}

static void test_workload_file(void **state)
{
    (void)state;
    /* two layers of 1 ms forward, input and weight gradient each, 64 MiB
     * of weight gradients each, all-reduced over 16 GPUs */
    const char *w = test_tmpfile(
        "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 ep: 1 pp: 1 vpp: 1 "
        "ga: 1 all_gpus: 16 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 0\n2\n"
        "layer0\t-1\t1000000\tNONE\t0\t1000000\tNONE\t0\t1000000\tALLREDUCE\t67108864\t100\n"
        "layer1\t-1\t1000000\tNONE\t0\t1000000\tNONE\t0\t1000000\tALLREDUCE\t67108864\t100\n");
    char set[BN_PATH_MAX + 32];
    snprintf(set, sizeof set, "jobs.0.workload_file=%s", w);
    const char *sets[] = {IB16, "coll.algo=ring", set, NULL};
    struct bn_job_results r;
    run_jobs(sets, &r);
    const struct bn_job_result *j = &r.jobs[0];
    double ar = ring_ar_us(16, 67108864.0);
    /* forward 2 ms; layer 1's backward ends at 4 ms and its all-reduce
     * starts; layer 0's all-reduce follows it; the updates take 0.2 us */
    assert_int_equal(j->dp, 16);
    assert_near(j->compute_us, 6000.2, 1e-9, "compute");
    assert_near(j->iteration_us, 4000 + 2 * ar + 0.2, 0.05, "iteration");
    assert_near(j->exposed_comm_us, 2 * ar - 2000, 0.05, "exposed");
    bn_job_results_free(&r);
}

/* GPT-3 175B's shape at tp 8 x pp 8 x dp 2 on the 128 GPUs of
 * scenarios/job_default.yaml, communication taking no time, with `extra`. */
static void run_gpt3(const char *extra, struct bn_job_results *r)
{
    static const char *const sets[] = {
        "jobs.0.layers=96", "jobs.0.hidden=12288", "jobs.0.heads=96", "jobs.0.ffn_hidden=0",
        "jobs.0.gated_mlp=false", "jobs.0.seq_len=2048", "jobs.0.vocab=51200", "jobs.0.tp=8",
        "jobs.0.pp=8", "jobs.0.dp=2", "jobs.0.global_batch=16", "jobs.0.network=false", NULL};
    struct bn_scenario sc;
    struct bn_error err = {0};
    if (bn_scenario_load_file(&sc, "scenarios/job_default.yaml", &err) != BN_OK)
        fail_msg("%s", err.msg);
    for (size_t i = 0; sets[i]; i++)
        if (bn_scenario_set(&sc, sets[i], &err) != BN_OK)
            fail_msg("%s", err.msg);
    if (extra && bn_scenario_set(&sc, extra, &err) != BN_OK)
        fail_msg("%s", err.msg);
    if (bn_job_run(&sc, NULL, r, &err) != BN_OK)
        fail_msg("bn_job_run: %s", err.msg);
}

static void test_pp_bytes_are_what_is_sent(void **state)
{
    (void)state;
    /* b s h bf16 per micro-batch; 7 boundaries x 2 replicas x 8
     * micro-batches x 2 directions; 8 TP ranks each side of a boundary */
    const uint64_t act = 2048ull * 12288 * 2, sends = 7 * 2 * 8 * 2;
    struct bn_job_results r;
    /* each TP rank sends the whole (replicated) activation (SC'21 4.1) */
    run_gpt3(NULL, &r);
    const struct bn_job_dim_row *pp = dim(&r.jobs[0], "pp");
    assert_int_equal(pp->count, sends);
    assert_int_equal(pp->bytes, sends * 8 * act); /* 90,194,313,216 */
    bn_job_results_free(&r);
    /* scatter/gather: a 1/8 slice each, an all-gather over NVLink after */
    run_gpt3("jobs.0.pp_scatter_gather=true", &r);
    const struct bn_job_result *j = &r.jobs[0];
    uint64_t sent = 0, gathered = 0;
    for (uint32_t c = 0; c < j->ncolls; c++) {
        const struct bn_job_coll_row *row = &j->colls[c];
        if (strcmp(row->dim, "pp") != 0)
            continue;
        if (strcmp(row->op, "send") == 0)
            sent += row->bytes * row->ranks * row->count;
        else if (strcmp(row->op, "allgather") == 0 && row->ranks == 8)
            gathered += row->bytes * row->count;
        else
            fail_msg("a pp %s of %u ranks", row->op, row->ranks);
    }
    assert_int_equal(sent, sends * act); /* 11,274,289,152 */
    assert_int_equal(gathered, sends * act);
    assert_int_equal(dim(j, "pp")->bytes, sent + gathered);
    assert_int_equal(dim(j, "pp")->count, 2 * sends);
    bn_job_results_free(&r);
}

static void test_noisy_neighbor(void **state)
{
    (void)state;
    if (getenv("BNET_SANITIZED")) /* a figure of packet-level runs; the other cases cover the jobs' code */
        skip();
    struct bn_scenario sc;
    struct bn_error err = {0};
    struct bn_job_results r;
    const char *lb[] = {"nic.entropy=per_flow", "nic.entropy=per_packet"};
    /* one narrower layer: a third of the shipped run's packets, the same
     * collisions (3.010 / 1.005 against the shipped 3.145 / 1.004) */
    const char *small[] = {"jobs.0.layers=1", "jobs.0.hidden=768", "jobs.0.ffn_hidden=3072"};
    double slow[2];
    for (int i = 0; i < 2; i++) {
        if (bn_scenario_load_file(&sc, "scenarios/jobs_noisy_neighbor.yaml", &err) != BN_OK ||
            bn_scenario_set(&sc, lb[i], &err) != BN_OK)
            fail_msg("%s", err.msg);
        for (size_t k = 0; k < sizeof small / sizeof *small; k++)
            if (bn_scenario_set(&sc, small[k], &err) != BN_OK)
                fail_msg("%s", err.msg);
        if (bn_job_run(&sc, NULL, &r, &err))
            fail_msg("%s", err.msg);
        slow[i] = r.jobs[0].slowdown;
        assert_true(r.jobs[1].flows_done > 0);
        bn_job_results_free(&r);
    }
    printf("noisy neighbor: slowdown %.3f under ECMP, %.3f sprayed\n", slow[0], slow[1]);
    assert_true(slow[0] > 1.5);
    assert_true(slow[1] < 1.02);
}

static void test_deterministic_json(void **state)
{
    (void)state;
    const char *sets[] = {IB16, SMALL, "jobs.0.dp=4", "jobs.0.pp=2", "jobs.1.kind=background",
                          "jobs.1.gpus=8", "jobs.1.placement=random", NULL};
    char *text[2];
    for (int i = 0; i < 2; i++) {
        struct bn_job_results r;
        struct bn_error err = {0};
        run_jobs(sets, &r);
        const char *path = test_tmpfile("");
        assert_int_equal(bn_job_write_json(&r, path, &err), BN_OK);
        text[i] = test_take_file(path);
        bn_job_results_free(&r);
    }
    assert_string_equal(text[0], text[1]);
    free(text[0]);
    free(text[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_comm_is_sum_of_compute),
        cmocka_unit_test(test_1f1b_pipeline),
        cmocka_unit_test(test_dp_exposed_is_alpha_beta),
        cmocka_unit_test(test_alone_equals_beside_idle),
        cmocka_unit_test(test_tp_in_nvlink_stays_off_backend),
        cmocka_unit_test(test_inference_decode_network),
        cmocka_unit_test(test_moe_all_to_alls),
        cmocka_unit_test(test_workload_file),
        cmocka_unit_test(test_pp_bytes_are_what_is_sent),
        cmocka_unit_test(test_noisy_neighbor),
        cmocka_unit_test(test_deterministic_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
