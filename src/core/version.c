/* The library's version at run time; see bnet/version.h. */
#include "bnet/version.h"

const char *bn_version(void)
{
    return BNET_VERSION;
}
