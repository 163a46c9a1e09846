/* Worker processes for independent tasks: fork, pipe, poll (workers.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bnet/bnet.h"
#include "core/interrupt.h"
#include "core/workers.h"

/* All len bytes through fd (reading or writing); -1 if it ends first. */
static int move_all(int fd, void *buf, size_t len, bool out)
{
    for (size_t at = 0; at < len;) {
        ssize_t n = out ? write(fd, (char *)buf + at, len - at) : read(fd, (char *)buf + at, len - at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        at += (size_t)n;
    }
    return 0;
}

/* A worker's SIGINT and SIGTERM only ask to stop, however many come: its
 * parent passes a stop on, and a terminal's reaches the worker too. */
static void worker_stop(int sig)
{
    (void)sig;
    bn_interrupt();
}

/* In the worker: the caller's handler (which may end the process at a
 * second signal) or the default becomes worker_stop; an ignored signal
 * stays ignored. */
static void worker_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old, sa = {.sa_handler = worker_stop};
        sigemptyset(&sa.sa_mask);
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    }
}

struct child {
    pid_t pid;
    int fd;
    uint32_t task;
};

static int spawn(const struct bn_workers *w, uint32_t task, void *msg, struct child *c,
                 struct bn_error *err)
{
    int fds[2];
    if (pipe(fds) != 0)
        return bn_fail(err, BN_EINTERNAL, "%s: pipe: %s", w->what, strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return bn_fail(err, BN_EINTERNAL, "%s: fork: %s", w->what, strerror(errno));
    }
    if (pid == 0) {
        worker_signals();
        bn_progress_watch(NULL, NULL); /* the parent reports, as tasks end */
        close(fds[0]);
        memset(msg, 0, w->msg_size);
        w->run(w->ctx, task, msg);
        _exit(move_all(fds[1], msg, w->msg_size, true) == 0 ? 0 : 1);
    }
    close(fds[1]);
    *c = (struct child){.pid = pid, .fd = fds[0], .task = task};
    return BN_OK;
}

/* Child c's message, placed; its error if it ended without one. */
static int reap(const struct bn_workers *w, struct child *c, void *msg, struct bn_error *err)
{
    int got = move_all(c->fd, msg, w->msg_size, false);
    close(c->fd);
    int status = 0;
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return bn_fail(err, BN_EINTERNAL, "%s: the worker of task %u ended without a result",
                       w->what, c->task);
    return w->place(w->ctx, c->task, msg, err);
}

int bn_workers_run(const struct bn_workers *w, struct bn_error *err)
{
    struct child c[BN_WORKERS_MAX];
    struct pollfd pf[BN_WORKERS_MAX];
    unsigned jobs = w->jobs < 1 ? 1 : w->jobs > BN_WORKERS_MAX ? BN_WORKERS_MAX : w->jobs;
    void *msg = malloc(w->msg_size);
    if (!msg)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    uint32_t next = 0, running = 0;
    int rc = BN_OK;
    bool passed = false;
    for (;;) {
        bool stop = w->interruptible && bn_interrupt_requested();
        /* a stop asked of this process alone reaches the running workers,
         * which end their task at its next check (not when it is done) */
        for (uint32_t i = 0; stop && !passed && i < running; i++)
            kill(c[i].pid, SIGINT);
        passed = passed || stop;
        while (rc == BN_OK && !stop && next < w->ntasks && running < jobs) {
            rc = spawn(w, next, msg, &c[running], err);
            next += rc == BN_OK;
            running += rc == BN_OK;
        }
        if (running == 0)
            break;
        for (uint32_t i = 0; i < running; i++)
            pf[i] = (struct pollfd){.fd = c[i].fd, .events = POLLIN};
        /* woken every 200 ms: a signal just before poll would not wake it */
        if (poll(pf, running, w->interruptible && !passed ? 200 : -1) < 0) {
            if (errno == EINTR)
                continue;
            rc = rc == BN_OK ? bn_fail(err, BN_EINTERNAL, "%s: poll: %s", w->what,
                                       strerror(errno))
                             : rc;
            for (uint32_t i = 0; i < running; i++) /* wait for each anyway */
                pf[i].revents = POLLIN;
        }
        for (uint32_t i = running; i-- > 0;) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            struct bn_error e = {0};
            int r = reap(w, &c[i], msg, &e);
            if (r != BN_OK && rc == BN_OK) { /* the first failure stands; no more start */
                rc = r;
                *err = e;
            }
            c[i] = c[--running];
        }
    }
    free(msg);
    return rc;
}
