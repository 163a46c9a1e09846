/*
 * The memory this process may still take, as the kernel will hold it to:
 * the least of MemAvailable (/proc/meminfo), the address-space limit
 * (getrlimit RLIMIT_AS, `ulimit -v`, less what is mapped already) and the
 * memory cgroups' limits on the way from the process's cgroup to the root
 * (v2 memory.max less memory.current; v1 memory.limit_in_bytes less
 * memory.usage_in_bytes). A run sized against MemAvailable alone is killed
 * or fails an allocation minutes in when a limit is lower (issue 53).
 */
#ifndef BN_CORE_MEMLIMIT_H
#define BN_CORE_MEMLIMIT_H

#include <stdint.h>

/* Which bound is the least (for the message that names it). */
enum bn_mem_bound { BN_MEM_PHYSICAL, BN_MEM_RLIMIT_AS, BN_MEM_CGROUP };

/* Bytes available (UINT64_MAX: nothing known). `root` prefixes /proc and
 * /sys ("" for the machine's; a test's directory holds fakes); the
 * address-space limit is read only when root is "". *bound may be NULL. */
uint64_t bn_mem_available(const char *root, enum bn_mem_bound *bound);
/* "of memory available", "of address space left under ...", for a message. */
const char *bn_mem_bound_name(enum bn_mem_bound bound);

#endif
