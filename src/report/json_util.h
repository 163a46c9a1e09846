/*
 * What the JSON reports share (json.c): user text made valid UTF-8, the
 * topology object, and writing a document to a file or stdout.
 */
#ifndef BN_REPORT_JSON_UTIL_H
#define BN_REPORT_JSON_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "bnet/bnet.h"
#include "bnet/output.h"

#define BN_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))

json_t *bn_json_text(const char *s);
json_t *bn_json_topo(const struct bn_topo_info *t);
/* What was simulated: `command` (after bnet_version) and `config` (last:
 * every key's value as it ran; faults and jobs as arrays of their given
 * items) into root. */
void bn_json_command(json_t *root, const struct bn_provenance *p);
void bn_json_config(json_t *root, const struct bn_provenance *p);
/* A key's value from its text (bn_scenario_get), typed as bnet keys types
 * it: "int", "float", "bool", else a string. */
json_t *bn_json_typed(const char *text, const char *type);
/* A run's `summary` object (docs/results.md). */
json_t *bn_json_summary(const struct bn_results *r);
/* The seed's report: an array, a figure per element. */
json_t *bn_json_seed(const struct bn_seed_report *s);
/* Write `root` (consumed; NULL: out of memory) with jansson's flags. */
int bn_json_dump(json_t *root, const char *path, int flags, struct bn_error *err);

/* A document streamed to `path` ("-": stdout), byte for byte what
 * bn_json_dump would print of the whole tree with BN_JSON_FLAGS
 * (json_stream.c): open with the first keys (`head`, consumed), then more
 * keys and arrays element by element (values consumed), then close, which
 * reports any failed write. */
struct bn_json_stream {
    struct bn_output *out;     /* bnet/output.h: a temporary file, renamed at close */
    FILE *f;
    const char *path;
    size_t nkeys, nelems;
    bool to_stdout, bad;
    int saved_errno;
};
int bn_json_stream_open(struct bn_json_stream *s, const char *path, json_t *head,
                        struct bn_error *err);
void bn_json_stream_key(struct bn_json_stream *s, const char *key, json_t *value);
void bn_json_stream_array(struct bn_json_stream *s, const char *key);
void bn_json_stream_elem(struct bn_json_stream *s, json_t *elem);
void bn_json_stream_array_end(struct bn_json_stream *s);
int bn_json_stream_close(struct bn_json_stream *s, struct bn_error *err);

/* The JSON's stop_reason (docs/results.md): "max_wall" or "signal" when
 * interrupted (bn_interrupt_reason), else "stalled" (the livelock
 * watchdog), "max_time" (sim.max_time_us first) or "completed". */
const char *bn_stop_reason(bool interrupted, bool stalled, bool stopped_early);

#endif
