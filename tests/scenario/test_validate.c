/*
 * Scenario cross-field validation, the embedded default scenario (equal to
 * the defaults and to scenarios/default.yaml), the shipped example scenarios,
 * and sanity of the key registry itself (types, sizes, choices, unique paths).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bnet/scenario.h"
#include "support.h"
#include "scenario/keys.h"

static struct bn_error err;

static void set_ok(struct bn_scenario *sc, const char *assignment)
{
    if (bn_scenario_set(sc, assignment, &err) != BN_OK)
        fail_msg("unexpected error: %s", err.msg);
}

/* Defaults with `assignments` applied must fail validation with `want`. */
static void invalid(const char *const assignments[], const char *want)
{
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);
    strcpy(sc.source, "s.yaml");
    for (size_t i = 0; assignments[i]; i++)
        set_ok(&sc, assignments[i]);
    memset(&err, 0, sizeof err);
    assert_int_equal(bn_scenario_validate(&sc, &err), BN_EINPUT);
    assert_int_equal(err.status, BN_EINPUT);
    assert_string_equal(err.msg, want);
}
#define INVALID(want, ...) invalid((const char *const[]){ __VA_ARGS__, NULL }, (want))

static void valid(const char *const assignments[])
{
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);
    for (size_t i = 0; assignments[i]; i++)
        set_ok(&sc, assignments[i]);
    if (bn_scenario_validate(&sc, &err) != BN_OK)
        fail_msg("unexpected error: %s", err.msg);
}
#define VALID(...) valid((const char *const[]){ __VA_ARGS__, NULL })

static void yaml_invalid(const char *yaml, const char *const sets[], const char *want);

static void test_topology_k(void **state)
{
    (void)state;
    INVALID("--set topology.k: key 'topology.k': must be even (got 7)", "topology.k=7");
    INVALID("--set topology.k: key 'topology.k': must be at least 2 (got 0)", "topology.k=0");
    INVALID("--set topology.k: key 'topology.k': must be at least 2 (got 1)", "topology.kind=leaf_spine",
            "topology.k=1");
    INVALID("--set topology.k: key 'topology.k': must be at most 256 (got 258)", "topology.k=258");
    VALID("topology.k=2");
    VALID("topology.k=256");
    VALID("topology.kind=leaf_spine", "topology.k=4");
}

static void test_ecn_thresholds(void **state)
{
    (void)state;
    INVALID("--set switch.ecn.kmin_bytes: key 'switch.ecn.kmin_bytes': must be <= switch.ecn.kmax_bytes "
            "(got 500000 > 409600)", "switch.ecn.kmin_bytes=500000");
    VALID("switch.ecn.kmin_bytes=409600");
}

static void test_mtu(void **state)
{
    (void)state;
    INVALID("--set nic.mtu_bytes: key 'nic.mtu_bytes': must be 256..9000 for nic.encap roce (got 9001)",
            "nic.mtu_bytes=9001");
    INVALID("--set nic.mtu_bytes: key 'nic.mtu_bytes': must be 256..9000 for nic.encap roce (got 255)",
            "nic.mtu_bytes=255");
    INVALID("--set nic.mtu_bytes: key 'nic.mtu_bytes': must be 256..4096 for nic.encap ib (got 9000)",
            "nic.encap=ib", "nic.mtu_bytes=9000");
    VALID("nic.mtu_bytes=9000");
    VALID("nic.mtu_bytes=256");
    VALID("nic.encap=ib", "nic.mtu_bytes=4096");
}

/* A lossy buffer below one frame (4096 + 62 B of RoCE headers + RETH 16 +
 * 20 B of wire overhead = 4194 B) ran until "the fabric is stuck" without
 * naming the key; with switch.trim it never ended (every packet trimmed
 * and resent). Both are refused before the run, as credit mode's is. */
