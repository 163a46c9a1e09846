/*
 * The command's progress line: one line on stderr, rewritten in place (a
 * carriage return, as curl's and rsync's are), with the simulated time,
 * the units and runs done, the share of the work and an ETA; only when
 * stderr is a terminal and --quiet is not given, so a pipe or a log file
 * gets none. The library reports a few times a second (bn_progress_watch);
 * the line is written at most every half second, from the first second of
 * the command on. The ETA extrapolates the share's rate since the line's
 * first report (the set-up before it left out), else since the start.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bnet/bnet.h"
#include "cli/dist.h"
#include "cli/progress.h"

static struct {
    bool on;
    const char *what, *unit, *part;
    double start, last;        /* wall times: the watch's start, the last line */
    double w0, s0;             /* the first report with a share: wall time and share */
    bool anchored;
    int width;                 /* of the line shown (0: none) */
} pl;

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* "1h02m", "3m05s", "42 s" into buf. */
static const char *duration(double s, char *buf, size_t len)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%ld s", t);
    return buf;
}

static void eta_of(double now, double share, char *buf, size_t len)
{
    double rate = 0;
    if (pl.anchored && share > pl.s0 && now - pl.w0 >= 0.5)
        rate = (share - pl.s0) / (now - pl.w0);
    else if (share > 0)
        rate = share / (now - pl.start);
    char d[24];
    if (rate > 0)
        snprintf(buf, len, " | ETA %s", duration((1 - share) / rate, d, sizeof d));
    else
        snprintf(buf, len, " | ETA ?");
}

static void show(void *ud, const struct bn_run_progress *p)
{
    (void)ud;
    double now = wall_now();
    if (p->share >= 0 && !pl.anchored) {
        pl.anchored = true;
        pl.w0 = now;
        pl.s0 = p->share;
    }
    if (now - pl.start < 1.0 || now - pl.last < 0.5)
        return;
    pl.last = now;
    char line[256], eta[40] = "";
    int n = snprintf(line, sizeof line, "[bnet] %s:", pl.what);
    if (p->parts && pl.part) /* in a run: the one going on; else those done */
        n += snprintf(line + n, sizeof line - (size_t)n, " %s %u/%u%s", pl.part,
                      p->parts_done + (p->simulated_us >= 0 && p->parts_done < p->parts),
                      p->parts, p->simulated_us >= 0 ? "" : " done");
    if (p->simulated_us >= 0) {
        n += snprintf(line + n, sizeof line - (size_t)n, "%s simulated %.1f us",
                      p->parts && pl.part ? " |" : "", p->simulated_us);
        if (p->total)
            n += snprintf(line + n, sizeof line - (size_t)n, " | %s %u/%u", pl.unit, p->done,
                          p->total);
    }
    if (p->share >= 0) {
        eta_of(now, p->share, eta, sizeof eta);
        n += snprintf(line + n, sizeof line - (size_t)n, " | %.1f %%", 100 * p->share);
    }
    char d[24];
    snprintf(line + n, sizeof line - (size_t)n, " | wall %s%s", duration(now - pl.start, d,
             sizeof d), eta);
    int len = (int)strlen(line);
    fprintf(stderr, "\r%s%*s", line, pl.width > len ? pl.width - len : 0, "");
    fflush(stderr);
    pl.width = len;
}

void bn_cli_progress_start(const char *what, const char *unit, const char *part, bool quiet)
{
    memset(&pl, 0, sizeof pl);
    pl.on = !quiet && isatty(STDERR_FILENO) && bn_cli_dist()->rank == 0;
    if (!pl.on)
        return;
    pl.what = what;
    pl.unit = unit;
    pl.part = part;
    pl.start = wall_now();
    bn_progress_watch(show, NULL);
}

void bn_cli_progress_clear(void)
{
    if (pl.width) /* what follows starts at the line's left */
        fprintf(stderr, "\r%*s\r", pl.width, "");
    fflush(stderr);
    pl.width = 0;
}

void bn_cli_progress_end(void)
{
    if (!pl.on)
        return;
    bn_progress_watch(NULL, NULL);
    bn_cli_progress_clear();
    pl.on = false;
}
