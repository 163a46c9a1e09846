/*
 * Warnings from inside the library (bn_set_warning_handler in
 * bnet/error.h): the readers say what they take in a peer's file that is
 * not what it seems, and go on; only the handler's owner prints.
 */
#ifndef BN_CORE_WARN_H
#define BN_CORE_WARN_H

#include "bnet/error.h"

/* One warning line, printf-style, to the handler if there is one. */
void bn_warn(const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#endif
