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

/* An array that grows in place: address space is reserved up front, none
 * of it committed (PROT_NONE), and made usable as the array grows, so
 * growing neither moves nor copies it and its pages are faulted in once.
 * bn_big_reserve asks for *bytes, settles for less down to `min` bytes
 * (an address-space limit) and sets *bytes to what it got; NULL if not
 * even `min`. bn_big_commit makes [0, bytes) usable (rounded up to huge
 * pages, within the reservation), zero-filled where new; -1 on failure. */
void *bn_big_reserve(size_t *bytes, size_t min);
int bn_big_commit(void *base, size_t reserved, size_t bytes);
void bn_big_unreserve(void *base, size_t reserved);

/* A zeroed array of which a process touches only some records (a
 * partitioned run's rank, its own ports): fresh zero pages, 4 KiB ones, so
 * that only the pages written become resident. bn_big_sparse_free takes
 * the same n and size. */
void *bn_big_sparse_calloc(size_t n, size_t size);
void bn_big_sparse_free(void *p, size_t n, size_t size);

#endif
