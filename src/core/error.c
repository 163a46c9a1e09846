/* bn_fail: fill an error record; see include/bnet/error.h. */
#include <stdarg.h>
#include <stdio.h>

#include "bnet/error.h"

int bn_fail(struct bn_error *err, int status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}
