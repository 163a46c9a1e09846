/*
 * Scenario loading and --set overrides: defaults, a full file, integer
 * suffixes, and every error class (each asserting status 2, FILE:LINE and the
 * key in the one-line message), plus a fuzz-ish pass over malformed input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bnet/scenario.h"
#include "support.h"
#include "nic/nic.h"
#include "scenario/keys.h"

static struct bn_error err;

/* ---- helpers ---- */

static void check_error(int rc, const char *const want[])
{
    assert_int_equal(rc, BN_EINPUT);
    assert_int_equal(err.status, BN_EINPUT);
    assert_null(strchr(err.msg, '\n'));
    for (size_t i = 0; want[i]; i++)
        if (!strstr(err.msg, want[i]))
            fail_msg("message \"%s\" lacks \"%s\"", err.msg, want[i]);
}

/* Load `yaml` as t.yaml; it must fail with every `want` part in the message,
 * and leave the scenario untouched. */
static void load_fails(const char *yaml, const char *const want[])
{
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);
    sc.seed = 77;
    int rc = bn_scenario_load_string(&sc, yaml, "t.yaml", &err);
    check_error(rc, want);
    assert_int_equal(sc.seed, 77);
    assert_string_equal(sc.source, "<default>");
}
#define LOAD_FAILS(yaml, ...) load_fails((yaml), (const char *const[]){ __VA_ARGS__, NULL })

/* "(valid top-level keys: seed, ..., nic, dcqcn, ..., ibcc, host, ...)":
 * the congestion controls' sections (their keys' registry, in its order)
 * after nic, so a new module's section needs no edit here. */
static const char *top_level_keys(const char *lead)
{
    static char buf[512];
    size_t used = (size_t)snprintf(buf, sizeof buf, "%s top-level keys: seed, fabric, topology, "
                                   "link, switch, pfc, nic", lead);
    char last[32] = "";
    for (size_t j = 0; bn_key_modules_row(&bn_cc_key_modules, j); j++) {
        const char *path = bn_key_modules_row(&bn_cc_key_modules, j)->info.path;
        int n = (int)strcspn(path, ".");
        if ((int)strlen(last) == n && strncmp(last, path, (size_t)n) == 0)
            continue;
        snprintf(last, sizeof last, "%.*s", n, path);
        used += (size_t)snprintf(buf + used, sizeof buf - used, ", %s", last);
    }
    snprintf(buf + used, sizeof buf - used, ", host, workload, observe, routing, faults, jobs, "
             "sim, scale_up, cost, compare, p2p, coll, sharp%s", lead[0] == '(' ? ")" : "");
    return buf;
}

static void set_fails(const char *assignment, const char *const want[])
{
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);
    check_error(bn_scenario_set(&sc, assignment, &err), want);
}
#define SET_FAILS(a, ...) set_fails((a), (const char *const[]){ __VA_ARGS__, NULL })

static void load_ok(struct bn_scenario *sc, const char *yaml)
{
    bn_scenario_defaults(sc);
    int rc = bn_scenario_load_string(sc, yaml, "t.yaml", &err);
    if (rc != BN_OK)
        fail_msg("unexpected error %d: %s", rc, err.msg);
}

static void set_ok(struct bn_scenario *sc, const char *assignment)
{
    int rc = bn_scenario_set(sc, assignment, &err);
    if (rc != BN_OK)
        fail_msg("unexpected error %d: %s", rc, err.msg);
}

/* Every registry field equal in a and b (source is not a key). */
static void assert_same_keys(const struct bn_scenario *a, const struct bn_scenario *b)
{
    for (size_t i = 0; i < bn_scn_count(); i++) {
        const struct bn_key_row *k = bn_scn_at(i);
        size_t at = bn_scn_offset(k);
        if (memcmp((const char *)a + at, (const char *)b + at, k->size) != 0)
            fail_msg("key %s differs", k->info.path);
    }
}

/* ---- defaults and valid input ---- */

