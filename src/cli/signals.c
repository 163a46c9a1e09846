/*
 * The command's signals. SIGINT and SIGTERM ask the library to stop
 * (bn_interrupt): a run ends at its next check, set-up included, and writes
 * what it measured, marked interrupted; the exit status is then 128 + the
 * signal, as a shell reports a killed command. A second one of either (the
 * handler stays installed: SIGINT then SIGTERM must not need SIGKILL) ends
 * the process at once, its unfinished output files removed. SIGPIPE (a
 * reader that went away: `bnet run | head -1`) ends it at once too, the
 * same way, with status 141 and no message, as a shell's pipeline expects.
 * --max-wall's timer (SIGALRM) stops a run as a first SIGINT does, status
 * 124 as timeout(1)'s.
 * docs/limits.md, "Exit status".
 */
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include "bnet/bnet.h"
#include "bnet/output.h"
#include "cli/signals.h"

static volatile sig_atomic_t caught, stoppable;

static void on_stop(int sig)
{
    if (caught || !stoppable) { /* async-signal-safe: unlink and _exit only */
        bn_output_remove_pending();
        _exit(128 + sig);
    }
    caught = sig;
    bn_interrupt();
}

/* --max-wall: a stop like a first SIGINT's; a signal after it ends the
 * process at once, as a second one does. */
static void on_alarm(int sig)
{
    if (caught) { /* a signal came first: its stop, its reason */
        bn_interrupt();
        return;
    }
    caught = sig;
    bn_interrupt_max_wall();
}

static void on_pipe(int sig)
{
    bn_output_remove_pending();
    _exit(128 + sig);
}

/* Installed even over SIG_IGN: a shell without job control starts a
 * background command with SIGINT ignored, and the old handler's tests
 * (tests/cli/test_signals.sh) signal such commands. */
static void install(int sig, void (*fn)(int))
{
    struct sigaction sa = {.sa_handler = fn};
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

void bn_cli_signals(void)
{
    install(SIGINT, on_stop);
    install(SIGTERM, on_stop);
    install(SIGPIPE, on_pipe);
}

void bn_cli_signals_stoppable(void)
{
    stoppable = 1;
}

void bn_cli_signals_max_wall(double seconds)
{
    /* SA_RESTART: the writes and waits it interrupts go on */
    struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {0};
    it.it_value.tv_sec = (time_t)seconds;
    it.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
    if (it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0)
        it.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &it, NULL);
}

int bn_cli_caught(void)
{
    return caught;
}
