/*
 * The jobs executor: every job's graph run on the fabric at once. A task
 * starts when the tasks it depends on are done: a compute phase (or a
 * modelled collective) ends after its time; a collective runs its
 * schedule, each transfer an RDMA WRITE on the queue pair of its (source,
 * destination, channel, communicator), posted coll.step_latency_us after
 * its dependencies landed, as the collective driver does; a send posts one
 * message per pair. Communicators have their own queue pairs, as NCCL's
 * do. When an iteration's last task is done the next starts; background
 * flows are reposted as they land until the other jobs are done.
 *
 * A delivery reaches the driver as its own event, coll.step_latency_us
 * after the data landed (the receiver's proxy seeing the completion and
 * acting on it): the next transfer posts then, a task that waited on it
 * ends then. So the driver's state changes only in its own events, which
 * run in the keyed order alike in one loop and on every part of a run on
 * ranks (docs/parallel.md, "Jobs on ranks").
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/rng.h"
#include "core/where.h"
#include "driver/coll/coll.h"
#include "driver/job/job.h"

enum { EV_TASK_DONE = 0, EV_POST = 1, EV_JOB_START = 2, EV_DELIVERED = 3 };
/* a delivery's event: its post's id with this bit, apart from a task's id
 * (a post's own EV_POST is done before it can land) */
#define OBJ_DELIVERED 0x80000000u
#define INST_SEND UINT32_MAX
#define INST_FLOW (UINT32_MAX - 1)
#define COMM_SENDS 0xffffffu   /* the communicator key of a job's sends */
#define COMM_FLOWS 0xfffffeu   /* of background flows */

struct bn_job_inst {
    const struct bn_sched *sched;
    struct bn_sched_run run;
    bn_time_t *bulk_at;         /* an aggregate: per transfer, when posted and delivered */
    uint32_t job, task, next_free;
};

struct bn_job_post {
    bn_time_t at;               /* when it was posted (the trace's steps) */
    bn_time_t landed;           /* when its receiver took it all */
    uint32_t inst, xfer, job, next_free;
};

static void fail(struct bn_jobs_exec *x, int rc, const char *what)
{
    if (x->rc == BN_OK)
        x->rc = bn_fail(x->err, rc, "jobs: %s", what);
}

static bool qp_grow(struct bn_jobs_exec *x)
{
    uint32_t cap = x->qp_cap ? 2 * x->qp_cap : 1024;
    uint64_t *key = calloc((size_t)cap * 2, sizeof *key);
    uint32_t *val = calloc(cap, sizeof *val);
    if (!key || !val) {
        free(key);
        free(val);
        return false;
    }
    for (uint32_t i = 0; i < x->qp_cap; i++) {
        if (!x->qp_key[2 * i])
            continue;
        uint32_t k = (uint32_t)bn_mix64(x->qp_key[2 * i] ^ x->qp_key[2 * i + 1]) & (cap - 1);
        while (key[2 * k])
            k = (k + 1) & (cap - 1);
        key[2 * k] = x->qp_key[2 * i];
        key[2 * k + 1] = x->qp_key[2 * i + 1];
        val[k] = x->qp_val[i];
    }
    free(x->qp_key);
    free(x->qp_val);
    x->qp_key = key;
    x->qp_val = val;
    x->qp_cap = cap;
    return true;
}

/* The queue pair of (src, dst, channel) of communicator `comm` of job
 * `job`, created on first use. */
