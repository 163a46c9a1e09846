/*
 * Line-by-line reading of the text files scenarios name (flow lists, size
 * CDFs, topologies): each line handed over with its number, a NUL inside a
 * line refused (C string functions would stop at it) and a read error
 * reported, both naming the file.
 */
#ifndef BN_CORE_LINES_H
#define BN_CORE_LINES_H

#include <stdio.h>

#include "bnet/error.h"

/* Called per line (its newline kept), numbered from 1; BN_OK goes on. */
typedef int (*bn_line_fn)(void *ctx, char *line, unsigned lineno, struct bn_error *err);

/* fn on every line of f (opened from `path`, which messages name), until
 * one fails; BN_OK or the first error. *lines: lines read (may be NULL).
 * f stays open. */
int bn_each_line(FILE *f, const char *path, bn_line_fn fn, void *ctx, unsigned *lines,
                 struct bn_error *err);

#endif