static void test_buffer_below_frame(void **state)
{
    (void)state;
    INVALID("--set switch.buffer_bytes: key 'switch.buffer_bytes': 4000 bytes cannot hold one 4194-byte frame "
            "(nic.mtu_bytes 4096 with roce headers) on lossy links", "switch.buffer_bytes=4000");
    INVALID("--set switch.buffer_bytes: key 'switch.buffer_bytes': 4193 bytes cannot hold one 4194-byte frame "
            "(nic.mtu_bytes 4096 with roce headers) on lossy links: every packet would be "
            "trimmed and resent forever", "switch.trim=true", "switch.buffer_bytes=4193");
    INVALID("--set switch.buffer_bytes: key 'switch.buffer_bytes': 1000 bytes cannot hold one 1122-byte frame "
            "(nic.mtu_bytes 1024 with roce headers) on lossy links", "nic.mtu_bytes=1024",
            "switch.buffer_bytes=1000");
    VALID("switch.buffer_bytes=4194");
    VALID("switch.trim=true", "switch.buffer_bytes=4194");
    VALID("nic.mtu_bytes=1024", "switch.buffer_bytes=1122");
    /* lossless modes check their own minimum when they set up */
    VALID("link.flow_control=pfc", "switch.buffer_bytes=4000");
    yaml_invalid("switch:\n  trim: true\n  buffer_bytes: 1500\n", NULL,
                 "x.yaml:3: key 'switch.buffer_bytes': 1500 bytes cannot hold one 4194-byte "
                 "frame (nic.mtu_bytes 4096 with roce headers) on lossy links: every packet "
                 "would be trimmed and resent forever");
}

static void test_workload(void **state)
{
    (void)state;
    INVALID("--set workload.kind: key 'workload.flow_file': must be set when workload.kind is flow_list",
            "workload.kind=flow_list");
    VALID("workload.kind=flow_list", "workload.flow_file=flows.txt");
    VALID("workload.kind=incast", "workload.incast_senders=1");

    struct bn_scenario sc; /* set directly: the registry would refuse 0 */
    bn_scenario_defaults(&sc);
    sc.workload.incast_senders = 0;
    assert_int_equal(bn_scenario_validate(&sc, &err), BN_EINPUT);
    assert_string_equal(err.msg, "<default>: key 'workload.incast_senders': must be at least 1 (got 0)");
}

/* Checks across keys name the line of the key (as single-key errors do),
 * not the file alone; a key the file left at its default takes the line
 * of the key that made it matter; a key from --set is named as "--set KEY". */
static void yaml_invalid(const char *yaml, const char *const sets[], const char *want)
{
    struct bn_scenario sc;
    if (bn_scenario_load_string(&sc, yaml, "x.yaml", &err) != BN_OK)
        fail_msg("%s", err.msg);
    for (size_t i = 0; sets && sets[i]; i++)
        set_ok(&sc, sets[i]);
    assert_int_equal(bn_scenario_validate(&sc, &err), BN_EINPUT);
    assert_string_equal(err.msg, want);
}

static void test_lines_of_keys(void **state)
{
    (void)state;
    yaml_invalid("seed: 1\ntopology:\n  k: 7\n", NULL,
                 "x.yaml:3: key 'topology.k': must be even (got 7)");
    yaml_invalid("nic:\n  encap: ib\n  mtu_bytes: 9000\n", NULL,
                 "x.yaml:3: key 'nic.mtu_bytes': must be 256..4096 for nic.encap ib (got 9000)");
    /* the MTU is the default: the line of the encapsulation that refuses it */
    yaml_invalid("seed: 1\nnic:\n  encap: ib\n", (const char *const[]){"nic.mtu_bytes=9000", NULL},
                 "--set nic.mtu_bytes: key 'nic.mtu_bytes': must be 256..4096 for nic.encap ib (got 9000)");
    yaml_invalid("switch:\n  ecn:\n    kmin_bytes: 500000\n", NULL,
                 "x.yaml:3: key 'switch.ecn.kmin_bytes': must be <= switch.ecn.kmax_bytes "
                 "(got 500000 > 409600)");
    yaml_invalid("seed: 2\nworkload:\n  kind: flow_list\n", NULL,
                 "x.yaml:3: key 'workload.flow_file': must be set when workload.kind is "
                 "flow_list");
    yaml_invalid("link:\n  flow_control: credit\n", NULL,
                 "x.yaml:2: key 'link.flow_control': 'credit' needs nic.encap ib (got roce)");
    /* --set over a file's key: the file's line is not where it came from */
    yaml_invalid("topology:\n  k: 8\n", (const char *const[]){"topology.k=7", NULL},
                 "--set topology.k: key 'topology.k': must be even (got 7)");
    char buf[64];
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);
    assert_string_equal(bn_scenario_where(&sc, "topology.k", buf, sizeof buf), "<default>");
}