static uint32_t qp_for(struct bn_jobs_exec *x, uint32_t src, uint32_t dst, uint32_t ch,
                       uint32_t job, uint32_t comm)
{
    if (2 * (x->qp_n + 1) > x->qp_cap && !qp_grow(x))
        return BN_NONE;
    uint64_t k1 = ((uint64_t)src << 32 | dst) + 1, k2 = (uint64_t)job << 48 | (uint64_t)comm << 16 | ch;
    uint32_t mask = x->qp_cap - 1, i = (uint32_t)bn_mix64(k1 ^ k2) & mask;
    while (x->qp_key[2 * i] && (x->qp_key[2 * i] != k1 || x->qp_key[2 * i + 1] != k2))
        i = (i + 1) & mask;
    if (!x->qp_key[2 * i]) {
        uint32_t qp = bn_qp_create(&x->s->nics, src, dst);
        if (qp == BN_NONE)
            return BN_NONE;
        /* hashed by what it connects, not by when it was made: a job alone
         * takes the same paths as beside others */
        bn_qp_set_entropy(&x->s->nics, qp, bn_mix64(k1) ^ k2);
        x->qp_key[2 * i] = k1;
        x->qp_key[2 * i + 1] = k2;
        x->qp_val[i] = qp;
        x->qp_n++;
    }
    return x->qp_val[i];
}

/* The driver's own event at `at`. */
static void schedule(struct bn_jobs_exec *x, bn_time_t at, uint32_t obj, uint32_t arg)
{
    bn_fabric_schedule(&x->s->fab, at, BN_EV_APP, obj, arg);
}

static uint32_t new_post(struct bn_jobs_exec *x, uint32_t inst, uint32_t xfer, uint32_t job)
{
    uint32_t i = x->post_free;
    if (i != UINT32_MAX) {
        x->post_free = x->post[i].next_free;
    } else {
        if (x->npost == OBJ_DELIVERED ||
            !bn_grow((void **)&x->post, x->npost, &x->post_cap, sizeof *x->post))
            return UINT32_MAX;
        i = x->npost++;
    }
    x->post[i] = (struct bn_job_post){.inst = inst, .xfer = xfer, .job = job};
    return i;
}

static void free_post(struct bn_jobs_exec *x, uint32_t i)
{
    x->post[i].next_free = x->post_free;
    x->post_free = i;
}

static void post_message(struct bn_jobs_exec *x, uint32_t src, uint32_t dst, uint32_t ch,
                         uint32_t job, uint32_t comm, uint64_t bytes, uint32_t cookie)
{
    uint32_t qp = qp_for(x, src, dst, ch, job, comm);
    int rc = qp == BN_NONE ? -1 : bn_qp_post(&x->s->nics, qp, bytes, BN_VERB_WRITE, cookie);
    if (rc == -2)
        fail(x, BN_EINPUT, "a queue pair's 2^32 packet sequence numbers are used up (fewer "
             "iterations, or a larger nic.mtu_bytes)");
    else if (rc != 0)
        fail(x, BN_ENOMEM, "out of memory posting a message");
}

/* Post transfer post[pi] of its collective. */
static void post_xfer(struct bn_jobs_exec *x, uint32_t pi)
{
    const struct bn_job_post *po = &x->post[pi];
    struct bn_job_inst *in = &x->inst[po->inst];
    const struct bn_job_rt *jr = &x->jobs[in->job];
    struct bn_xfer_view t;
    bn_sched_view(in->sched, po->xfer, &t);
    uint32_t comm = jr->g.tasks[in->task].comm;
    const uint32_t *host = &jr->comm_host[jr->g.comm_off[comm]];
    bn_sched_run_posted(&in->run, po->xfer);
    x->post[pi].at = x->s->fab.now;
    if (in->bulk_at)
        in->bulk_at[2 * (size_t)po->xfer] = x->s->fab.now;
    post_message(x, host[t.src], host[t.dst], t.channel, in->job, comm, t.bytes, pi);
}

/* Ready transfers of instance `ii` post after the step latency: a
 * collective's first ones wait it out; the ones a delivery made ready
 * post at once, since the delivery's event came that late (`now`). */
static void release(struct bn_jobs_exec *x, uint32_t ii, const uint32_t *xs, uint32_t n,
                    bool now)
{
    for (uint32_t i = 0; i < n && x->rc == BN_OK; i++) {
        uint32_t pi = new_post(x, ii, xs[i], x->inst[ii].job);
        if (pi == UINT32_MAX)
            return fail(x, BN_ENOMEM, "out of memory posting a transfer");
        if (now || x->step_ps == 0)
            post_xfer(x, pi);
        else
            schedule(x, x->s->fab.now + x->step_ps, pi, EV_POST);
    }
}

