/*
 * Where a file a scenario names is: a relative path is
 * taken from the scenario file's folder (not the working directory); an
 * absolute one, or any path of an embedded scenario ("<default>"), as is.
 */
#ifndef BN_CORE_PATH_H
#define BN_CORE_PATH_H

#include <stddef.h>

void bn_path_beside(const char *source, const char *file, char *out, size_t cap);

#endif
