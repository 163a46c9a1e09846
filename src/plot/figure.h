/* One figure: a gnuplot script (its data inline) written beside the SVG it
 * renders, so a user can restyle it: `cd DIR && gnuplot NAME.gp`. */
#ifndef BN_PLOT_FIGURE_H
#define BN_PLOT_FIGURE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

struct fig {
    struct bn_output *out;    /* the script, to a temporary file (bnet/output.h) */
    FILE *f;                  /* its stream */
    const char *dir;
    char name[64];
    char gp[PATH_MAX];
};

/* Start DIR/NAME.gp for a WIDTH x HEIGHT SVG titled `title`. 0, or an exit
 * status after one line on stderr. */
int fig_open(struct fig *g, const char *dir, const char *name, const char *title, int width,
             int height);
/* Finish the script and run gnuplot on it; names the SVG on `log`. */
int fig_close(struct fig *g, FILE *log);
/* Close without drawing (an error on the way); the script is removed. */
void fig_abandon(struct fig *g);
/* fig_close if the data read well (ok), else fig_abandon and status 2. */
int fig_end(struct fig *g, bool ok, FILE *log);
/* A result file's name without folders and ".json", to tell files apart. */
void fig_file_label(const char *path, char *buf, size_t len);
/* s as a gnuplot string literal: single quotes, a quote doubled. */
void fig_quote(FILE *f, const char *s);
/* Run gnuplot with `arg` in `dir`; its exit status, 127 if it is not found. */
int fig_gnuplot(const char *dir, const char *arg, int quiet);

#endif
