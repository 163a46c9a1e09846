/* bn_fail: fill an error record; see include/bnet/error.h and core/fail_key.h. */
#include <stdarg.h>
#include <stdio.h>

#include "core/fail_key.h"

int bn_fail(struct bn_error *err, int status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->status = status;
        err->key[0] = '\0';
    }
    return status;
}

/* "key 'KEY': " and the message, KEY kept for bn_scenario_locate. */
static int fail_key(struct bn_error *err, int status, const char *key, const char *fmt,
                    va_list ap)
{
    if (!err)
        return status;
    int n = snprintf(err->msg, sizeof err->msg, "key '%s': ", key);
    if (n >= 0 && (size_t)n < sizeof err->msg)
        vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
    snprintf(err->key, sizeof err->key, "%s", key);
    err->status = status;
    return status;
}

int bn_fail_key(struct bn_error *err, int status, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = fail_key(err, status, key, fmt, ap);
    va_end(ap);
    return rc;
}

int bn_fail_item(struct bn_error *err, int status, const char *list, unsigned index,
                 const char *field, const char *fmt, ...)
{
    char key[64];
    snprintf(key, sizeof key, "%s[%u].%s", list, index, field);
    va_list ap;
    va_start(ap, fmt);
    int rc = fail_key(err, status, key, fmt, ap);
    va_end(ap);
    return rc;
}
