/*
 * The result outputs: the JSON's new keys (flow and congestion control, pause
 * and CNP totals, ports, time series) read back with jansson, the four CSV
 * files, and the text summary's port rankings. The run is a small lossy
 * incast that overflows the receiver's leaf port.
 */
#include <jansson.h>
#include <unistd.h>

#include "support.h"

#include "bnet/coll.h"

static const char *const incast_sets[] = {
    "topology.k=4", "workload.kind=incast", "workload.incast_senders=8",
    "workload.message_bytes=200000", "switch.buffer_bytes=65536", NULL,
};

struct fixture {
    struct bn_scenario sc;
    struct bn_results r;
    char dir[64];
    char path[128];
};

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    test_scenario(&fx->sc, incast_sets);
    test_run(&fx->sc, &fx->r);
    snprintf(fx->dir, sizeof fx->dir, "/tmp/bnet_outputs_XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    static const char *const names[] = {"r.json", "r2.json", "x-flows.csv", "x-ports.csv",
                                        "x-rates.csv", "x-queues.csv"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(fx->path, sizeof fx->path, "%s/%s", fx->dir, names[i]);
        unlink(fx->path);
    }
    rmdir(fx->dir);
    bn_results_free(&fx->r);
    free(fx);
    return 0;
}

static const char *in_dir(struct fixture *fx, const char *name)
{
    snprintf(fx->path, sizeof fx->path, "%s/%s", fx->dir, name);
    return fx->path;
}

static json_t *write_and_load(struct fixture *fx, const char *name)
{
    struct bn_error err = {0};
    const char *path = in_dir(fx, name);
    if (bn_results_write_json(&fx->r, path, BN_JSON_REPRODUCIBLE, &err) != BN_OK)
        fail_msg("write JSON: %s", err.msg);
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root)
        fail_msg("%s:%d: %s", path, jerr.line, jerr.text);
    return root;
}

static json_t *get(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        fail_msg("no key '%s'", key);
    return v;
}

static json_int_t get_int(const json_t *obj, const char *key)
{
    json_t *v = get(obj, key);
    assert_true(json_is_integer(v));
    return json_integer_value(v);
}

/* The ports[] entry named `name`, or NULL. */
static json_t *find_port(json_t *ports, const char *name)
{
    size_t i;
    json_t *p;
    json_array_foreach(ports, i, p)
        if (strcmp(json_string_value(get(p, "name")), name) == 0)
            return p;
    return NULL;
}

static double array_max(const json_t *a)
{
    size_t i;
    json_t *v;
    double max = 0;
    json_array_foreach(a, i, v)
        if (json_number_value(v) > max)
            max = json_number_value(v);
    return max;
}

static void test_json_top_level_and_summary(void **state)
{
    struct fixture *fx = *state;
    json_t *root = write_and_load(fx, "r.json");
    assert_string_equal(json_string_value(get(root, "flow_control")), "lossy");
    assert_string_equal(json_string_value(get(root, "congestion_control")), "none");
    json_t *s = get(root, "summary");
    assert_int_equal(get_int(s, "pause_frames"), 0);
    assert_int_equal(get_int(s, "resume_frames"), 0);
    assert_int_equal(get_int(s, "cnps"), 0);
    assert_true(get_int(s, "drops") > 0);
    assert_true(json_is_array(get(root, "ports")));
    assert_true(json_is_object(get(root, "series")));
    json_decref(root);
}

static void test_json_series(void **state)
{
    struct fixture *fx = *state;
    json_t *root = write_and_load(fx, "r.json");
    json_t *series = get(root, "series");
    double step = json_real_value(get(series, "interval_us"));
    assert_true(step == fx->sc.observe.sample_us);
    json_t *t = get(series, "t_us");
    size_t n = json_array_size(t);
    assert_true(n > 2);
    assert_int_equal(n, fx->r.series.nsamples);
    for (size_t k = 1; k < n; k++) {
        double d = json_real_value(json_array_get(t, k)) - json_real_value(json_array_get(t, k - 1));
        assert_true(d > 0);
        assert_true(d > step - 1e-6 && d < step + 1e-6);
    }
    json_t *flows = get(series, "flows");
    assert_int_equal(json_array_size(flows), fx->r.nflows); /* 8 <= observe.max_flows */
    size_t i;
    json_t *f;
    json_array_foreach(flows, i, f) {
        assert_int_equal(get_int(f, "flow"), i);
        assert_int_equal(get_int(f, "src"), fx->r.flows[i].src);
        assert_int_equal(get_int(f, "dst"), fx->r.flows[i].dst);
        assert_int_equal(json_array_size(get(f, "rate_gbps")), n);
        assert_int_equal(json_array_size(get(f, "alpha")), n);
    }
    json_decref(root);
}

