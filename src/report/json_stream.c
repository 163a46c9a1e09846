/*
 * A JSON document written as it goes: the small keys built as one jansson
 * tree and printed first, then the large arrays element by element, so a
 * result with a million flows never holds them all as a tree. The bytes
 * are those jansson prints for the whole tree with BN_JSON_FLAGS (each
 * value printed by jansson with those flags, re-indented to its depth),
 * so streaming changes no result file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_util.h"

#define FLAGS (BN_JSON_FLAGS | JSON_ENCODE_ANY)

static void put(struct bn_json_stream *s, const char *text, size_t n)
{
    if (!s->bad && n && fwrite(text, 1, n, s->f) != n) {
        s->bad = true;
        s->saved_errno = errno;
    }
}

static void puts_(struct bn_json_stream *s, const char *text)
{
    put(s, text, strlen(text));
}

/* v (consumed) printed by jansson, each line after the first indented by
 * `indent` more spaces. */
static void put_value(struct bn_json_stream *s, json_t *v, unsigned indent)
{
    char *text = v ? json_dumps(v, FLAGS) : NULL;
    json_decref(v);
    if (!text) {
        s->bad = true;
        s->saved_errno = ENOMEM;
        return;
    }
    /* re-indented into one buffer and written at once: a write per line
     * cost as much as jansson's printing for the long arrays */
    size_t len = strlen(text), lines = 0;
    for (const char *p = text; (p = memchr(p, '\n', len - (size_t)(p - text))); p++)
        lines++;
    char *out = lines && indent ? malloc(len + lines * indent + 1) : NULL;
    if (!out) {
        if (lines && indent) {
            s->bad = true;
            s->saved_errno = ENOMEM;
        } else {
            put(s, text, len);
        }
        free(text);
        return;
    }
    char *o = out;
    for (const char *p = text; *p; p++) {
        *o++ = *p;
        if (*p == '\n')
            for (unsigned i = 0; i < indent; i++)
                *o++ = ' ';
    }
    put(s, out, (size_t)(o - out));
    free(out);
    free(text);
}

/* ",\n  \"key\": " (no comma before the first key). */
static void put_key(struct bn_json_stream *s, const char *key)
{
    puts_(s, s->nkeys++ ? ",\n  " : "\n  ");
    put_value(s, json_string(key), 0);
    puts_(s, ": ");
}

int bn_json_stream_open(struct bn_json_stream *s, const char *path, json_t *head,
                        struct bn_error *err)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    s->to_stdout = strcmp(path, "-") == 0;
    char *text = head ? json_dumps(head, FLAGS) : NULL;
    s->nkeys = head ? json_object_size(head) : 0;
    json_decref(head);
    if (!text)
        return bn_fail(err, BN_ENOMEM, "out of memory building JSON");
    s->out = bn_output_open(path, "JSON", err);
    if (!s->out) {
        free(text);
        return err ? err->status : BN_EINPUT;
    }
    s->f = bn_output_stream(s->out);
    /* all but the closing "\n}" ("}" alone for an empty head) */
    size_t n = strlen(text);
    put(s, text, n - (s->nkeys ? 2 : 1));
    free(text);
    return BN_OK;
}

void bn_json_stream_key(struct bn_json_stream *s, const char *key, json_t *value)
{
    put_key(s, key);
    put_value(s, value, 2);
}

void bn_json_stream_array(struct bn_json_stream *s, const char *key)
{
    put_key(s, key);
    puts_(s, "[");
    s->nelems = 0;
}

void bn_json_stream_elem(struct bn_json_stream *s, json_t *elem)
{
    puts_(s, s->nelems++ ? ",\n    " : "\n    ");
    put_value(s, elem, 4);
}

void bn_json_stream_array_end(struct bn_json_stream *s)
{
    puts_(s, s->nelems ? "\n  ]" : "]");
}

int bn_json_stream_close(struct bn_json_stream *s, struct bn_error *err)
{
    puts_(s, s->nkeys ? "\n}" : "}");
    if (s->to_stdout)
        puts_(s, "\n");
    if (s->bad) { /* the first failed write's cause, not the close's */
        bn_output_discard(s->out);
        return bn_fail(err, BN_EINPUT, "%s: cannot write JSON: %s",
                       s->to_stdout ? "standard output" : s->path,
                       strerror(s->saved_errno ? s->saved_errno : EIO));
    }
    return bn_output_close(s->out, false, err);
}
