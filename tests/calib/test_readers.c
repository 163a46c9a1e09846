/*
 * The calibration readers on published outputs (tests/data/calib/SOURCES):
 * nccl-tests' header, ranks and rows (the smaller of the two times), the
 * collective named or told by busbw / algbw, NCCL's version and the NCCL_*
 * variables of a launch command or NCCL's debug lines; perftest's
 * bandwidth (Gb/s and MB/s) and latency rows and a test's inline size
 * ("Max inline data"); and every broken or unknown
 * line refused with its file and line. SHA-256 against FIPS 180-2's "abc".
 */
#include <math.h>

#include "support.h"

#include "bnet/calib.h"
#include "calib/calib.h"

#define DATA "tests/data/calib/"

static void read_ok(const char *path, struct bn_calib_data *d)
{
    struct bn_error err = {0};
    const char *paths[] = {path};
    int rc = bn_calib_read(paths, 1, d, &err);
    if (rc != BN_OK)
        fail_msg("%s: %s", path, err.msg);
}

/* The error reading `text` as a file, which must name it and `line`. */
static void read_bad(const char *text, unsigned line, const char *needle)
{
    char path[] = "/tmp/bnet-calib-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    struct bn_calib_data d;
    struct bn_error err = {0};
    const char *paths[] = {path};
    assert_int_equal(bn_calib_read(paths, 1, &d, &err), BN_EINPUT);
    char where[64];
    snprintf(where, sizeof where, "%s:%u:", path, line);
    if (line && !strstr(err.msg, where))
        fail_msg("'%s' does not name %s", err.msg, where);
    if (needle && !strstr(err.msg, needle))
        fail_msg("'%s' does not say '%s'", err.msg, needle);
    remove(path);
}

static void test_nccl_tests_header(void **state)
{
    (void)state;
    struct bn_calib_data d;
    read_ok(DATA "vpbench-h100-4n-allreduce.txt", &d);
    const struct bn_calib_input *in = &d.inputs[0];
    assert_int_equal(in->kind, BN_CALIB_NCCL_TESTS);
    assert_string_equal(in->op, "allreduce");
    assert_string_equal(in->nccl_version, "2.24.3");
    assert_string_equal(in->gpu, "NVIDIA H100 80GB HBM3");
    assert_int_equal(in->nodes, 4);
    assert_int_equal(in->gpus_per_node, 8);
    assert_int_equal(in->nranks, 32);
    assert_int_equal(d.nrows, 31);
    assert_int_equal(d.rows[0].bytes, 8);
    assert_true(d.rows[0].oop_us == 38.37 && d.rows[0].ip_us == 38.27);
    assert_true(d.rows[0].time_us == 38.27); /* the smaller */
    assert_int_equal(d.rows[30].bytes, 8589934592ull);
    assert_true(d.rows[30].time_us == 50291.8 && d.rows[30].busbw_gbs == 330.93);
    assert_int_equal(strlen(in->sha256), 64);
    bn_calib_data_free(&d);
}

static void test_nccl_tests_op_and_env(void **state)
{
    (void)state;
    struct bn_calib_data d;
    /* no program named: allreduce from busbw / algbw = 2 (n - 1) / n */
    read_ok(DATA "h100-ib400-default-8n.txt", &d);
    assert_string_equal(d.inputs[0].op, "allreduce");
    assert_int_equal(d.inputs[0].nodes, 8);
    assert_true(d.rows[3].time_us == 321.4); /* out of place 1272.4: an outlier */
    assert_int_equal(d.rows[3].line, 75);
    bn_calib_data_free(&d);
    /* the launch command's -x NCCL_X=V */
    read_ok(DATA "h100-ib400-ctas24-8n.txt", &d);
    assert_int_equal(d.inputs[0].nenv, 2);
    assert_string_equal(d.inputs[0].env[0].name, "NCCL_MIN_CTAS");
    assert_string_equal(d.inputs[0].env[0].value, "24");
    assert_string_equal(d.inputs[0].env[1].name, "NCCL_IB_QPS_PER_CONNECTION");
    bn_calib_data_free(&d);
}

