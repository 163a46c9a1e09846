/*
 * The jobs driver in a run on ranks (docs/parallel.md, "Jobs on ranks").
 * Every part runs the whole driver: its own events (a task's end, a
 * transfer's post, a job's start, a delivery heard) everywhere, in the
 * keyed order, so every part holds the same tasks, posts and queue pairs,
 * numbered alike, and rank 0's results are one process's. A delivery (a
 * transfer or a send landing) happens only on its receiver's part; the
 * driver hears of it coll.step_latency_us later, as its own event
 * (job_exec.c), in one loop as here. The receiver's part schedules it at
 * once, the others from its note at the window's end, which is in time
 * when the step latency is at least the lookahead: bn_jobs_lookahead_check
 * refuses, up front, a shorter one.
 */
#include <stdlib.h>
#include <string.h>

#include "core/where.h"
#include "driver/job/job.h"

int bn_jobs_lookahead_check(struct bn_jobs_exec *x, struct bn_error *err)
{
    const struct bn_scenario *sc = x->s->sc;
    if (x->step_ps < x->s->part->lookahead)
        return bn_fail(err, BN_EINPUT, "%s: key 'coll.step_latency_us': %g us is under the "
                       "lookahead (%.0f ns): the other parts would hear of a delivery after "
                       "the driver reacts to it", BN_WHERE(sc, "coll.step_latency_us"),
                       sc->coll.step_latency_us, (double)x->s->part->lookahead / 1000.0);
    return BN_OK;
}

static size_t job_notes(void *self, const void **out)
{
    struct bn_jobs_exec *x = self;
    *out = x->notes;
    return (size_t)x->nnotes * sizeof *x->notes;
}

/* The other parts' deliveries: each one's event, a step latency after it
 * landed (past this window); this part's own are scheduled and now sent. */
static bn_time_t job_apply(void *self, const void *notes, size_t len)
{
    struct bn_jobs_exec *x = self;
    size_t n = len / sizeof(struct bn_job_note);
    bn_time_t first = BN_TIME_NEVER;
    x->nnotes = 0;
    for (size_t i = 0; i < n; i++) {
        struct bn_job_note nt;
        memcpy(&nt, (const char *)notes + i * sizeof nt, sizeof nt);
        bn_jobs_hear(x, nt.cookie, nt.when);
        bn_time_t at = nt.when + x->step_ps;
        first = at < first ? at : first;
    }
    return first;
}

const struct bn_driver_ranks_ops bn_jobs_ranks_ops = {
    .notes = job_notes,
    .apply = job_apply,
    .app_everywhere = true,
};
