/* Line-by-line reading (lines.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/lines.h"

int bn_each_line(FILE *f, const char *path, bn_line_fn fn, void *ctx, unsigned *lines,
                 struct bn_error *err)
{
    char *line = NULL;
    size_t cap = 0;
    unsigned lineno = 0;
    int rc = BN_OK;
    ssize_t n;
    errno = 0;
    while (rc == BN_OK && (n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (strlen(line) != (size_t)n)
            rc = bn_fail(err, BN_EINPUT, "%s:%u: the line contains a NUL byte", path, lineno);
        else
            rc = fn(ctx, line, lineno, err);
    }
    if (rc == BN_OK && ferror(f))
        rc = bn_fail(err, BN_EINPUT, "cannot read '%s': %s", path, strerror(errno));
    free(line);
    if (lines)
        *lines = lineno;
    return rc;
}