static void push_todo(struct bn_jobs_exec *x, uint32_t job, uint32_t task)
{
    if (!bn_grow((void **)&x->todo, x->ntodo, &x->todo_cap, sizeof *x->todo))
        return fail(x, BN_ENOMEM, "out of memory running jobs");
    x->todo[x->ntodo++] = (uint64_t)job << 32 | task;
}

static void start_iteration(struct bn_jobs_exec *x, uint32_t job);

/* Task t of job jr is done: its figures, its successors released, the
 * iteration closed after its last task. */
static void finish_task(struct bn_jobs_exec *x, uint32_t job, uint32_t t)
{
    struct bn_job_rt *jr = &x->jobs[job];
    const struct bn_job_graph *g = &jr->g;
    jr->dur[t] = bn_time_to_us(x->s->fab.now - jr->t_start[t]);
    int rc = bn_jobs_task_stats(x, jr, t);
    if (rc != BN_OK && x->rc == BN_OK)
        x->rc = rc;
    for (uint32_t k = g->succ_off[t]; k < g->succ_off[t + 1]; k++) {
        uint32_t u = g->succ[k];
        if (--jr->waiting[u] == 0)
            push_todo(x, job, u);
    }
    if (--jr->tasks_left > 0)
        return;
    rc = bn_jobs_iteration_stats(x, jr, bn_time_to_us(x->s->fab.now - jr->iter_start));
    if (rc != BN_OK && x->rc == BN_OK)
        x->rc = rc;
    if (++jr->iter < jr->j->iterations) {
        start_iteration(x, job);
        return;
    }
    jr->finished = true;
    jr->res->end_us = bn_time_to_us(x->s->fab.now);
    x->fg_left--;
}

static void free_inst(struct bn_jobs_exec *x, uint32_t ii)
{
    struct bn_job_inst *in = &x->inst[ii];
    bn_sched_run_free(&in->run);
    free(in->bulk_at);
    in->bulk_at = NULL;
    in->next_free = x->inst_free;
    x->inst_free = ii;
}

struct chain_ctx {
    struct bn_jobs_exec *x;
    const struct bn_job_inst *in;
};

/* A hop of an aggregate's longest chain: its communicator's queue pair. */
static void chain_leg(void *ctx, const struct bn_xfer_view *t, struct bn_chain_leg *leg)
{
    struct chain_ctx *c = ctx;
    const struct bn_job_rt *jr = &c->x->jobs[c->in->job];
    uint32_t comm = jr->g.tasks[c->in->task].comm;
    const uint32_t *host = &jr->comm_host[jr->g.comm_off[comm]];
    leg->qp = qp_for(c->x, host[t->src], host[t->dst], t->channel, c->in->job, comm);
    leg->step_ps = c->x->step_ps;
}

/* When an aggregate collective whose flows all landed (the last at
 * `landed`) is done: its head later, and no sooner than its longest chain
 * (coll_chain.c); heard a step latency after, as a delivery is. */
static bn_time_t bulk_end(struct bn_jobs_exec *x, const struct bn_job_inst *in, bn_time_t landed)
{
    const struct bn_job_rt *jr = &x->jobs[in->job];
    struct chain_ctx c = {x, in};
    double head = 0, chain = bn_coll_chain_us(x->s, in->sched, in->bulk_at, chain_leg, &c, &head);
    bn_time_t end = landed + bn_time_from_us(head);
    bn_time_t floor = jr->t_start[in->task] + bn_time_from_us(chain);
    return (end > floor ? end : floor) + x->step_ps;
}

