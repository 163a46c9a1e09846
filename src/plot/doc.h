/* Reading a result file: typed access to its JSON that remembers the first
 * key that is missing or of the wrong type, for one clear error. */
#ifndef BN_PLOT_DOC_H
#define BN_PLOT_DOC_H

#include <jansson.h>
#include <stdbool.h>

struct doc {
    const char *path;
    json_t *root;
    char err[320];        /* the first problem; "" while none */
};

/* obj[key] if it is of `type` (JSON_ARRAY, JSON_OBJECT, JSON_STRING; JSON_REAL
 * means any number), else NULL and the error is noted. */
json_t *doc_get(struct doc *d, const json_t *obj, const char *key, json_type type);
double doc_num(struct doc *d, const json_t *obj, const char *key);
const char *doc_str(struct doc *d, const json_t *obj, const char *key);
/* Element i of array a as a number (noting an error if it is not one). */
double doc_at(struct doc *d, const json_t *a, size_t i, const char *what);
bool doc_ok(const struct doc *d);

#endif