static void test_defaults(void **state)
{
    (void)state;
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);
    assert_string_equal(sc.source, "<default>");
    assert_int_equal(sc.seed, 1);
    assert_key(&sc, "topology.kind", "fat_tree");
    assert_int_equal(sc.topology.k, 8);
    assert_true(sc.link.rate_gbps == 100.0);
    assert_true(sc.link.fabric_rate_gbps == 0.0);
    assert_true(sc.link.host_cable_m == 2.0);
    assert_key(&sc, "link.host_cable", "copper");
    assert_true(sc.link.fabric_cable_m == 10.0);
    assert_key(&sc, "link.fabric_cable", "fiber");
    assert_true(sc.link.copper_ns_per_m == 4.3);
    assert_true(sc.link.fiber_ns_per_m == 5.0);
    assert_true(sc.link.fec_ns == 0.0);
    assert_true(sc.sw.latency_ns == 300.0);
    assert_key(&sc, "switch.forwarding", "cut_through");
    assert_int_equal(sc.sw.buffer_bytes, 1048576);
    assert_key(&sc, "switch.load_balancing", "ecmp");
    assert_true(sc.sw.ecn.enabled);
    assert_int_equal(sc.sw.ecn.kmin_bytes, 102400);
    assert_int_equal(sc.sw.ecn.kmax_bytes, 409600);
    assert_true(sc.sw.ecn.pmax == 0.2);
    assert_key(&sc, "nic.encap", "roce");
    assert_int_equal(sc.nic.mtu_bytes, 4096);
    assert_key(&sc, "nic.transport", "go_back_n");
    assert_key(&sc, "nic.congestion_control", "none");
    assert_true(sc.nic.rto_us == 0.0); /* unset: chosen by link.flow_control */
    assert_int_equal(sc.nic.ack_every, 1);
    assert_key(&sc, "workload.kind", "permutation");
    assert_int_equal(sc.workload.message_bytes, 2000000);
    assert_key(&sc, "workload.verb", "write");
    assert_true(sc.workload.start_us == 0.0);
    assert_int_equal(sc.workload.incast_senders, 8);
    assert_key(&sc, "workload.incast_receiver", "0");
    assert_key(&sc, "workload.flow_file", "");
    assert_true(sc.sim.max_time_us == 0.0);
    assert_int_equal(bn_scenario_validate(&sc, &err), BN_OK);
}

static void test_empty_documents_are_defaults(void **state)
{
    (void)state;
    static const char *const empties[] = {
        "", "\n", "# only a comment\n", "---\n", "---\n...\n", "~\n", "null\n",
    };
    struct bn_scenario def, sc;
    bn_scenario_defaults(&def);
    for (size_t i = 0; i < sizeof empties / sizeof empties[0]; i++) {
        load_ok(&sc, empties[i]);
        assert_same_keys(&sc, &def);
        assert_string_equal(sc.source, "t.yaml");
    }
}

static const char full_yaml[] =
    "seed: 42\n"
    "topology: {kind: leaf_spine, k: 16}\n"
    "link:\n"
    "  rate_gbps: 400\n"
    "  fabric_rate_gbps: 800\n"
    "  host_cable_m: 1.5\n"
    "  host_cable: fiber\n"
    "  fabric_cable_m: 30\n"
    "  fabric_cable: copper\n"
    "  copper_ns_per_m: 4.0\n"
    "  fiber_ns_per_m: 4.9\n"
    "  fec_ns: 100\n"
    "switch:\n"
    "  latency_ns: 450.5\n"
    "  forwarding: store_and_forward\n"
    "  buffer_bytes: 32MiB\n"
    "  load_balancing: ecmp\n"
    "  ecn:\n"
    "    enabled: no\n"
    "    kmin_bytes: 50KB\n"
    "    kmax_bytes: 1MB\n"
    "    pmax: 1\n"
    "nic:\n"
    "  encap: ib\n"
    "  mtu_bytes: 2048\n"
    "  transport: go_back_n\n"
    "  congestion_control: none\n"
    "  rto_us: 2.5e3\n"
    "  ack_every: 4\n"
    "workload:\n"
    "  kind: flow_list\n"
    "  message_bytes: 4KiB\n"
    "  verb: send\n"
    "  start_us: 10\n"
    "  incast_senders: 3\n"
    "  incast_receiver: 5\n"
    "  flow_file: 'flows/a b.txt'\n"
    "sim:\n"
    "  max_time_us: 1000\n";

static void test_full_file(void **state)
{
    (void)state;
    struct bn_scenario sc;
    load_ok(&sc, full_yaml);
    assert_string_equal(sc.source, "t.yaml");
    assert_int_equal(sc.seed, 42);
    assert_key(&sc, "topology.kind", "leaf_spine");
    assert_int_equal(sc.topology.k, 16);
    assert_true(sc.link.rate_gbps == 400.0);
    assert_true(sc.link.fabric_rate_gbps == 800.0);
    assert_true(sc.link.host_cable_m == 1.5);
    assert_key(&sc, "link.host_cable", "fiber");
    assert_true(sc.link.fabric_cable_m == 30.0);
    assert_key(&sc, "link.fabric_cable", "copper");
    assert_true(sc.link.copper_ns_per_m == 4.0);
    assert_true(sc.link.fiber_ns_per_m == 4.9);
    assert_true(sc.link.fec_ns == 100.0);
    assert_true(sc.sw.latency_ns == 450.5);
    assert_key(&sc, "switch.forwarding", "store_and_forward");
    assert_int_equal(sc.sw.buffer_bytes, 32u * 1024 * 1024);
    assert_false(sc.sw.ecn.enabled);
    assert_int_equal(sc.sw.ecn.kmin_bytes, 50000);
    assert_int_equal(sc.sw.ecn.kmax_bytes, 1000000);
    assert_true(sc.sw.ecn.pmax == 1.0);
    assert_key(&sc, "nic.encap", "ib");
    assert_int_equal(sc.nic.mtu_bytes, 2048);
    assert_true(sc.nic.rto_us == 2500.0);
    assert_int_equal(sc.nic.ack_every, 4);
    assert_key(&sc, "workload.kind", "flow_list");
    assert_int_equal(sc.workload.message_bytes, 4096);
    assert_key(&sc, "workload.verb", "send");
    assert_true(sc.workload.start_us == 10.0);
    assert_int_equal(sc.workload.incast_senders, 3);
    assert_key(&sc, "workload.incast_receiver", "5");
    assert_key(&sc, "workload.flow_file", "flows/a b.txt");
    assert_true(sc.sim.max_time_us == 1000.0);
    assert_int_equal(bn_scenario_validate(&sc, &err), BN_OK);
}

