/*
 * The flow-level engine (sim.fidelity: flow) against the packet level and
 * against allocations computed here, independently:
 * - an ECMP flow's links are the ports the packet engine's switches
 *   forward its packets to (bn_switch_route, hop by hop);
 * - the rates of a k=4 fat-tree permutation under ECMP equal a max-min
 *   allocation computed here by textbook progressive filling over those
 *   paths (no spreading, ACK load made negligible);
 * - a sprayed flow loads each link by its share of the path set (1/4 of
 *   its packets through each of a k=4 fat-tree's cores);
 * - one message between two hosts takes the packet level's latency and
 *   bandwidth to within 0.5 % (perftest's write_lat and write_bw);
 * - ring AllReduce busbw within 1 % of the packet level at 64 MiB and 5 %
 *   at 1 MiB; a tree's within 5 %; the sprayed permutation's mean
 *   throughput within 10 %;
 * - the same scenario gives the same figures twice.
 */
#include "sim_support.h"
#include <math.h>

#include "bnet/coll.h"
#include "bnet/p2p.h"

#define K4 "topology.k=4", "link.rate_gbps=100"

/* The ports the packet engine sends a data packet of qp through. */
static uint32_t packet_path(struct bn_sim *s, uint32_t qpid, uint32_t *ports)
{
    const struct bn_qp *qp = &s->nics.qp[qpid];
    struct bn_packet pk = {.qp = qpid, .dst = qp->dst, .entropy = qp->entropy,
                           .type = BN_PKT_DATA};
    uint32_t n = 0, p = s->nics.nic[qp->snic].port;
    for (;;) {
        ports[n++] = p;
        uint32_t in = s->fab.ports[p].peer;
        if (s->fab.ports[in].flags & BN_PORT_AT_HOST)
            return n;
        p = bn_switch_route(&s->sw, in, &pk);
    }
}

/* Independent progressive filling: unit-weight paths, unit per link. */
static void fill(uint32_t nflows, const uint32_t (*path)[8], const uint32_t *len, uint32_t nlinks,
                 const double *cap, double *rate)
{
    bool *frozen = calloc(nflows, 1);
    double *rem = malloc(nlinks * sizeof *rem);
    uint32_t *cnt = malloc(nlinks * sizeof *cnt);
    memcpy(rem, cap, nlinks * sizeof *rem);
    for (uint32_t left = nflows; left;) {
        memset(cnt, 0, nlinks * sizeof *cnt);
        for (uint32_t f = 0; f < nflows; f++)
            for (uint32_t k = 0; !frozen[f] && k < len[f]; k++)
                cnt[path[f][k]]++;
        double level = INFINITY;
        for (uint32_t l = 0; l < nlinks; l++)
            if (cnt[l] && rem[l] / cnt[l] < level)
                level = rem[l] / cnt[l];
        for (uint32_t f = 0; f < nflows; f++) {
            bool hit = false;
            for (uint32_t k = 0; !frozen[f] && k < len[f]; k++)
                hit |= cnt[path[f][k]] && rem[path[f][k]] / cnt[path[f][k]] <= level * (1 + 1e-12);
            if (!hit)
                continue;
            frozen[f] = true;
            rate[f] = level;
            left--;
        }
        for (uint32_t f = 0; f < nflows; f++)
            if (frozen[f] && rate[f] == level)
                for (uint32_t k = 0; k < len[f]; k++)
                    rem[path[f][k]] -= level;
    }
    free(frozen);
    free(rem);
    free(cnt);
}

/* Queue pairs h -> (h + 5) mod 16 on a k=4 fat-tree, their flows walked. */
static struct bn_sim *permutation(const char *lb, const char *entropy, uint32_t *qps)
{
    const char *sets[] = {K4, "sim.fidelity=flow", lb, entropy, "nic.ack_every=100000", NULL};
    struct bn_sim *s = test_sim_build(sets);
    struct bn_error err = {0};
    for (uint32_t h = 0; h < 16; h++) {
        qps[h] = bn_qp_create(&s->nics, h, (h + 5) % 16);
        assert_true(qps[h] != BN_NONE);
        if (bn_flow_walk(s->flow, qps[h], &err) != BN_OK)
            fail_msg("walk: %s", err.msg);
    }
    return s;
}

