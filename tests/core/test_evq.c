/*
 * Event queue property: whatever the insertion order, events come out in
 * (time, insertion order) order, or keyed in (time, kind, object,
 * insertion order) order, i.e. exactly the order of a stable sort by time
 * (keyed: by the first three). Checked against qsort with an explicit
 * sequence key, over random mixes of
 * pushes and pops (the hold model), including many equal times; with
 * pushes written at once and written behind (bn_evq_hide_latency), and
 * with the mode switched while events are pending.
 */
#include "support.h"

#include "core/evq.h"
#include "core/rng.h"

struct ref { int64_t t; uint32_t seq; uint16_t kind; uint32_t obj; };

static bool keyed; /* the order the queue under test keeps */

/* Half the seeds keyed (2, 3, 6, 7, ...), across each test's other variants. */
static void set_order(struct bn_evq *q, uint64_t seed)
{
    keyed = (seed / 2) % 2;
    assert_int_equal(bn_evq_set_keyed(q, keyed), 0);
}

static int cmp_ref(const void *a, const void *b)
{
    const struct ref *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (!keyed)
        return x->seq < y->seq ? -1 : x->seq > y->seq;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->obj != y->obj)
        return x->obj < y->obj ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A random kind and object, few of each so that whole keys tie often;
 * the event's arg is its push sequence number. */
static void push_ref(struct bn_evq *q, struct bn_rng *rng, struct ref *r, int64_t t, uint32_t seq)
{
    *r = (struct ref){t, seq, (uint16_t)(1 + bn_rng_below(rng, 3)), (uint32_t)bn_rng_below(rng, 5)};
    assert_int_equal(bn_evq_push(q, t, r->kind, r->obj, seq), 0);
}

/* The queue holds exactly the n events of refs (arg = their seq): it must
 * give them up in the order of a stable sort by time (keyed: time, kind
 * and object). */
static void pops_in_stable_order(struct bn_evq *q, struct ref *refs, uint32_t n)
{
    qsort(refs, n, sizeof *refs, cmp_ref);
    struct bn_event ev;
    for (uint32_t i = 0; i < n; i++) {
        assert_true(bn_evq_pop(q, &ev));
        assert_int_equal(ev.time, refs[i].t);
        assert_int_equal(ev.arg, refs[i].seq);
    }
    assert_false(bn_evq_pop(q, &ev));
}

static void test_sorted_stable(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        struct bn_rng rng;
        bn_rng_init(&rng, seed, 0);
        struct bn_evq q;
        assert_int_equal(bn_evq_init(&q, 4), 0);
        set_order(&q, seed);
        bn_evq_hide_latency(&q, seed > 10);
        enum { N = 5000 };
        struct ref *refs = malloc(N * sizeof *refs);
        for (uint32_t i = 0; i < N; i++)
            push_ref(&q, &rng, &refs[i], (int64_t)bn_rng_below(&rng, seed % 2 ? 50 : 1000000), i);
        pops_in_stable_order(&q, refs, N);
        free(refs);
        bn_evq_free(&q);
    }
}

/* Slots of thousands of events with many equal times, as a large fabric's
 * are (sorted by counting there): events that waited in the heap, then
 * events pushed into the slot's chain once the window reached it; each
 * key's events must come out in push order. */
static void test_dense_slot_ties(void **state)
{
    (void)state;
    const int64_t far = 5000000, driver = 1000000; /* far lies beyond the window at 0 */
    for (uint64_t seed = 1; seed <= 8; seed++) {
        struct bn_rng rng;
        bn_rng_init(&rng, seed, 0);
        struct bn_evq q;
        assert_int_equal(bn_evq_init(&q, 4), 0);
        set_order(&q, seed);
        bn_evq_hide_latency(&q, seed % 2 == 0);
        enum { N = 3000 };
        struct ref *refs = malloc(2 * N * sizeof *refs);
        int64_t spread = seed <= 4 ? 40 : 700; /* one slot, or three */
        assert_int_equal(bn_evq_push(&q, driver, 1, 0, 2 * N), 0);
        for (uint32_t i = 0; i < N; i++) /* to the heap */
            push_ref(&q, &rng, &refs[i], far + (int64_t)bn_rng_below(&rng, (uint64_t)spread), i);
        struct bn_event ev;
        assert_true(bn_evq_pop(&q, &ev)); /* the window now covers `far` */
        assert_int_equal(ev.arg, 2 * N);
        for (uint32_t i = N; i < 2 * N; i++) /* to the wheel, after them */
            push_ref(&q, &rng, &refs[i], far + (int64_t)bn_rng_below(&rng, (uint64_t)spread), i);
        pops_in_stable_order(&q, refs, 2 * N);
        free(refs);
        bn_evq_free(&q);
    }
}

static void test_hold_model_monotone(void **state)
{
    (void)state;
    /* pop one, push one later: popped times never decrease */
    struct bn_rng rng;
    bn_rng_init(&rng, 7, 0);
    struct bn_evq q;
    bn_evq_init(&q, 16);
    for (uint32_t i = 0; i < 1000; i++)
        bn_evq_push(&q, (int64_t)bn_rng_below(&rng, 10000), 1, i, 0);
    int64_t last = -1;
    struct bn_event ev;
    for (int i = 0; i < 200000; i++) {
        assert_true(bn_evq_pop(&q, &ev));
        assert_true(ev.time >= last);
        last = ev.time;
        bn_evq_push(&q, ev.time + (int64_t)bn_rng_below(&rng, 10000), 1, ev.obj, 0);
    }
    assert_int_equal(bn_evq_len(&q), 1000);
    bn_evq_free(&q);
}

