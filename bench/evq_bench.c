/*
 * Event-queue benchmark (the "hold" model: pop the earliest event, push one
 * a random delay later, keeping N events queued) for the queue shapes
 * bnet could use. Delays mimic a packet simulation: mostly serialization
 * times (0.08-0.4 us), some link+switch latencies (~0.4-1 us), a few timers
 * (100 us). The library's queue (src/core/evq.c: a timing wheel in front of
 * a 4-ary heap) is measured next to binary, 4-ary and 8-ary heaps built
 * here with the same (time, seq) order.
 * Usage: evq_bench [N ...]   prints Mops/s per queue shape and size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/evq.h"
#include "core/rng.h"

/* the heaps' own events: (time, seq) order */
struct hev {
    bn_time_t time;
    uint32_t seq;
    uint32_t obj;
};

struct dheap {
    struct hev *h;
    size_t len, cap;
    uint32_t seq;
    unsigned d;
};

static inline int before(const struct hev *a, const struct hev *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    return (int32_t)(a->seq - b->seq) < 0;
}

static void dheap_push(struct dheap *q, bn_time_t t, uint32_t obj)
{
    if (q->len == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 1024;
        q->h = realloc(q->h, q->cap * sizeof *q->h);
        if (!q->h)
            abort();
    }
    struct hev ev = {.time = t, .seq = q->seq++, .obj = obj};
    size_t i = q->len++;
    while (i > 0) {
        size_t p = (i - 1) / q->d;
        if (!before(&ev, &q->h[p]))
            break;
        q->h[i] = q->h[p];
        i = p;
    }
    q->h[i] = ev;
}

static void dheap_pop(struct dheap *q, struct hev *out)
{
    *out = q->h[0];
    struct hev last = q->h[--q->len];
    size_t n = q->len, i = 0, d = q->d;
    for (;;) {
        size_t c = d * i + 1;
        if (c >= n)
            break;
        size_t best = c, end = c + d < n ? c + d : n;
        for (size_t j = c + 1; j < end; j++)
            if (before(&q->h[j], &q->h[best]))
                best = j;
        if (!before(&q->h[best], &last))
            break;
        q->h[i] = q->h[best];
        i = best;
    }
    if (n)
        q->h[i] = last;
}

static bn_time_t delay(struct bn_rng *r)
{
    uint64_t u = bn_rng_below(r, 100);
    if (u < 70)
        return 80000 + (bn_time_t)bn_rng_below(r, 320000);
    if (u < 99)
        return 400000 + (bn_time_t)bn_rng_below(r, 600000);
    return 100000000;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define HOLDS 20000000UL

static double bench_dheap(unsigned d, size_t n, uint64_t *check)
{
    struct dheap q = {.d = d};
    struct bn_rng r;
    bn_rng_init(&r, 1, 2);
    for (size_t i = 0; i < n; i++)
        dheap_push(&q, delay(&r), (uint32_t)i);
    double t0 = now_s();
    struct hev ev;
    for (unsigned long i = 0; i < HOLDS; i++) {
        dheap_pop(&q, &ev);
        *check += ev.obj;
        dheap_push(&q, ev.time + delay(&r), ev.obj);
    }
    double dt = now_s() - t0;
    free(q.h);
    return HOLDS / dt / 1e6;
}

static double bench_lib(size_t n, uint64_t *check)
{
    struct bn_evq q;
    bn_evq_init(&q, 1024);
    struct bn_rng r;
    bn_rng_init(&r, 1, 2);
    for (size_t i = 0; i < n; i++)
        bn_evq_push(&q, delay(&r), 0, (uint32_t)i, 0);
    double t0 = now_s();
    struct bn_event ev;
    for (unsigned long i = 0; i < HOLDS; i++) {
        bn_evq_pop(&q, &ev);
        *check += ev.obj;
        bn_evq_push(&q, ev.time + delay(&r), 0, ev.obj, 0);
    }
    double dt = now_s() - t0;
    bn_evq_free(&q);
    return HOLDS / dt / 1e6;
}

int main(int argc, char **argv)
{
    size_t sizes[16] = {1000, 10000, 100000, 1000000};
    int nsizes = 4;
    if (argc > 1) {
        nsizes = 0;
        for (int i = 1; i < argc && nsizes < 16; i++)
            sizes[nsizes++] = strtoull(argv[i], NULL, 10);
    }
    printf("%-10s %14s %14s %14s %14s   (million hold operations per second)\n", "queued",
           "binary", "wheel(lib)", "4-ary", "8-ary");
    for (int i = 0; i < nsizes; i++) {
        uint64_t c[4] = {0};
        double b2 = bench_dheap(2, sizes[i], &c[0]);
        double lib = bench_lib(sizes[i], &c[1]);
        double b4 = bench_dheap(4, sizes[i], &c[2]);
        double b8 = bench_dheap(8, sizes[i], &c[3]);
        /* the same events in the same order from every queue */
        if (c[0] != c[1] || c[1] != c[2] || c[2] != c[3]) {
            fprintf(stderr, "evq_bench: queues disagree\n");
            return 1;
        }
        printf("%-10zu %14.1f %14.1f %14.1f %14.1f\n", sizes[i], b2, lib, b4, b8);
    }
    return 0;
}