/* ---- the default scenario and the example files ---- */

static void assert_same_keys(const struct bn_scenario *a, const struct bn_scenario *b)
{
    for (size_t i = 0; i < bn_scn_count(); i++) {
        const struct bn_key_row *k = bn_scn_at(i);
        size_t at = bn_scn_offset(k);
        if (memcmp((const char *)a + at, (const char *)b + at, k->size) != 0)
            fail_msg("key %s differs", k->info.path);
    }
}

static void test_default_yaml_is_defaults(void **state)
{
    (void)state;
    struct bn_scenario def, sc;
    bn_scenario_defaults(&def);
    memset(&sc, 0xAB, sizeof sc);
    if (bn_scenario_load_string(&sc, bn_scenario_default_yaml(), "<default>", &err) != BN_OK)
        fail_msg("embedded default does not load: %s", err.msg);
    assert_same_keys(&sc, &def);
    assert_string_equal(sc.source, "<default>");
    assert_int_equal(bn_scenario_validate(&sc, &err), BN_OK);
}

static void test_default_yaml_mentions_every_key(void **state)
{
    (void)state;
    const char *yaml = bn_scenario_default_yaml();
    for (size_t i = 0; i < bn_scn_count(); i++) {
        const char *path = bn_scn_at(i)->info.path;
        const char *leaf = strrchr(path, '.');
        char want[80];
        snprintf(want, sizeof want, "%s:", leaf ? leaf + 1 : path);
        if (!strstr(yaml, want))
            fail_msg("default scenario does not show key %s", path);
    }
}

static void test_default_file_matches_embedded(void **state)
{
    (void)state;
    char *text = test_read_file("scenarios/default.yaml");
    assert_string_equal(text, bn_scenario_default_yaml());
    free(text);
}

/* The cluster `bnet` and `bnet coll` run without a file: 16 servers x 8
 * GPUs, 400 Gb/s NICs, an AllReduce sweep from 8 B to 1 GiB. */
static void test_job_file_matches_embedded(void **state)
{
    (void)state;
    char *text = test_read_file("scenarios/job_default.yaml");
    assert_string_equal(text, bn_scenario_job_yaml());
    free(text);
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);
    if (bn_scenario_load_string(&sc, bn_scenario_job_yaml(), "<j>", &err) != BN_OK ||
        bn_scenario_validate(&sc, &err) != BN_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(sc.njobs, 1);
    assert_int_equal(sc.jobs[0].tp * sc.jobs[0].dp, 128);
}

static void test_cluster_file_matches_embedded(void **state)
{
    (void)state;
    char *text = test_read_file("scenarios/cluster128.yaml");
    assert_string_equal(text, bn_scenario_cluster_yaml());
    free(text);
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);
    if (bn_scenario_load_string(&sc, text = (char *)bn_scenario_cluster_yaml(), "<c>", &err) != BN_OK ||
        bn_scenario_validate(&sc, &err) != BN_OK)
        fail_msg("%s", err.msg);
    /* 8 GPUs x 16 servers x 1 SU: 128 GPUs on 16 servers */
    assert_int_equal(sc.topology.gpus_per_server, 8);
    assert_key(&sc, "topology.servers_per_su", "16");
    assert_key(&sc, "topology.scalable_units", "1");
    assert_true(sc.link.rate_gbps == 400.0);
    assert_int_equal(sc.scale_up.domain_gpus, 8);
    assert_key(&sc, "coll.op", "allreduce");
    assert_int_equal(sc.coll.min_bytes, 8);
    assert_int_equal(sc.coll.max_bytes, 1073741824);
}

static void load_example(struct bn_scenario *sc, const char *path)
{
    if (bn_scenario_load_file(sc, path, &err) != BN_OK || bn_scenario_validate(sc, &err) != BN_OK)
        fail_msg("%s", err.msg);
    assert_string_equal(sc->source, path);
}

