/*
 * htsim's connection matrix (csg-htsim, sim/datacenter/connection_matrix.cpp,
 * and the .cm files its drivers read): a header of `Nodes N`,
 * `Connections M` and optionally `Triggers T` and `Failures F` lines, then
 * one connection per line, `a->b` followed by key-value pairs: `start`
 * (µs), `size` (bytes; 0: the flow sends until the simulation ends, as
 * htsim's sources do without a flow size, which needs sim.max_time_us,
 * htsim's -end), `id`, `trigger T` (start when trigger T fires,
 * instead of a start time), `send_done_trigger T` and `recv_done_trigger T`
 * (activate T when the sender, or the receiver, is done), `prio` (read,
 * not modelled); and trigger lines, `trigger id T` with `oneshot`
 * (fires at its first activation), `multishot` (each activation starts the
 * next of its flows) or `barrier` with `count C` (fires at the C-th).
 * Failure lines, `failure switch_type AGG switch_id S link_id L`, fail
 * the L-th core uplink of aggregation switch S from the start; htsim
 * fails only those (FatTreeTopology::add_failed_link), and so does this
 * reader: the run turns them into link_down faults (driver/flows/flow_faults.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload/flow_file.h"

enum { H_NODES, H_CONNS, H_TRIGS, H_FAILS, H_N };
static const char *const header[H_N] = {"Nodes", "Connections", "Triggers", "Failures"};

struct htsim {
    uint64_t decl[H_N];          /* what the header declares (UINT64_MAX: nothing) */
    unsigned decl_line[H_N];
    uint32_t conns, trig_lines, fail_lines;
    /* htsim trigger ids -> bnet trigger, open addressing (id 0: empty) */
    uint32_t *ids, *idx, cap, nids;
    bool *defined;               /* per bnet trigger: its trigger line was read */
    unsigned *named_at;          /* per bnet trigger: the line that first named it */
};

static int begin(struct bn_flow_reader *r, struct bn_error *err)
{
    struct htsim *h = calloc(1, sizeof *h);
    if (!h)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    for (int i = 0; i < H_N; i++)
        h->decl[i] = UINT64_MAX;
    r->state = h;
    return BN_OK;
}

static void release(struct bn_flow_reader *r)
{
    struct htsim *h = r->state;
    if (h) {
        free(h->ids);
        free(h->idx);
        free(h->defined);
        free(h->named_at);
        free(h);
    }
    r->state = NULL;
}

static uint32_t slot_of(const struct htsim *h, uint32_t id)
{
    uint32_t s = (id * 0x9e3779b1u) & (h->cap - 1);
    while (h->ids[s] && h->ids[s] != id)
        s = (s + 1) & (h->cap - 1);
    return s;
}

/* htsim trigger `id`'s bnet trigger, made on first mention. */
static int trigger_of(struct bn_flow_reader *r, uint32_t id, unsigned lineno, uint32_t *out,
                      struct bn_error *err)
{
    struct htsim *h = r->state;
    if (2 * (h->nids + 1) > h->cap) { /* rehash at half full */
        uint32_t cap = h->cap ? 2 * h->cap : 64, *ids = calloc(cap, sizeof *ids),
                 *idx = calloc(cap, sizeof *idx);
        if (!ids || !idx) {
            free(ids);
            free(idx);
            return bn_fail(err, BN_ENOMEM, "out of memory for triggers");
        }
        struct htsim old = *h;
        h->ids = ids, h->idx = idx, h->cap = cap;
        for (uint32_t s = 0; s < old.cap; s++)
            if (old.ids[s]) {
                uint32_t t = slot_of(h, old.ids[s]);
                h->ids[t] = old.ids[s], h->idx[t] = old.idx[s];
            }
        free(old.ids);
        free(old.idx);
    }
    uint32_t s = slot_of(h, id);
    if (h->ids[s]) {
        *out = h->idx[s];
        return BN_OK;
    }
    uint32_t cap = r->out->trig_cap;
    int rc = bn_flow_list_trigger(r->out, 1, false, lineno, out, err);
    if (rc == BN_OK && r->out->trig_cap != cap) {
        bool *d = realloc(h->defined, r->out->trig_cap * sizeof *d);
        unsigned *at = realloc(h->named_at, r->out->trig_cap * sizeof *at);
        if (d)
            h->defined = d;
        if (at)
            h->named_at = at;
        if (!d || !at)
            return bn_fail(err, BN_ENOMEM, "out of memory for triggers");
    }
    if (rc == BN_OK) {
        h->ids[s] = id, h->idx[s] = *out, h->nids++;
        h->defined[*out] = false;
        h->named_at[*out] = lineno;
    }
    return rc;
}

