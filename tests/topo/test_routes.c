/*
 * Routing tables (routing.c) against an independent breadth-first search
 * written here: for every switch and destination leaf, the set the table
 * names is exactly the switch's ports, in order, whose far end is a switch
 * one hop closer to the leaf (empty at the leaf itself). Checked on a k=8
 * fat-tree, a Dragonfly+ and a file topology whose leaf's uplinks are not
 * neighbouring ports (a host's link declared between them). A set flagged
 * as a run is a stretch of consecutive ports, and the table's copy of it
 * (which policies other than hashing read) holds the same ports; every set
 * of the fat-tree is a run, the one the lookup takes without a load. The
 * table keeps room only for its distinct rows.
 */
#include "sim_support.h"

static bool is_switch(const struct bn_topo *t, uint32_t node)
{
    return node < t->nnodes && t->nodes[node].kind == BN_NODE_SWITCH;
}

/* Hops from every switch (by node id) to switch `from`, over switches only. */
static void distances(const struct bn_topo *t, uint32_t from, uint32_t *dist, uint32_t *queue)
{
    for (uint32_t i = 0; i < t->nnodes; i++)
        dist[i] = UINT32_MAX;
    uint32_t head = 0, tail = 0;
    dist[from] = 0;
    queue[tail++] = from;
    while (head < tail) {
        uint32_t n = queue[head++];
        for (uint32_t p = t->nodes[n].first_port; p < t->nodes[n].first_port + t->nodes[n].nports;
             p++) {
            uint32_t m = t->ports[t->ports[p].peer].node;
            if (is_switch(t, m) && dist[m] == UINT32_MAX) {
                dist[m] = dist[n] + 1;
                queue[tail++] = m;
            }
        }
    }
}

struct tally {
    uint32_t sets, runs;
};

static struct tally check_tables(const char *const *sets)
{
    struct bn_sim *s = test_sim_build(sets);
    const struct bn_topo *t = &s->topo;
    const struct bn_routes *r = &s->routes;
    uint32_t *dist = calloc(t->nnodes, sizeof *dist), *queue = calloc(t->nnodes, sizeof *queue);
    assert_non_null(dist);
    assert_non_null(queue);
    struct tally n = {0, 0};
    /* the table keeps only its distinct rows (and the sentinel entry) */
    assert_int_equal(r->table_cap, (size_t)r->nrows * r->nleaves + 1);
    for (uint32_t l = 0; l < t->nleaves; l++) {
        distances(t, t->leaf_node[l], dist, queue);
        for (uint32_t node = r->first_switch; node < r->first_switch + r->nswitches; node++) {
            if (!is_switch(t, node) || dist[node] == UINT32_MAX)
                continue;
            struct bn_route_set set = bn_routes_lookup(r, node, l);
            const struct bn_topo_node *nd = &t->nodes[node];
            uint32_t want = 0;
            for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++) {
                uint32_t m = t->ports[t->ports[p].peer].node;
                if (dist[node] > 0 && is_switch(t, m) && dist[m] == dist[node] - 1) {
                    assert_true(want < set.cnt);
                    assert_int_equal(bn_route_port(r, set, want), p);
                    assert_int_equal(r->hops[set.off + want], p);
                    want++;
                }
            }
            assert_int_equal(set.cnt, want);
            if (set.cnt == 0)
                continue;
            n.sets++;
            if (set.run) {
                n.runs++;
                for (uint32_t i = 0; i < set.cnt; i++)
                    assert_int_equal(bn_route_port(r, set, i), set.first + i);
            }
        }
    }
    free(dist);
    free(queue);
    test_sim_free(s);
    return n;
}

static void test_fat_tree(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=8", NULL};
    struct tally n = check_tables(sets);
    assert_true(n.sets > 0);
    assert_int_equal(n.runs, n.sets);
}

static void test_dragonfly_plus(void **state)
{
    (void)state;
    const char *sets[] = {"topology.kind=dragonfly_plus", "topology.k=8", NULL};
    assert_true(check_tables(sets).sets > 0);
}

static void test_uplinks_apart(void **state)
{
    (void)state;
    const char *topo = test_tmpfile(
        "host h0\nhost h1\nhost h2\nhost h3\n"
        "switch l0 tier 1\nswitch l1 tier 1\nswitch s0 tier 2\nswitch s1 tier 2\n"
        "link l0 s0 100 10 fiber\nlink h0 l0 100 2 copper\nlink l0 s1 100 10 fiber\n"
        "link h1 l0 100 2 copper\nlink h2 l1 100 2 copper\nlink h3 l1 100 2 copper\n"
        "link l1 s0 100 10 fiber\nlink l1 s1 100 10 fiber\n");
    char tf[128];
    snprintf(tf, sizeof tf, "topology.file=%s", topo);
    const char *sets[] = {"topology.kind=file", tf, NULL};
    struct tally n = check_tables(sets);
    remove(topo);
    assert_true(n.runs < n.sets); /* l0's uplinks: ports 0 and 2 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fat_tree),
        cmocka_unit_test(test_dragonfly_plus),
        cmocka_unit_test(test_uplinks_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