static void test_partial_file_keeps_defaults(void **state)
{
    (void)state;
    struct bn_scenario sc;
    load_ok(&sc, "link:\n  rate_gbps: 200\nnic:\n");
    assert_true(sc.link.rate_gbps == 200.0);
    assert_true(sc.link.fabric_cable_m == 10.0);
    assert_int_equal(sc.nic.mtu_bytes, 4096);
    assert_int_equal(sc.topology.k, 8);
}

static void test_integer_suffixes(void **state)
{
    (void)state;
    static const struct { const char *text; uint64_t want; } cases[] = {
        { "2MB", 2000000 }, { "4KiB", 4096 }, { "5", 5 }, { "7B", 7 },
        { "1K", 1000 }, { "1k", 1000 }, { "1kB", 1000 }, { "3M", 3000000 },
        { "2G", 2000000000 }, { "2Ki", 2048 }, { "2Mi", 2097152 }, { "1GiB", 1073741824 },
        { "1000000000000", 1000000000000ULL },
    };
    struct bn_scenario sc;
    char buf[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(buf, sizeof buf, "workload:\n  message_bytes: %s\n", cases[i].text);
        load_ok(&sc, buf);
        assert_int_equal(sc.workload.message_bytes, cases[i].want);
        bn_scenario_defaults(&sc);
        snprintf(buf, sizeof buf, "workload.message_bytes=%s", cases[i].text);
        set_ok(&sc, buf);
        assert_int_equal(sc.workload.message_bytes, cases[i].want);
    }
}

static void test_bad_integers(void **state)
{
    (void)state;
    static const char *const not_int[] = {
        "2 MB", "2mb", "MB", "2KB5", "+5", "0x10", "1.5K", "1e3", "2iB", "2KiBB", "five",
    };
    char buf[128];
    for (size_t i = 0; i < sizeof not_int / sizeof not_int[0]; i++) {
        snprintf(buf, sizeof buf, "workload.message_bytes=%s", not_int[i]);
        SET_FAILS(buf, "key 'workload.message_bytes': '", "' is not an integer (expected an integer");
    }
    SET_FAILS("workload.message_bytes=-1", "-1 is out of range");
    SET_FAILS("workload.message_bytes=0", "0 is out of range (expected an integer in bytes from 1 to");
    SET_FAILS("workload.message_bytes=18446744073709551616", "is out of range");
    SET_FAILS("workload.message_bytes=20000000000G", "is out of range");
    SET_FAILS("workload.message_bytes=1000000000001", "is out of range");
    /* seeds stop at 2^53-1, the largest integer every JSON reader keeps exact */
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);
    set_ok(&sc, "seed=9007199254740991");
    assert_true(sc.seed == 9007199254740991ULL);
    SET_FAILS("seed=9007199254740992", "is out of range");
    /* 32-bit fields reject what does not fit in 32 bits */
    SET_FAILS("nic.mtu_bytes=4294967296", "key 'nic.mtu_bytes': 4294967296 is out of range",
              "to 4294967295)");
    SET_FAILS("nic.mtu_bytes=4Gi", "key 'nic.mtu_bytes': 4Gi is out of range");
    bn_scenario_defaults(&sc);
    set_ok(&sc, "workload.incast_receiver=4294967295");
    assert_key(&sc, "workload.incast_receiver", "4294967295");
}

static void test_floats_and_bools(void **state)
{
    (void)state;
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);
    set_ok(&sc, "link.rate_gbps=.5");
    assert_true(sc.link.rate_gbps == 0.5);
    set_ok(&sc, "link.rate_gbps=1e2");
    assert_true(sc.link.rate_gbps == 100.0);
    set_ok(&sc, "link.fec_ns=-0");
    set_ok(&sc, "switch.ecn.pmax=0");
    static const char *const yes[] = { "true", "yes", "on", "TRUE", "Yes" };
    static const char *const no[] = { "false", "no", "off", "False", "OFF" };
    char buf[64];
    for (size_t i = 0; i < 5; i++) {
        snprintf(buf, sizeof buf, "switch.ecn.enabled=%s", no[i]);
        set_ok(&sc, buf);
        assert_false(sc.sw.ecn.enabled);
        snprintf(buf, sizeof buf, "switch.ecn.enabled=%s", yes[i]);
        set_ok(&sc, buf);
        assert_true(sc.sw.ecn.enabled);
    }
    SET_FAILS("link.rate_gbps=nan", "'nan' is not a number");
    SET_FAILS("link.rate_gbps=inf", "'inf' is not a number");
    SET_FAILS("link.rate_gbps=1e999", "1e999 is out of range");
    SET_FAILS("link.rate_gbps=0x10", "'0x10' is not a number");
    SET_FAILS("link.rate_gbps=1.2.3", "'1.2.3' is not a number");
    SET_FAILS("switch.ecn.enabled=1", "key 'switch.ecn.enabled': '1' is not true or false",
              "(expected true/false, yes/no or on/off)");
}

