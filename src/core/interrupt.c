/* The process's stop request; see interrupt.h. */
#include <signal.h>

#include "bnet/bnet.h"
#include "core/interrupt.h"

static volatile sig_atomic_t requested, max_wall;

void bn_interrupt(void)
{
    requested = 1; /* async-signal-safe: one store */
}

void bn_interrupt_max_wall(void)
{
    max_wall = 1; /* before the request: a check that sees it sees why */
    requested = 1;
}

void bn_interrupt_clear(void)
{
    requested = 0;
    max_wall = 0;
}

const char *bn_interrupt_reason(void)
{
    return !requested ? NULL : max_wall ? "max_wall" : "signal";
}

bool bn_interrupt_requested(void)
{
    return requested != 0;
}