static int id_value(struct bn_flow_reader *r, char *const *tok, int n, int i, unsigned lineno,
                    uint64_t max, uint64_t *v, struct bn_error *err)
{
    if (i + 1 >= n || !bn_flow_u64(tok[i + 1], v) || *v > max || (max == UINT32_MAX && !*v))
        return bn_fail(err, BN_EINPUT, "%s:%u: '%s' needs a %s after it", r->path, lineno,
                       tok[i], max == UINT32_MAX ? "number from 1 (0 is not an id)" : "number");
    return BN_OK;
}

static int connection(struct bn_flow_reader *r, char *const *tok, int n, unsigned lineno,
                      struct bn_error *err)
{
    struct htsim *h = r->state;
    char *arrow = strstr(tok[0], "->");
    uint64_t src, dst, size = UINT64_MAX, v;
    double start = -1;
    *arrow = '\0';
    if (!bn_flow_u64(tok[0], &src) || !bn_flow_u64(arrow + 2, &dst))
        return bn_fail(err, BN_EINPUT, "%s:%u: '%s->%s' is not 'SRC->DST' (host numbers)", r->path,
                       lineno, tok[0], arrow + 2);
    uint32_t gate = BN_NO_TRIGGER, sent = BN_NO_TRIGGER, recv = BN_NO_TRIGGER;
    int rc = BN_OK;
    for (int i = 1; i < n && rc == BN_OK; i += 2) {
        const char *k = tok[i];
        if (strcmp(k, "start") == 0) {
            if (i + 1 >= n || !bn_flow_real(tok[i + 1], &start))
                return bn_fail(err, BN_EINPUT, "%s:%u: 'start' needs a time in us (0..1e12)",
                               r->path, lineno);
        } else if (strcmp(k, "size") == 0) {
            rc = i + 1 < n && strcmp(tok[i + 1], "0") == 0
                     ? (size = 0, BN_OK) /* until the end */
                     : id_value(r, tok, n, i, lineno, BN_MAX_MESSAGE_BYTES, &size, err);
        } else if (strcmp(k, "id") == 0 || strcmp(k, "prio") == 0) {
            rc = id_value(r, tok, n, i, lineno, strcmp(k, "id") == 0 ? UINT32_MAX : UINT64_MAX - 1,
                          &v, err);
        } else if (strcmp(k, "trigger") == 0 || strcmp(k, "send_done_trigger") == 0 ||
                   strcmp(k, "recv_done_trigger") == 0) {
            uint32_t *t = k[0] == 't' ? &gate : k[0] == 's' ? &sent : &recv;
            rc = id_value(r, tok, n, i, lineno, UINT32_MAX, &v, err);
            if (rc == BN_OK)
                rc = trigger_of(r, (uint32_t)v, lineno, t, err);
        } else {
            return bn_fail(err, BN_EINPUT, "%s:%u: unknown field '%s' (expected start, size, id, "
                           "trigger, send_done_trigger, recv_done_trigger or prio)", r->path,
                           lineno, k);
        }
    }
    if (rc != BN_OK)
        return rc;
    if ((start < 0) == (gate == BN_NO_TRIGGER))
        return bn_fail(err, BN_EINPUT, "%s:%u: a connection needs a 'start' or a 'trigger', not "
                       "%s", r->path, lineno, start < 0 ? "neither" : "both");
    if (size == UINT64_MAX)
        return bn_fail(err, BN_EINPUT, "%s:%u: a connection needs 'size' (bytes; 0: until the "
                       "run ends)", r->path, lineno);
    if (size == 0 && !(r->end_us > 0))
        return bn_fail(err, BN_EINPUT, "%s:%u: 'size 0' sends until the simulation ends, and "
                       "sim.max_time_us is 0 (until every flow completes): set it (htsim's -end)",
                       r->path, lineno);
    if (size == 0 && (sent != BN_NO_TRIGGER || recv != BN_NO_TRIGGER))
        return bn_fail(err, BN_EINPUT, "%s:%u: a 'size 0' flow never finishes, so its "
                       "send_done_trigger or recv_done_trigger would never fire", r->path, lineno);
    rc = bn_flow_file_add(r, lineno, src, dst, size ? size : BN_MAX_MESSAGE_BYTES,
                          start < 0 ? 0 : start, err);
    uint32_t f = r->out->n - 1;
    if (rc == BN_OK) {
        r->out->flows[f].gate = gate;
        r->out->flows[f].unbounded = size == 0;
    }
    if (rc == BN_OK && sent != BN_NO_TRIGGER)
        rc = bn_flow_list_signal(r->out, f, sent, true, err);
    if (rc == BN_OK && recv != BN_NO_TRIGGER)
        rc = bn_flow_list_signal(r->out, f, recv, false, err);
    h->conns++;
    return rc;
}

