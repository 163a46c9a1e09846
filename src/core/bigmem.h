/*
 * Allocation for the simulator's large flat arrays (ports, packets, events,
 * routing tables). Past a few MB these arrays are touched at random, one
 * cache line per access, and with 4 KiB pages most accesses also miss the
 * TLB; so arrays of 2 MiB or more are 2 MiB-aligned and offered to the
 * kernel's transparent huge pages (madvise); smaller ones are aligned to a
 * cache line, so records sized and aligned to lines never straddle two.
 * Behaves like malloc/realloc/free otherwise; bn_big_realloc needs the old
 * size because it copies.
 */
#ifndef BN_CORE_BIGMEM_H
#define BN_CORE_BIGMEM_H

#include <stddef.h>

void *bn_big_alloc(size_t bytes);
void *bn_big_calloc(size_t n, size_t size);
void *bn_big_realloc(void *old, size_t old_bytes, size_t new_bytes);
void bn_big_free(void *p);

#endif
