/*
 * What the JSON reports share (json.c): user text made valid UTF-8, the
 * topology object, and writing a document to a file or stdout.
 */
#ifndef BN_REPORT_JSON_UTIL_H
#define BN_REPORT_JSON_UTIL_H

#include <jansson.h>

#include "bnet/bnet.h"

#define BN_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))

json_t *bn_json_text(const char *s);
json_t *bn_json_topo(const struct bn_topo_info *t);
/* What was simulated: `command` (after bnet_version) and `config` (last:
 * every key's value as it ran; faults and jobs as arrays of their given
 * items) into root. */
void bn_json_command(json_t *root, const struct bn_provenance *p);
void bn_json_config(json_t *root, const struct bn_provenance *p);
/* The seed's report: an array, a figure per element. */
json_t *bn_json_seed(const struct bn_seed_report *s);
/* Write `root` (consumed; NULL: out of memory) with jansson's flags. */
int bn_json_dump(json_t *root, const char *path, int flags, struct bn_error *err);

#endif
