/* The weighted path walk; see walk.h. */
#include <stdlib.h>

#include "switch/walk.h"

int bn_switch_walk_init(struct bn_switch_walk *w, uint32_t nports, uint32_t cap)
{
    *w = (struct bn_switch_walk){.cap = cap};
    w->mark = calloc((size_t)nports + 1, sizeof *w->mark);
    w->slot = calloc((size_t)nports + 1, sizeof *w->slot);
    w->cur = malloc((size_t)cap * sizeof *w->cur);
    w->next = malloc((size_t)cap * sizeof *w->next);
    w->curw = malloc((size_t)cap * sizeof *w->curw);
    w->nextw = malloc((size_t)cap * sizeof *w->nextw);
    if (!w->mark || !w->slot || !w->cur || !w->next || !w->curw || !w->nextw) {
        bn_switch_walk_free(w);
        return BN_ENOMEM;
    }
    return BN_OK;
}

void bn_switch_walk_free(struct bn_switch_walk *w)
{
    free(w->mark);
    free(w->slot);
    free(w->cur);
    free(w->next);
    free(w->curw);
    free(w->nextw);
    w->mark = w->slot = w->cur = w->next = NULL;
    w->curw = w->nextw = NULL;
}

/* Add share `weight` of port q to the next frontier, merging it if there. */
static void add(struct bn_switch_walk *w, uint32_t *n, uint32_t q, double weight)
{
    if (w->mark[q] == w->stamp) {
        w->nextw[w->slot[q]] += weight;
        return;
    }
    w->mark[q] = w->stamp;
    w->slot[q] = *n;
    w->next[*n] = q;
    w->nextw[(*n)++] = weight;
}

int bn_switch_walk(struct bn_switch_walk *w, struct bn_switches *s, const struct bn_port *ports,
                   uint32_t p0, const struct bn_packet *probe, bool spread, uint32_t max_hops,
                   bn_walk_fn hop, void *ctx)
{
    uint32_t cur_n = 1, on = p0;
    w->cur[0] = p0;
    w->curw[0] = 1;
    for (uint32_t k = 0; cur_n; k++) {
        if (k >= max_hops)
            return BN_WALK_LONG;
        uint32_t next_n = 0, on_next = UINT32_MAX;
        ++w->stamp;
        for (uint32_t i = 0; i < cur_n; i++) {
            uint32_t p = w->cur[i], peer = ports[p].peer;
            if (ports[peer].flags & BN_PORT_AT_HOST)
                continue;
            uint32_t pick, c = bn_switch_choices(s, ports[peer].node, probe, spread, w->cand,
                                                 BN_WALK_CHOICES, &pick);
            if (c == 0 || c > BN_WALK_CHOICES) {
                w->node = ports[peer].node;
                return BN_WALK_NO_ROUTE;
            }
            if (next_n + c > w->cap)
                return BN_WALK_WIDE;
            /* one next hop (the flow's hash picked it), or all of them */
            const uint32_t *next = pick != UINT32_MAX ? &pick : w->cand;
            uint32_t nnext = pick != UINT32_MAX ? 1 : c;
            if (p == on)
                on_next = next[0];
            for (uint32_t j = 0; j < nnext; j++)
                add(w, &next_n, next[j], w->curw[i] / nnext);
        }
        int r = hop(ctx, &(struct bn_walk_hop){k, w->cur, w->curw, cur_n, on, on_next, next_n});
        if (r)
            return r > 0 ? BN_WALK_OK : BN_WALK_FAILED;
        uint32_t *tp = w->cur;
        double *tw = w->curw;
        w->cur = w->next;
        w->curw = w->nextw;
        w->next = tp;
        w->nextw = tw;
        cur_n = next_n;
        on = on_next;
    }
    return BN_WALK_OK;
}
