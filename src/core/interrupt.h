/*
 * A stop requested from outside a run (the command's SIGINT/SIGTERM
 * handler calls bn_interrupt): the event loop looks at it a few times a
 * second and ends the run there, its results marked interrupted.
 * One flag for the process, as a signal is.
 */
#ifndef BN_CORE_INTERRUPT_H
#define BN_CORE_INTERRUPT_H

#include <stdbool.h>

bool bn_interrupt_requested(void);

/* The JSON's stop_reason (docs/results.md): "max_wall" (bn_interrupt_max_wall),
 * "signal" (bn_interrupt), "stalled" (the livelock watchdog), "max_time"
 * (sim.max_time_us before every flow finished) or "completed". */
const char *bn_stop_reason(bool interrupted, bool stalled, bool stopped_early);

#endif
