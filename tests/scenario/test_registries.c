/*
 * The registries are the one list of names: every module key's choices
 * (what bnet keys prints, what errors list, what the scenario stores an
 * index into) are its registry's names, in its order; its default is one
 * of them; and the index a key stores finds that module. The collective
 * algorithms' own keys and the SHARP units' (sharp.*) come after
 * coll.aggregate, the control planes' after routing.control_plane, the
 * workload generators' after workload.incast_senders, each a field of its
 * module's block (issue 54).
 */
#include <string.h>

#include "support.h"

#include "coll/proto.h"
#include "coll/sched.h"
#include "fault/fault.h"
#include "link/fc.h"
#include "nic/nic.h"
#include "scenario/keys.h"
#include "switch/lb.h"
#include "topo/topo.h"
#include "workload/workload.h"

static const struct {
    const char *path;
    const char *(*name)(size_t i);
    size_t skip;       /* choices before the registry's: "auto", "none" */
    const char *after; /* the one choice after it ("all"), or NULL */
} keys[] = {
    {"topology.kind", bn_topo_builder_name, 0, NULL},
    {"link.flow_control", bn_fc_name, 0, NULL},
    {"switch.load_balancing", bn_lb_name, 0, NULL},
    {"nic.encap", bn_encap_name, 0, NULL},
    {"nic.transport", bn_transport_name, 0, NULL},
    {"nic.congestion_control", bn_cc_name, 0, NULL},
    {"workload.kind", bn_workload_name, 0, NULL},
    {"coll.op", bn_coll_op_name, 0, NULL},
    {"coll.datatype", bn_coll_type_name, 0, "all"},
    {"coll.redop", bn_coll_redop_name, 0, "all"},
    {"coll.algo", bn_coll_algo_name, 1, NULL},
    {"coll.proto", bn_coll_proto_name, 1, NULL},
    {"fabric", bn_scenario_preset_name, 1, NULL},
};

static const struct bn_scenario_key_info *key(const char *path)
{
    for (size_t i = 0; i < bn_scenario_key_count(); i++)
        if (strcmp(bn_scenario_key(i)->path, path) == 0)
            return bn_scenario_key(i);
    fail_msg("no key %s", path);
    return NULL;
}

static void test_choices_are_the_registry(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const struct bn_scenario_key_info *info = key(keys[k].path);
        assert_non_null(info->choice);
        size_t i = 0;
        for (; keys[k].name(i); i++) {
            const char *c = info->choice(i + keys[k].skip);
            if (!c || strcmp(c, keys[k].name(i)) != 0)
                fail_msg("%s: choice %zu is '%s', registry says '%s'", keys[k].path,
                         i + keys[k].skip, c ? c : "(none)", keys[k].name(i));
        }
        assert_true(i > 0);
        if (keys[k].after) /* "all": every entry of the registry in turn */
            assert_string_equal(info->choice(i++ + keys[k].skip), keys[k].after);
        if (info->choice(i + keys[k].skip))
            fail_msg("%s: choice '%s' is in no registry", keys[k].path,
                     info->choice(i + keys[k].skip));
    }
}

/* Setting a module by name stores its registry index; the default is one. */
static void test_index_finds_the_module(void **state)
{
    (void)state;
    struct bn_scenario sc;
    struct bn_error err;
    char set[128];
    for (size_t i = 0; bn_cc_name(i); i++) {
        bn_scenario_defaults(&sc);
        snprintf(set, sizeof set, "nic.congestion_control=%s", bn_cc_name(i));
        assert_int_equal(bn_scenario_set(&sc, set, &err), BN_OK);
        assert_ptr_equal(bn_cc_at(sc.nic.congestion_control), bn_cc_at(i));
    }
    for (size_t i = 0; bn_lb_name(i); i++) {
        bn_scenario_defaults(&sc);
        snprintf(set, sizeof set, "switch.load_balancing=%s", bn_lb_name(i));
        assert_int_equal(bn_scenario_set(&sc, set, &err), BN_OK);
        assert_ptr_equal(bn_lb_at(sc.sw.load_balancing), bn_lb_at(i));
    }
    bn_scenario_defaults(&sc);
    assert_key(&sc, "nic.congestion_control", "none");
    assert_key(&sc, "link.flow_control", "lossy");
    assert_key(&sc, "coll.algo", "auto");
    assert_int_equal(bn_scenario_set(&sc, "nic.congestion_control=cubic", &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, "one of: none, dcqcn, ib_cc, nscc"));
}

