/* What the CSV writers share (csv.c). */
#ifndef BN_REPORT_CSV_UTIL_H
#define BN_REPORT_CSV_UTIL_H

#include <stdio.h>

#include "bnet/output.h"

/* A text field as RFC 4180 writes it: quoted, its quotes doubled, when it
 * holds a comma, a quote or a line break (names from a topology file may). */
void bn_csv_text(FILE *f, const char *s);

#endif