/* A collective on the fabric: its schedule started in a free instance. */
static void start_coll(struct bn_jobs_exec *x, uint32_t job, uint32_t t)
{
    struct bn_job_rt *jr = &x->jobs[job];
    const struct bn_job_sched *js = bn_jobs_sched(x, jr, &jr->g.tasks[t], x->err);
    if (!js) {
        if (x->rc == BN_OK)
            x->rc = x->err->status ? x->err->status : BN_ENOMEM;
        return;
    }
    uint32_t ii = x->inst_free;
    if (ii != UINT32_MAX) {
        x->inst_free = x->inst[ii].next_free;
    } else {
        if (!bn_grow((void **)&x->inst, x->ninst, &x->inst_cap, sizeof *x->inst))
            return fail(x, BN_ENOMEM, "out of memory running a collective");
        ii = x->ninst++;
    }
    struct bn_job_inst *in = &x->inst[ii];
    *in = (struct bn_job_inst){.sched = &js->sched, .job = job, .task = t};
    if (js->sched.bulk &&
        !(in->bulk_at = calloc(2 * (size_t)js->sched.nxfers + 2, sizeof *in->bulk_at)))
        return fail(x, BN_ENOMEM, "out of memory running a collective");
    uint32_t ready = bn_sched_ready_max(&js->sched) + 1;
    if (ready > x->ready_cap) {
        uint32_t *r = realloc(x->ready, (size_t)ready * sizeof *r);
        if (!r)
            return fail(x, BN_ENOMEM, "out of memory running a collective");
        x->ready = r;
        x->ready_cap = ready;
    }
    int rc = bn_sched_run_start(&in->run, in->sched, x->err);
    if (rc != BN_OK) {
        if (x->rc == BN_OK)
            x->rc = rc;
        return;
    }
    if (in->sched->nxfers == 0) {
        free_inst(x, ii);
        finish_task(x, job, t);
        return;
    }
    release(x, ii, x->ready, bn_sched_run_initial(&in->run, x->ready), false);
}

static void start_task(struct bn_jobs_exec *x, uint32_t job, uint32_t t)
{
    struct bn_job_rt *jr = &x->jobs[job];
    const struct bn_task *tk = &jr->g.tasks[t];
    jr->t_start[t] = x->s->fab.now;
    double us = tk->kind == BN_TASK_COMPUTE ? tk->dur_us : bn_jobs_model_us(x, jr, tk);
    if (us >= 0) {
        if (us == 0)
            finish_task(x, job, t);
        else
            schedule(x, x->s->fab.now + bn_time_from_us(us), jr->base + t, EV_TASK_DONE);
        return;
    }
    if (tk->kind == BN_TASK_COLL) {
        start_coll(x, job, t);
        return;
    }
    jr->left[t] = tk->npairs;
    for (uint32_t i = 0; i < tk->npairs && x->rc == BN_OK; i++) {
        const uint32_t *pr = jr->g.pair[tk->comm + i];
        uint32_t pi = new_post(x, INST_SEND, t, job);
        if (pi == UINT32_MAX)
            return fail(x, BN_ENOMEM, "out of memory posting a send");
        post_message(x, jr->host[pr[0]], jr->host[pr[1]], 0, job, COMM_SENDS,
                     tk->bytes ? tk->bytes : 1, pi);
    }
    if (tk->npairs == 0)
        finish_task(x, job, t);
}

/* Start what is ready, including what finishing at once makes ready. */
static void drain(struct bn_jobs_exec *x)
{
    while (x->ntodo && x->rc == BN_OK) {
        uint64_t e = x->todo[--x->ntodo];
        uint32_t job = (uint32_t)(e >> 32);
        if (!x->jobs[job].failed)
            start_task(x, job, (uint32_t)e);
    }
}

static void start_iteration(struct bn_jobs_exec *x, uint32_t job)
{
    struct bn_job_rt *jr = &x->jobs[job];
    const struct bn_job_graph *g = &jr->g;
    jr->iter_start = x->s->fab.now;
    jr->tasks_left = g->ntasks;
    memcpy(jr->waiting, g->ndeps, (size_t)g->ntasks * sizeof *jr->waiting);
    for (uint32_t u = 0; u < g->nunits; u++)
        jr->unit_compute[u] = 0;
    for (uint32_t t = g->ntasks; t-- > 0;) /* pushed in reverse: started in index order */
        if (g->ndeps[t] == 0)
            push_todo(x, job, t);
}