/* All flows go to one receiver, so the one auto-selected queue is the leaf
 * port facing it: it fills up to the buffer and drops. */
static void test_json_queue_and_ports(void **state)
{
    struct fixture *fx = *state;
    json_t *root = write_and_load(fx, "r.json");
    json_t *queues = get(get(root, "series"), "queues");
    assert_int_equal(json_array_size(queues), 1);
    json_t *q = json_array_get(queues, 0);
    const char *name = json_string_value(get(q, "port"));
    json_t *bytes = get(q, "bytes");
    assert_int_equal(json_array_size(bytes), fx->r.series.nsamples);
    double max = array_max(bytes);
    assert_true(max > 0);
    assert_true(max <= (double)fx->sc.sw.buffer_bytes);

    json_t *ports = get(root, "ports");
    json_t *p = find_port(ports, name);
    if (!p)
        fail_msg("queue port %s not in ports[]", name);
    char receiver[32];
    snprintf(receiver, sizeof receiver, "host%u", fx->r.flows[0].dst);
    assert_string_equal(json_string_value(get(p, "peer")), receiver);
    assert_true(get_int(p, "drops") > 0);

    json_int_t sum = 0;
    size_t i;
    json_t *e;
    json_array_foreach(ports, i, e)
        sum += get_int(e, "drops");
    assert_int_equal(sum, get_int(get(root, "summary"), "drops"));
    json_decref(root);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s: not written", path);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int c;
    while ((c = fgetc(f)) != EOF)
        fputc(c, m);
    fclose(m);
    fclose(f);
    return buf;
}

/* A second run of the same scenario gives the same JSON, byte for byte. */
static void test_json_byte_identical(void **state)
{
    struct fixture *fx = *state;
    struct bn_results again;
    struct bn_error err = {0};
    test_run(&fx->sc, &again);
    assert_int_equal(bn_results_write_json(&fx->r, in_dir(fx, "r.json"), BN_JSON_REPRODUCIBLE,
                                           &err), BN_OK);
    char *a = slurp(fx->path);
    assert_int_equal(bn_results_write_json(&again, in_dir(fx, "r2.json"), BN_JSON_REPRODUCIBLE,
                                           &err), BN_OK);
    char *b = slurp(fx->path);
    bn_results_free(&again);
    assert_true(strlen(a) > 1000);
    assert_string_equal(a, b);
    free(a);
    free(b);
}

static long count_lines(const char *path, char *first, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("%s: not written", path);
    long n = 0;
    int c, prev = '\n';
    size_t at = 0;
    while ((c = fgetc(f)) != EOF) {
        if (n == 0 && c != '\n' && at + 1 < len)
            first[at++] = (char)c;
        n += c == '\n';
        prev = c;
    }
    fclose(f);
    first[at] = '\0';
    assert_int_equal(prev, '\n');
    return n;
}

