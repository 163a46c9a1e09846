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