static const char head[] =
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 agg "
    "iters: 1 validation: 1 graph: 0\n#\n# Using devices\n"
    "#  Rank  0 Group  0 Pid  1 on a device  0 [0x19] GPU\n"
    "#  Rank  1 Group  0 Pid  2 on b device  0 [0x19] GPU\n#\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
    "time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
    "(us)  (GB/s)  (GB/s)\n";

static void test_nccl_debug_and_mpi_prefix(void **state)
{
    (void)state;
    char text[2048];
    snprintf(text, sizeof text, "%s%s", head,
             "h1:10:11 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"
             "h1:10:11 [0] NCCL INFO Channel 00/16 : 0 1\n"
             "[1,0]<stdout>:           8             2     float     sum      -1    12.90    0.00"
             "    0.00      0    12.87    0.00    0.00      0\n"
             "NCCL_PROTO=Simple\n");
    char path[] = "/tmp/bnet-calib-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    struct bn_calib_data d;
    struct bn_error err = {0};
    const char *paths[] = {path};
    /* one row of 2 ranks cannot tell the collective: a program must say it */
    assert_int_equal(bn_calib_read(paths, 1, &d, &err), BN_EINPUT);
    assert_non_null(strstr(err.msg, "which collective"));
    f = fopen(path, "w");
    fprintf(f, "# Collective test starting: all_reduce_perf\n%s", text);
    fclose(f);
    assert_int_equal(bn_calib_read(paths, 1, &d, &err), BN_OK);
    assert_int_equal(d.nrows, 1);
    assert_true(d.rows[0].time_us == 12.87);
    assert_int_equal(d.inputs[0].nenv, 2);
    assert_string_equal(d.inputs[0].env[0].value, "Ring");
    assert_string_equal(d.inputs[0].env[1].name, "NCCL_PROTO");
    bn_calib_data_free(&d);
    remove(path);
}

static void test_nccl_tests_refused(void **state)
{
    (void)state;
    char text[2048];
    /* line 9 (the titles end at 8): a short row, a stray word, a bad number */
    snprintf(text, sizeof text, "%s%s", head, "   8   2  float  sum  -1  12.9  0.00  0.00\n");
    read_bad(text, 9, "fields");
    snprintf(text, sizeof text, "%s%s", head, "Segmentation fault\n");
    read_bad(text, 9, "not a line");
    snprintf(text, sizeof text, "%s%s", head,
             "   8   2  float  sum  -1  1x.9  0.00  0.00  0  12.9  0.00  0.00  0\n");
    read_bad(text, 9, "not a number");
    /* sizes no measurement has: past 2^64 (strtoull saturates), past 1e12 */
    snprintf(text, sizeof text, "%s%s", head,
             "   99999999999999999999   2  float  sum  -1  12.9  0.00  0.00  0  12.9  0.00  0.00  0\n");
    read_bad(text, 9, "is not a byte count (1 .. 1000000000000)");
    snprintf(text, sizeof text, "%s%s", head,
             "   2000000000000   2  float  sum  -1  12.9  0.00  0.00  0  12.9  0.00  0.00  0\n");
    read_bad(text, 9, "is not a byte count");
    read_bad("# What is this\n", 1, "comment");
    read_bad("           8             2     float     sum      -1    12.90    0.00    0.00  0\n",
             1, "before");
    /* no ranks listed: the shape is unknown */
    read_bad("# Collective test starting: all_reduce_perf\n#       size         count      type"
             "   redop    root     time   algbw   busbw #wrong\n           8             2     "
             "float     sum      -1    12.90    0.00    0.00      0\n", 0, "Using devices");
}

