/*
 * Independent tasks in worker processes: each task runs in a fork of the
 * caller, at most `jobs` at once, and sends back a fixed-size message
 * through a pipe; the parent hands each message to `place` as its worker
 * ends. What a task computes depends only on its index, so placing by index
 * makes the results independent of how many ran at once (bnet compare's
 * fabrics, bnet sweep's points, bnet coll's rows).
 */
#ifndef BN_DRIVER_WORKERS_H
#define BN_DRIVER_WORKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bnet/error.h"

struct bn_workers {
    uint32_t ntasks;
    unsigned jobs;               /* 1 .. BN_WORKERS_MAX */
    size_t msg_size;             /* bytes each task sends back */
    const char *what;            /* "compare", "sweep": for messages */
    bool interruptible;          /* bn_interrupt stops new tasks (else all run) */
    /* In the child: compute task i into msg (msg_size bytes, zeroed). */
    void (*run)(void *ctx, uint32_t i, void *msg);
    /* In the parent: take task i's message; an error stops new tasks (the
     * first error is returned once the running ones end). */
    int (*place)(void *ctx, uint32_t i, const void *msg, struct bn_error *err);
    void *ctx;
};

#define BN_WORKERS_MAX 64

/* Run tasks 0 .. ntasks-1 in order of index, `jobs` at a time. When
 * interruptible, new tasks stop starting once bn_interrupt is requested
 * (the running ones end and are placed). BN_OK, or the first error. */
int bn_workers_run(const struct bn_workers *w, struct bn_error *err);

#endif
