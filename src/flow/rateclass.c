/* Rate classes of identical flows, and their members by progress; see
 * rateclass.h. */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "flow/rateclass.h"

static int oom(struct bn_error *err)
{
    return bn_fail(err, BN_ENOMEM, "flow level: out of memory for rate classes");
}

void bn_rc_init(struct bn_rateclass *rc)
{
    memset(rc, 0, sizeof *rc);
}

void bn_rc_free(struct bn_rateclass *rc)
{
    for (uint32_t i = 0; i < rc->cap; i++)
        free(rc->c[i].mem);
    free(rc->c);
    free(rc->tab);
    free(rc->u_p);
    free(rc->u_w);
    free(rc->u_pass);
    memset(rc, 0, sizeof *rc);
}

int bn_rc_reserve(struct bn_rateclass *rc, uint32_t n, struct bn_error *err)
{
    if (n <= rc->cap)
        return BN_OK;
    struct bn_flow_cls *c = realloc(rc->c, (size_t)n * sizeof *c);
    if (!c)
        return oom(err);
    for (uint32_t i = rc->cap; i < n; i++)
        c[i] = (struct bn_flow_cls){.hpos = UINT32_MAX, .done_at = BN_TIME_NEVER,
                                    .next = UINT32_MAX};
    rc->c = c;
    rc->cap = n;
    return BN_OK;
}

/* FNV-1a over the uses (Fowler, Noll, Vo). */
static uint64_t hash_uses(const uint32_t *p, const float *w, const uint8_t *pass, uint32_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t wb;
        memcpy(&wb, &w[i], sizeof wb);
        uint64_t x[3] = {p[i], wb, pass ? pass[i] : 0};
        for (int k = 0; k < 3; k++) {
            h ^= x[k];
            h *= 1099511628211ull;
        }
    }
    return h;
}

static bool same(const struct bn_rateclass *rc, const struct bn_flow_cls *c, const uint32_t *p,
                 const float *w, const uint8_t *pass, uint32_t n)
{
    if (c->nuse != n)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (rc->u_p[c->uoff + i] != p[i] || rc->u_w[c->uoff + i] != w[i] ||
            rc->u_pass[c->uoff + i] != (pass ? pass[i] : 0))
            return false;
    return true;
}

/* Buckets for twice the classes, every class in its bucket again. */
static int rehash(struct bn_rateclass *rc, struct bn_error *err)
{
    uint32_t sz = rc->tabsz ? rc->tabsz * 2 : 1024;
    uint32_t *t = malloc((size_t)sz * sizeof *t);
    if (!t)
        return oom(err);
    memset(t, 0xff, (size_t)sz * sizeof *t);
    for (uint32_t i = 0; i < rc->ncls; i++) {
        uint32_t b = (uint32_t)(rc->c[i].hash & (sz - 1));
        rc->c[i].next = t[b];
        t[b] = i;
    }
    free(rc->tab);
    rc->tab = t;
    rc->tabsz = sz;
    return BN_OK;
}

int bn_rc_find(struct bn_rateclass *rc, const uint32_t *p, const float *w, const uint8_t *pass,
               uint32_t n, uint32_t *id, bool *fresh, struct bn_error *err)
{
    uint64_t h = hash_uses(p, w, pass, n);
    if (rc->tabsz) {
        for (uint32_t i = rc->tab[h & (rc->tabsz - 1)]; i != UINT32_MAX; i = rc->c[i].next)
            if (rc->c[i].hash == h && same(rc, &rc->c[i], p, w, pass, n)) {
                *id = i;
                *fresh = false;
                return BN_OK;
            }
    }
    if (rc->ncls >= rc->cap)
        return bn_fail(err, BN_EINTERNAL, "flow level: rate class %u has no room", rc->ncls);
    if (2 * (rc->ncls + 1) > rc->tabsz && rehash(rc, err) != BN_OK)
        return BN_ENOMEM;
    if (rc->nu + n > rc->ucap) {
        uint64_t cap = rc->ucap ? rc->ucap : 1024;
        while (cap < (uint64_t)rc->nu + n)
            cap *= 2;
        if (cap > UINT32_MAX)
            return oom(err);
        uint32_t *up = realloc(rc->u_p, cap * sizeof *up);
        if (up)
            rc->u_p = up;
        float *uw = up ? realloc(rc->u_w, cap * sizeof *uw) : NULL;
        if (uw)
            rc->u_w = uw;
        uint8_t *us = uw ? realloc(rc->u_pass, cap) : NULL;
        if (!us)
            return oom(err);
        rc->u_pass = us;
        rc->ucap = (uint32_t)cap;
    }
    uint32_t i = rc->ncls++;
    struct bn_flow_cls *c = &rc->c[i];
    c->hash = h;
    c->uoff = rc->nu;
    c->nuse = n;
    for (uint32_t k = 0; k < n; k++) {
        rc->u_p[rc->nu + k] = p[k];
        rc->u_w[rc->nu + k] = w[k];
        rc->u_pass[rc->nu + k] = pass ? pass[k] : 0;
    }
    rc->nu += n;
    uint32_t b = (uint32_t)(h & (rc->tabsz - 1));
    c->next = rc->tab[b];
    rc->tab[b] = i;
    *id = i;
    *fresh = true;
    return BN_OK;
}

static bool less(const struct bn_rc_member *a, const struct bn_rc_member *b)
{
    return a->key < b->key || (a->key == b->key && a->qp < b->qp);
}

static void sift_down(struct bn_flow_cls *c, uint32_t i)
{
    struct bn_rc_member x = c->mem[i];
    for (;;) {
        uint32_t k = 2 * i + 1;
        if (k >= c->n)
            break;
        if (k + 1 < c->n && less(&c->mem[k + 1], &c->mem[k]))
            k++;
        if (!less(&c->mem[k], &x))
            break;
        c->mem[i] = c->mem[k];
        i = k;
    }
    c->mem[i] = x;
}

int bn_rc_push(struct bn_flow_cls *c, double key, uint32_t qp, struct bn_error *err)
{
    if (!bn_grow((void **)&c->mem, c->n, &c->cap, sizeof *c->mem))
        return oom(err);
    struct bn_rc_member x = {key, qp};
    uint32_t i = c->n++;
    while (i > 0 && less(&x, &c->mem[(i - 1) / 2])) {
        c->mem[i] = c->mem[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    c->mem[i] = x;
    return BN_OK;
}

void bn_rc_fix_top(struct bn_flow_cls *c)
{
    sift_down(c, 0);
}

void bn_rc_pop(struct bn_flow_cls *c)
{
    if (--c->n > 0) {
        c->mem[0] = c->mem[c->n];
        sift_down(c, 0);
    }
}