/* ---- --set ---- */

static void test_set_overrides(void **state)
{
    (void)state;
    struct bn_scenario sc;
    load_ok(&sc, "link:\n  rate_gbps: 200\n");
    set_ok(&sc, "link.rate_gbps=400");
    set_ok(&sc, "topology.kind=leaf_spine");
    set_ok(&sc, "  topology.k = 16 ");
    set_ok(&sc, "switch.ecn.kmin_bytes=10KiB");
    set_ok(&sc, "workload.flow_file=a=b.txt");
    set_ok(&sc, "seed=9007199254740991");
    assert_true(sc.link.rate_gbps == 400.0);
    assert_key(&sc, "topology.kind", "leaf_spine");
    assert_int_equal(sc.topology.k, 16);
    assert_int_equal(sc.sw.ecn.kmin_bytes, 10240);
    assert_key(&sc, "workload.flow_file", "a=b.txt");
    assert_true(sc.seed == 9007199254740991ULL);
    assert_string_equal(sc.source, "t.yaml");
    set_ok(&sc, "workload.flow_file=");
    assert_key(&sc, "workload.flow_file", "");
}

static void test_set_errors(void **state)
{
    (void)state;
    SET_FAILS("link.rate_gbps", "--set 'link.rate_gbps': expected key=value");
    SET_FAILS("", "--set '': expected key=value");
    SET_FAILS("=5", "--set '=5': expected key=value");
    SET_FAILS(" =5", "--set ' =5': expected key=value");
    SET_FAILS("link.rat=4", "--set 'link.rat=4': key 'link.rat': unknown key",
              "valid keys in 'link': rate_gbps, fabric_rate_gbps");
    SET_FAILS("bogus=4", "--set 'bogus=4': key 'bogus': unknown key", top_level_keys("valid"));
    SET_FAILS("switch.ecn.x.y=1", "key 'switch.ecn.x.y': unknown key",
              "valid keys in 'switch.ecn': enabled, kmin_bytes, kmax_bytes, pmax");
    SET_FAILS("switch=1", "key 'switch': is a section, not a key",
              "latency_ns, forwarding, buffer_bytes, load_balancing, lb_per_tier, ecmp_fields, ecmp_salt, ar_metric, ar_band_bytes, flowlet_gap_us, flowlet_slots, trim, control_reserve_bytes, nonminimal, ecn");
    SET_FAILS("link.rate_gbps=fast", "--set 'link.rate_gbps=fast': key 'link.rate_gbps': "
              "'fast' is not a number (expected a number in Gb/s from 0.001 to 1e+06)");
    SET_FAILS("link.rate_gbps=", "key 'link.rate_gbps': missing value");
    SET_FAILS("link.fabric_rate_gbps=0", "key 'link.fabric_rate_gbps': 0 is out of range");
    SET_FAILS("link.fabric_rate_gbps=-100", "key 'link.fabric_rate_gbps': -100 is out of range");
    SET_FAILS("nic.encap=ethernet", "key 'nic.encap': 'ethernet' is not a valid choice "
              "(expected one of: roce, ib)");
}

/* ---- YAML errors ---- */

static void test_unknown_keys(void **state)
{
    (void)state;
    LOAD_FAILS("seed: 1\nsede: 2\n", "t.yaml:2: key 'sede': unknown key",
               top_level_keys("(valid"));
    LOAD_FAILS("link:\n  rate_gbps: 1\n  rate: 4\n", "t.yaml:3: key 'link.rate': unknown key",
               "(valid keys in 'link': rate_gbps, fabric_rate_gbps, host_cable_m, host_cable, "
               "fabric_cable_m, fabric_cable, copper_ns_per_m, fiber_ns_per_m, fec_ns, flow_control)");
    LOAD_FAILS("switch:\n  ecn:\n    kmin: 1\n", "t.yaml:3: key 'switch.ecn.kmin': unknown key",
               "(valid keys in 'switch.ecn': enabled, kmin_bytes, kmax_bytes, pmax)");
    LOAD_FAILS("link.rate_gbps: 400\n", "t.yaml:1: key 'link.rate_gbps': unknown key",
               "nest mappings");
    LOAD_FAILS("link:\n  '': 3\n", "t.yaml:2: key 'link.': empty key name",
               "valid keys in 'link'");
    LOAD_FAILS("? [a, b]\n: 1\n", "t.yaml:1: a key must be a name, not a sequence");
    LOAD_FAILS("nic:\n  ? {a: 1}\n  : 2\n", "t.yaml:2: key 'nic': a key must be a name, not a mapping");
}

