/* The memory a process may still take; see memlimit.h. Linux's files:
 * Documentation/admin-guide/cgroup-v2.rst (memory.max, memory.current),
 * cgroup-v1/memory.rst (memory.limit_in_bytes, memory.usage_in_bytes),
 * proc(5) (/proc/self/cgroup, /proc/self/statm, MemAvailable). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/memlimit.h"

/* The first unsigned number in file root+path; false if none ("max"). */
static bool read_number(const char *root, const char *path, unsigned long long *out)
{
    char full[4096];
    if ((size_t)snprintf(full, sizeof full, "%s%s", root, path) >= sizeof full)
        return false;
    FILE *f = fopen(full, "r");
    if (!f)
        return false;
    bool ok = fscanf(f, "%llu", out) == 1;
    fclose(f);
    return ok;
}

static uint64_t meminfo_available(const char *root)
{
    char full[4096], line[128];
    unsigned long long kb = 0;
    snprintf(full, sizeof full, "%s/proc/meminfo", root);
    FILE *f = fopen(full, "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    if (kb)
        return (uint64_t)kb * 1024;
    if (root[0])
        return UINT64_MAX;
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}

/* RLIMIT_AS less the address space mapped now (statm's first field). */
static uint64_t rlimit_available(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    unsigned long long pages = 0;
    long size = sysconf(_SC_PAGESIZE);
    read_number("", "/proc/self/statm", &pages);
    uint64_t mapped = (uint64_t)pages * (uint64_t)(size > 0 ? size : 4096);
    return (uint64_t)rl.rlim_cur > mapped ? (uint64_t)rl.rlim_cur - mapped : 0;
}

/* The value of `key` in a memory.stat file ("file 123" lines); 0 if none. */
static unsigned long long stat_value(const char *root, const char *path, const char *key)
{
    char full[4096], line[256], name[64];
    unsigned long long v = 0, got;
    snprintf(full, sizeof full, "%s%s", root, path);
    FILE *f = fopen(full, "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "%63s %llu", name, &got) == 2 && strcmp(name, key) == 0) {
            v = got;
            break;
        }
    if (f)
        fclose(f);
    return v;
}

/* The least (limit - usage) of dir and its parents under base: a limit
 * set on any ancestor holds the process too. The usage counts the page
 * cache, which the kernel reclaims before it fails an allocation, so that
 * (memory.stat's `cache_key`) is taken off. v1 reports "no limit" as a
 * huge number (PAGE_COUNTER_MAX pages), v2 as "max". */
static uint64_t cgroup_walk(const char *root, const char *base, char *dir, const char *limit,
                            const char *usage, const char *cache_key)
{
    uint64_t least = UINT64_MAX;
    for (;;) {
        char path[4096];
        unsigned long long max, used = 0;
        snprintf(path, sizeof path, "%s%s/%s", base, dir, limit);
        if (read_number(root, path, &max) && max < (1ull << 62)) {
            snprintf(path, sizeof path, "%s%s/%s", base, dir, usage);
            read_number(root, path, &used);
            snprintf(path, sizeof path, "%s%s/memory.stat", base, dir);
            unsigned long long cache = stat_value(root, path, cache_key);
            used = used > cache ? used - cache : 0;
            uint64_t left = max > used ? max - used : 0;
            least = left < least ? left : least;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || dir[0] == '\0')
            break;
        *slash = '\0'; /* "/a/b" -> "/a" -> "" (the root) */
    }
    return least;
}

/* /proc/self/cgroup: "0::/path" (v2), "N:...memory...:/path" (v1). */
static uint64_t cgroup_available(const char *root)
{
    char full[4096], line[4096];
    snprintf(full, sizeof full, "%s/proc/self/cgroup", root);
    FILE *f = fopen(full, "r");
    uint64_t least = UINT64_MAX;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = '\0';
        const char *controllers = c1 + 1;
        char *dir = c2 + 1;
        if (strcmp(dir, "/") == 0)
            dir[0] = '\0';
        uint64_t left = UINT64_MAX;
        if (strcmp(line, "0") == 0 && controllers[0] == '\0')
            left = cgroup_walk(root, "/sys/fs/cgroup", dir, "memory.max", "memory.current",
                              "file");
        else if (strstr(controllers, "memory"))
            left = cgroup_walk(root, "/sys/fs/cgroup/memory", dir, "memory.limit_in_bytes",
                               "memory.usage_in_bytes", "total_cache");
        least = left < least ? left : least;
    }
    if (f)
        fclose(f);
    return least;
}

uint64_t bn_mem_available(const char *root, enum bn_mem_bound *bound)
{
    uint64_t best = meminfo_available(root);
    enum bn_mem_bound which = BN_MEM_PHYSICAL;
    uint64_t as = root[0] ? UINT64_MAX : rlimit_available();
    if (as < best) {
        best = as;
        which = BN_MEM_RLIMIT_AS;
    }
    uint64_t cg = cgroup_available(root);
    if (cg < best) {
        best = cg;
        which = BN_MEM_CGROUP;
    }
    if (bound)
        *bound = which;
    return best;
}

const char *bn_mem_bound_name(enum bn_mem_bound bound)
{
    switch (bound) {
    case BN_MEM_RLIMIT_AS:
        return "of address space left under the process's limit (ulimit -v, RLIMIT_AS)";
    case BN_MEM_CGROUP:
        return "of memory left under the cgroup's limit (memory.max or memory.limit_in_bytes)";
    default:
        return "of memory available";
    }
}
