/*
 * Output files written whole or not at all. A file is written to a
 * temporary file beside it (same directory: the rename is atomic) and
 * renamed over it only when every write, the flush, fsync and the close
 * succeeded; on failure the temporary file is removed and the old file, if
 * any, is left as it was. So a reader never sees a truncated file, and two
 * runs writing one path leave one run's whole file. "-" is standard output;
 * a path that is not a regular file (/dev/full, a FIFO, /dev/stdout) is
 * written in place, as there is nothing to rename over.
 */
#ifndef BNET_OUTPUT_H
#define BNET_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "bnet/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct bn_output; /* opaque */

/* Open `path` ("-": stdout) for writing; NULL after filling err (BN_EINPUT
 * naming the path and `what`, e.g. "JSON": "out.json: cannot write JSON:
 * Permission denied"). */
struct bn_output *bn_output_open(const char *path, const char *what, struct bn_error *err);
/* The stream to write to. */
FILE *bn_output_stream(struct bn_output *o);
/* Finish: `bad` (a write the caller saw fail) or any error of the stream,
 * flush, fsync, close or rename fails it (BN_EINPUT, the path and errno's
 * text) and removes the temporary file; else the file is in place. Frees o. */
int bn_output_close(struct bn_output *o, bool bad, struct bn_error *err);
/* Give up: the temporary file removed, the old file untouched. Frees o. */
void bn_output_discard(struct bn_output *o);
/* Remove every temporary file not yet closed: for a signal handler that
 * ends the process at once (async-signal-safe: unlink only). */
void bn_output_remove_pending(void);

#ifdef __cplusplus
}
#endif

#endif
