/*
 * Flows that wait for others (workload.h: triggers and signals, from a flow
 * file's `after` or htsim's triggers): a flow whose receiver, or sender,
 * is done activates its triggers; a trigger that opens starts the flows
 * gated on it (a multishot one, the next of them). A flow that fails takes
 * its signals with it: a trigger that can no longer open fails the flows
 * still waiting for it, and so on down.
 */
#include <stdlib.h>
#include <string.h>

#include "driver/flows/flows.h"

int bn_flow_gates_init(struct bn_flows *fl, struct bn_error *err)
{
    const struct bn_flow_list *l = &fl->flows;
    struct bn_flow_gates *g = &fl->gates;
    if (l->ntrig == 0)
        return BN_OK;
    g->sig_first = calloc(l->n + 2, sizeof *g->sig_first);
    g->sig = malloc((l->nsig + 1) * sizeof *g->sig);
    g->tgt_first = calloc(l->ntrig + 2, sizeof *g->tgt_first);
    g->tgt = malloc((l->n + 1) * sizeof *g->tgt);
    g->acts = calloc(l->ntrig + 1, sizeof *g->acts);
    g->potential = calloc(l->ntrig + 1, sizeof *g->potential);
    g->started = calloc(l->ntrig + 1, sizeof *g->started);
    g->spent = calloc(l->nsig + 1, sizeof *g->spent);
    if (!g->sig_first || !g->sig || !g->tgt_first || !g->tgt || !g->acts || !g->potential ||
        !g->started || !g->spent)
        return bn_fail(err, BN_ENOMEM, "out of memory for %u triggers", l->ntrig);
    /* counting sorts: a flow's signals, a trigger's flows (in list order) */
    for (uint32_t k = 0; k < l->nsig; k++) {
        g->sig_first[l->sig[k].flow + 1]++;
        g->potential[l->sig[k].trigger]++;
    }
    for (uint32_t i = 0; i < l->n; i++)
        if (l->flows[i].gate != BN_NO_TRIGGER)
            g->tgt_first[l->flows[i].gate + 1]++;
    for (uint32_t i = 0; i < l->n; i++)
        g->sig_first[i + 1] += g->sig_first[i];
    for (uint32_t t = 0; t < l->ntrig; t++)
        g->tgt_first[t + 1] += g->tgt_first[t];
    uint32_t *fill = calloc((l->n > l->ntrig ? l->n : l->ntrig) + 1, sizeof *fill);
    if (!fill)
        return bn_fail(err, BN_ENOMEM, "out of memory for %u triggers", l->ntrig);
    for (uint32_t k = 0; k < l->nsig; k++)
        g->sig[g->sig_first[l->sig[k].flow] + fill[l->sig[k].flow]++] = k;
    memset(fill, 0, ((l->n > l->ntrig ? l->n : l->ntrig) + 1) * sizeof *fill);
    for (uint32_t i = 0; i < l->n; i++)
        if (l->flows[i].gate != BN_NO_TRIGGER)
            g->tgt[g->tgt_first[l->flows[i].gate] + fill[l->flows[i].gate]++] = i;
    free(fill);
    return BN_OK;
}

void bn_flow_gates_free(struct bn_flow_gates *g)
{
    free(g->sig_first);
    free(g->sig);
    free(g->tgt_first);
    free(g->tgt);
    free(g->acts);
    free(g->potential);
    free(g->started);
    free(g->spent);
}

/* Start flow f its own delay after `at`. */
static void start(struct bn_flows *fl, uint32_t f, bn_time_t at)
{
    struct bn_flow_spec *s = &fl->flows.flows[f];
    s->start += at; /* from now on its start time */
    bn_fabric_schedule(&fl->s->fab, s->start, BN_EV_APP, f, BN_FLOWS_START);
}

static void activate(struct bn_flows *fl, uint32_t t, bn_time_t at)
{
    struct bn_flow_gates *g = &fl->gates;
    const struct bn_flow_trigger *tr = &fl->flows.trig[t];
    uint32_t first = g->tgt_first[t], n = g->tgt_first[t + 1] - first, a = ++g->acts[t];
    if (tr->multishot) {
        if (g->started[t] < n)
            start(fl, g->tgt[first + g->started[t]++], at);
    } else if (a == tr->need) {
        for (; g->started[t] < n; g->started[t]++)
            start(fl, g->tgt[first + g->started[t]], at);
    }
}

void bn_flow_gates_signal(struct bn_flows *fl, uint32_t f, bool sent, bn_time_t at)
{
    struct bn_flow_gates *g = &fl->gates;
    if (!g->sig_first)
        return;
    if (at < fl->s->fab.now)
        at = fl->s->fab.now;
    for (uint32_t k = g->sig_first[f]; k < g->sig_first[f + 1]; k++) {
        const struct bn_flow_signal *sg = &fl->flows.sig[g->sig[k]];
        if (sg->on_sent == sent && !g->spent[g->sig[k]]) {
            g->spent[g->sig[k]] = true;
            activate(fl, sg->trigger, at);
        }
    }
}

/* Flow f will signal nothing more: triggers that cannot open any more
 * fail the flows still waiting for them (a worklist, not recursion). */
void bn_flow_gates_dead(struct bn_flows *fl, uint32_t f, bn_time_t at)
{
    struct bn_flow_gates *g = &fl->gates;
    if (!g->sig_first)
        return;
    uint32_t *work = malloc((fl->flows.n + 1) * sizeof *work), nw = 0;
    if (!work)
        return; /* the run then ends with flows left: bn_run reports it */
    work[nw++] = f;
    while (nw) {
        uint32_t x = work[--nw];
        for (uint32_t k = g->sig_first[x]; k < g->sig_first[x + 1]; k++) {
            uint32_t sgi = g->sig[k], t = fl->flows.sig[sgi].trigger;
            if (g->spent[sgi])
                continue;
            g->spent[sgi] = true;
            g->potential[t]--;
            const struct bn_flow_trigger *tr = &fl->flows.trig[t];
            uint32_t first = g->tgt_first[t], n = g->tgt_first[t + 1] - first;
            /* what can still open: every flow, or (multishot) as many as
             * activations there will be */
            uint32_t reach = g->acts[t] + g->potential[t];
            uint32_t keep = tr->multishot ? (reach < n ? reach : n) : reach >= tr->need ? n : 0;
            for (uint32_t j = keep > g->started[t] ? keep : g->started[t]; j < n; j++) {
                uint32_t y = g->tgt[first + j];
                struct bn_flow_state *fs = &fl->fstate[y];
                if (fs->failed != BN_TIME_NEVER)
                    continue;
                fs->failed = at;
                fs->dep_failed = true;
                fl->flows_failed++;
                work[nw++] = y;
            }
        }
    }
    free(work);
}
