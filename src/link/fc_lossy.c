/* Lossy links: no link-level flow control; full output queues drop (port.c). */
#include "link/fabric.h"

const struct bn_fc_ops bn_fc_lossy = {
    .name = "lossy",
    .summary = "drop-tail",
    .lossless = false,
};