static int trigger_line(struct bn_flow_reader *r, char *const *tok, int n, unsigned lineno,
                        struct bn_error *err)
{
    struct htsim *h = r->state;
    uint64_t id = 0, count = 0;
    const char *type = NULL;
    int rc = BN_OK;
    for (int i = 1; i < n && rc == BN_OK; i++) {
        if (strcmp(tok[i], "id") == 0)
            rc = id_value(r, tok, n, i++, lineno, UINT32_MAX, &id, err);
        else if (strcmp(tok[i], "count") == 0)
            rc = id_value(r, tok, n, i++, lineno, UINT32_MAX, &count, err);
        else if (strcmp(tok[i], "oneshot") == 0 || strcmp(tok[i], "multishot") == 0 ||
                 strcmp(tok[i], "barrier") == 0) {
            if (type)
                return bn_fail(err, BN_EINPUT, "%s:%u: a trigger has one type ('%s', then '%s')",
                               r->path, lineno, type, tok[i]);
            type = tok[i];
        } else
            return bn_fail(err, BN_EINPUT, "%s:%u: unknown trigger field '%s' (expected id, "
                           "count, oneshot, multishot or barrier)", r->path, lineno, tok[i]);
    }
    if (rc != BN_OK)
        return rc;
    if (!id || !type)
        return bn_fail(err, BN_EINPUT, "%s:%u: a trigger needs 'id N' and a type (oneshot, "
                       "multishot or barrier)", r->path, lineno);
    if (strcmp(type, "barrier") == 0 && !count)
        return bn_fail(err, BN_EINPUT, "%s:%u: a barrier needs 'count N' (activations, from 1)",
                       r->path, lineno);
    uint32_t t;
    rc = trigger_of(r, (uint32_t)id, lineno, &t, err);
    if (rc != BN_OK)
        return rc;
    if (h->defined[t])
        return bn_fail(err, BN_EINPUT, "%s:%u: trigger %llu is defined twice", r->path, lineno,
                       (unsigned long long)id);
    h->defined[t] = true;
    r->out->trig[t] = (struct bn_flow_trigger){type[0] == 'b' ? (uint32_t)count : 1, lineno,
                                               type[0] == 'm'};
    h->trig_lines++;
    return BN_OK;
}

/* `failure switch_type AGG switch_id S link_id L`, each once. */
static int failure_line(struct bn_flow_reader *r, char *const *tok, int n, unsigned lineno,
                        struct bn_error *err)
{
    struct htsim *h = r->state;
    uint64_t id = UINT64_MAX, link = UINT64_MAX;
    bool agg = false;
    for (int i = 1; i < n; i += 2) {
        if (i + 1 >= n)
            return bn_fail(err, BN_EINPUT, "%s:%u: '%s' without a value", r->path, lineno, tok[i]);
        const char *v = tok[i + 1];
        if (strcmp(tok[i], "switch_type") == 0 && !agg) {
            if (strcmp(v, "AGG") != 0)
                return bn_fail(err, BN_EINPUT, "%s:%u: switch_type '%s': htsim fails only "
                               "aggregation switches' core uplinks (AGG)", r->path, lineno, v);
            agg = true;
        } else if (strcmp(tok[i], "switch_id") == 0 && id == UINT64_MAX) {
            if (!bn_flow_u64(v, &id) || id >= UINT32_MAX)
                return bn_fail(err, BN_EINPUT, "%s:%u: switch_id '%s' is not a switch number",
                               r->path, lineno, v);
        } else if (strcmp(tok[i], "link_id") == 0 && link == UINT64_MAX) {
            if (!bn_flow_u64(v, &link) || link >= UINT32_MAX)
                return bn_fail(err, BN_EINPUT, "%s:%u: link_id '%s' is not a link number",
                               r->path, lineno, v);
        } else {
            return bn_fail(err, BN_EINPUT, "%s:%u: failure field '%s' unknown or repeated "
                           "(expected switch_type, switch_id, link_id)", r->path, lineno, tok[i]);
        }
    }
    if (!agg || id == UINT64_MAX || link == UINT64_MAX)
        return bn_fail(err, BN_EINPUT, "%s:%u: a failure needs switch_type AGG, switch_id and "
                       "link_id", r->path, lineno);
    struct bn_flow_list *l = r->out;
    if (l->nfail == l->fail_cap) {
        uint32_t cap = l->fail_cap ? 2 * l->fail_cap : 8;
        void *p = realloc(l->fail, cap * sizeof *l->fail);
        if (!p)
            return bn_fail(err, BN_ENOMEM, "out of memory");
        l->fail = p;
        l->fail_cap = cap;
    }
    l->fail[l->nfail++] = (struct bn_flow_failure){(uint32_t)id, (uint32_t)link, lineno};
    h->fail_lines++;
    return BN_OK;
}