static void test_examples(void **state)
{
    (void)state;
    struct bn_scenario sc;
    load_example(&sc, "scenarios/leaf_spine_incast.yaml");
    assert_key(&sc, "topology.kind", "leaf_spine");
    assert_int_equal(sc.topology.k, 8);
    assert_key(&sc, "workload.kind", "incast");
    assert_int_equal(sc.workload.incast_senders, 16);
    assert_key(&sc, "workload.incast_receiver", "0");
    assert_int_equal(sc.workload.message_bytes, 1000000);

    load_example(&sc, "scenarios/all_to_all.yaml");
    assert_key(&sc, "topology.kind", "fat_tree");
    assert_int_equal(sc.topology.k, 4);
    assert_key(&sc, "workload.kind", "all_to_all");
    assert_int_equal(sc.workload.message_bytes, 64000);
}

/* bnet p2p's default is scenarios/p2p_ib_ndr.yaml; each preset's p2p
 * scenario puts two hosts of its fabric under one switch. */
static void test_p2p_files(void **state)
{
    (void)state;
    char *text = test_read_file("scenarios/p2p_ib_ndr.yaml");
    assert_string_equal(text, bn_scenario_p2p_yaml());
    free(text);
    static const char *const files[][2] = {
        {"scenarios/p2p_ib_ndr.yaml", "ib-ndr"}, {"scenarios/p2p_ib_xdr.yaml", "ib-xdr"},
        {"scenarios/p2p_roce_400g.yaml", "roce-400g"},
        {"scenarios/p2p_roce_800g.yaml", "roce-800g"},
        {"scenarios/p2p_uec_800g.yaml", "uec-800g"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        struct bn_scenario sc;
        load_example(&sc, files[i][0]);
        assert_key(&sc, "fabric", files[i][1]);
        assert_key(&sc, "topology.kind", "leaf_spine");
        assert_string_equal(sc.p2p.hosts, "0,1");
        assert_true(sc.nic.tx_ns > 0 && sc.host.pcie_gen >= 5); /* the preset's NIC */
    }
}

/* ---- the registry ---- */

static void check_key_shape(const struct bn_key_row *k)
{
    static const char *const names[] = { "int", "float", "bool", "string", "enum" };
    const char *p = k->info.path;
    assert_string_equal(k->info.type, names[k->kind]);
    assert_non_null(k->info.unit);
    assert_non_null(k->info.def);
    assert_true(k->info.doc && k->info.doc[0]);
    assert_true(p[0] && p[strlen(p) - 1] != '.' && !strstr(p, ".."));
    assert_true((k->info.choice != NULL) == (k->kind == BN_KEY_ENUM));
    switch (k->kind) {
    case BN_KEY_INT: assert_true(k->size == 4 || k->size == 8); break;
    case BN_KEY_FLOAT: assert_int_equal(k->size, sizeof(double)); break;
    case BN_KEY_BOOL: assert_int_equal(k->size, sizeof(bool)); break;
    case BN_KEY_ENUM: assert_int_equal(k->size, sizeof(uint8_t)); break;
    default: assert_true(k->size >= BN_NAME_MAX); break;
    }
    assert_true(bn_scn_offset(k) + k->size <= sizeof(struct bn_scenario));
    if (k->block) /* a module's key: within its block */
        assert_true(k->block == BN_KEY_BLOCK_CC   ? k->offset + k->size <= BN_SC_CC_BLOCK_BYTES
                    : k->block == BN_KEY_BLOCK_LB ? k->offset + k->size <= BN_SC_LB_BLOCK_BYTES
                    : k->block == BN_KEY_BLOCK_FC ? k->offset + k->size <= BN_SC_FC_BLOCK_BYTES
                    : k->block == BN_KEY_BLOCK_TOPO
                        ? k->offset + k->size <= BN_SC_TOPO_BLOCK_BYTES
                    : k->block == BN_KEY_BLOCK_TP ? k->offset + k->size <= BN_SC_TP_BLOCK_BYTES
                    : k->block == BN_KEY_BLOCK_FAULT
                        ? k->offset + k->size <= BN_SC_FAULT_KIND_BLOCK_BYTES
                    : k->block == BN_KEY_BLOCK_ALGO ? k->offset + k->size <= BN_SC_ALGO_BLOCK_BYTES
                    : k->block == BN_KEY_BLOCK_AGG ? k->offset + k->size <= BN_SC_AGG_BLOCK_BYTES
                    : k->block == BN_KEY_BLOCK_CP ? k->offset + k->size <= BN_SC_CP_BLOCK_BYTES
                    : k->block == BN_KEY_BLOCK_WL &&
                          k->offset + k->size <= BN_SC_WL_BLOCK_BYTES);
}

static void test_registry(void **state)
{
    (void)state;
    assert_int_equal(bn_scenario_key_count(), bn_scn_count());
    assert_null(bn_scenario_key(bn_scenario_key_count()));
    for (size_t i = 0; i < bn_scn_count(); i++) {
        const struct bn_key_row *k = bn_scn_at(i);
        check_key_shape(k);
        assert_ptr_equal(bn_scenario_key(i), &k->info);
        assert_ptr_equal(bn_scn_find(k->info.path), k);
        for (size_t j = 0; j < i; j++) {
            const struct bn_key_row *o = bn_scn_at(j);
            assert_string_not_equal(o->info.path, k->info.path);
            size_t ko = bn_scn_offset(k), oo = bn_scn_offset(o);
            assert_true(oo + o->size <= ko || ko + k->size <= oo);
        }
    }
    assert_non_null(bn_scn_find("switch.ecn.kmin_bytes"));
    assert_null(bn_scn_find("sw.latency_ns"));
    assert_true(bn_scn_is_section("switch.ecn"));
    assert_false(bn_scn_is_section("switch.ecn.pmax"));
}

static void test_registry_covers_struct(void **state)
{
    (void)state;
    /* Every byte of every field belongs to some key: add up the sizes of the
     * keys and of `source`; only padding may be left over. */
    size_t total = sizeof(((struct bn_scenario *)0)->source) +
                   sizeof(((struct bn_scenario *)0)->nfaults) +
                   sizeof(((struct bn_scenario *)0)->njobs) +
                   sizeof(((struct bn_scenario *)0)->job_key_line) +
                   sizeof(((struct bn_scenario *)0)->key_line) +
                   /* the modules' blocks: room each module's own struct fills */
                   sizeof(((struct bn_scenario *)0)->cc) +
                   sizeof(((struct bn_scenario *)0)->lb) +
                   sizeof(((struct bn_scenario *)0)->fc) +
                   sizeof(((struct bn_scenario *)0)->topo) +
                   sizeof(((struct bn_scenario *)0)->tp) +
                   sizeof(((struct bn_scenario *)0)->algo) +
                   sizeof(((struct bn_scenario *)0)->agg) +
                   sizeof(((struct bn_scenario *)0)->cp) +
                   sizeof(((struct bn_scenario *)0)->wl);
    const struct bn_scn_list *l;
    for (size_t li = 0; (l = bn_scn_list_at(li)) != NULL; li++) {
        /* a list's keys, once per item; a faults[] item's kinds' blocks */
        size_t item = l == bn_scn_list_find("faults")
                          ? sizeof(((struct bn_scenario_fault *)0)->kinds)
                          : 0;
        for (size_t i = 0; i < bn_scn_count(); i++)
            if (bn_scn_list_of(bn_scn_at(i)) == l && !bn_scn_at(i)->block)
                item += bn_scn_at(i)->size;
        /* an item's own padding, once per item, is not a field without a key */
        assert_true(l->stride - item < 8);
        total += l->stride * l->max;
    }
    for (size_t i = 0; i < bn_scn_count(); i++)
        total += bn_scn_at(i)->list || bn_scn_at(i)->block ? 0 : bn_scn_at(i)->size;
    assert_true(total <= sizeof(struct bn_scenario));
    /* a few bytes per section, and the alignment after 1-byte enum indices */
    printf("scenario: %zu bytes, %zu of them padding\n", sizeof(struct bn_scenario),
           sizeof(struct bn_scenario) - total);
    assert_true(sizeof(struct bn_scenario) - total < 160);
    assert_int_equal(bn_scn_count(), bn_scenario_key_count());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_topology_k),
        cmocka_unit_test(test_ecn_thresholds),
        cmocka_unit_test(test_mtu),
        cmocka_unit_test(test_workload),
        cmocka_unit_test(test_lines_of_keys),
        cmocka_unit_test(test_buffer_below_frame),
        cmocka_unit_test(test_default_yaml_is_defaults),
        cmocka_unit_test(test_default_yaml_mentions_every_key),
        cmocka_unit_test(test_default_file_matches_embedded),
        cmocka_unit_test(test_cluster_file_matches_embedded),
        cmocka_unit_test(test_job_file_matches_embedded),
        cmocka_unit_test(test_p2p_files),
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_registry_covers_struct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
