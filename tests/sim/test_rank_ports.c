/*
 * A partitioned run's rank builds only what it holds (sim/build.c,
 * bn_sim_build_ranks; docs/parallel.md): its nodes' ports, their peers
 * across the cut and every endpoint's are written; another rank's switch
 * ports stay zero, untouched pages (mincore: not resident), and the model's
 * figures that read every port (the fabric's round trip, the event queue's
 * slot width) are those of the whole.
 */
#define _DEFAULT_SOURCE /* mincore */
#include <sys/mman.h>
#include <unistd.h>

#include "sim_support.h"

/* Resident pages of the ports' array, and all of them. */
static void resident(const struct bn_fabric *f, size_t *in, size_t *all)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (f->nports + 1) * sizeof *f->ports;
    uintptr_t base = (uintptr_t)f->ports & ~(uintptr_t)(page - 1);
    size_t n = ((uintptr_t)f->ports + len - base + page - 1) / page;
    unsigned char *vec = malloc(n);
    assert_non_null(vec);
    assert_int_equal(mincore((void *)base, n * page, vec), 0);
    *in = 0;
    for (size_t i = 0; i < n; i++)
        *in += vec[i] & 1;
    *all = n;
    free(vec);
}

static void test_rank_holds_its_ports(void **state)
{
    (void)state;
    const char *sets[] = {"topology.k=16", "sim.partitions=2", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_sim whole, one;
    struct bn_error err = {0};
    struct bn_ranks ranks = {.rank = 1, .size = 2}; /* no exchange while built */
    assert_int_equal(bn_sim_build(&whole, &sc, &err), BN_OK);
    assert_int_equal(bn_sim_build_ranks(&one, &sc, &ranks, &err), BN_OK);
    assert_null(whole.fab.absent);
    assert_non_null(one.fab.absent);
    size_t in, all; /* first: reading a page below maps it */
    resident(&one.fab, &in, &all);
    print_message("ports' pages resident on rank 1 of 2: %zu of %zu\n", in, all);
    assert_true(in * 10 < all * 9);
    const struct bn_topo *t = &one.topo;
    uint32_t absent = 0;
    for (uint32_t p = 0; p < t->nports; p++) {
        uint32_t peer = t->ports[p].peer;
        bool mine = one.part->owner[t->ports[p].node] == 1 ||
                    one.part->owner[t->ports[peer].node] == 1 || p < t->nhosts;
        assert_int_equal(one.fab.absent[p], !mine);
        absent += one.fab.absent[p];
        if (mine) /* its line as one process has it */
            assert_memory_equal(&one.fab.ports[p], &whole.fab.ports[p], sizeof whole.fab.ports[p]);
        else
            assert_int_equal(one.fab.ports[p].rate_bps, 0);
    }
    assert_true(absent > t->nports / 4);
    /* the figures read from every port: the whole's */
    assert_true(one.nics.fabric_rtt > 0 && one.nics.fabric_rtt == whole.nics.fabric_rtt);
    assert_true(one.fab.evq.shift == whole.fab.evq.shift);
    bn_sim_free(&one);
    bn_sim_free(&whole);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank_holds_its_ports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