static void test_algo_and_sharp_keys_in_their_blocks(void **state)
{
    (void)state;
    size_t at = bn_scn_index(bn_scn_find("coll.aggregate")) + 1;
    size_t na = bn_key_modules_nrows(&bn_coll_algo_key_modules);
    for (size_t j = 0; j < na; j++) {
        const struct bn_key_row *k = bn_key_modules_row(&bn_coll_algo_key_modules, j);
        assert_ptr_equal(bn_scn_at(at + j), k);
        assert_int_equal(k->block, BN_KEY_BLOCK_ALGO);
    }
    size_t ns = bn_key_modules_nrows(&bn_topo_agg_key_modules);
    assert_int_equal(ns, 4);
    assert_string_equal(bn_scn_at(at + na)->info.path, "sharp.enabled");
    for (size_t j = 0; j < ns; j++)
        assert_int_equal(bn_scn_at(at + na + j)->block, BN_KEY_BLOCK_AGG);
    assert_null(bn_scn_at(at + na + ns));
    struct bn_scenario sc, def;
    struct bn_error err;
    bn_scenario_defaults(&def);
    sc = def;
    assert_int_equal(bn_topo_sharp(&def)->max_trees, 2);
    assert_true(bn_topo_sharp(&def)->latency_ns == 500 && !bn_topo_sharp(&def)->enabled);
    assert_int_equal(bn_scenario_set(&sc, "sharp.max_trees=1", &err), BN_OK);
    assert_int_equal(bn_topo_sharp(&sc)->max_trees, 1);
    sc.agg = def.agg;
    memcpy(sc.key_line, def.key_line, sizeof sc.key_line); /* where it was set */
    assert_memory_equal(&sc, &def, sizeof sc); /* nothing else changed */
}

static void test_control_plane_keys_in_their_blocks(void **state)
{
    (void)state;
    size_t at = bn_scn_index(bn_scn_find("routing.control_plane")) + 1;
    size_t n = bn_key_modules_nrows(&bn_cp_key_modules);
    assert_true(n >= 13);
    for (size_t j = 0; j < n; j++) {
        const struct bn_key_row *k = bn_key_modules_row(&bn_cp_key_modules, j);
        assert_ptr_equal(bn_scn_at(at + j), k);
        assert_int_equal(k->block, BN_KEY_BLOCK_CP);
        assert_memory_equal(k->info.path, "routing.", strlen("routing."));
    }
    assert_string_equal(bn_scn_at(at + n)->info.path, "routing.restore_fraction");
    struct bn_scenario sc, def;
    struct bn_error err;
    bn_scenario_defaults(&def);
    sc = def;
    assert_int_equal(bn_scenario_set(&sc, "routing.ethernet.los_us=7", &err), BN_OK);
    for (size_t i = 0; bn_cp_at(i); i++) {
        bool eth = strcmp(bn_cp_at(i)->name, "ethernet") == 0;
        assert_int_equal(memcmp(bn_cp_keys(&sc, bn_cp_at(i)), bn_cp_keys(&def, bn_cp_at(i)),
                                sizeof(struct bn_scenario_cp_block)) != 0,
                         eth);
    }
}

static void test_workload_keys_in_their_blocks(void **state)
{
    (void)state;
    size_t at = bn_scn_index(bn_scn_find("workload.incast_senders")) + 1;
    size_t n = bn_key_modules_nrows(&bn_workload_key_modules);
    assert_true(n >= 9 && n <= BN_WL_KEYS_MAX);
    for (size_t j = 0; j < n; j++) {
        const struct bn_key_row *k = bn_key_modules_row(&bn_workload_key_modules, j);
        assert_ptr_equal(bn_scn_at(at + j), k);
        assert_int_equal(k->block, BN_KEY_BLOCK_WL);
        assert_memory_equal(k->info.path, "workload.", strlen("workload."));
    }
    assert_string_equal(bn_scn_at(at + n)->info.path, "observe.sample_us");
    /* a key set changes its generator's block alone; the offered load is
     * the generator's that offers one */
    struct bn_scenario sc, def;
    struct bn_error err;
    double load = 0, dur = 0;
    bn_scenario_defaults(&def);
    sc = def;
    assert_false(bn_workload_offered_load(&def, &load, &dur)); /* permutation */
    assert_int_equal(bn_scenario_set(&sc, "workload.duration_us=7", &err), BN_OK);
    assert_int_equal(bn_scenario_set(&sc, "workload.kind=poisson", &err), BN_OK);
    assert_true(bn_workload_offered_load(&sc, &load, &dur));
    assert_true(load == 0.3 && dur == 7);
    for (size_t i = 0; bn_workload_at(i); i++) {
        bool poisson = strcmp(bn_workload_at(i)->name, "poisson") == 0;
        assert_int_equal(memcmp(bn_workload_keys(&sc, bn_workload_at(i)),
                                bn_workload_keys(&def, bn_workload_at(i)),
                                sizeof(struct bn_scenario_wl_block)) != 0,
                         poisson);
    }
    assert_string_equal(bn_flow_file(&def), "");
    assert_int_equal(bn_scenario_set(&sc, "workload.flow_file=f.txt", &err), BN_OK);
    assert_string_equal(bn_flow_file(&sc), "f.txt");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choices_are_the_registry),
        cmocka_unit_test(test_index_finds_the_module),
        cmocka_unit_test(test_algo_and_sharp_keys_in_their_blocks),
        cmocka_unit_test(test_control_plane_keys_in_their_blocks),
        cmocka_unit_test(test_workload_keys_in_their_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