static void test_csv_files(void **state)
{
    struct fixture *fx = *state;
    struct bn_error err = {0};
    char prefix[96], header[256];
    snprintf(prefix, sizeof prefix, "%s/x", fx->dir);
    assert_int_equal(bn_results_write_csv(&fx->r, prefix, &err), BN_OK);
    const struct bn_series *sr = &fx->r.series;

    assert_int_equal(count_lines(in_dir(fx, "x-flows.csv"), header, sizeof header),
                     1 + fx->r.nflows);
    assert_string_equal(header, "src,dst,bytes,start_us,fct_us,ack_us,throughput_gbps,"
                                "retransmits,timeouts,done,ideal_us,slowdown");
    assert_int_equal(count_lines(in_dir(fx, "x-ports.csv"), header, sizeof header),
                     1 + fx->r.nports);
    assert_string_equal(header, "name,peer,utilization,tx_bytes,drops,ecn_marks,pause_sent,"
                                "pause_received,paused_fraction");
    assert_int_equal(count_lines(in_dir(fx, "x-rates.csv"), header, sizeof header),
                     1 + (long)sr->nsamples * sr->nflows);
    assert_string_equal(header, "t_us,flow,rate_gbps,alpha,delivered_bytes,cwnd_bytes");
    assert_int_equal(count_lines(in_dir(fx, "x-queues.csv"), header, sizeof header),
                     1 + (long)sr->nsamples * sr->nqueues);
    assert_string_equal(header, "t_us,port,bytes");
}

/* RFC 4180: a name holding a comma or a quote is quoted, its quotes
 * doubled; before, the field ran into the next column. */
static void test_csv_quotes_names(void **state)
{
    struct fixture *fx = *state;
    struct bn_error err = {0};
    char prefix[96], saved[sizeof fx->r.ports[0].name], line[512] = "";
    memcpy(saved, fx->r.ports[0].name, sizeof saved);
    snprintf(fx->r.ports[0].name, sizeof fx->r.ports[0].name, "row a, \"rack\" 1/3");
    snprintf(prefix, sizeof prefix, "%s/q", fx->dir);
    int rc = bn_results_write_csv(&fx->r, prefix, &err);
    memcpy(fx->r.ports[0].name, saved, sizeof saved);
    assert_int_equal(rc, BN_OK);
    FILE *f = fopen(in_dir(fx, "q-ports.csv"), "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f)); /* the header */
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_true(strncmp(line, "\"row a, \"\"rack\"\" 1/3\",", 20) == 0);
}

static void test_csv_cannot_open(void **state)
{
    struct fixture *fx = *state;
    struct bn_error err = {0};
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%s/no/such/dir/x", fx->dir);
    assert_int_equal(bn_results_write_csv(&fx->r, prefix, &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, "/no/such/dir/x-flows.csv"));
    assert_null(strchr(err.msg, '\n'));
}

/* A scenario path (or a node name) that is not UTF-8 silently dropped its
 * member from the JSON: jansson refuses such text. Invalid bytes are now
 * written as U+FFFD and the member stays. */
static void test_json_not_utf8(void **state)
{
    struct fixture *fx = *state;
    char saved[sizeof fx->r.scenario], port[sizeof fx->r.ports[0].name];
    memcpy(saved, fx->r.scenario, sizeof saved);
    memcpy(port, fx->r.ports[0].name, sizeof port);
    snprintf(fx->r.scenario, sizeof fx->r.scenario, "caf\xe9/\xc3\xa9t\xe9.yaml");
    snprintf(fx->r.ports[0].name, sizeof fx->r.ports[0].name, "t\xffr/1");
    json_t *root = write_and_load(fx, "r.json");
    memcpy(fx->r.scenario, saved, sizeof saved);
    memcpy(fx->r.ports[0].name, port, sizeof port);
    json_t *sc = json_object_get(root, "scenario");
    assert_non_null(sc);
    assert_string_equal(json_string_value(sc), "caf\xef\xbf\xbd/\xc3\xa9t\xef\xbf\xbd.yaml");
    json_t *ports = get(root, "ports");
    assert_int_equal(json_array_size(ports), fx->r.nports);
    assert_non_null(find_port(ports, "t\xef\xbf\xbdr/1"));
    json_decref(root);
}

/* A write that fails (a full disk) is an error naming the file, not a
 * silent short file. */
static void test_json_write_fails(void **state)
{
    struct fixture *fx = *state;
    struct bn_error err = {0};
    if (access("/dev/full", W_OK) != 0)
        skip();
    assert_int_equal(bn_results_write_json(&fx->r, "/dev/full", 0, &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, "/dev/full: cannot write JSON"));
}

/* ---- text summary, on hand-made results */

static char *print_to_string(const struct bn_results *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    bn_results_print(f, r);
    fclose(f);
    return buf;
}

static void fake_port(struct bn_port_result *p, const char *name, uint64_t marks, double paused)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->ecn_marks = marks;
    p->paused_fraction = paused;
}

