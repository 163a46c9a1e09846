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

#endif