static void test_wrong_types(void **state)
{
    (void)state;
    LOAD_FAILS("link:\n  rate_gbps: fast\n",
               "t.yaml:2: key 'link.rate_gbps': 'fast' is not a number (expected a number in Gb/s from 0.001 to 1e+06)");
    LOAD_FAILS("topology:\n  k: eight\n",
               "t.yaml:2: key 'topology.k': 'eight' is not an integer (expected an integer");
    LOAD_FAILS("nic:\n  mtu_bytes: \"4096\"\n",
               "t.yaml:2: key 'nic.mtu_bytes': got the quoted string \"4096\" (expected an integer");
    LOAD_FAILS("switch:\n  ecn:\n    enabled: 'true'\n",
               "t.yaml:3: key 'switch.ecn.enabled': got the quoted string");
    LOAD_FAILS("link:\n  rate_gbps:\n    a: 1\n",
               "t.yaml:3: key 'link.rate_gbps': got a mapping (expected a number in Gb/s from 0.001 to 1e+06)");
    LOAD_FAILS("link:\n  rate_gbps: [1, 2]\n",
               "t.yaml:2: key 'link.rate_gbps': got a sequence (expected a number");
    LOAD_FAILS("seed:\n", "key 'seed': missing value (expected an integer");
    LOAD_FAILS("seed: ~\n", "t.yaml:1: key 'seed': missing value");
    LOAD_FAILS("\n\nlink: 5\n", "t.yaml:3: key 'link': got a scalar '5' (expected a mapping with keys: "
               "rate_gbps, fabric_rate_gbps");
    LOAD_FAILS("switch:\n  ecn: [1]\n", "t.yaml:2: key 'switch.ecn': got a sequence "
               "(expected a mapping with keys: enabled, kmin_bytes, kmax_bytes, pmax)");
    LOAD_FAILS("workload:\n  flow_file: {a: b}\n", "t.yaml:2: key 'workload.flow_file': got a mapping",
               "(expected text of at most 511 bytes)");
    LOAD_FAILS("seed: \"1\\0\"\n", "t.yaml:1: key 'seed': value contains a NUL byte");
}

/* Nesting is capped while the parser's events are read: 400 KB of nested
 * brackets took 82 s inside libyaml before the error; now the 33rd level
 * stops it. Block nesting is capped the same way, with its line. */
static void test_nesting_depth(void **state)
{
    (void)state;
    size_t n = 200000;
    char *yaml = malloc(2 * n + 8);
    assert_non_null(yaml);
    memcpy(yaml, "seed: ", 6);
    memset(yaml + 6, '[', n);
    memset(yaml + 6 + n, ']', n);
    yaml[6 + 2 * n] = '\n';
    yaml[7 + 2 * n] = '\0';
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    LOAD_FAILS(yaml, "t.yaml:1: YAML nested more than 32 levels deep");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_true(s < 5.0); /* milliseconds when capped; minutes when not */
    free(yaml);

    char block[4096] = "";
    size_t used = 0;
    for (int d = 0; d < 40; d++) /* "a:\n b:\n  c:..." one level per line */
        used += (size_t)snprintf(block + used, sizeof block - used, "%*sk%d:\n", d, "", d);
    snprintf(block + used, sizeof block - used, "%*sv: 1\n", 40, "");
    LOAD_FAILS(block, "t.yaml:33: YAML nested more than 32 levels deep");
    /* 32 levels are read (and refused for their keys, not their depth) */
    used = 0;
    for (int d = 0; d < 31; d++)
        used += (size_t)snprintf(block + used, sizeof block - used, "%*sk%d:\n", d, "", d);
    snprintf(block + used, sizeof block - used, "%*sv: 1\n", 31, "");
    LOAD_FAILS(block, "t.yaml:1: key 'k0': unknown key");
}

static void test_out_of_bounds(void **state)
{
    (void)state;
    LOAD_FAILS("link:\n  rate_gbps: -5\n",
               "t.yaml:2: key 'link.rate_gbps': -5 is out of range (expected a number in Gb/s from 0.001 to 1e+06)");
    LOAD_FAILS("link:\n  rate_gbps: 0\n", "t.yaml:2: key 'link.rate_gbps': 0 is out of range");
    LOAD_FAILS("link:\n  fabric_rate_gbps: 0\n", "t.yaml:2: key 'link.fabric_rate_gbps': 0 is out of range");
    LOAD_FAILS("link:\n  fec_ns: -1\n", "t.yaml:2: key 'link.fec_ns': -1 is out of range (expected a number in ns from 0 to 1e+09)");
    LOAD_FAILS("switch:\n  latency_ns: -0.5\n", "t.yaml:2: key 'switch.latency_ns': -0.5 is out of range");
    LOAD_FAILS("switch:\n  buffer_bytes: 0\n", "t.yaml:2: key 'switch.buffer_bytes': 0 is out of range");
    LOAD_FAILS("switch:\n  ecn:\n    pmax: 1.01\n",
               "t.yaml:3: key 'switch.ecn.pmax': 1.01 is out of range (expected a number from 0 to 1)");
    LOAD_FAILS("nic:\n  rto_us: 0\n", "t.yaml:2: key 'nic.rto_us': 0 is out of range");
    LOAD_FAILS("nic:\n  ack_every: 0\n", "t.yaml:2: key 'nic.ack_every': 0 is out of range",
               "from 1 to 4294967295");
    LOAD_FAILS("nic:\n  mtu_bytes: 5000000000\n", "t.yaml:2: key 'nic.mtu_bytes': 5000000000 is out of range");
    LOAD_FAILS("workload:\n  message_bytes: 0\n", "t.yaml:2: key 'workload.message_bytes': 0 is out of range");
    LOAD_FAILS("workload:\n  incast_senders: 0\n", "t.yaml:2: key 'workload.incast_senders': 0 is out of range");
    LOAD_FAILS("workload:\n  start_us: -1\n", "t.yaml:2: key 'workload.start_us': -1 is out of range");
    LOAD_FAILS("sim:\n  max_time_us: -1\n", "t.yaml:2: key 'sim.max_time_us': -1 is out of range");
    LOAD_FAILS("seed: 99999999999999999999999\n", "t.yaml:1: key 'seed': 99999999999999999999999 is out of range");
    LOAD_FAILS("link:\n  host_cable_m: 1e999\n", "t.yaml:2: key 'link.host_cable_m': 1e999 is out of range");
}

