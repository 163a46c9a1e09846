/*
 * Errors about a scenario key, raised by the layers below the scenario
 * layer: they name the key ("key 'workload.load': ...") and keep its path in
 * bn_error.key; they know no file or line. The scenario layer's callers add
 * where the key got its value (bn_scenario_locate: "file:line: key ...").
 */
#ifndef BN_CORE_FAIL_KEY_H
#define BN_CORE_FAIL_KEY_H

#include "bnet/error.h"

int bn_fail_key(struct bn_error *err, int status, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same for field `field` of item `index` of list `list` ("jobs[2].tp"). */
int bn_fail_item(struct bn_error *err, int status, const char *list, unsigned index,
                 const char *field, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

#endif
