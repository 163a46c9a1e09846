/*
 * `bnet job --trace FILE`: the jobs' timeline in the Chrome trace-event
 * format (Google, "Trace Event Format": complete events, ph "X", times in
 * microseconds; metadata events name the rows), which Perfetto and
 * chrome://tracing open. A process per job; per unit (the ranks of a
 * tensor-parallel group of one stage and replica, which compute in
 * lockstep) a compute row and a communication row; a row of iterations;
 * and, per rank and channel, the transfers of its collectives.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bnet/job.h"
#include "report/json_util.h"

#define TID_ITER 0u
#define TID_UNIT(u, comm) (1u + 2u * (u) + (comm))
/* a row per rank and connection: coll.channels <= 64, times two lanes
 * (a tree's two trees, NVLS's up and down) */
#define STEP_ROWS 128u
#define TID_STEP(rank, ch) (1000000u + (rank) * STEP_ROWS + (ch) % STEP_ROWS)

static void meta(json_t *ev, const char *what, uint32_t pid, uint32_t tid, const char *name)
{
    json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", what, "ph", "M",
                                        "pid", (int)pid, "tid", (int)tid, "args", "name", name));
}

static void span(json_t *ev, const char *name, const char *cat, uint32_t pid, uint32_t tid,
                 double start, double end, json_t *args)
{
    json_array_append_new(ev, json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:o}", "name", name,
                                        "cat", cat, "ph", "X", "ts", start, "dur", end - start,
                                        "pid", (int)pid, "tid", (int)tid, "args", args));
}

static void rows(json_t *ev, const struct bn_job_results *r)
{
    char name[160];
    for (uint32_t k = 0; k < r->njobs; k++) {
        const struct bn_job_result *j = &r->jobs[k];
        snprintf(name, sizeof name, "%s (%s, %u GPUs)", j->name, j->kind, j->gpus);
        meta(ev, "process_name", k, 0, name);
        meta(ev, "thread_name", k, TID_ITER, "iterations");
        for (uint32_t u = 0; u < j->nunits; u++)
            for (uint32_t c = 0; c < 2; c++) {
                snprintf(name, sizeof name, "ranks %u-%u %s", j->unit_first[u],
                         j->unit_first[u] + j->unit_ranks[u] - 1, c ? "comm" : "compute");
                meta(ev, "thread_name", k, TID_UNIT(u, c), name);
            }
    }
}

/* Each job's iterations: from its first task's start to its last's end
 * (one pass over the spans). */
static void iterations(json_t *ev, const struct bn_job_results *r)
{
    for (uint32_t k = 0; k < r->njobs; k++) {
        uint32_t n = r->jobs[k].iterations;
        double *lo = malloc(((size_t)n + 1) * sizeof *lo), *hi = malloc(((size_t)n + 1) * sizeof *hi);
        if (!lo || !hi) {
            free(lo);
            free(hi);
            return;
        }
        for (uint32_t it = 0; it < n; it++)
            lo[it] = -1, hi[it] = 0;
        for (uint64_t i = 0; i < r->nspans; i++) {
            const struct bn_job_span *s = &r->spans[i];
            if (s->job != k || s->iteration >= n)
                continue;
            if (lo[s->iteration] < 0 || s->start_us < lo[s->iteration])
                lo[s->iteration] = s->start_us;
            if (s->end_us > hi[s->iteration])
                hi[s->iteration] = s->end_us;
        }
        for (uint32_t it = 0; it < n; it++) {
            char name[32];
            snprintf(name, sizeof name, "iteration %u", it);
            if (lo[it] >= 0)
                span(ev, name, "iteration", k, TID_ITER, lo[it], hi[it], json_object());
        }
        free(lo);
        free(hi);
    }
}

static void tasks(json_t *ev, const struct bn_job_results *r)
{
    char name[96];
    for (uint64_t i = 0; i < r->nspans; i++) {
        const struct bn_job_span *s = &r->spans[i];
        const char *phase = bn_job_span_phase(s->phase);
        json_t *args = json_pack("{s:s, s:i, s:i}", "phase", phase, "micro_batch", (int)s->micro,
                                 "iteration", (int)s->iteration);
        if (s->layer != UINT16_MAX)
            json_object_set_new(args, "layer", json_integer(s->layer));
        if (s->kind == 0) {
            snprintf(name, sizeof name, "%s", phase);
            span(ev, name, "compute", s->job, TID_UNIT(s->unit, 0), s->start_us, s->end_us, args);
            continue;
        }
        snprintf(name, sizeof name, "%s %s", bn_job_span_dim(s->dim),
                 s->kind == 2 ? "send" : bn_job_span_op(s->op));
        json_object_set_new(args, "bytes", json_integer((json_int_t)s->bytes));
        json_object_set_new(args, "ranks", json_integer(s->ranks));
        json_object_set_new(args, "modelled", json_boolean(s->modelled));
        span(ev, name, bn_job_span_dim(s->dim), s->job, TID_UNIT(s->unit, 1), s->start_us,
             s->end_us, args);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void steps(json_t *ev, const struct bn_job_results *r)
{
    char name[48];
    for (uint64_t i = 0; i < r->nsteps; i++) {
        const struct bn_job_step *s = &r->steps[i];
        uint32_t tid = TID_STEP(s->rank, s->channel);
        snprintf(name, sizeof name, "to %u", s->peer);
        span(ev, name, "step", s->job, tid, s->start_us, s->end_us,
             json_pack("{s:I, s:i}", "bytes", (json_int_t)s->bytes, "channel", (int)s->channel));
    }
    /* name the step rows that were used: their keys sorted, each once */
    uint64_t *key = malloc((r->nsteps + 1) * sizeof *key);
    for (uint64_t i = 0; key && i < r->nsteps; i++)
        key[i] = (uint64_t)r->steps[i].job << 40 | (uint64_t)r->steps[i].rank << 8 |
                 (r->steps[i].channel % STEP_ROWS);
    if (key)
        qsort(key, r->nsteps, sizeof *key, cmp_u64);
    for (uint64_t i = 0; key && i < r->nsteps; i++) {
        if (i && key[i] == key[i - 1])
            continue;
        uint32_t job = (uint32_t)(key[i] >> 40), rank = (uint32_t)(key[i] >> 8) & 0xffffffffu;
        uint32_t ch = (uint32_t)key[i] & 0xff;
        char row[48];
        snprintf(row, sizeof row, "rank %u channel %u", rank, ch);
        meta(ev, "thread_name", job, TID_STEP(rank, ch), row);
    }
    free(key);
}

int bn_job_write_trace(const struct bn_job_results *r, const char *path, struct bn_error *err)
{
    json_t *ev = json_array();
    rows(ev, r);
    iterations(ev, r);
    tasks(ev, r);
    steps(ev, r);
    json_t *root = json_pack("{s:o, s:s, s:{s:s, s:b}}", "traceEvents", ev, "displayTimeUnit",
                             "ns", "otherData", "generator", "bnet " BNET_VERSION,
                             "steps_truncated", (int)r->steps_truncated);
    return bn_json_dump(root, path, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12),
                        err);
}
