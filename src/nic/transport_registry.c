/* Reliable transports selectable by name (nic.transport). */

#include "nic/nic.h"

extern const struct bn_transport_ops bn_tp_go_back_n;
extern const struct bn_transport_ops bn_tp_selective_repeat;

static const struct bn_transport_ops *const transports[] = {
    &bn_tp_go_back_n,
    &bn_tp_selective_repeat,
};

#define NTRANSPORTS (sizeof transports / sizeof transports[0])

const struct bn_transport_ops *bn_transport_at(size_t i)
{
    return i < NTRANSPORTS ? transports[i] : NULL;
}

const char *bn_transport_name(size_t i)
{
    return i < NTRANSPORTS ? transports[i]->name : NULL;
}