static void start_flows(struct bn_jobs_exec *x, uint32_t job)
{
    struct bn_job_rt *jr = &x->jobs[job];
    for (uint32_t f = 0; f < jr->nflows && x->rc == BN_OK; f++) {
        uint32_t pi = new_post(x, INST_FLOW, f, job);
        if (pi == UINT32_MAX)
            return fail(x, BN_ENOMEM, "out of memory posting a flow");
        post_message(x, jr->flow[f][0], jr->flow[f][1], 0, job, COMM_FLOWS, jr->j->bytes, pi);
        jr->flows_out++;
    }
}

static void job_start(struct bn_jobs_exec *x, uint32_t job)
{
    struct bn_job_rt *jr = &x->jobs[job];
    jr->started = true;
    jr->res->start_us = bn_time_to_us(x->s->fab.now);
    if (jr->j->kind == BN_SC_JOB_BACKGROUND) {
        if (x->fg_left)
            start_flows(x, job);
        return;
    }
    if (jr->g.ntasks == 0) {
        jr->finished = true;
        x->fg_left--;
        return;
    }
    start_iteration(x, job);
    drain(x);
}

/* A delivered transfer, for the timeline: its ranks, channel and times. */
static void keep_step(struct bn_jobs_exec *x, const struct bn_job_post *po,
                      const struct bn_job_inst *in)
{
    struct bn_job_results *out = x->out;
    if (out->nsteps == BN_JOB_STEPS_MAX) {
        out->steps_truncated = true;
        return;
    }
    if ((out->nsteps & (out->nsteps - 1)) == 0) {
        struct bn_job_step *n = realloc(out->steps, (out->nsteps ? 2 * out->nsteps : 1024) *
                                                        sizeof *n);
        if (!n)
            return fail(x, BN_ENOMEM, "out of memory for the trace's steps");
        out->steps = n;
    }
    const struct bn_job_rt *jr = &x->jobs[po->job];
    struct bn_xfer_view t;
    bn_sched_view(in->sched, po->xfer, &t);
    const uint32_t *rank = &jr->g.comm_rank[jr->g.comm_off[jr->g.tasks[in->task].comm]];
    out->steps[out->nsteps++] = (struct bn_job_step){
        .start_us = bn_time_to_us(po->at), .end_us = bn_time_to_us(po->landed),
        .bytes = t.bytes, .job = po->job, .channel = t.channel,
        .rank = rank[t.src], .peer = rank[t.dst],
    };
}

static void on_complete(void *self, uint32_t cookie, enum bn_completion_side side, bn_time_t when)
{
    struct bn_jobs_exec *x = self;
    if (side != BN_COMPLETE_RX)
        return;
    if (x->ranks) { /* the other parts hear of it at the window's end (job_ranks.c) */
        if (!bn_grow((void **)&x->notes, x->nnotes, &x->notes_cap, sizeof *x->notes))
            return fail(x, BN_ENOMEM, "out of memory for delivery notes");
        x->notes[x->nnotes++] = (struct bn_job_note){.when = when, .cookie = cookie};
    }
    bn_jobs_hear(x, cookie, when);
}

void bn_jobs_hear(struct bn_jobs_exec *x, uint32_t cookie, bn_time_t when)
{
    x->post[cookie].landed = when;
    schedule(x, when + x->step_ps, cookie | OBJ_DELIVERED, EV_DELIVERED);
}

