/*
 * A calibration file as a scenario overlay (`--calibration FILE`,
 * docs/calibration.md): its `set:` mapping's keys applied as --set would
 * apply them, after the scenario and before the command line's own --set.
 * The file's other top-level keys (bnet_version, inputs, fit) say where the
 * values came from and are read past; any other key is an error with its
 * file and line.
 */
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "bnet/scenario.h"

struct reader {
    yaml_parser_t parser;
    yaml_event_t ev;
    const char *path;
};

static int next(struct reader *r, struct bn_error *err)
{
    if (yaml_parser_parse(&r->parser, &r->ev))
        return BN_OK;
    return bn_fail(err, BN_EINPUT, "%s:%zu: YAML: %s", r->path, r->parser.problem_mark.line + 1,
                   r->parser.problem ? r->parser.problem : "syntax error");
}

/* Skip the value whose first event is r->ev (a scalar or a whole block). */
static int skip_value(struct reader *r, struct bn_error *err)
{
    int depth = 0;
    do {
        yaml_event_type_t t = r->ev.type;
        depth += t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT;
        depth -= t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT;
        if (depth == 0)
            return BN_OK;
        yaml_event_delete(&r->ev);
        int rc = next(r, err);
        if (rc != BN_OK)
            return rc;
    } while (1);
}

/* The `set:` mapping: "key: value" scalars, each through bn_scenario_set. */
static int apply_set(struct reader *r, struct bn_scenario *sc, struct bn_error *err)
{
    if (r->ev.type != YAML_MAPPING_START_EVENT)
        return bn_fail(err, BN_EINPUT, "%s:%zu: 'set' is a mapping of scenario keys to values",
                       r->path, r->ev.start_mark.line + 1);
    for (;;) {
        yaml_event_delete(&r->ev);
        int rc = next(r, err);
        if (rc != BN_OK)
            return rc;
        if (r->ev.type == YAML_MAPPING_END_EVENT)
            return BN_OK;
        size_t line = r->ev.start_mark.line + 1;
        if (r->ev.type != YAML_SCALAR_EVENT)
            return bn_fail(err, BN_EINPUT, "%s:%zu: 'set' holds key: value lines only", r->path,
                           line);
        char assignment[512];
        snprintf(assignment, sizeof assignment, "%s=", (const char *)r->ev.data.scalar.value);
        yaml_event_delete(&r->ev);
        if ((rc = next(r, err)) != BN_OK)
            return rc;
        if (r->ev.type != YAML_SCALAR_EVENT)
            return bn_fail(err, BN_EINPUT, "%s:%zu: key '%.*s': a value, not a block", r->path,
                           line, (int)strlen(assignment) - 1, assignment);
        size_t n = strlen(assignment);
        snprintf(assignment + n, sizeof assignment - n, "%s",
                 (const char *)r->ev.data.scalar.value);
        char where[BN_PATH_MAX + 24];
        snprintf(where, sizeof where, "%s:%zu", r->path, line);
        rc = bn_scenario_set_flag(sc, assignment, "--calibration", where, err);
        if (rc != BN_OK)
            return rc;
    }
}

int bn_scenario_apply_calibration(struct bn_scenario *sc, const char *path, struct bn_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return bn_fail(err, BN_EINPUT, "--calibration '%s': cannot open it", path);
    struct reader r = {.path = path};
    if (!yaml_parser_initialize(&r.parser)) {
        fclose(f);
        return bn_fail(err, BN_ENOMEM, "out of memory");
    }
    yaml_parser_set_input_file(&r.parser, f);
    int rc = BN_OK, depth = 0;
    bool set_seen = false, have = false;
    while (rc == BN_OK && (rc = next(&r, err)) == BN_OK) {
        have = true;
        yaml_event_type_t t = r.ev.type;
        if (t == YAML_STREAM_END_EVENT)
            break;
        if (t == YAML_MAPPING_START_EVENT && depth == 0) {
            depth = 1;
        } else if (t == YAML_SCALAR_EVENT && depth == 1) { /* a top-level key */
            char key[64];
            size_t line = r.ev.start_mark.line + 1;
            snprintf(key, sizeof key, "%s", (const char *)r.ev.data.scalar.value);
            yaml_event_delete(&r.ev);
            have = false;
            if ((rc = next(&r, err)) != BN_OK)
                break;
            have = true;
            if (strcmp(key, "set") == 0) {
                rc = apply_set(&r, sc, err);
                set_seen = true;
            } else if (!strcmp(key, "bnet_version") || !strcmp(key, "inputs") ||
                       !strcmp(key, "fit")) {
                rc = skip_value(&r, err);
            } else {
                rc = bn_fail(err, BN_EINPUT, "%s:%zu: key '%s': a calibration holds "
                             "bnet_version, inputs, fit and set", path, line, key);
            }
        } else if (t == YAML_MAPPING_END_EVENT && depth == 1) {
            depth = 0;
        } else if (t != YAML_STREAM_START_EVENT && t != YAML_DOCUMENT_START_EVENT &&
                   t != YAML_DOCUMENT_END_EVENT) {
            rc = bn_fail(err, BN_EINPUT, "%s:%zu: a calibration is a mapping (bnet_version, "
                         "inputs, fit, set)", path, r.ev.start_mark.line + 1);
        }
        if (have)
            yaml_event_delete(&r.ev);
        have = false;
    }
    if (rc == BN_OK && !set_seen)
        rc = bn_fail(err, BN_EINPUT, "%s: no 'set' mapping: not a calibration", path);
    yaml_parser_delete(&r.parser);
    fclose(f);
    return rc;
}
