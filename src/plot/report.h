/* `bnet report`: saved results as one self-contained HTML page (report.c). */
#ifndef BN_PLOT_REPORT_H
#define BN_PLOT_REPORT_H

#include <stdio.h>

/* Write the page of n result files (any command's JSON) to `out` ("-":
 * stdout); the plots' lines go to `log`. Returns an exit status (after
 * one line on stderr). */
int bn_report_html(const char *const *paths, int n, const char *out, FILE *log);

#endif
