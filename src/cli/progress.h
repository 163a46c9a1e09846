/* The command's progress line on stderr (progress.c). */
#ifndef BN_CLI_PROGRESS_H
#define BN_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/* Watch every run from here: `what` names the command ("run", "coll"),
 * `unit` what the runs count ("flows", "transfers", "tasks"), `part` what
 * the call's runs are ("row", "size", "fabric", "point"; NULL: one run).
 * Off (nothing printed) with `quiet`, when stderr is not a terminal, or
 * off rank 0 of mpirun. */
void bn_cli_progress_start(const char *what, const char *unit, const char *part, bool quiet);
/* The line blanked before something else is written to the terminal
 * (the next report draws it again). */
void bn_cli_progress_clear(void);
/* The line blanked, the watch ended. */
void bn_cli_progress_end(void);

#endif
