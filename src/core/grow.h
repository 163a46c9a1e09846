/*
 * A growing array: room for element n of *arr (capacity *cap elements of
 * `size` bytes), doubling so that appending costs O(1) amortized. False
 * if out of memory or past UINT32_MAX elements; *arr is then unchanged.
 */
#ifndef BN_CORE_GROW_H
#define BN_CORE_GROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static inline bool bn_grow(void **arr, uint32_t n, uint32_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    if (*cap == UINT32_MAX)
        return false;
    uint32_t c = *cap < 16 ? 16 : (*cap > UINT32_MAX / 2 ? UINT32_MAX : *cap * 2);
    if (c <= n)
        c = n == UINT32_MAX ? UINT32_MAX : n + 1;
    void *p = realloc(*arr, (size_t)c * size);
    if (!p)
        return false;
    *arr = p;
    *cap = c;
    return true;
}

#endif
