/*
 * `bnet job --trace FILE`: the jobs' timeline in the Chrome trace-event
 * format (Google, "Trace Event Format": complete events, ph "X", times in
 * microseconds; metadata events name the rows), which Perfetto and
 * chrome://tracing open. A process per job; a row of iterations; per unit
 * (the ranks of a tensor-parallel group of one stage and replica, which
 * compute in lockstep) a compute row and a communication row; and, per
 * rank and channel, the transfers of its collectives.
 *
 * Viewers stack a row's complete events by nesting, so events on one row
 * must nest or follow each other: where collectives run at once on a unit
 * or a rank's channel, the row gets more lanes (thread ids), each event on
 * the first lane where it nests or follows. Events are written as they are
 * laid out, one line each, never held as a JSON tree: the memory is an
 * index per event (8 bytes) beside the spans the run kept.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bnet/job.h"
#include "report/json_util.h"

/* a row per rank and connection: coll.channels <= 64, times two lanes
 * (a tree's two trees, NVLS's up and down) */
#define STEP_ROWS 128u

enum { ROW_ITER, ROW_UNIT, ROW_STEP };

/* One iteration's span of one job: from its first task's start to its
 * last's end. */
struct iter_span {
    uint32_t job, iteration;
    int64_t start, end; /* ps */
};

/* The events, numbered: the iterations, then the spans, then the steps. */
struct trace_src {
    const struct bn_job_results *r;
    struct iter_span *iters;
    uint64_t niters;
};

static int64_t ps_of(double us)
{
    return (int64_t)llround(us * 1e6);
}

/* An event's row (job, kind of row, unit or rank, compute/comm or
 * channel: sorted, the rows' order in the viewer) and times in ps. */
static void event_of(const struct trace_src *s, uint64_t e, uint64_t *row, int64_t *start,
                     int64_t *end)
{
    const struct bn_job_results *r = s->r;
    uint64_t job, kind, id, sub;
    double a, b;
    if (e < s->niters) {
        const struct iter_span *it = &s->iters[e];
        *row = (uint64_t)it->job << 44 | (uint64_t)ROW_ITER << 42;
        *start = it->start;
        *end = it->end;
        return;
    }
    e -= s->niters;
    if (e < r->nspans) {
        const struct bn_job_span *sp = &r->spans[e];
        job = sp->job, kind = ROW_UNIT, id = sp->unit, sub = sp->kind != 0;
        a = sp->start_us, b = sp->end_us;
    } else {
        const struct bn_job_step *st = &r->steps[e - r->nspans];
        job = st->job, kind = ROW_STEP, id = st->rank, sub = st->channel % STEP_ROWS;
        a = st->start_us, b = st->end_us;
    }
    *row = job << 44 | kind << 42 | (id & ((1ull << 34) - 1)) << 8 | sub;
    *start = ps_of(a);
    *end = ps_of(b) > *start ? ps_of(b) : *start;
}

/* qsort has no context argument: the one the sort runs on (a trace is
 * written by one thread at a time). */
static const struct trace_src *sorting;

/* By row, then start, the longer first (so that an enclosing event comes
 * before what it encloses), then number: a total order. */
static int cmp_event(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb, ra, rb;
    int64_t sa, ea, sb, eb;
    event_of(sorting, a, &ra, &sa, &ea);
    event_of(sorting, b, &rb, &sb, &eb);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (sa != sb)
        return sa < sb ? -1 : 1;
    if (ea != eb)
        return ea > eb ? -1 : 1;
    return (a > b) - (a < b);
}

/* The trace being written; its one open (and close) of the output. */
struct trace_out {
    FILE *f;
    const char *path;
    bool to_stdout;
    uint64_t nevents;
};

static int trace_open(struct trace_out *o, const char *path, struct bn_error *err)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    o->to_stdout = strcmp(path, "-") == 0;
    errno = 0;
    o->f = o->to_stdout ? stdout : fopen(path, "w");
    if (!o->f)
        return bn_fail(err, BN_EINPUT, "%s: cannot write the trace: %s", path, strerror(errno));
    fputs("{\"traceEvents\":[", o->f);
    return BN_OK;
}

static int trace_close(struct trace_out *o, int rc, struct bn_error *err)
{
    errno = 0;
    int bad = ferror(o->f);
    int closed = o->to_stdout ? fflush(o->f) : fclose(o->f);
    if (rc == BN_OK && (bad || closed != 0))
        rc = bn_fail(err, BN_EINPUT, "%s: cannot write the trace: %s",
                     o->to_stdout ? "standard output" : o->path, strerror(errno ? errno : EIO));
    return rc;
}

/* ",\n" between events. */
static FILE *next_event(struct trace_out *o)
{
    fputs(o->nevents++ ? ",\n" : "\n", o->f);
    return o->f;
}

/* "12.345678": ps as microseconds, exactly. */
static void put_us(FILE *f, int64_t ps)
{
    fprintf(f, "%" PRId64 ".%06" PRId64, ps / 1000000, ps % 1000000);
}

