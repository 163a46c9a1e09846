/* The command's SIGINT, SIGTERM and SIGPIPE (signals.c). */
#ifndef BN_CLI_SIGNALS_H
#define BN_CLI_SIGNALS_H

/* Install the handlers: until bn_cli_signals_stoppable, the first SIGINT
 * or SIGTERM ends the process at once (nothing measured yet to keep). */
void bn_cli_signals(void);
/* From here a first SIGINT or SIGTERM asks the library to stop. */
void bn_cli_signals_stoppable(void);
/* Ask the library to stop after `seconds` of wall time (SIGALRM, from a
 * timer armed now), as a first SIGINT does; bn_cli_caught then says
 * SIGALRM. */
void bn_cli_signals_max_wall(double seconds);
/* The signal that asked to stop (0: none; SIGALRM: --max-wall). */
int bn_cli_caught(void);

#endif