static void test_ecmp_paths_and_rates(void **state)
{
    (void)state;
    uint32_t qps[16], path[16][8], len[16];
    struct bn_sim *s = permutation("switch.load_balancing=ecmp", "nic.entropy=per_flow", qps);
    struct bn_maxmin *m = &s->flow->mm;
    const struct bn_linkclass *lc = &s->flow->lc;
    struct bn_error err = {0};
    for (uint32_t h = 0; h < 16; h++) {
        len[h] = packet_path(s, qps[h], path[h]);
        /* the flow's full-weight links (classes of ports) are exactly the
         * packets' ports */
        uint32_t full = 0;
        for (uint32_t k = 0; k < m->use_len[qps[h]]; k++) {
            const struct bn_mm_use *u = &m->use[m->use_off[qps[h]] + k];
            if (u->passive)
                continue; /* its ACKs' share of the reverse path */
            assert_true(u->weight == 1.0f);
            full += lc->size[u->link];
        }
        assert_int_equal(full, len[h]);
        for (uint32_t j = 0; j < len[h]; j++) {
            bool used = false;
            for (uint32_t k = 0; k < m->use_len[qps[h]]; k++) {
                const struct bn_mm_use *u = &m->use[m->use_off[qps[h]] + k];
                used |= !u->passive && u->link == lc->cls[path[h][j]];
            }
            assert_true(used);
        }
        assert_int_equal(bn_mm_activate(m, qps[h], &err), BN_OK);
    }
    assert_int_equal(bn_mm_solve(m, &err), BN_OK);
    double rate[16];
    fill(16, (const uint32_t(*)[8])path, len, s->fab.nports, lc->cap, rate);
    uint32_t slowed = 0;
    for (uint32_t h = 0; h < 16; h++) {
        if (fabs(m->rate[qps[h]] - rate[h]) > 1e-4 * rate[h])
            fail_msg("flow %u: engine %g, by hand %g", h, m->rate[qps[h]], rate[h]);
        slowed += rate[h] < 0.99 * lc->cap[path[h][0]];
    }
    assert_true(slowed > 0); /* ECMP collides somewhere: the case is not trivial */
    test_sim_free(s);
}

static void test_spray_splits_evenly(void **state)
{
    (void)state;
    uint32_t qps[16];
    struct bn_sim *s = permutation("switch.load_balancing=ecmp", "nic.entropy=per_packet", qps);
    const struct bn_maxmin *m = &s->flow->mm;
    const struct bn_linkclass *lc = &s->flow->lc;
    /* host 0 -> host 5 leaves its pod: its leaf's 2 uplinks at 1/2 each,
     * the 4 aggregation-to-core links and the 4 core-to-aggregation links
     * at 1/4, the 2 links down to host 5's leaf at 1/2; its NIC's link and
     * the last hop at 1 */
    uint32_t quarter = 0, half = 0, one = 0;
    for (uint32_t k = 0; k < m->use_len[qps[0]]; k++) {
        const struct bn_mm_use *u = &m->use[m->use_off[qps[0]] + k];
        if (u->passive)
            continue;
        uint32_t ports = lc->size[u->link]; /* a class of ports used alike */
        quarter += ports * (fabsf(u->weight - 0.25f) < 1e-6f);
        half += ports * (fabsf(u->weight - 0.5f) < 1e-6f);
        one += ports * (u->weight == 1.0f);
    }
    assert_int_equal(quarter, 8);
    assert_int_equal(half, 4);
    assert_int_equal(one, 2);
    test_sim_free(s);
}