/* The refusal of `bad` for enum key `path` (line 2 of t.yaml), its
 * choices read from the registry. */
static void choices_refused(char *want, size_t len, const char *path, const char *bad)
{
    size_t used = (size_t)snprintf(want, len, "t.yaml:2: key '%s': '%s' is not a valid choice "
                                   "(expected one of: ", path, bad);
    for (unsigned i = 0; bn_scenario_choice(path, i); i++)
        used += (size_t)snprintf(want + used, len - used, "%s%s", i ? ", " : "",
                                 bn_scenario_choice(path, i));
    snprintf(want + used, len - used, ")");
}

static void test_bad_enum(void **state)
{
    (void)state;
    /* the builders and the workloads, as their registries list them (a new
     * one needs no edit here) */
    char want[512];
    choices_refused(want, sizeof want, "topology.kind", "torus");
    assert_non_null(strstr(want, "fat_tree, leaf_spine, rail_optimized, dragonfly_plus, file"));
    LOAD_FAILS("topology:\n  kind: torus\n", want);
    choices_refused(want, sizeof want, "workload.kind", "Incast");
    assert_non_null(strstr(want, "(expected one of: permutation, incast, all_to_all, flow_list, "
                                 "poisson"));
    LOAD_FAILS("workload:\n  kind: Incast\n", want);
    LOAD_FAILS("switch:\n  forwarding: ''\n", "t.yaml:2: key 'switch.forwarding': missing value",
               "cut_through, store_and_forward");
    LOAD_FAILS("nic:\n  transport: rc\n", "key 'nic.transport'", "(expected one of: go_back_n, selective_repeat)");
}

static void test_duplicates(void **state)
{
    (void)state;
    LOAD_FAILS("seed: 1\nlink: {}\nseed: 2\n", "t.yaml:3: key 'seed': duplicate key (first given on line 1)");
    LOAD_FAILS("nic:\n  mtu_bytes: 1024\n\n  mtu_bytes: 2048\n",
               "t.yaml:4: key 'nic.mtu_bytes': duplicate key (first given on line 2)");
    LOAD_FAILS("link: {}\nlink: {}\n", "t.yaml:2: key 'link': duplicate key (first given on line 1)");
}

static void test_string_too_long(void **state)
{
    (void)state;
    char yaml[1024] = "workload:\n  flow_file: ";
    size_t n = strlen(yaml);
    memset(yaml + n, 'x', 600);
    strcpy(yaml + n + 600, "\n");
    LOAD_FAILS(yaml, "t.yaml:2: key 'workload.flow_file': value is 600 bytes long "
               "(expected text of at most 511 bytes)");
    memset(yaml + n, 'y', 511);
    strcpy(yaml + n + 511, "\n");
    struct bn_scenario sc;
    load_ok(&sc, yaml);
    char file[BN_PATH_MAX];
    assert_int_equal(bn_scenario_get(&sc, "workload.flow_file", file, sizeof file), BN_OK);
    assert_int_equal(strlen(file), 511);
}

static void test_syntax_errors(void **state)
{
    (void)state;
    LOAD_FAILS("seed: 1\nlink: [1, 2\n", "t.yaml:3: YAML syntax error: did not find expected ',' or ']'");
    LOAD_FAILS("seed: 1\n\tlink: 4\n", "t.yaml:2: YAML syntax error: found a tab character");
    LOAD_FAILS("link:\n  rate_gbps: 1\n  @x: 2\n",
               "t.yaml:3: YAML syntax error: found character that cannot start any token");
    LOAD_FAILS("seed: 1\nlink:\n  a: b: c\n", "t.yaml:3: YAML syntax error: mapping values are not allowed");
    LOAD_FAILS("seed: *nothing\n", "t.yaml:1: YAML syntax error: found undefined alias");
    LOAD_FAILS("seed: 1\nnic:\n  encap: \"roce\n", "t.yaml:", "YAML syntax error: found unexpected end of stream");
    LOAD_FAILS("seed: 1\nlink:\n  fec_ns: \xff\n", "t.yaml:3: YAML syntax error: invalid leading UTF-8 octet");
}