/* Pushes interleaved with pops, as a simulation does (never before the last
 * popped time), with delays on every scale the queue treats differently:
 * zero (the slot being served), within a few slots, within the wheel's
 * window, and far beyond it (the heap), checked pop by pop against a plain reference queue. Sparse runs
 * keep a few events per nanosecond; dense ones hundreds (slots of several
 * blocks, sorted far out of push order). The prefetch hints
 * are asked for in between, as the engine does (they keep state the next
 * pop uses): each must name an event still pending, and the next event
 * exactly while it lies in the slot being served. */
static void test_interleaved_against_reference(void **state)
{
    (void)state;
    const int64_t coarse_ps = 2048; /* dense: a few hundred events per 2 ns */
    for (uint64_t seed = 1; seed <= 24; seed++) {
        bool dense = (seed - 1) % 12 >= 8; /* seeds 9-12 and 21-24 */
        /* writing behind: seeds 13-18 from the start, 19-24 from a third of
         * the way to two thirds */
        int behind = seed <= 12 ? 0 : seed <= 18 ? 1 : 2;
        struct bn_rng rng;
        bn_rng_init(&rng, seed, 0);
        struct bn_evq q;
        assert_int_equal(bn_evq_init(&q, 2), 0);
        set_order(&q, seed);
        /* every slot width, in turn */
        assert_int_equal(bn_evq_set_slot_width(&q, BN_EVQ_SHIFT_MIN + (unsigned)(seed % 3)), 0);
        bn_evq_hide_latency(&q, behind == 1);
        enum { CAP = 4096, STEPS = 60000 };
        struct ref *pend = malloc(CAP * sizeof *pend);
        int64_t *when = malloc(STEPS * sizeof *when); /* by seq: time if pending, else -1 */
        uint32_t npend = 0, seq = 0;
        int64_t now = 0;
        struct bn_event ev;
        for (int step = 0; step < STEPS; step++) {
            if (behind == 2 && (step == STEPS / 3 || step == 2 * STEPS / 3))
                bn_evq_hide_latency(&q, step == STEPS / 3);
            size_t ahead = (size_t)bn_rng_below(&rng, 12);
            const struct bn_evq_entry *hint = bn_evq_peek_ahead(&q, ahead);
            if (hint) { /* a pending event, its picoseconds past its slot's start right */
                assert_true(hint->arg < seq);
                assert_true(when[hint->arg] >= now);
                assert_int_equal(hint->at, when[hint->arg] & ((1 << q.shift) - 1));
            }
            bool push = npend == 0 || (npend < CAP - 1 && bn_rng_below(&rng, 100) < 52);
            if (push) {
                uint64_t kind = bn_rng_below(&rng, 10);
                int64_t d = kind < 2   ? 0
                            : kind < 6 ? (int64_t)bn_rng_below(&rng, dense ? 3 * coarse_ps : 3000)
                            : kind < 9 ? (int64_t)bn_rng_below(&rng, dense ? 8 * coarse_ps : 6000000)
                                       : (int64_t)bn_rng_below(&rng, 2000000000);
                push_ref(&q, &rng, &pend[npend++], now + d, seq);
                when[seq] = now + d;
                seq++;
            } else {
                uint32_t best = 0;
                for (uint32_t i = 1; i < npend; i++)
                    if (cmp_ref(&pend[i], &pend[best]) < 0)
                        best = i;
                const struct bn_evq_entry *next = bn_evq_peek(&q);
                bool exact = q.run_pos < q.run_len; /* in the slot being served */
                assert_true(bn_evq_pop(&q, &ev));
                assert_int_equal(ev.time, pend[best].t);
                assert_int_equal(ev.arg, pend[best].seq);
                if (exact)
                    assert_int_equal(next->arg, ev.arg);
                now = ev.time;
                when[ev.arg] = -1;
                pend[best] = pend[--npend];
            }
            assert_int_equal(bn_evq_len(&q), npend);
        }
        free(pend);
        free(when);
        bn_evq_free(&q);
    }
}

/* Near events keep only their picoseconds past their slot's start, so a
 * push before the slot being served cannot be kept: it is refused and
 * flagged, never served at a wrong time. Within the slot it is served
 * next, at its own time, for the caller to find in the past. */
static void test_push_into_past_refused(void **state)
{
    (void)state;
    struct bn_evq q;
    assert_int_equal(bn_evq_init(&q, 4), 0);
    assert_int_equal(bn_evq_push(&q, 5000, 1, 1, 0), 0);
    /* slots are numbered: their width is fixed now, and only ever in range */
    assert_int_equal(bn_evq_set_slot_width(&q, BN_EVQ_SHIFT_MIN + 1), -1);
    assert_int_equal(q.shift, BN_EVQ_SHIFT_MIN);
    assert_int_equal(bn_evq_push(&q, 9000, 1, 2, 0), 0);
    struct bn_event ev;
    assert_true(bn_evq_pop(&q, &ev));
    assert_int_equal(ev.time, 5000);
    assert_false(q.past);
    assert_int_equal(bn_evq_push(&q, 4000, 1, 3, 0), -1);
    assert_true(q.past);
    assert_int_equal(bn_evq_len(&q), 1);
    assert_int_equal(bn_evq_push(&q, 4999, 1, 4, 0), 0); /* slot of 5000 */
    assert_true(bn_evq_pop(&q, &ev));
    assert_int_equal(ev.time, 4999);
    assert_int_equal(ev.obj, 4);
    assert_true(bn_evq_pop(&q, &ev));
    assert_int_equal(ev.time, 9000);
    bn_evq_free(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorted_stable),
        cmocka_unit_test(test_dense_slot_ties),
        cmocka_unit_test(test_hold_model_monotone),
        cmocka_unit_test(test_interleaved_against_reference),
        cmocka_unit_test(test_push_into_past_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