static void test_summary_rankings(void **state)
{
    (void)state;
    struct bn_port_result ports[5];
    fake_port(&ports[0], "tor0/1", 5, 0.10);
    fake_port(&ports[1], "tor1/2", 7, 0.0);
    fake_port(&ports[2], "agg0/0", 5, 0.412);
    fake_port(&ports[3], "agg1/3", 7, 0.10);
    fake_port(&ports[4], "core0/0", 0, 0.05);
    struct bn_results r = {0};
    snprintf(r.flow_control, sizeof r.flow_control, "pfc");
    snprintf(r.congestion_control, sizeof r.congestion_control, "dcqcn");
    snprintf(r.notifications, sizeof r.notifications, "CNPs");
    r.fc_pauses = true;
    r.ports = ports;
    r.nports = 5;
    r.ecn_marks = 24;
    r.pause_frames = 12;
    r.resume_frames = 11;
    r.cnps = 3;
    char *text = print_to_string(&r);
    assert_non_null(strstr(text, "\nfabric          pfc links, dcqcn congestion control\n"));
    assert_non_null(strstr(text, "\nECN marks       24; most marked: tor1/2 7, agg1/3 7, "
                                 "tor0/1 5\n"));
    assert_non_null(strstr(text, "\npauses          12 sent (11 resumes); most paused: "
                                 "agg0/0 41.2%, tor0/1 10.0%, agg1/3 10.0%\n"));
    assert_non_null(strstr(text, "\nCNPs            3\n"));
    free(text);
}

static void test_summary_lossy_no_cc(void **state)
{
    struct fixture *fx = *state;
    char *text = print_to_string(&fx->r);
    assert_non_null(strstr(text, "\nfabric          lossy links, no congestion control\n"));
    assert_null(strstr(text, "\npauses "));
    assert_null(strstr(text, "\nCNPs "));
    assert_non_null(strstr(text, "\nECN marks       "));
    free(text);
}

/* Plurals and spacing of the one-line headers: "1 ranks", "1 minimal
 * paths" and "file fabric , 100 Gb/s" (no NVLink) read wrong. */
static void test_header_wording(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    struct bn_coll_results c = {.nranks = 1, .gpus_per_server = 1, .nic_gbps = 100};
    snprintf(c.op, sizeof c.op, "allreduce");
    snprintf(c.topo.kind, sizeof c.topo.kind, "file");
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    bn_coll_print_header(f, &c);
    c.nranks = 16;
    c.gpus_per_server = 8;
    c.topo.scaleup_domains = 2;
    bn_coll_print_header(f, &c);
    struct bn_topo_info t = {.planned = true, .paths_asked = true, .minimal_paths = 1,
                             .path_hops = 2};
    snprintf(t.kind, sizeof t.kind, "file");
    bn_topo_info_print(f, &t);
    t.minimal_paths = 4;
    t.path_hops = 1;
    bn_topo_info_print(f, &t);
    fclose(f);
    assert_non_null(strstr(buf, "# bnet coll: allreduce, 1 rank (1 GPU per server), file fabric, "
                                "100 Gb/s NICs\n"));
    assert_non_null(strstr(buf, "# bnet coll: allreduce, 16 ranks (8 GPUs per server), file "
                                "fabric + NVLink, 100 Gb/s NICs\n"));
    assert_non_null(strstr(buf, ": 1 minimal path of 2 hops\n"));
    assert_non_null(strstr(buf, ": 4 minimal paths of 1 hop\n"));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_top_level_and_summary),
        cmocka_unit_test(test_json_series),
        cmocka_unit_test(test_json_queue_and_ports),
        cmocka_unit_test(test_json_byte_identical),
        cmocka_unit_test(test_csv_files),
        cmocka_unit_test(test_csv_quotes_names),
        cmocka_unit_test(test_csv_cannot_open),
        cmocka_unit_test(test_json_not_utf8),
        cmocka_unit_test(test_json_write_fails),
        cmocka_unit_test(test_summary_rankings),
        cmocka_unit_test(test_summary_lossy_no_cc),
        cmocka_unit_test(test_header_wording),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