static void test_document_shape(void **state)
{
    (void)state;
    LOAD_FAILS("- seed\n- 1\n", "t.yaml:1: the document must be a mapping of keys (got a sequence)");
    LOAD_FAILS("\nhello\n", "t.yaml:2: the document must be a mapping of keys (got a scalar)");
    LOAD_FAILS("seed: 1\n---\nseed: 2\n", "t.yaml:3: only one YAML document is allowed");
}

static void test_aliases(void **state)
{
    (void)state;
    struct bn_scenario sc;
    load_ok(&sc, "seed: &s 5\nworkload:\n  incast_receiver: *s\n");
    assert_key(&sc, "workload.incast_receiver", "5");
    LOAD_FAILS("link: &l {rate_gbps: 5}\nnic: *l\n", "t.yaml:1: key 'nic.rate_gbps': unknown key",
               "valid keys in 'nic'");
}

/* ---- files ---- */

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

#define WRITE_LITERAL(path, lit) write_file((path), (lit), sizeof(lit) - 1)

static void test_files(void **state)
{
    (void)state;
    char path[] = "/tmp/bnet_scenario_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);

    WRITE_LITERAL(path, "topology:\n  k: 4\n");
    assert_int_equal(bn_scenario_load_file(&sc, path, &err), BN_OK);
    assert_int_equal(sc.topology.k, 4);
    assert_string_equal(sc.source, path);

    WRITE_LITERAL(path, "seed: 1\nlink:\n  rate_gbps: -1\n");
    assert_int_equal(bn_scenario_load_file(&sc, path, &err), BN_EINPUT);
    char want[128];
    snprintf(want, sizeof want, "%s:3: key 'link.rate_gbps': -1 is out of range", path);
    if (strncmp(err.msg, want, strlen(want)) != 0)
        fail_msg("message \"%s\" does not start with \"%s\"", err.msg, want);

    WRITE_LITERAL(path, "seed: 1\x00\nlink: 4\n"); /* a NUL byte inside the file */
    assert_int_equal(bn_scenario_load_file(&sc, path, &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, path));

    unlink(path);
    assert_int_equal(bn_scenario_load_file(&sc, path, &err), BN_EINPUT);
    snprintf(want, sizeof want, "%s: cannot open scenario file: No such file or directory", path);
    assert_string_equal(err.msg, want);
    assert_int_equal(bn_scenario_load_file(&sc, "/tmp", &err), BN_EINPUT);
    assert_string_equal(err.msg, "/tmp: cannot open scenario file: Is a directory");
    assert_int_equal(sc.topology.k, 4); /* failed loads changed nothing */
}

/* ---- fuzz-ish ---- */

static void load_any(const char *yaml)
{
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);
    memset(&err, 0, sizeof err);
    int rc = bn_scenario_load_string(&sc, yaml, "fuzz.yaml", &err);
    if (rc == BN_OK) {
        (void)bn_scenario_validate(&sc, &err);
        return;
    }
    if (rc != BN_EINPUT)
        fail_msg("status %d for input \"%s\": %s", rc, yaml, err.msg);
    assert_int_equal(err.status, BN_EINPUT);
    assert_true(strncmp(err.msg, "fuzz.yaml", 9) == 0);
    assert_null(strchr(err.msg, '\n'));
}