/* The delivery of post `cookie` heard: what it makes ready. */
static void delivered(struct bn_jobs_exec *x, uint32_t cookie)
{
    struct bn_job_post po = x->post[cookie];
    struct bn_job_rt *jr = &x->jobs[po.job];
    free_post(x, cookie);
    if (po.inst == INST_FLOW) {
        jr->res->flows_done++;
        jr->res->bytes_done += jr->j->bytes;
        if (x->fg_left) {
            uint32_t pi = new_post(x, INST_FLOW, po.xfer, po.job);
            if (pi == UINT32_MAX)
                return fail(x, BN_ENOMEM, "out of memory posting a flow");
            post_message(x, jr->flow[po.xfer][0], jr->flow[po.xfer][1], 0, po.job, COMM_FLOWS,
                         jr->j->bytes, pi);
        } else {
            jr->flows_out--;
        }
        return;
    }
    if (jr->failed)
        return;
    if (po.inst == INST_SEND) {
        if (--jr->left[po.xfer] == 0)
            finish_task(x, po.job, po.xfer);
        drain(x);
        return;
    }
    struct bn_job_inst *in = &x->inst[po.inst];
    if (in->bulk_at)
        in->bulk_at[2 * (size_t)po.xfer + 1] = po.landed;
    if (x->trace)
        keep_step(x, &po, in);
    release(x, po.inst, x->ready, bn_sched_run_deliver(&in->run, po.xfer, x->ready), true);
    if (in->run.delivered < in->sched->nxfers)
        return;
    if (in->run.conflicts)
        return fail(x, BN_EINTERNAL, "a collective's schedule raced on the fabric");
    uint32_t job = in->job, task = in->task;
    bn_time_t end = in->bulk_at ? bulk_end(x, in, po.landed) : x->s->fab.now;
    free_inst(x, po.inst);
    if (end > x->s->fab.now) {
        schedule(x, end, jr->base + task, EV_TASK_DONE);
        return;
    }
    finish_task(x, job, task);
    drain(x);
}

static int exec_event(struct bn_sim *s, void *self, const struct bn_event *ev,
                      struct bn_error *err)
{
    struct bn_jobs_exec *x = self;
    (void)s;
    (void)err;
    if (ev->arg == EV_POST) {
        if (!x->jobs[x->post[ev->obj].job].failed)
            post_xfer(x, ev->obj);
        else
            free_post(x, ev->obj);
        return x->rc;
    }
    if (ev->arg == EV_DELIVERED) {
        delivered(x, ev->obj & ~OBJ_DELIVERED);
        return x->rc;
    }
    if (ev->arg == EV_JOB_START) {
        job_start(x, ev->obj);
        return x->rc;
    }
    uint32_t job = 0;
    while (job + 1 < x->njobs && ev->obj >= x->jobs[job + 1].base)
        job++;
    if (!x->jobs[job].failed) {
        finish_task(x, job, ev->obj - x->jobs[job].base);
        drain(x);
    }
    return x->rc;
}

/* A queue pair gave up: its job has failed (the others go on). */
static void exec_qp_error(void *self, uint32_t qpid, bn_time_t when)
{
    struct bn_jobs_exec *x = self;
    const struct bn_qp *qp = &x->s->nics.qp[qpid];
    if (qp->msg_head == BN_NONE)
        return;
    if (x->ranks) /* only its sender's part sees it: the parts would part ways */
        return fail(x, BN_EINPUT, "a queue pair gave up its retries, which a run on ranks "
                    "cannot tell its other parts: run it in one process");
    struct bn_job_rt *jr = &x->jobs[x->post[x->s->nics.msg[qp->msg_head].cookie].job];
    if (jr->failed || jr->finished)
        return;
    jr->failed = jr->finished = true;
    jr->failed_us = bn_time_to_us(when);
    if (jr->j->kind == BN_SC_JOB_BACKGROUND)
        return;
    x->fg_left--;
}

static int exec_start(struct bn_sim *s, void *self, struct bn_error *err)
{
    struct bn_jobs_exec *x = self;
    (void)err;
    for (uint32_t k = 0; k < x->njobs; k++)
        bn_fabric_schedule(&s->fab, bn_time_from_us(x->jobs[k].j->start_us), BN_EV_APP, k,
                           EV_JOB_START);
    return BN_OK;
}

static bool exec_done(const void *self)
{
    const struct bn_jobs_exec *x = self;
    if (x->rc != BN_OK)
        return true;
    if (x->fg_left)
        return false;
    for (uint32_t k = 0; k < x->njobs; k++)
        if (x->jobs[k].flows_out)
            return false;
    return true;
}

