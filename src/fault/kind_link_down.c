/* link_down: a link (target: its two ends, or a port) goes dark, as a
 * cable pulled or an optic dead; it comes back at until_us. */
#include "fault/kind.h"

const struct bn_fault_kind_ops bn_fault_link_down = {
    .name = "link_down",
    .summary = "the target link goes down",
    .resolve = bn_fault_resolve_link,
    .strike = bn_fault_strike_down,
    .end = bn_fault_end_up,
};
