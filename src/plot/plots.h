/* The figure sets, one per kind of result (plot.c picks by the JSON's keys). */
#ifndef BN_PLOT_PLOTS_H
#define BN_PLOT_PLOTS_H

#include <stdio.h>

#include "plot/doc.h"

/* Each returns 0 or an exit status (after one line on stderr). */
int plot_run_flows(struct doc *d, const char *dir, FILE *log);   /* throughput, FCT CDFs */
int plot_run_slowdown(struct doc *d, const char *dir, FILE *log); /* slowdown by size */
int plot_run_series(struct doc *d, const char *dir, FILE *log);  /* rate, alpha, queues */
int plot_run_links(struct doc *d, const char *dir, FILE *log);   /* utilization, pauses */
int plot_run_topology(struct doc *d, const char *dir, FILE *log);
/* Bus bandwidth against size: every algorithm of every coll file, every
 * fabric of every compare file, on one figure. */
int plot_busbw(struct doc *docs, int n, const char *dir, FILE *log);
/* A calibration's measured, before and after busbw per input (plot_calib.c). */
int plot_calib(struct doc *d, const char *dir, FILE *log);

#endif
