/* Typed reads of a result file's JSON; the first bad key becomes the error. */
#include <stdio.h>

#include "plot/doc.h"

static void note(struct doc *d, const char *key, const char *want)
{
    if (!d->err[0])
        snprintf(d->err, sizeof d->err, "%s: key '%s' is missing or not %s (is this a bnet "
                 "result file?)", d->path, key, want);
}

json_t *doc_get(struct doc *d, const json_t *obj, const char *key, json_type type)
{
    json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
    bool ok = v && (type == JSON_REAL ? json_is_number(v) : json_typeof(v) == type);
    if (ok)
        return v;
    note(d, key, type == JSON_ARRAY    ? "an array"
                 : type == JSON_OBJECT ? "an object"
                 : type == JSON_STRING ? "a string"
                                       : "a number");
    return NULL;
}

double doc_num(struct doc *d, const json_t *obj, const char *key)
{
    json_t *v = doc_get(d, obj, key, JSON_REAL);
    return v ? json_number_value(v) : 0;
}

const char *doc_str(struct doc *d, const json_t *obj, const char *key)
{
    json_t *v = doc_get(d, obj, key, JSON_STRING);
    return v ? json_string_value(v) : "";
}

double doc_at(struct doc *d, const json_t *a, size_t i, const char *what)
{
    json_t *v = json_array_get(a, i);
    if (json_is_number(v))
        return json_number_value(v);
    note(d, what, "an array of numbers");
    return 0;
}

bool doc_ok(const struct doc *d)
{
    return d->err[0] == '\0';
}
