/* Huge-page friendly allocation for big flat arrays; see bigmem.h. */
#define _DEFAULT_SOURCE /* madvise advice values */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/bigmem.h"

#define HUGE_PAGE (2u << 20)
#define CACHE_LINE 64u

void *bn_big_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes < HUGE_PAGE) /* a cache line apart at least: records of a line stay whole */
        return posix_memalign(&p, CACHE_LINE, bytes ? bytes : 1) == 0 ? p : NULL;
    size_t rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    if (posix_memalign(&p, HUGE_PAGE, rounded) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, rounded, MADV_HUGEPAGE); /* advice only: failure is harmless */
#endif
    return p;
}

void *bn_big_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = bn_big_alloc(n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void *bn_big_realloc(void *old, size_t old_bytes, size_t new_bytes)
{
    void *p = bn_big_alloc(new_bytes);
    if (!p)
        return NULL;
    if (old)
        memcpy(p, old, old_bytes < new_bytes ? old_bytes : new_bytes);
    free(old);
    return p;
}

void bn_big_free(void *p) { free(p); }

/* A reservation is HUGE_PAGE-aligned (mmap gives pages: it asks for one
 * more huge page and trims), so commits in huge pages can be huge pages. */
void *bn_big_reserve(size_t *bytes, size_t min)
{
    for (size_t want = *bytes; want >= min && want > 0; want /= 2) {
        size_t len = (want + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        char *raw = mmap(NULL, len + HUGE_PAGE, PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (raw == MAP_FAILED)
            continue;
        char *base = (char *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
        if (base > raw)
            munmap(raw, (size_t)(base - raw));
        munmap(base + len, (size_t)(raw + HUGE_PAGE - base));
        *bytes = len;
        return base;
    }
    return NULL;
}

int bn_big_commit(void *base, size_t reserved, size_t bytes)
{
    size_t len = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    if (len > reserved)
        return -1;
    if (mprotect(base, len, PROT_READ | PROT_WRITE) != 0)
        return -1;
#ifdef MADV_HUGEPAGE
    madvise(base, len, MADV_HUGEPAGE);
#endif
    return 0;
}

void bn_big_unreserve(void *base, size_t reserved)
{
    if (base)
        munmap(base, reserved);
}


void *bn_big_sparse_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    size_t len = n * size > 0 ? n * size : 1;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_NOHUGEPAGE
    madvise(p, len, MADV_NOHUGEPAGE); /* a huge page would make 512 pages resident at once */
#endif
    return p;
}

void bn_big_sparse_free(void *p, size_t n, size_t size)
{
    if (p)
        munmap(p, n * size > 0 ? n * size : 1);
}
