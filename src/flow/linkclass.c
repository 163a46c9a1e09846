/*
 * Classes of identical links (linkclass.h): partition refinement as flows
 * set their paths.
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "flow/linkclass.h"

#define UNUSED UINT32_MAX

struct bn_lc_item {
    uint32_t cls, link;
    float w;
    uint8_t passive;
    double cap;
};

int bn_lc_init(struct bn_linkclass *lc, uint32_t nlinks, bool on, struct bn_error *err)
{
    memset(lc, 0, sizeof *lc);
    lc->nlinks = nlinks;
    lc->on = on;
    lc->cap = calloc((size_t)nlinks + 1, sizeof *lc->cap);
    lc->cls = malloc(((size_t)nlinks + 1) * sizeof *lc->cls);
    lc->size = calloc((size_t)nlinks + 1, sizeof *lc->size);
    lc->seen = calloc((size_t)nlinks + 1, sizeof *lc->seen);
    if (!lc->cap || !lc->cls || !lc->size || !lc->seen) {
        bn_lc_free(lc);
        return bn_fail(err, BN_ENOMEM, "flow level: out of memory for %u links' classes", nlinks);
    }
    for (uint32_t l = 0; l < nlinks; l++) {
        lc->cls[l] = on ? UNUSED : l;
        lc->size[l] = !on;
    }
    lc->nclasses = on ? 0 : nlinks;
    return BN_OK;
}

void bn_lc_free(struct bn_linkclass *lc)
{
    free(lc->cap);
    free(lc->cls);
    free(lc->size);
    free(lc->seen);
    free(lc->it);
    free(lc->out_link);
    free(lc->out_w);
    free(lc->out_passive);
    memset(lc, 0, sizeof *lc);
}

/* By class (unused last), use, capacity, link: a group is a run. */
static int item_cmp(const void *pa, const void *pb)
{
    const struct bn_lc_item *a = pa, *b = pb;
    if (a->cls != b->cls)
        return a->cls < b->cls ? -1 : 1;
    if (a->passive != b->passive)
        return a->passive < b->passive ? -1 : 1;
    if (a->w != b->w)
        return a->w < b->w ? -1 : 1;
    if (a->cap != b->cap)
        return a->cap < b->cap ? -1 : 1;
    return (a->link > b->link) - (a->link < b->link);
}

static bool same_use(const struct bn_lc_item *a, const struct bn_lc_item *b)
{
    return a->cls == b->cls && a->passive == b->passive && a->w == b->w &&
           (a->cls != UNUSED || a->cap == b->cap);
}

/* Scratch for a path of n uses (each array grown alone: a failed one
 * leaves the others valid). */
static bool room(struct bn_linkclass *lc, uint32_t n)
{
    if (n <= lc->it_cap)
        return true;
    void *it = realloc(lc->it, (size_t)n * sizeof *lc->it);
    if (it)
        lc->it = it;
    void *ol = realloc(lc->out_link, (size_t)n * sizeof *lc->out_link);
    if (ol)
        lc->out_link = ol;
    void *ow = realloc(lc->out_w, (size_t)n * sizeof *lc->out_w);
    if (ow)
        lc->out_w = ow;
    void *op = realloc(lc->out_passive, n);
    if (op)
        lc->out_passive = op;
    if (!it || !ol || !ow || !op)
        return false;
    lc->it_cap = n;
    return true;
}

/* Group it[a, b) (links of one class used one way) as a class of its
 * own: a new one for unused links, else split off class c unless it is
 * all of c (keep: it may take c's id). Its class id, or UNUSED. */
static uint32_t group_class(struct bn_linkclass *lc, struct bn_maxmin *m, uint32_t a, uint32_t b,
                            bool keep, struct bn_error *err)
{
    uint32_t c = lc->it[a].cls, cnt = b - a;
    if (c != UNUSED && keep)
        return c;
    uint32_t d = lc->nclasses++;
    if (c == UNUSED) {
        bn_mm_set_cap(m, d, lc->it[a].cap);
    } else {
        if (bn_mm_split(m, c, d, err) != BN_OK)
            return UNUSED;
        lc->size[c] -= cnt;
    }
    lc->size[d] = cnt;
    for (uint32_t i = a; i < b; i++)
        lc->cls[lc->it[i].link] = d;
    return d;
}

int bn_lc_set_path(struct bn_linkclass *lc, struct bn_maxmin *m, uint32_t f,
                   const uint32_t *links, const float *weights, const uint8_t *passive,
                   uint32_t n, struct bn_error *err)
{
    if (!lc->on) { /* every link its own class */
        for (uint32_t i = 0; i < n; i++)
            bn_mm_set_cap(m, links[i], lc->cap[links[i]]);
        return bn_mm_set_path(m, f, links, weights, passive, n, err);
    }
    if (!room(lc, n))
        return bn_fail(err, BN_ENOMEM, "flow level: out of memory for a path's classes");
    if (++lc->stamp == 0) {
        memset(lc->seen, 0, (size_t)lc->nlinks * sizeof *lc->seen);
        lc->stamp = 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t l = links[i];
        if (l >= lc->nlinks || lc->seen[l] == lc->stamp)
            return bn_fail(err, BN_EINTERNAL, "flow level: flow %u uses link %u twice or "
                           "outside the fabric", f, l);
        lc->seen[l] = lc->stamp;
        lc->it[i] = (struct bn_lc_item){.cls = lc->cls[l], .link = l, .w = weights[i],
                                        .passive = passive && passive[i], .cap = lc->cap[l]};
    }
    qsort(lc->it, n, sizeof *lc->it, item_cmp);
    uint32_t nout = 0;
    for (uint32_t a = 0; a < n;) {
        uint32_t end = a; /* the class's items: [a, end) */
        while (end < n && lc->it[end].cls == lc->it[a].cls)
            end++;
        /* the class keeps its id for its first group when f uses all of it */
        bool whole = lc->it[a].cls != UNUSED && end - a == lc->size[lc->it[a].cls];
        for (uint32_t g0 = a, first = 1; g0 < end; first = 0) {
            uint32_t g1 = g0 + 1;
            while (g1 < end && same_use(&lc->it[g0], &lc->it[g1]))
                g1++;
            uint32_t c = group_class(lc, m, g0, g1, whole && first, err);
            if (c == UNUSED)
                return err->status ? err->status : BN_EINTERNAL;
            lc->out_link[nout] = c;
            lc->out_w[nout] = lc->it[g0].w;
            lc->out_passive[nout++] = lc->it[g0].passive;
            g0 = g1;
        }
        a = end;
    }
    int rc = bn_mm_set_path(m, f, lc->out_link, lc->out_w, lc->out_passive, nout, err);
    return rc;
}
