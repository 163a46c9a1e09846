/* Figures of bnet's results, drawn by gnuplot (docs/plots.md). Part of the
 * command, not the library: it reads the results' JSON, the public contract. */
#ifndef BN_PLOT_PLOT_H
#define BN_PLOT_PLOT_H

#include <stdio.h>

/* Before a long run: gnuplot runs and `dir` exists or can be made. 0, or an
 * exit status after one line on stderr. */
int bn_plot_ready(const char *dir);
/* Draw the figures of n result files (run, coll or compare JSON) into dir,
 * a line on `log` per figure written or skipped. All coll and compare
 * files share one bus bandwidth figure. Returns an exit status. */
int bn_plot_files(const char *const *paths, int n, const char *dir, FILE *log);

#endif
