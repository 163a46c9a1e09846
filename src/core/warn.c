/* Warnings to the handler the caller set (warn.h). */
#include <stdarg.h>
#include <stdio.h>

#include "core/warn.h"

static bn_warning_fn handler;
static void *handler_ctx;

void bn_set_warning_handler(bn_warning_fn fn, void *ctx)
{
    handler = fn;
    handler_ctx = ctx;
}

void bn_warn(const char *fmt, ...)
{
    if (!handler)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    handler(handler_ctx, msg);
}
