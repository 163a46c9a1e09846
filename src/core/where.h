/*
 * Where a key got its value, for the first argument of an error message
 * naming it: bn_scenario_where and bn_scenario_item_where into a buffer
 * that lives for the enclosing statement (a compound literal: C only, so
 * not in the public headers). For the layers above the scenario layer
 * (sim, driver); those below it name the key only (core/fail_key.h) and
 * tests/arch/test_calls.sh keeps them from calling these.
 */
#ifndef BN_CORE_WHERE_H
#define BN_CORE_WHERE_H

#include "bnet/scenario.h"

#define BN_WHERE(sc, path) \
    bn_scenario_where((sc), (path), (char[BN_PATH_MAX + 16]){0}, BN_PATH_MAX + 16)

/* The same for field `path` ("jobs[].tp") of list item `index`. */
#define BN_WHERE_ITEM(sc, path, index) \
    bn_scenario_item_where((sc), (path), (index), (char[BN_PATH_MAX + 16]){0}, BN_PATH_MAX + 16)

#endif
