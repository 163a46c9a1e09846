/*
 * Topologies read from files: bnet's text format and ibnetdiscover output
 * (hand-written dumps in tests/topo/data/ following its documented layout)
 * import to the right hosts, switches, tiers and link rates, route, and run;
 * malformed files fail with FILE:LINE and the field at fault.
 */
#include "sim_support.h"

#include "scenario/keys.h"
#include "topo/import.h"

static int plan_file(const char *kind, const char *file, struct bn_topo_info *t,
                     struct bn_error *err)
{
    char k[96], f[600];
    snprintf(k, sizeof k, "topology.kind=%s", kind);
    snprintf(f, sizeof f, "topology.file=%s", file);
    const char *sets[] = {k, f, NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    return bn_plan_topology(&sc, NULL, t, err);
}

static struct bn_topo_info plan_ok(const char *kind, const char *file)
{
    struct bn_topo_info t;
    struct bn_error err = {0};
    if (plan_file(kind, file, &t, &err) != BN_OK)
        fail_msg("%s", err.msg);
    return t;
}

/* The text `body` as a file of this kind must fail with `want` in the message. */
static void fails(const char *kind, const char *body, const char *want)
{
    const char *path = test_tmpfile(body);
    struct bn_topo_info t;
    struct bn_error err = {0};
    assert_int_equal(plan_file(kind, path, &t, &err), BN_EINPUT);
    if (!strstr(err.msg, want))
        fail_msg("error '%s' lacks '%s'", err.msg, want);
    if (!strstr(err.msg, path))
        fail_msg("error '%s' does not name the file", err.msg);
    remove(path);
}

/* As fails(), for a body of n bytes that may hold NULs. */
static void fails_n(const char *kind, const char *body, size_t n, const char *want)
{
    const char *path = test_tmpfile_n(body, n);
    struct bn_topo_info t;
    struct bn_error err = {0};
    assert_int_equal(plan_file(kind, path, &t, &err), BN_EINPUT);
    if (!strstr(err.msg, want) || !strstr(err.msg, path))
        fail_msg("error '%s' lacks '%s' or the file", err.msg, want);
    remove(path);
}

static void test_text_format(void **state)
{
    (void)state;
    struct bn_topo_info t = plan_ok("file", "tests/topo/data/small.topo");
    assert_int_equal(t.hosts, 4);
    assert_int_equal(t.switches, 4);
    assert_int_equal(t.tiers, 2);
    assert_int_equal(t.switches_per_tier[1], 2);
    assert_int_equal(t.switches_per_tier[2], 2);
    assert_int_equal(t.links, 8);
    assert_int_equal(t.diameter_hops, 4);
    assert_int_equal(t.nrates, 2);
    assert_true(t.rates[0].gbps == 800 && t.rates[0].links == 4);
    assert_true(t.rates[1].gbps == 400 && t.rates[1].links == 4);
    assert_int_equal(t.host_copper, 4);
    assert_int_equal(t.fabric_fiber, 4);
    assert_int_equal(t.transceivers, 8);
    /* Clos estimate: min(4 x 400 / 2, 4 x 800 / 2) */
    assert_true(t.bisection_gbps == 800.0);
}

static void test_text_format_errors(void **state)
{
    (void)state;
    fails("file", "host a\nswitch s\nlink a s 100 2\n", ":3: link: expected 'link A B RATE_GBPS");
    fails("file", "host a\nswitch s\nlink a t 100 2 copper\n",
          ":3: link endpoint B: unknown node 't'");
    fails("file", "host a\nswitch s\nlink a s fast 2 copper\n", ":3: link RATE_GBPS: 'fast'");
    fails("file", "host a\nswitch s\nlink a s 100 -1 copper\n", ":3: link LENGTH_M: '-1'");
    fails("file", "host a\nswitch s\nlink a s 100 2 glass\n", ":3: link cable: 'glass'");
    fails("file", "host a\nhost a\n", ":2: node 'a' is already declared on line 1");
    fails("file", "host a\nrouter r\n", ":2: unknown statement 'router'");
    fails("file", "# htsim\nnodes 8\ntiers 3\n", ":2: 'nodes' opens htsim's fat-tree description");
    fails("file", "host a\nswitch s tier x\n", ":2: switch tier");
    fails("file", "host a\nswitch s tier 2\nlink a s 100 2 copper\n",
          ":2: switch 's' is declared tier 2 but its links put it on tier 1");
    fails("file", "host a\nswitch s\nswitch t\nlink a s 100 2 copper\nlink a t 100 2 copper\n",
          ":1: host 'a' has 2 links; each host must attach to exactly one switch");
    fails("file", "host a\nhost b\nlink a b 100 2 copper\n", ":3: link joins two hosts");
    fails("file", "host a\nswitch s\nswitch lone\nlink a s 100 2 copper\n",
          ":3: switch 'lone' is not connected to any host");
    fails("file", "host a\nhost b\nswitch s\nswitch t\nlink a s 100 2 copper\n"
          "link b t 100 2 copper\n", ":2: 'b' cannot reach 'a': the fabric must be one connected");
}

/* The file's links take the bounds of the YAML keys: a rate that rounds to
 * 0 b/s divided by zero in the serialization time (SIGFPE), a slower one
 * ended as "fabric is stuck", and lengths up to 1e9 m were taken. */
static void test_text_format_bounds(void **state)
{
    (void)state;
    const char *head = "host a\nswitch s\n";
    static const struct { const char *link, *want; } bad[] = {
        {"link a s 1e-300 2 copper\n", ":3: link RATE_GBPS: '1e-300' is out of range"},
        {"link a s 1e-400 2 copper\n", ":3: link RATE_GBPS: '1e-400' is out of range"},
        {"link a s 0.0009 2 copper\n", ":3: link RATE_GBPS: '0.0009' is out of range"},
        {"link a s 1e-7 2 copper\n", ":3: link RATE_GBPS: '1e-7' is out of range"},
        {"link a s 1000001 2 copper\n", ":3: link RATE_GBPS: '1000001' is out of range"},
        {"link a s 1e400 2 copper\n", ":3: link RATE_GBPS: '1e400' is out of range"},
        {"link a s 0 2 copper\n", ":3: link RATE_GBPS: '0' is out of range"},
        {"link a s nan 2 copper\n", ":3: link RATE_GBPS: 'nan'"},
        {"link a s 100 1e9 fiber\n", ":3: link LENGTH_M: '1e9' is out of range"},
        {"link a s 100 1000000.5 fiber\n", ":3: link LENGTH_M: '1000000.5' is out of range"},
    };
    char body[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(body, sizeof body, "%s%s", head, bad[i].link);
        fails("file", body, bad[i].want);
    }
    /* the bounds themselves are links */
    const char *edge = test_tmpfile("host a\nhost b\nswitch s\nlink a s 0.001 0 copper\n"
                                    "link b s 1e6 1e6 fiber\n");
    struct bn_topo_info t = plan_ok("file", edge);
    assert_int_equal(t.links, 2);
    remove(edge);
}

/* The readers' bounds are the keys': the same numbers in both places. */
static void test_bounds_match_keys(void **state)
{
    (void)state;
    static const char *const rates[] = {"link.rate_gbps", "link.fabric_rate_gbps"};
    static const char *const lengths[] = {"link.host_cable_m", "link.fabric_cable_m"};
    for (size_t i = 0; i < 2; i++) {
        const struct bn_key_row *k = bn_scn_find(rates[i]);
        assert_non_null(k);
        assert_true(k->lo == BN_DRAFT_RATE_MIN_GBPS && k->hi == BN_DRAFT_RATE_MAX_GBPS);
        k = bn_scn_find(lengths[i]);
        assert_non_null(k);
        assert_true(k->lo == 0 && k->hi == BN_DRAFT_LENGTH_MAX_M);
    }
}

/* A NUL inside a line cut the rest of it off unseen (here the cable kind
 * and a second host's link); such a line is refused with FILE:LINE. */
static void test_nul_byte(void **state)
{
    (void)state;
    static const char topo[] = "host a\nhost b\nswitch s\nlink a s 100 2 copper\0 junk\n"
                               "link b s 100 2 copper\n";
    fails_n("file", topo, sizeof topo - 1, ":4: the line contains a NUL byte");
    static const char ib[] = "Switch 8 \"S-1\"\n[1] \"H-1\"[1] # 4xNDR\n"
                             "[2] \"H-2\"[1] # 4x\0NDR\nCa 1 \"H-1\"\n[1] \"S-1\"[1]\n"
                             "Ca 1 \"H-2\"\n[1] \"S-1\"[2]\n";
    fails_n("ibnetdiscover", ib, sizeof ib - 1, ":3: the line contains a NUL byte");
}

static void test_ibnetdiscover_two_leaf(void **state)
{
    (void)state;
    struct bn_topo_info t = plan_ok("ibnetdiscover", "tests/topo/data/ib_two_leaf.ibnet");
    assert_int_equal(t.hosts, 4);
    assert_int_equal(t.switches, 3);
    assert_int_equal(t.switches_per_tier[1], 2);
    assert_int_equal(t.switches_per_tier[2], 1);
    assert_int_equal(t.links, 8); /* 4 HCA links + 2 x 2 leaf-spine, each listed twice */
    assert_int_equal(t.nrates, 2);
    assert_true(t.rates[0].gbps == 400 && t.rates[0].links == 7); /* 4xNDR */
    assert_true(t.rates[1].gbps == 200 && t.rates[1].links == 1); /* 2xNDR */
    assert_int_equal(t.tier[1].up_links, 4);
    assert_int_equal(t.tier[2].down_links, 4);
    assert_int_equal(t.diameter_hops, 4);
}

static void test_ibnetdiscover_single_switch(void **state)
{
    (void)state;
    struct bn_topo_info t =
        plan_ok("ibnetdiscover", "tests/topo/data/ib_single_switch_hdr.ibnet");
    assert_int_equal(t.hosts, 3);
    assert_int_equal(t.switches, 1);
    assert_int_equal(t.tiers, 1);
    assert_int_equal(t.links, 3);
    assert_true(t.rates[0].gbps == 200 && t.rates[0].links == 2); /* 4xHDR */
    assert_true(t.rates[1].gbps == 50 && t.rates[1].links == 1);  /* 1xHDR */
    assert_int_equal(t.diameter_hops, 2);
}

static void test_ibnetdiscover_errors(void **state)
{
    (void)state;
    fails("ibnetdiscover", "[1]\t\"H-1\"[1]\n", ":1: port line before any Switch or Ca block");
    fails("ibnetdiscover", "Switch 8 \"S-1\"\n[1] \"H-1\"\n", ":2: peer port: expected '[N]'");
    fails("ibnetdiscover", "Switch 8 \"S-1\"\n[x] \"H-1\"[1]\n", ":2: port: expected '[N]'");
    fails("ibnetdiscover", "Switch 8 \"S-1\"\n[1] \"H-1\"[1]\n",
          ":2: peer: \"H-1\" has no Switch or Ca block");
    fails("ibnetdiscover", "Switch 8\n", ":1: Switch: expected the node's quoted id");
    fails("ibnetdiscover", "hello world\n", ":1: not ibnetdiscover output");
    fails("ibnetdiscover", "Rt 2 \"R-1\"\n", ":1: routers (Rt) are not supported");
    /* no port lines: qsort on a NULL array was undefined behaviour (UBSan) */
    fails("ibnetdiscover", "Switch 8 \"S-1\"\nCa 1 \"H-1\"\n", ": no '[port]' lines");
    fails("ibnetdiscover", "", ": no '[port]' lines");
    fails("ibnetdiscover", "vendid=0x2c9\n# only comments\n", ": no '[port]' lines");
    /* a width x speed bnet does not know: refused, not link.rate_gbps */
    fails("ibnetdiscover", "Switch 8 \"S-1\"\n[1] \"H-1\"[1] # \"h\" lid 3 4xZZZ\n"
          "Ca 1 \"H-1\"\n", ":2: link width x speed '4xZZZ' is not one bnet knows");
    fails("ibnetdiscover", "Switch 8 \"S-1\"\n[1] \"H-1\"[1] # lid 3 4x?" "??\nCa 1 \"H-1\"\n",
          ":2: link width x speed '4x?" "?" "?'");
    fails("ibnetdiscover", "Switch 8 \"S-1\"\n[1] \"H-1\"[1] # lid 3 ??xHDR\nCa 1 \"H-1\"\n",
          ":2: link width x speed '??xHDR'");
    fails("ibnetdiscover", "Switch 8 \"S-1\"\n[1] \"H-1\"[1] # lid 3 3xHDR\nCa 1 \"H-1\"\n",
          ":2: link width x speed '3xHDR'");
    fails("ibnetdiscover", "Switch 8 \"S-1\"\n[+1] \"H-1\"[1]\nCa 1 \"H-1\"\n",
          ":2: port: expected '[N]'");
    fails("ibnetdiscover", "Switch 8 \"S-1\"\n[1] \"H-1\"[1]\nCa 1 \"H-1\"\n[1] \"S-1\"[2]\n",
          "is linked to \"H-1\"[1], but line");
}

/* ibnetdiscover -f appends " s=N w=N v=N" after the width x speed (the
 * last word was read, so HDR links came in at link.rate_gbps); -g adds
 * chassis lines and "[ext N]" ports. IBTA: 4x HDR = 200, 2x NDR = 200,
 * 4x EDR = 100, 1x NDR = 100 Gb/s. A quoted description that looks like a
 * rate is not one. */
static void test_ibnetdiscover_full_grouping(void **state)
{
    (void)state;
    const char *path = test_tmpfile(
        "Chassis 1 (guid 0x8f10400411f56)\n"
        "\n# Spine Nodes\n"
        "Non-Chassis Nodes\n"
        "Hostname: node-a\n"
        "sysimgguid=0x8f10400411f56\t\t# Chassis 1 (IB1)\n"
        "switchguid=0x8f10400411f56(8f10400411f56)\t# ISR9288 Line 1\n"
        "Switch\t40 \"S-1\"\t\t# \"edge 1xNDR\" enhanced port 0 lid 4 lmc 0\n"
        "[1][ext 3]\t\"H-a\"[1](a1) \t\t# \"node-a\" lid 20 4xHDR s=4 w=2 v=3\n"
        "[2][ext 4]\t\"H-b\"[1](b1) \t\t# \"node-b\" lid 21 2xNDR s=4 w=16 v=3\n"
        "[3]\t\"H-c\"[1](c1) \t\t# \"node-c\" lid 22 4xEDR s=4 w=2 v=3\n"
        "[4]\t\"H-d\"[1](d1) \t\t# \"node-d\" lid 23 1xNDR s=4 w=1 v=3\n"
        "Ca\t1 \"H-a\"\t\t# \"node-a\"\n"
        "[1](a1) \t\"S-1\"[1][ext 3] (0) \t\t# lid 20 lmc 0 \"edge\" lid 4 4xHDR s=4 w=2 v=3\n"
        "Ca\t1 \"H-b\"\t\t# \"node-b\"\n"
        "Ca\t1 \"H-c\"\t\t# \"node-c\"\n"
        "Ca\t1 \"H-d\"\t\t# \"node-d\"\n");
    struct bn_topo_info t = plan_ok("ibnetdiscover", path);
    remove(path);
    assert_int_equal(t.hosts, 4);
    assert_int_equal(t.links, 4);
    assert_int_equal(t.nrates, 2);
    assert_true(t.rates[0].gbps == 200 && t.rates[0].links == 2); /* 4xHDR, 2xNDR */
    assert_true(t.rates[1].gbps == 100 && t.rates[1].links == 2); /* 4xEDR, 1xNDR */
}

/* The two ends state different widths: the slower is taken (a warning
 * says so); a CA with two cabled ports is two hosts, one a port. */
static void test_ibnetdiscover_mismatch_dual_port(void **state)
{
    (void)state;
    const char *path = test_tmpfile(
        "Switch 8 \"S-1\"\n[1] \"H-1\"[1] # 4xNDR\n[2] \"H-1\"[2] # 4xNDR\n"
        "[3] \"H-2\"[1] # 4xNDR\n"
        "Ca 2 \"H-1\"\n[1] \"S-1\"[1] # 4xNDR\n[2] \"S-1\"[2] # 2xNDR\n"
        "Ca 1 \"H-2\"\n");
    struct bn_topo_info t = plan_ok("ibnetdiscover", path);
    remove(path);
    assert_int_equal(t.hosts, 3);
    assert_int_equal(t.links, 3);
    assert_int_equal(t.nrates, 2);
    assert_true(t.rates[0].gbps == 400 && t.rates[0].links == 2);
    assert_true(t.rates[1].gbps == 200 && t.rates[1].links == 1);
}

/* Port names were cut at 23 bytes, so two long switch names that differ
 * late printed alike; a name too long for the results is refused. */
static void test_long_names_whole(void **state)
{
    (void)state;
    const char *path = test_tmpfile("host h0\nhost h1\n"
                                    "switch leaf-switch-row-a-rack-17-unit-01 tier 1\n"
                                    "switch leaf-switch-row-a-rack-17-unit-02 tier 1\n"
                                    "link h0 leaf-switch-row-a-rack-17-unit-01 100 2 copper\n"
                                    "link h1 leaf-switch-row-a-rack-17-unit-02 100 2 copper\n"
                                    "link leaf-switch-row-a-rack-17-unit-01 "
                                    "leaf-switch-row-a-rack-17-unit-02 100 10 fiber\n");
    char set[BN_PATH_MAX + 32];
    snprintf(set, sizeof set, "topology.file=%s", path);
    const char *sets[] = {"topology.kind=file", set, NULL};
    struct bn_sim *s = test_sim_build(sets);
    char a[BN_TOPO_PORT_NAME_MAX], b[BN_TOPO_PORT_NAME_MAX];
    uint32_t na = bn_topo_find_node(&s->topo, "leaf-switch-row-a-rack-17-unit-01");
    uint32_t nb = bn_topo_find_node(&s->topo, "leaf-switch-row-a-rack-17-unit-02");
    assert_true(na != UINT32_MAX && nb != UINT32_MAX);
    bn_topo_port_name(&s->topo, s->topo.nodes[na].first_port, a, sizeof a);
    bn_topo_port_name(&s->topo, s->topo.nodes[nb].first_port, b, sizeof b);
    assert_string_equal(a, "leaf-switch-row-a-rack-17-unit-01/0");
    assert_string_equal(b, "leaf-switch-row-a-rack-17-unit-02/0");
    assert_int_equal(bn_topo_find_port(&s->topo, b), s->topo.nodes[nb].first_port);
    test_sim_free(s);
    remove(path);
    fails("file", "host h0\nswitch s234567890123456789012345678901234567890123456789012345678901234\n",
          "at most 63");
}

/* HPCC's ns-3 text: 8 hosts on 2 ToRs at 100 Gb/s, 2 spines at 400. A
 * 1 MB flow across it, alone, takes its computed ideal: the 1 us link
 * delays are fiber of 1000 ns / 5 ns per metre, 200 m. */
static void test_ns3(void **state)
{
    (void)state;
    struct bn_topo_info t = plan_ok("ns3", "tests/topo/data/ns3_two_tor.txt");
    assert_int_equal(t.hosts, 8);
    assert_int_equal(t.switches, 4);
    assert_int_equal(t.switches_per_tier[1], 2);
    assert_int_equal(t.switches_per_tier[2], 2);
    assert_int_equal(t.links, 12);
    assert_int_equal(t.nrates, 2);
    assert_int_equal(t.diameter_hops, 4);
    const char *flows = test_tmpfile("0 7 1000000 0\n");
    char ff[128];
    snprintf(ff, sizeof ff, "workload.flow_file=%s", flows);
    const char *sets[] = {"topology.kind=ns3", "topology.file=tests/topo/data/ns3_two_tor.txt",
                          "workload.kind=flow_list", ff, "switch.latency_ns=0",
                          "switch.forwarding=store_and_forward", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results res;
    test_run(&sc, &res);
    remove(flows);
    assert_true(res.flows[0].done);
    assert_float_equal(res.flows[0].fct_us, res.flows[0].ideal_us, 1e-9);
    /* 4 links of 1 us; the first frame (4194 B) through the two 400G hops
     * and the first 100G one, then every frame at 100G: 1,020,106 B */
    double want_ps = 4 * 1e6 + 4194 * 80 + 2 * 4194 * 20 + 1020106.0 * 80;
    assert_float_equal(res.flows[0].ideal_us, want_ps / 1e6, 1e-9);
    bn_results_free(&res);
}

/* HPCC's own layout: the switch is node 0, lines past the declared links
 * (more links, a note) are ignored as ns-3 ignores them, and HPCC's
 * flow.txt names ns-3 node ids: node 2 -> node 1 is host 1 -> host 0. */
static void test_ns3_switch_first(void **state)
{
    (void)state;
    char topo[128], flows[128], tf[160], ff[160]; /* test_tmpfile's name is reused */
    snprintf(topo, sizeof topo, "%s", test_tmpfile("3 1 2\n0\n0 1 100Gbps 1us 0\n"
             "0 2 100Gbps 1us 0\n0 3 25Gbps 1us 0\nFirst line: total node #\n"));
    snprintf(flows, sizeof flows, "%s", test_tmpfile("1\n2 1 3 100 100000 0\n3 1 3 100 5 0\n"));
    snprintf(tf, sizeof tf, "topology.file=%s", topo);
    snprintf(ff, sizeof ff, "workload.flow_file=%s", flows);
    const char *sets[] = {"topology.kind=ns3", tf, "workload.kind=flow_list", ff, NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results res;
    test_run(&sc, &res);
    remove(topo);
    remove(flows);
    assert_int_equal(res.nflows, 1);
    assert_int_equal(res.flows[0].src, 1);
    assert_int_equal(res.flows[0].dst, 0);
    assert_true(res.flows[0].done);
    bn_results_free(&res);
}

static void test_ns3_errors(void **state)
{
    (void)state;
    fails("ns3", "3 1\n", ":1: expected 'NODES SWITCHES LINKS'");
    fails("ns3", "3 1 2\n2 1\n", ":2: expected the 1 switch ids on one line, got 2");
    fails("ns3", "3 1 2\n7\n", ":2: switch id '7' is not a node (0..2)");
    fails("ns3", "3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gb 0.001ms 0\n",
          ":4: RATE '100Gb' is not a data rate");
    fails("ns3", "3 1 2\n2\n0 2 100Gbps 1 0\n", ":3: DELAY '1' is not a time");
    fails("ns3", "3 1 2\n2\n0 2 100Gbps 1us 0.01\n", ":3: ERROR_RATE 0.01: random loss is a fault");
    fails("ns3", "3 1 2\n2\n0 2 100Gbps 1us 0\n", ":1: 2 links declared, 1 given");
    fails("ns3", "3 1 1\n2\n0 2 100Gbps 1us 0\n", ":1: 2 hosts need as many links, and LINKS is 1");
    /* millions of nodes promised, a few lines given: refused at once (a
     * fuzzed input declared 16 million and took 14 s to build them) */
    fails("ns3", "16312762 4 12\n8 9 10 11\n0 8 100Gbps 1us 0\n",
          ":1: 16312758 hosts need as many links, and LINKS is 12");
    fails("ns3", "9000000 1 9000000\n5\n0 5 100Gbps 1us 0\n", ":1: 9000000 links declared, 1 given");
    fails("ns3", "3 1 2\n", "the file ends before its switch ids");
}

static void test_imported_fabric_runs(void **state)
{
    (void)state;
    const char *sets[] = {"topology.kind=ibnetdiscover",
                          "topology.file=tests/topo/data/ib_two_leaf.ibnet",
                          "workload.message_bytes=65536", NULL};
    struct bn_scenario sc;
    test_scenario(&sc, sets);
    struct bn_results res;
    test_run(&sc, &res);
    assert_ledger_balanced(&res);
    bn_results_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_format),
        cmocka_unit_test(test_text_format_errors),
        cmocka_unit_test(test_text_format_bounds),
        cmocka_unit_test(test_bounds_match_keys),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_ibnetdiscover_two_leaf),
        cmocka_unit_test(test_ibnetdiscover_single_switch),
        cmocka_unit_test(test_ibnetdiscover_errors),
        cmocka_unit_test(test_ibnetdiscover_full_grouping),
        cmocka_unit_test(test_ibnetdiscover_mismatch_dual_port),
        cmocka_unit_test(test_long_names_whole),
        cmocka_unit_test(test_ns3),
        cmocka_unit_test(test_ns3_switch_first),
        cmocka_unit_test(test_ns3_errors),
        cmocka_unit_test(test_imported_fabric_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
