/*
 * No control plane: static routes. A switch keeps forwarding into a dead
 * link, and what it sends there is lost until the link is back; the
 * transports' retries decide whether flows survive the outage.
 */
#include "fault/fault.h"

const struct bn_cp_ops bn_cp_none = {
    .name = "none",
    .summary = "static tables",
    .reroutes = false,
};