/* A metadata event naming a process or thread; `name` is user text. */
static void meta(struct trace_out *o, const char *what, uint32_t pid, uint32_t tid,
                 const char *name)
{
    json_t *s = bn_json_text(name);
    char *text = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;
    json_decref(s);
    fprintf(next_event(o), "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
            ",\"args\":{\"name\":%s}}", what, pid, tid, text ? text : "\"?\"");
    free(text);
}

/* Event e on thread tid: a complete event with its name, category, times
 * and arguments. */
static void put_event(struct trace_out *o, const struct trace_src *s, uint64_t e, uint32_t tid,
                      int64_t start, int64_t end)
{
    const struct bn_job_results *r = s->r;
    const struct bn_job_span *sp = NULL;
    const struct bn_job_step *st = NULL;
    FILE *f = next_event(o);
    uint32_t pid;
    if (e < s->niters) {
        pid = s->iters[e].job;
        fprintf(f, "{\"name\":\"iteration %" PRIu32 "\",\"cat\":\"iteration\"",
                s->iters[e].iteration);
    } else if (e - s->niters < r->nspans) {
        sp = &r->spans[e - s->niters];
        const char *dim = bn_job_span_dim(sp->dim);
        pid = sp->job;
        if (sp->kind == 0)
            fprintf(f, "{\"name\":\"%s\",\"cat\":\"compute\"", bn_job_span_phase(sp->phase));
        else
            fprintf(f, "{\"name\":\"%s %s\",\"cat\":\"%s\"", dim,
                    sp->kind == 2 ? "send" : bn_job_span_op(sp->op), dim);
    } else {
        st = &r->steps[e - s->niters - r->nspans];
        pid = st->job;
        fprintf(f, "{\"name\":\"to %" PRIu32 "\",\"cat\":\"step\"", st->peer);
    }
    fputs(",\"ph\":\"X\",\"ts\":", f);
    put_us(f, start);
    fputs(",\"dur\":", f);
    put_us(f, end - start);
    fprintf(f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":{", pid, tid);
    if (sp) {
        fprintf(f, "\"phase\":\"%s\",\"micro_batch\":%" PRIu32 ",\"iteration\":%" PRIu32,
                bn_job_span_phase(sp->phase), sp->micro, sp->iteration);
        if (sp->layer != UINT16_MAX)
            fprintf(f, ",\"layer\":%u", (unsigned)sp->layer);
        if (sp->kind != 0)
            fprintf(f, ",\"bytes\":%" PRIu64 ",\"ranks\":%" PRIu32 ",\"modelled\":%s", sp->bytes,
                    sp->ranks, sp->modelled ? "true" : "false");
    } else if (st) {
        fprintf(f, "\"bytes\":%" PRIu64 ",\"channel\":%" PRIu32, st->bytes, st->channel);
    }
    fputs("}}", f);
}

/* A row's lanes: each a stack of the ends of its open events (ps); kept
 * from row to row (`made` of them allocated), `used` by this row. */
struct lane {
    int64_t *ends;
    size_t depth, cap;
};
struct lanes {
    struct lane *v;
    size_t used, made;
};

/* The first lane where an event of [start, end] nests in the innermost
 * open event or follows all of them; a new one if none. -1 if out of
 * memory. */
static int lane_of(struct lanes *ls, int64_t start, int64_t end)
{
    size_t l = 0;
    for (; l < ls->used; l++) {
        struct lane *ln = &ls->v[l];
        while (ln->depth && ln->ends[ln->depth - 1] <= start)
            ln->depth--;
        if (!ln->depth || ln->ends[ln->depth - 1] >= end)
            break;
    }
    if (l == ls->used) {
        if (l == ls->made) {
            struct lane *grown = realloc(ls->v, (ls->made + 1) * sizeof *grown);
            if (!grown)
                return -1;
            ls->v = grown;
            ls->v[ls->made++] = (struct lane){0};
        }
        ls->v[ls->used++].depth = 0;
    }
    struct lane *ln = &ls->v[l];
    if (ln->depth == ln->cap) {
        size_t n = ln->cap ? 2 * ln->cap : 8;
        int64_t *grown = realloc(ln->ends, n * sizeof *grown);
        if (!grown)
            return -1;
        ln->ends = grown;
        ln->cap = n;
    }
    ln->ends[ln->depth++] = end;
    return (int)l;
}

/* A row's name: "iterations", "ranks A-B compute" / "comm", "rank R
 * channel C"; lanes after the first are "... (2)", "... (3)". */