static void test_perftest(void **state)
{
    (void)state;
    struct bn_calib_data d;
    read_ok(DATA "perftest-write-bw-ndr.txt", &d);
    assert_int_equal(d.inputs[0].kind, BN_CALIB_PERFTEST);
    assert_string_equal(d.rows[0].op, "write_bw");
    assert_int_equal(d.nrows, 3);
    assert_int_equal(d.rows[2].bytes, 8);
    assert_true(fabs(d.rows[2].busbw_gbs - 0.17) < 1e-12);
    assert_true(fabs(d.rows[2].time_us - 8 * 8 / (0.17 * 1e3)) < 1e-9);
    bn_calib_data_free(&d);
    read_ok(DATA "perftest-read-bw-mb.txt", &d); /* MB/sec: 10^6 bytes */
    assert_string_equal(d.rows[0].op, "read_bw");
    assert_true(fabs(d.rows[6].busbw_gbs - 310.05 * 8e-3) < 1e-9);
    bn_calib_data_free(&d);
    char path[] = "/tmp/bnet-calib-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs("---------------------------------------------------------------------------------\n"
          "                    Send Latency Test\n Dual-port       : OFF\t\tDevice         : "
          "mlx5_0\n---------------------------------------------------------------------------\n"
          " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
          "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
          "Conflicting CPU frequency values detected: 3295.212000 != 5023.444000.\n"
          " 2       1000          1.24           5.19         1.27     \t       1.27        \t0.00"
          "   \t\t1.37    \t\t5.19   \n", f);
    fclose(f);
    const char *paths[] = {path};
    struct bn_error err = {0};
    assert_int_equal(bn_calib_read(paths, 1, &d, &err), BN_OK);
    assert_string_equal(d.rows[0].op, "send_lat");
    assert_true(d.rows[0].time_us == 1.27); /* t_typical */
    bn_calib_data_free(&d);
    remove(path);
    /* a latency test's inline size is its rows' (printed 220, 0, or not at all) */
    read_ok(DATA "perftest-write-lat-fdr.txt", &d);
    assert_string_equal(d.rows[0].op, "write_lat");
    assert_true(d.rows[0].time_us == 0.98);
    assert_int_equal(d.rows[0].inline_bytes, 220);
    bn_calib_data_free(&d);
    read_ok(DATA "perftest-write-bw-ndr.txt", &d);
    assert_int_equal(d.rows[0].inline_bytes, 0);
    bn_calib_data_free(&d);
    read_ok(DATA "perftest-read-bw-mb.txt", &d);
    assert_int_equal(d.rows[0].inline_bytes, -1);
    bn_calib_data_free(&d);
    read_bad("                    RDMA_Write Latency Test\n Max inline data : lots\n", 2,
             "'Max inline data' is not a size");
    read_bad("                    RDMA_Write BW Test\n #bytes     #iterations    BW peak[Gb/sec]"
             "    BW average[Gb/sec]   MsgRate[Mpps]\n 65536  5000  392.38\n", 3, "fields");
    read_bad("                    RDMA_Write BW Test\n #bytes     #iterations    BW peak[Gb/sec]"
             "    BW average[Gb/sec]   MsgRate[Mpps]\nrandom words\n", 3, "not a line perftest");
    /* a size past any integer (fuzz_calib_file: its cast was undefined) */
    read_bad("                    RDMA_Read BW Test\n #bytes     #iterations    BW peak[MB/sec]"
             "    BW average[MB/sec]   MsgRate[Mpps]\n 6184467440737095516164  1000  155.40  1"
             "  2.539960\n", 3, "is not a size (1 .. 1000000000000)");
}

static void test_sha256(void **state)
{
    (void)state;
    char hex[65];
    struct bn_error err = {0};
    assert_int_equal(bn_calib_sha256("abc", 3, hex, &err), BN_OK);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nccl_tests_header), cmocka_unit_test(test_nccl_tests_op_and_env),
        cmocka_unit_test(test_nccl_debug_and_mpi_prefix),
        cmocka_unit_test(test_nccl_tests_refused), cmocka_unit_test(test_perftest),
        cmocka_unit_test(test_sha256),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
