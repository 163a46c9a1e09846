/*
 * The memory a run may take (core/memlimit.c): the least of MemAvailable,
 * the address-space limit and every memory cgroup's limit up to the root,
 * read from fake /proc and /sys trees (cgroup v2 and v1, with page cache
 * taken off the usage), and RLIMIT_AS lowered in this process. Before
 * issue 53 only MemAvailable counted: a run under `ulimit -v` or a
 * container's limit was sized against the whole machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

#include "core/memlimit.h"

static char root[64];

static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0700);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/bnet-memlimit.XXXXXX");
    if (!mkdtemp(root))
        return -1;
    put("/proc/meminfo", "MemTotal: 33554432 kB\nMemAvailable: 16777216 kB\n"); /* 16 GiB */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_meminfo_alone(void **state)
{
    (void)state;
    put("/proc/self/cgroup", "0::/\n");
    enum bn_mem_bound b;
    assert_true(bn_mem_available(root, &b) == 16ull << 30);
    assert_int_equal(b, BN_MEM_PHYSICAL);
}

/* v2: a limit on the parent holds the child; memory.current less the
 * page cache (memory.stat "file") is what is taken. */
static void test_cgroup_v2(void **state)
{
    (void)state;
    put("/proc/self/cgroup", "0::/box/job\n");
    put("/sys/fs/cgroup/box/job/memory.max", "max\n");
    put("/sys/fs/cgroup/box/job/memory.current", "1073741824\n");
    put("/sys/fs/cgroup/box/memory.max", "8589934592\n"); /* 8 GiB */
    put("/sys/fs/cgroup/box/memory.current", "3221225472\n"); /* 3 GiB, 1 of it cache */
    put("/sys/fs/cgroup/box/memory.stat", "anon 2147483648\nfile 1073741824\n");
    enum bn_mem_bound b;
    assert_true(bn_mem_available(root, &b) == 6ull << 30);
    assert_int_equal(b, BN_MEM_CGROUP);
    assert_non_null(strstr(bn_mem_bound_name(b), "cgroup"));
}

/* v1: the memory controller's line; "no limit" is a huge number. */
static void test_cgroup_v1(void **state)
{
    (void)state;
    put("/proc/self/cgroup", "5:cpu,cpuacct:/\n4:memory:/docker/abc\n0::/\n");
    put("/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes", "4294967296\n");
    put("/sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes", "1073741824\n");
    put("/sys/fs/cgroup/memory/docker/abc/memory.stat", "cache 0\ntotal_cache 536870912\n");
    put("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
    enum bn_mem_bound b;
    assert_true(bn_mem_available(root, &b) == (4ull << 30) - (512ull << 20));
    assert_int_equal(b, BN_MEM_CGROUP);
}

/* RLIMIT_AS (the machine's files: root ""): what is left under it, less
 * than the limit itself (the process maps some already). */
static void test_rlimit_as(void **state)
{
    (void)state;
    if (getenv("BNET_SANITIZED")) /* ASan's shadow memory alone passes any such limit */
        skip();
    struct rlimit old, low;
    assert_int_equal(getrlimit(RLIMIT_AS, &old), 0);
    low = old;
    low.rlim_cur = 3ull << 30;
    if (old.rlim_max != RLIM_INFINITY && old.rlim_max < low.rlim_cur)
        skip();
    assert_int_equal(setrlimit(RLIMIT_AS, &low), 0);
    enum bn_mem_bound b;
    uint64_t got = bn_mem_available("", &b);
    assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
    assert_true(got < 3ull << 30 && got > 2ull << 30);
    assert_int_equal(b, BN_MEM_RLIMIT_AS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_meminfo_alone),
        cmocka_unit_test(test_cgroup_v2),
        cmocka_unit_test(test_cgroup_v1),
        cmocka_unit_test(test_rlimit_as),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
