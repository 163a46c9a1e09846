/* The process's progress watcher and the stage of its call; see progress.h. */
#include "core/progress.h"

static struct {
    bn_run_progress_fn fn;
    void *ud;
    double base, span;
    uint32_t parts_done, parts;
} w = {.span = 1};

void bn_progress_watch(bn_run_progress_fn fn, void *ud)
{
    w.fn = fn;
    w.ud = ud;
}

void bn_progress_stage(double base, double span, uint32_t parts_done, uint32_t parts)
{
    w.base = base;
    w.span = span;
    w.parts_done = parts_done;
    w.parts = parts;
}

void bn_progress_stage_clear(void)
{
    bn_progress_stage(0, 1, 0, 0);
}

bool bn_progress_watched(void)
{
    return w.fn != NULL;
}

void bn_progress_report(struct bn_run_progress *p)
{
    if (!w.fn)
        return;
    double in = p->share < 0 ? 0 : p->share > 1 ? 1 : p->share;
    p->share = p->share < 0 && w.parts == 0 ? -1 : w.base + w.span * in;
    p->parts_done = w.parts_done;
    p->parts = w.parts;
    w.fn(w.ud, p);
}

void bn_progress_parts(double share, uint32_t done, uint32_t parts, double wall_s)
{
    if (!w.fn)
        return;
    struct bn_run_progress p = {.simulated_us = -1, .wall_s = wall_s, .share = share,
                                .parts_done = done, .parts = parts};
    w.fn(w.ud, &p);
}