static int line(struct bn_flow_reader *r, char *const *tok, int n, unsigned lineno,
                struct bn_error *err)
{
    struct htsim *h = r->state;
    for (int k = 0; k < H_N; k++)
        if (strcmp(tok[0], header[k]) == 0) {
            if (h->conns || h->trig_lines)
                return bn_fail(err, BN_EINPUT, "%s:%u: '%s' belongs in the header, before the "
                               "connections", r->path, lineno, tok[0]);
            if (n != 2 || !bn_flow_u64(tok[1], &h->decl[k]) || h->decl[k] > UINT32_MAX)
                return bn_fail(err, BN_EINPUT, "%s:%u: expected '%s N'", r->path, lineno, tok[0]);
            h->decl_line[k] = lineno;
            if (k == H_NODES && h->decl[k] > r->nhosts)
                return bn_fail(err, BN_EINPUT, "%s:%u: Nodes %llu, but the fabric has %u hosts",
                               r->path, lineno, (unsigned long long)h->decl[k], r->nhosts);
            return BN_OK;
        }
    if (strstr(tok[0], "->"))
        return connection(r, tok, n, lineno, err);
    if (strcmp(tok[0], "trigger") == 0)
        return trigger_line(r, tok, n, lineno, err);
    if (strcmp(tok[0], "failure") == 0)
        return failure_line(r, tok, n, lineno, err);
    return bn_fail(err, BN_EINPUT, "%s:%u: unknown line '%s' (expected Nodes, Connections, "
                   "Triggers, Failures, SRC->DST or trigger)", r->path, lineno, tok[0]);
}

static int end(struct bn_flow_reader *r, unsigned lines, struct bn_error *err)
{
    (void)lines;
    struct htsim *h = r->state;
    /* first what is missing (htsim's generators can leave the last
     * trigger undefined), then the header's counts */
    for (uint32_t t = 0; t < r->out->ntrig; t++)
        if (!h->defined[t]) {
            uint32_t id = 0;
            for (uint32_t s = 0; s < h->cap && !id; s++)
                if (h->ids[s] && h->idx[s] == t)
                    id = h->ids[s];
            return bn_fail(err, BN_EINPUT, "%s:%u: trigger %u is used here but no 'trigger id "
                           "%u' line defines it", r->path, h->named_at[t], id, id);
        }
    uint64_t got[H_N] = {0, h->conns, h->trig_lines, h->fail_lines};
    for (int k = H_CONNS; k <= H_FAILS; k++)
        if (h->decl[k] != UINT64_MAX && h->decl[k] != got[k])
            return bn_fail(err, BN_EINPUT, "%s:%u: %s %llu declared, %llu given", r->path,
                           h->decl_line[k], header[k], (unsigned long long)h->decl[k],
                           (unsigned long long)got[k]);
    if (h->decl[H_NODES] != UINT64_MAX)
        for (uint32_t i = 0; i < r->out->n; i++)
            if (r->out->flows[i].src >= h->decl[H_NODES] || r->out->flows[i].dst >= h->decl[H_NODES])
                return bn_fail(err, BN_EINPUT, "%s:%u: a host beyond the %llu Nodes declared",
                               r->path, r->out->flows[i].line,
                               (unsigned long long)h->decl[H_NODES]);
    return BN_OK;
}

static bool claims(char *const *tok, int n)
{
    for (int k = 0; n >= 1 && k < H_N; k++)
        if (strcmp(tok[0], header[k]) == 0)
            return true;
    return n >= 1 && strstr(tok[0], "->") != NULL;
}

const struct bn_flow_format bn_flow_htsim = {
    .name = "htsim",
    .fails_links = true, /* its `failure` lines */
    .claims = claims,
    .begin = begin,
    .line = line,
    .end = end,
    .free = release,
};
