/*
 * The jobs driver in a partitioned run (docs/parallel.md, "Jobs on
 * ranks"). Every part runs the whole driver: its own events (a task's end,
 * a transfer's post, a job's start) everywhere, in the keyed order, and
 * each delivery, which only the receiver's part sees, from a note at the
 * window's end, at the delivery's time, every part (and one process in
 * parts) in the same order: by time, then post. So every part holds the
 * same tasks, posts and queue pairs, numbered alike, and rank 0's results
 * are one process's. That needs every reaction to a delivery to land past
 * the window: a transfer's post after coll.step_latency_us, a task's end
 * a lookahead later or more; bn_jobs_defer_check refuses, up front, what
 * would post or end sooner.
 */
#include <stdlib.h>
#include <string.h>

#include "core/where.h"
#include "driver/job/job.h"

enum {
    WHY_OK = 0, WHY_BACKGROUND, WHY_SEND, WHY_SHORT,
};

/* Whether task t of jr runs on the fabric (else its time is known). */
static bool on_fabric(const struct bn_jobs_exec *x, const struct bn_job_rt *jr, uint32_t t,
                      double *us)
{
    const struct bn_task *tk = &jr->g.tasks[t];
    *us = tk->kind == BN_TASK_COMPUTE ? tk->dur_us : bn_jobs_model_us(x, jr, tk);
    return *us < 0;
}

/* Walk job jr's graph in its topological order: a task may start at a
 * delivery's instant ("driven") if a task it waits for ends on one (runs
 * on the fabric) or ends within a lookahead of its own driven start; the
 * first iteration's roots start at a job's start, a later one's where the
 * last iteration ended, a delivery perhaps. */
static int walk(const struct bn_jobs_exec *x, const struct bn_job_rt *jr, uint32_t *task)
{
    const struct bn_job_graph *g = &jr->g;
    double la_us = bn_time_to_us(x->s->part->lookahead);
    bool *driven = calloc((size_t)g->ntasks + 1, sizeof *driven);
    if (!driven)
        return -1;
    bool roots = jr->j->iterations > 1;
    int why = WHY_OK;
    for (uint32_t i = 0; i < g->ntasks && why == WHY_OK; i++) {
        uint32_t t = g->order[i];
        double us;
        bool net = on_fabric(x, jr, t, &us);
        bool d = driven[t] || (roots && g->ndeps[t] == 0);
        bool ends_driven = net || (d && us < la_us);
        if (d && net && g->tasks[t].kind == BN_TASK_SEND)
            why = WHY_SEND;
        else if (d && !net && us > 0 && us < la_us)
            why = WHY_SHORT;
        for (uint32_t k = g->succ_off[t]; ends_driven && k < g->succ_off[t + 1]; k++)
            driven[g->succ[k]] = true;
        *task = t;
    }
    free(driven);
    return why;
}

int bn_jobs_defer_check(struct bn_jobs_exec *x, struct bn_error *err)
{
    const struct bn_scenario *sc = x->s->sc;
    double la_ns = (double)x->s->part->lookahead / 1000.0;
    if (x->step_ps < x->s->part->lookahead)
        return bn_fail(err, BN_EINPUT, "%s: key 'coll.step_latency_us': %g us is under the "
                       "lookahead (%.0f ns): a transfer another part made ready would post "
                       "late", BN_WHERE(sc, "coll.step_latency_us"), sc->coll.step_latency_us,
                       la_ns);
    for (uint32_t k = 0; k < x->njobs; k++) {
        const struct bn_job_rt *jr = &x->jobs[k];
        if (jr->j->kind == BN_SC_JOB_BACKGROUND && jr->nflows)
            return bn_fail(err, BN_EINPUT, "%s: key 'jobs[%u].kind': background flows are "
                           "posted again the instant they land, and parts hear of a delivery "
                           "only at their window's end: run it in one process",
                           BN_WHERE_ITEM(sc, "jobs[].kind", k), k);
        uint32_t t = 0;
        int why = walk(x, jr, &t);
        if (why < 0)
            return bn_fail(err, BN_ENOMEM, "out of memory checking job %u", k);
        if (why == WHY_SEND)
            return bn_fail(err, BN_EINPUT, "%s: key 'jobs[%u]': job '%s' posts a send (task %u) "
                           "the instant a transfer lands, and parts hear of a delivery only at "
                           "their window's end (%.0f ns): run it in one process",
                           BN_WHERE_ITEM(sc, "jobs[].kind", k), k, jr->name, t, la_ns);
        if (why == WHY_SHORT)
            return bn_fail(err, BN_EINPUT, "%s: key 'jobs[%u]': job '%s' has a task (%u) that "
                           "ends within the lookahead (%.0f ns) of a transfer landing, and parts "
                           "hear of a delivery only at their window's end: run it in one process",
                           BN_WHERE_ITEM(sc, "jobs[].kind", k), k, jr->name, t, la_ns);
    }
    return BN_OK;
}

void bn_jobs_too_soon(struct bn_jobs_exec *x, uint32_t job, const char *what)
{
    if (x->rc == BN_OK)
        x->rc = bn_fail(x->err, BN_EINTERNAL, "jobs: in job %u a delivery's reaction (%s) "
                        "lands inside its window, which bn_jobs_defer_check should have "
                        "refused", job, what);
}

static size_t job_notes(void *self, const void **out)
{
    struct bn_jobs_exec *x = self;
    *out = x->notes;
    return (size_t)x->nnotes * sizeof *x->notes;
}

static int note_order(const void *a, const void *b)
{
    const struct bn_job_note *p = a, *q = b;
    if (p->when != q->when)
        return p->when < q->when ? -1 : 1;
    return p->cookie < q->cookie ? -1 : p->cookie > q->cookie;
}

/* This part's notes and the others', by time then post, each at its
 * delivery's time: the same on every part. */
static bn_time_t job_apply(void *self, const void *notes, size_t len)
{
    struct bn_jobs_exec *x = self;
    struct bn_sim *s = x->s;
    size_t theirs = len / sizeof(struct bn_job_note), n = theirs + x->nnotes;
    x->scheduled = BN_TIME_NEVER;
    if (n == 0)
        return BN_TIME_NEVER;
    struct bn_job_note *all = malloc(n * sizeof *all);
    if (!all) {
        if (x->rc == BN_OK)
            x->rc = bn_fail(x->err, BN_ENOMEM, "jobs: out of memory for delivery notes");
        s->fab.oom = true;
        return BN_TIME_NEVER;
    }
    if (theirs)
        memcpy(all, notes, theirs * sizeof *all);
    memcpy(all + theirs, x->notes, (size_t)x->nnotes * sizeof *all);
    x->nnotes = 0;
    qsort(all, n, sizeof *all, note_order);
    bn_time_t now = s->fab.now;
    x->horizon = s->part->cut.window_end;
    x->applying = true;
    for (size_t i = 0; i < n && x->rc == BN_OK; i++) {
        s->fab.now = all[i].when;
        bn_jobs_delivered(x, all[i].cookie);
    }
    x->applying = false;
    s->fab.now = now;
    free(all);
    return x->scheduled;
}

const struct bn_driver_ranks_ops bn_jobs_ranks_ops = {
    .notes = job_notes,
    .apply = job_apply,
    .app_everywhere = true,
    .defers = true,
};
