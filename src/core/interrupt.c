/* The process's stop request; see interrupt.h. */
#include <signal.h>

#include "bnet/bnet.h"
#include "core/interrupt.h"

static volatile sig_atomic_t requested;

void bn_interrupt(void)
{
    requested = 1; /* async-signal-safe: one store */
}

void bn_interrupt_clear(void)
{
    requested = 0;
}

bool bn_interrupt_requested(void)
{
    return requested != 0;
}
