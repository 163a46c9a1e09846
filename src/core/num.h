/*
 * Numbers as the text readers take them (topology files, ns-3 and
 * ibnetdiscover dumps, flow files, size CDFs, workload files): decimal
 * only, as YAML scenarios and --set take them. strtod and strtoull alone
 * also read hex ("0x190"), hex floats ("0x1p3"), "inf", "nan" and leading
 * blanks; every reader refuses those alike through these functions.
 */
#ifndef BN_CORE_NUM_H
#define BN_CORE_NUM_H

#include <stdbool.h>
#include <stdint.h>

/* A whole number in decimal digits alone (no sign, no blank), at most
 * max; false otherwise (overflow included). */
bool bn_num_u64(const char *s, uint64_t max, uint64_t *v);

/* A decimal real at the start of s: an optional sign, digits with an
 * optional '.', an optional exponent (e-3). One too large for a double
 * is +-HUGE_VAL (inf), for the caller's bounds to refuse as out of range.
 * *end: the first character after it. False if s does not start with one. */
bool bn_num_real_prefix(const char *s, double *v, const char **end);

/* The same, the whole of s. */
bool bn_num_real(const char *s, double *v);

#endif