static void test_fuzz_fixed(void **state)
{
    (void)state;
    static const char *const inputs[] = {
        ":", "::", "-", "- - -", "[", "]", "{", "}", "{a", "&", "*", "!", "!!int", "|", ">",
        "%YAML 1.1\n", "%YAML 9.9\n---\n", "%TAG ! tag:x\n---\na: 1", "'", "\"", "\"\\x\"",
        "seed: !!binary aGVsbG8=", "seed: !custom 3", "? ", "? a\n? a\n", "a:\n- b\n- c",
        "seed: &a 1\nseed2: *a", "&a [*a]", "a: &a\n  b: *a", "\t", "\tseed: 1", "seed:\t1",
        "seed: 1\n\t", "\xef\xbb\xbfseed: 1", "\xfe\xff", "\xc3\x28: 1", "seed: \xe2\x82",
        "\x80\x81\x82", "seed: 184467440737095516150000000000000000000",
        "link: {rate_gbps: 1e308}", "link: {rate_gbps: -1e308}", "link: {rate_gbps: 1e-320}",
        "link: {rate_gbps: 00000000000000000000000000000000001}", ": 1", "'': ''",
        "? : :", "seed: 1\n...\n...\n", "---\n---\n", "--- |\n  text\n", "seed: 1 # c\n#\n",
        "topology: {kind: fat_tree, kind: leaf_spine}", "switch: {ecn: {ecn: {ecn: 1}}}",
        "switch:\n  ecn:\n", "switch:\n  ecn:\n    enabled:\n", "workload: {flow_file: ~}",
        "workload: {flow_file: 12}", "nic: {mtu_bytes: 9001}", "topology: {k: 0}",
        "a: b\n c: d", "a:\n  b\n c", "seed: 1\r\nlink: {}\r\n", "seed: 1\rlink: {}",
        "\"seed\": 1", "'seed': 2", "? seed\n: 3", "!!map {seed: 1}", "!!seq [1]",
        "seed: [1, {a: [2, {b: 3}]}]", "link: {rate_gbps: {rate_gbps: {}}}",
        "nic: {encap: \"\\u0000\"}", "workload: {flow_file: \"\\0\"}", "\"\\0\": 1",
        "seed: 1\nlink: &x\n  rate_gbps: 5\nswitch: *x", "x: &x [*x]",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
        load_any(inputs[i]);
}

/* A word's characters are one class: a cut inside a word reads as a cut at its end. */
static int char_class(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' ? 'w' : (unsigned char)c;
}

/* The default scenario cut short at every boundary between tokens outside
 * comments (a cut inside a word or a comment is read as one at its edge):
 * 1.6 k of its 18 k prefixes, each loaded whole. */
static void test_fuzz_truncations(void **state)
{
    (void)state;
    const char *base = bn_scenario_default_yaml();
    size_t n = strlen(base), tried = 0;
    char *buf = malloc(n + 1);
    assert_non_null(buf);
    bool comment = false;
    for (size_t cut = 0; cut <= n; cut++) {
        if (cut > 0) {
            comment = base[cut - 1] == '#' ? true : base[cut - 1] == '\n' ? false : comment;
            if (cut < n && (comment || char_class(base[cut]) == char_class(base[cut - 1])))
                continue;
        }
        memcpy(buf, base, cut);
        buf[cut] = '\0';
        load_any(buf);
        tried++;
    }
    assert_true(tried > 1000 && tried < n / 4);
    free(buf);
}

static uint32_t rng_next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static void test_fuzz_mutations(void **state)
{
    (void)state;
    static const char bytes[] = ":-[]{}&*!|>?%@`'\"#,\t\n \\0123456789.KMGiBe\xff\x80\xc3";
    const char *base = bn_scenario_default_yaml();
    size_t n = strlen(base);
    char *buf = malloc(n + 16);
    assert_non_null(buf);
    uint32_t seed = 12345;
    for (int iter = 0; iter < 3000; iter++) {
        size_t len = n;
        memcpy(buf, base, n);
        for (int m = 0, count = 1 + (int)(rng_next(&seed) % 4); m < count; m++) {
            size_t at = rng_next(&seed) % len;
            char c = bytes[rng_next(&seed) % (sizeof bytes - 1)];
            switch (rng_next(&seed) % 3) {
            case 0: buf[at] = c; break;
            case 1: memmove(buf + at + 1, buf + at, len - at); buf[at] = c; len++; break;
            default: memmove(buf + at, buf + at + 1, len - at - 1); len--; break;
            }
        }
        buf[len] = '\0';
        load_any(buf);
    }
    free(buf);
}

static void test_fuzz_set(void **state)
{
    (void)state;
    static const char *const inputs[] = {
        "=", "==", "a=b=c", ".=1", "..=1", "link.=1", ".link=1", "link..rate_gbps=1",
        "seed=1=2", "seed= ", "seed=\t5\t", "seed=\xff", "\xff=1", "switch.ecn=1",
        "switch.ecn.=1", "workload.flow_file=\x01\x02", "nic.encap=roce ", "sim.max_time_us=1e",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        struct bn_scenario sc;
        bn_scenario_defaults(&sc);
        int rc = bn_scenario_set(&sc, inputs[i], &err);
        assert_true(rc == BN_OK || (rc == BN_EINPUT && strncmp(err.msg, "--set '", 7) == 0));
        if (rc)
            assert_null(strchr(err.msg, '\n'));
    }
    char long_set[2048] = "workload.flow_file=";
    memset(long_set + strlen(long_set), 'z', 1500);
    struct bn_scenario sc;
    bn_scenario_defaults(&sc);
    assert_int_equal(bn_scenario_set(&sc, long_set, &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, "value is 1500 bytes long"));
    assert_true(strlen(err.msg) < 400); /* the assignment is shown shortened */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_empty_documents_are_defaults),
        cmocka_unit_test(test_full_file),
        cmocka_unit_test(test_partial_file_keeps_defaults),
        cmocka_unit_test(test_integer_suffixes),
        cmocka_unit_test(test_bad_integers),
        cmocka_unit_test(test_floats_and_bools),
        cmocka_unit_test(test_set_overrides),
        cmocka_unit_test(test_set_errors),
        cmocka_unit_test(test_unknown_keys),
        cmocka_unit_test(test_wrong_types),
        cmocka_unit_test(test_out_of_bounds),
        cmocka_unit_test(test_bad_enum),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_string_too_long),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_document_shape),
        cmocka_unit_test(test_aliases),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_fuzz_fixed),
        cmocka_unit_test(test_nesting_depth),
        cmocka_unit_test(test_fuzz_truncations),
        cmocka_unit_test(test_fuzz_mutations),
        cmocka_unit_test(test_fuzz_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
