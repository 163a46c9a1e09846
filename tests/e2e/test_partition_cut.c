/*
 * The cut of a partitioned run (sim/partition.c, docs/parallel.md) against
 * hand counts. A k=8 fat-tree has 8 pods of 4 leaves (4 hosts each) and 4
 * aggregation switches, and 16 cores, each with one link into every pod:
 * in 2 parts every core keeps 4 links in its own part and cuts 4 (64 cut
 * links); in 8 parts, one pod each, it cuts 7 (112). pods refuses more
 * parts than pods. A rail-optimized cluster with NVLink servers keeps each
 * server (its 8 GPUs and NVSwitch) whole. Everywhere: every node in a
 * part, the cut symmetric and exactly the links between parts, and the
 * lookahead the least propagation over them.
 */
#include "sim_support.h"

static void check_cut(const struct bn_sim *s, uint32_t parts)
{
    const struct bn_partition *pt = s->part;
    const struct bn_topo *t = &s->topo;
    assert_non_null(pt);
    for (uint32_t i = 0; i < t->nnodes; i++)
        assert_true(pt->owner[i] < parts);
    uint32_t cut = 0;
    bn_time_t least = BN_TIME_NEVER;
    for (uint32_t p = 0; p < t->nports; p++) {
        uint32_t q = t->ports[p].peer;
        bool across = pt->owner[t->ports[p].node] != pt->owner[t->ports[q].node];
        assert_int_equal(pt->cut.port[p], across);
        assert_int_equal(pt->cut.port[q], across);
        if (across) {
            cut += p < q;
            bn_time_t prop = bn_topo_prop_ps(s->sc, &t->ports[p]);
            least = prop < least ? prop : least;
        }
    }
    assert_int_equal(pt->cut_links, cut);
    assert_int_equal(pt->lookahead, least);
}

static uint32_t hosts_in(const struct bn_sim *s, uint32_t part)
{
    uint32_t n = 0;
    for (uint32_t h = 0; h < s->topo.nhosts; h++)
        n += s->part->owner[h] == part;
    return n;
}

static void test_fat_tree_two_parts(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=8", "sim.partitions=2", NULL};
    struct bn_sim *s = test_sim_build(sets);
    check_cut(s, 2);
    assert_int_equal(s->part->cut_links, 64);
    assert_int_equal(hosts_in(s, 0), 64);
    assert_int_equal(hosts_in(s, 1), 64);
    /* 10 m of fiber at 5 ns/m */
    assert_int_equal(s->part->lookahead, 50000);
    test_sim_free(s);
}

static void test_fat_tree_pods(void **state)
{
    (void)state;
    for (int pods = 0; pods <= 1; pods++) {
        const char *sets[] = {"topology.k=8", "sim.partitions=8",
                              pods ? "sim.partition=pods" : "sim.partition=auto", NULL};
        struct bn_sim *s = test_sim_build(sets);
        check_cut(s, 8);
        assert_int_equal(s->part->cut_links, 112);
        for (uint32_t p = 0; p < 8; p++)
            assert_int_equal(hosts_in(s, p), 16);
        /* a pod's leaves and aggregation switches share its part */
        const struct bn_topo *t = &s->topo;
        for (uint32_t i = 0; i < t->nnodes; i++)
            if (t->nodes[i].tier == 2)
                for (uint32_t k = 0; k < t->nodes[i].nports; k++) {
                    uint32_t j = t->ports[t->ports[t->nodes[i].first_port + k].peer].node;
                    if (t->nodes[j].tier == 1)
                        assert_int_equal(s->part->owner[j], s->part->owner[i]);
                }
        test_sim_free(s);
    }
}

static void test_pods_refuses_more_parts(void **state)
{
    (void)state;
    struct bn_scenario *sc = calloc(1, sizeof *sc);
    const char *sets[] = {"topology.k=8", "sim.partitions=16", "sim.partition=pods", NULL};
    test_scenario(sc, sets);
    struct bn_sim s;
    struct bn_error err = {0};
    assert_int_equal(bn_sim_build(&s, sc, &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, "16 parts, but the fabric holds 8 pods"));
    bn_sim_free(&s);
    free(sc);
}

static void test_rail_servers_whole(void **state)
{
    (void)state;
    const char *sets[] = {"topology.kind=rail_optimized", "topology.k=32",
                          "topology.gpus_per_server=8", "topology.servers_per_su=16",
                          "scale_up.domain_gpus=8", "sim.partitions=2", NULL};
    struct bn_sim *s = test_sim_build(sets);
    check_cut(s, 2);
    const struct bn_topo *t = &s->topo;
    assert_int_equal(hosts_in(s, 0), t->nhosts / 2);
    for (uint32_t h = 0; h < t->nhosts; h++) /* a GPU's part is its server's */
        assert_int_equal(s->part->owner[h], s->part->owner[h - h % 8]);
    for (uint32_t d = 0; d < t->nscaleup; d++) /* and its NVSwitch's */
        assert_int_equal(s->part->owner[t->scaleup_first + d], s->part->owner[d * 8]);
    test_sim_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fat_tree_two_parts),
        cmocka_unit_test(test_fat_tree_pods),
        cmocka_unit_test(test_pods_refuses_more_parts),
        cmocka_unit_test(test_rail_servers_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