static void p2p(const char *test, const char *bytes, const char *fid, struct bn_p2p_row *row)
{
    const char *sets[] = {"fabric=ib-ndr", test, bytes, "p2p.iterations=50", fid, NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_p2p_results r;
    struct bn_error err = {0};
    if (bn_p2p_run(&sc, NULL, NULL, &r, &err) != BN_OK)
        fail_msg("p2p: %s", err.msg);
    *row = r.pairs[0].rows[0];
    bn_p2p_results_free(&r);
}

static void test_p2p_matches_packets(void **state)
{
    (void)state;
    struct bn_p2p_row a, b;
    p2p("p2p.test=write_lat", "p2p.bytes=4096", "sim.fidelity=packet", &a);
    p2p("p2p.test=write_lat", "p2p.bytes=4096", "sim.fidelity=flow", &b);
    assert_true(fabs(b.t_avg_us / a.t_avg_us - 1) < 0.005);
    p2p("p2p.test=write_bw", "p2p.bytes=65536", "sim.fidelity=packet", &a);
    p2p("p2p.test=write_bw", "p2p.bytes=65536", "sim.fidelity=flow", &b);
    assert_true(fabs(b.bw_avg_gbps / a.bw_avg_gbps - 1) < 0.005);
}

static double busbw(const char *algo, const char *bytes, const char *fid)
{
    char lo[64], hi[64];
    snprintf(lo, sizeof lo, "coll.min_bytes=%s", bytes);
    snprintf(hi, sizeof hi, "coll.max_bytes=%s", bytes);
    const char *sets[] = {K4, "fabric=ib-ndr", "nic.congestion_control=none", algo, lo, hi, fid,
                          "coll.iters=1", "coll.warmup=0", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_coll_results r;
    struct bn_error err = {0};
    if (bn_coll_sweep(&sc, &r, &err) != BN_OK)
        fail_msg("coll: %s", err.msg);
    assert_int_equal(r.rows[0].wrong, 0);
    double b = r.rows[0].busbw_gbs;
    bn_coll_results_free(&r);
    return b;
}

static void test_allreduce_matches_packets(void **state)
{
    (void)state;
    const struct { const char *algo, *bytes; double tol; } cases[] = {
        {"coll.algo=ring", "64MiB", 0.01},
        {"coll.algo=ring", "1MiB", 0.05},
        {"coll.algo=tree", "1MiB", 0.05},
        {"coll.algo=tree", "4MiB", 0.05},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double p = busbw(cases[i].algo, cases[i].bytes, "sim.fidelity=packet");
        double f = busbw(cases[i].algo, cases[i].bytes, "sim.fidelity=flow");
        if (fabs(f / p - 1) > cases[i].tol)
            fail_msg("%s %s: packet %.3f, flow %.3f GB/s", cases[i].algo, cases[i].bytes, p, f);
    }
}

/* A tree AllReduce of 32 MiB on 64 GPUs of cluster128's shape in LL: the
 * packet level within 5 % of the flow level (30.47 against 31.63 GB/s).
 * Before a slot was held until its step was consumed, a child's REDUCE ran
 * ahead of its parent's, took its share of the parent's port from the COPY
 * coming down, and the packet level gave 24.51 (23 % under). It checks a
 * figure, so the sanitized build (10x slower) skips it; test_proto.c runs
 * the same slots there. */
static void test_tree_in_ll_matches_packets(void **state)
{
    (void)state;
#ifdef __SANITIZE_ADDRESS__
    skip();
#endif
    double b[2];
    const char *fid[2] = {"sim.fidelity=packet", "sim.fidelity=flow"};
    for (int i = 0; i < 2; i++) {
        const char *sets[] = {"fabric=ib-ndr", "nic.congestion_control=none",
                              "topology.kind=rail_optimized", "topology.k=32",
                              "topology.gpus_per_server=8", "topology.servers_per_su=8",
                              "topology.scalable_units=1", "scale_up.domain_gpus=8",
                              "scale_up.rate_gbps=3600", "coll.algo=tree", "coll.proto=ll",
                              "coll.channels=2", "coll.in_place=false", "coll.min_bytes=32MiB",
                              "coll.max_bytes=32MiB", "coll.iters=1", "coll.warmup=0", fid[i],
                              NULL};
        struct bn_coll_row row;
        test_coll_row(sets, &row, NULL);
        b[i] = row.busbw_gbs;
    }
    print_message("tree LL 32 MiB, 64 GPUs: packet %.2f, flow %.2f GB/s\n", b[0], b[1]);
    assert_true(fabs(b[1] / b[0] - 1) < 0.05);
}

static double spray_mean(const char *fid)
{
    const char *sets[] = {K4, "nic.entropy=per_packet", "nic.transport=selective_repeat",
                          "workload.message_bytes=1000000", fid, NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results res;
    test_run(&sc, &res);
    double m = res.throughput_gbps.mean;
    bn_results_free(&res);
    return m;
}

static void test_spray_permutation_and_determinism(void **state)
{
    (void)state;
    double p = spray_mean("sim.fidelity=packet");
    double f = spray_mean("sim.fidelity=flow");
    if (fabs(f / p - 1) > 0.10)
        fail_msg("sprayed permutation: packet %.2f, flow %.2f Gb/s", p, f);
    assert_true(spray_mean("sim.fidelity=flow") == f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ecmp_paths_and_rates),
        cmocka_unit_test(test_spray_splits_evenly),
        cmocka_unit_test(test_p2p_matches_packets),
        cmocka_unit_test(test_allreduce_matches_packets),
        cmocka_unit_test(test_tree_in_ll_matches_packets),
        cmocka_unit_test(test_spray_permutation_and_determinism),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
