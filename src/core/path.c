#include <stdio.h>
#include <string.h>

#include "core/path.h"

void bn_path_beside(const char *source, const char *file, char *out, size_t cap)
{
    const char *slash = strrchr(source, '/');
    if (file[0] == '/' || !slash || source[0] == '<')
        snprintf(out, cap, "%s", file);
    else
        snprintf(out, cap, "%.*s/%s", (int)(slash - source), source, file);
}