static void exec_progress(const void *self, uint32_t *done, uint32_t *total)
{
    const struct bn_jobs_exec *x = self;
    uint64_t d = 0, all = 0; /* tasks, of every iteration: one iteration may be the whole run */
    for (uint32_t k = 0; k < x->njobs; k++)
        if (x->jobs[k].j->kind != BN_SC_JOB_BACKGROUND) {
            const struct bn_job_rt *jr = &x->jobs[k];
            uint64_t n = jr->g.ntasks, it = jr->iter;
            d += n * it + (jr->tasks_left && jr->tasks_left <= n ? n - jr->tasks_left : 0);
            all += n * jr->j->iterations;
        }
    while (all > UINT32_MAX)
        all >>= 1, d >>= 1;
    *done = (uint32_t)(d < all ? d : all);
    *total = (uint32_t)all;
}

static const struct bn_driver_ops jobs_driver = {
    .name = "jobs",
    .start = exec_start,
    .event = exec_event,
    .complete = on_complete,
    .done = exec_done,
    .progress = exec_progress,
    .qp_error = exec_qp_error,
};

/* Partitioned: on ranks, deliveries told the other parts (job_ranks.c). */
static const struct bn_driver_ops jobs_driver_parts = {
    .name = "jobs",
    .start = exec_start,
    .event = exec_event,
    .complete = on_complete,
    .done = exec_done,
    .progress = exec_progress,
    .qp_error = exec_qp_error,
    .ranks = &bn_jobs_ranks_ops,
};

int bn_jobs_execute(struct bn_jobs_exec *x, struct bn_error *err)
{
    x->err = err;
    x->rc = BN_OK;
    x->inst_free = x->post_free = UINT32_MAX;
    x->step_ps = bn_time_from_us(x->s->sc->coll.step_latency_us);
    for (uint32_t k = 0; k < x->njobs; k++)
        x->fg_left += x->jobs[k].j->kind != BN_SC_JOB_BACKGROUND;
    double t0 = bn_wall_now();
    int rc = BN_OK;
    /* on ranks a delivery's event must land past its window */
    if (x->ranks)
        rc = bn_jobs_lookahead_check(x, err);
    if (rc == BN_OK && x->ranks)
        rc = bn_ranks_bind(x->s, x->ranks, err);
    if (rc == BN_OK)
        rc = bn_sim_attach(x->s, x->s->part ? &jobs_driver_parts : &jobs_driver, x, err);
    if (x->ranks)
        rc = bn_ranks_agree(x->ranks, rc, err);
    if (rc == BN_OK)
        rc = bn_sim_loop(x->s, NULL, t0, err);
    if (rc == BN_OK && x->rc != BN_OK)
        rc = x->rc;
    if (x->ranks) /* a callback's failure on one rank ends them all */
        rc = bn_ranks_agree(x->ranks, rc, err);
    if (rc == BN_OK && x->ranks)
        rc = bn_ranks_gather_fabric(x->s, err);
    rc = bn_ranks_check_ledger(x->s, x->ranks, rc, err);
    if (rc == BN_OK && x->s->interrupted)
        rc = bn_fail(err, BN_EINTR, "interrupted");
    if (rc == BN_OK && !x->s->stopped_early && x->fg_left)
        rc = bn_fail(err, BN_EINTERNAL, "the jobs did not complete, yet no event is left");
    if (rc == BN_OK && x->s->stopped_early)
        rc = bn_fail(err, BN_EINPUT, "%s: key 'sim.max_time_us': the jobs did not finish "
                     "within %g us", BN_WHERE(x->s->sc, "sim.max_time_us"),
                     x->s->sc->sim.max_time_us);
    for (uint32_t i = 0; i < x->ninst; i++) {
        bn_sched_run_free(&x->inst[i].run);
        free(x->inst[i].bulk_at);
    }
    free(x->inst);
    free(x->post);
    free(x->ready);
    free(x->todo);
    free(x->qp_key);
    free(x->qp_val);
    free(x->notes);
    return rc;
}
