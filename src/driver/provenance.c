/* What a result keeps of what was simulated; see bnet/results.h. */
#include <stdlib.h>
#include <string.h>

#include "bnet/results.h"

int bn_provenance_keep(struct bn_provenance *p, const struct bn_scenario *sc,
                       struct bn_error *err)
{
    free(p->config);
    p->config = malloc(sizeof *p->config);
    if (!p->config)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    *p->config = *sc;
    return BN_OK;
}

int bn_provenance_command(struct bn_provenance *p, const char *command, struct bn_error *err)
{
    free(p->command);
    p->command = command ? strdup(command) : NULL;
    return command && !p->command ? bn_fail(err, BN_ENOMEM, "out of memory") : BN_OK;
}

void bn_provenance_free(struct bn_provenance *p)
{
    free(p->config);
    free(p->command);
    p->config = NULL;
    p->command = NULL;
}
