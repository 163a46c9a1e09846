/* Reliable transports selectable by name (nic.transport). */
#include <string.h>

#include "nic/nic.h"

extern const struct bn_transport_ops bn_tp_go_back_n;
extern const struct bn_transport_ops bn_tp_selective_repeat;

static const struct bn_transport_ops *const transports[] = {
    &bn_tp_go_back_n,
    &bn_tp_selective_repeat,
};

const struct bn_transport_ops *bn_transport_find(const char *name)
{
    for (size_t i = 0; i < sizeof transports / sizeof transports[0]; i++)
        if (strcmp(transports[i]->name, name) == 0)
            return transports[i];
    return NULL;
}