static void row_name(const struct bn_job_results *r, uint64_t row, size_t lane, char *buf,
                     size_t len)
{
    uint32_t job = (uint32_t)(row >> 44), kind = (uint32_t)(row >> 42) & 3;
    uint32_t id = (uint32_t)((row >> 8) & ((1ull << 34) - 1)), sub = (uint32_t)(row & 0xff);
    int n;
    if (kind == ROW_ITER) {
        n = snprintf(buf, len, "iterations");
    } else if (kind == ROW_UNIT) {
        const struct bn_job_result *j = &r->jobs[job];
        uint32_t first = id < j->nunits ? j->unit_first[id] : 0;
        uint32_t ranks = id < j->nunits ? j->unit_ranks[id] : 1;
        n = snprintf(buf, len, "ranks %u-%u %s", first, first + ranks - 1,
                     sub ? "comm" : "compute");
    } else {
        n = snprintf(buf, len, "rank %u channel %u", id, sub);
    }
    if (lane && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " (%zu)", lane + 1);
}

/* Each job's iterations from its spans (one pass); NULL if none. */
static struct iter_span *iterations(const struct bn_job_results *r, uint64_t *n, bool *nomem)
{
    uint64_t total = 0;
    for (uint32_t k = 0; k < r->njobs; k++)
        total += r->jobs[k].iterations;
    *n = 0;
    *nomem = false;
    struct iter_span *all = total ? malloc(total * sizeof *all) : NULL;
    if (total && !all) {
        *nomem = true;
        return NULL;
    }
    uint64_t *first = calloc((size_t)r->njobs + 1, sizeof *first); /* a job's first index */
    if (!first) {
        free(all);
        *nomem = true;
        return NULL;
    }
    for (uint32_t k = 0, at = 0; k < r->njobs; at += r->jobs[k].iterations, k++) {
        first[k] = at;
        for (uint32_t it = 0; it < r->jobs[k].iterations; it++)
            all[at + it] = (struct iter_span){k, it, -1, 0};
    }
    for (uint64_t i = 0; i < r->nspans; i++) {
        const struct bn_job_span *s = &r->spans[i];
        if (s->job >= r->njobs || s->iteration >= r->jobs[s->job].iterations)
            continue;
        struct iter_span *it = &all[first[s->job] + s->iteration];
        int64_t a = ps_of(s->start_us), b = ps_of(s->end_us);
        if (it->start < 0 || a < it->start)
            it->start = a;
        if (b > it->end)
            it->end = b;
    }
    free(first);
    /* only the iterations that ran */
    for (uint64_t i = 0; i < total; i++)
        if (all[i].start >= 0)
            all[(*n)++] = (struct iter_span){all[i].job, all[i].iteration, all[i].start,
                                             all[i].end > all[i].start ? all[i].end
                                                                       : all[i].start};
    return all;
}

int bn_job_write_trace(const struct bn_job_results *r, const char *path, struct bn_error *err)
{
    struct trace_src s = {.r = r};
    bool nomem;
    s.iters = iterations(r, &s.niters, &nomem);
    uint64_t n = s.niters + r->nspans + r->nsteps;
    uint64_t *order = malloc((n + 1) * sizeof *order);
    if (nomem || !order) {
        free(s.iters);
        free(order);
        return bn_fail(err, BN_ENOMEM, "out of memory laying out the trace");
    }
    for (uint64_t i = 0; i < n; i++)
        order[i] = i;
    sorting = &s;
    qsort(order, n, sizeof *order, cmp_event);
    sorting = NULL;

    struct trace_out o;
    int rc = trace_open(&o, path, err);
    if (rc != BN_OK) {
        free(s.iters);
        free(order);
        return rc;
    }
    char name[160];
    for (uint32_t k = 0; k < r->njobs; k++) {
        const struct bn_job_result *j = &r->jobs[k];
        snprintf(name, sizeof name, "%s (%s, %u GPUs)", j->name, j->kind, j->gpus);
        meta(&o, "process_name", k, 0, name);
    }
    /* row by row: lay the events on lanes, then name the lanes; thread
     * ids count up per job in row order */
    struct lanes ls = {0};
    uint32_t tid = 0, job = UINT32_MAX;
    for (uint64_t i = 0; i < n && rc == BN_OK;) {
        uint64_t row, next_row;
        int64_t a, b;
        event_of(&s, order[i], &row, &a, &b);
        if ((uint32_t)(row >> 44) != job)
            job = (uint32_t)(row >> 44), tid = 0;
        ls.used = 0;
        for (; i < n; i++) {
            event_of(&s, order[i], &next_row, &a, &b);
            if (next_row != row)
                break;
            int l = lane_of(&ls, a, b);
            if (l < 0) {
                rc = bn_fail(err, BN_ENOMEM, "out of memory laying out the trace");
                break;
            }
            put_event(&o, &s, order[i], tid + (uint32_t)l, a, b);
        }
        for (size_t l = 0; l < ls.used; l++) {
            row_name(r, row, l, name, sizeof name);
            meta(&o, "thread_name", job, tid + (uint32_t)l, name);
        }
        tid += (uint32_t)ls.used;
    }
    for (size_t l = 0; l < ls.made; l++)
        free(ls.v[l].ends);
    free(ls.v);
    free(s.iters);
    free(order);
    fprintf(o.f, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"bnet %s\","
            "\"steps_truncated\":%s}}\n", BNET_VERSION, r->steps_truncated ? "true" : "false");
    return trace_close(&o, rc, err);
}
