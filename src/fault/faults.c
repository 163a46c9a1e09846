/*
 * The fault schedule: the scenario's faults resolved against the topology,
 * their events (strike, end, flap, an optical circuit lit again), and what
 * each cost: its control plane's convergence, frames lost on its links,
 * and the time until the fabric delivers its pre-fault rate again. See
 * fault.h and docs/failures.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "core/fail_key.h"
#include "fault/kind.h"
#include "link/impair.h"

#define GIVE_UP_PS BN_PS_PER_S /* traffic not restored within a simulated second: never */

void bn_fault_schedule(struct bn_faults *ft, bn_time_t t, uint16_t kind, uint32_t obj,
                       uint32_t arg)
{
    ft->pending++;
    bn_fabric_schedule(ft->env.f, t, kind, obj, arg);
}

int bn_fault_bad_target(const struct fault *fa, const char *why, struct bn_error *err)
{
    /* the scenario layer's caller adds where (bn_scenario_locate) */
    return bn_fail_item(err, BN_EINPUT, "faults", fa->index, "target", "'%s': %s",
                        fa->sf->target, why);
}

int bn_fault_add_port(struct fault *fa, uint32_t p, struct bn_error *err)
{
    uint32_t *np = realloc(fa->ports, (fa->nports + 1) * sizeof *np);
    if (!np)
        return bn_fail(err, BN_ENOMEM, "out of memory for faults");
    fa->ports = np;
    fa->ports[fa->nports++] = p;
    return BN_OK;
}

/* The port on node a whose link reaches node b, or UINT32_MAX. */
static uint32_t port_between(const struct bn_topo *t, uint32_t a, uint32_t b)
{
    const struct bn_topo_node *nd = &t->nodes[a];
    for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++)
        if (t->ports[t->ports[p].peer].node == b)
            return p;
    return UINT32_MAX;
}

/* A link named by a port ("tor0/5") or by its ends ("tor0 agg1"), from
 * `text`; *rest points past what was read. */
uint32_t bn_fault_parse_link(const struct bn_topo *t, const char *text, const char **rest)
{
    char a[BN_TOPO_NAME_MAX] = "", b[BN_TOPO_NAME_MAX] = "";
    int n = 0;
    if (sscanf(text, " %63s%n", a, &n) != 1)
        return UINT32_MAX;
    *rest = text + n;
    if (strchr(a, '/'))
        return bn_topo_find_port(t, a);
    if (sscanf(*rest, " %63s%n", b, &n) != 1)
        return UINT32_MAX;
    *rest += n;
    uint32_t na = bn_topo_find_node(t, a), nb = bn_topo_find_node(t, b);
    return na == UINT32_MAX || nb == UINT32_MAX ? UINT32_MAX : port_between(t, na, nb);
}

bool bn_fault_backend_link(const struct bn_topo *t, uint32_t p)
{
    return bn_topo_in_fabric(t, t->ports[p].node) &&
           bn_topo_in_fabric(t, t->ports[t->ports[p].peer].node);
}

int bn_fault_resolve_link(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    const char *rest = "";
    uint32_t p = bn_fault_parse_link(ft->env.t, fa->sf->target, &rest);
    if (p == UINT32_MAX || !bn_fault_backend_link(ft->env.t, p))
        return bn_fault_bad_target(fa, "no such backend link (name a port, 'tor0/5', or a link by "
                          "its two ends, 'tor0 agg1'; bnet topo --dot shows the names)", err);
    if (rest[strspn(rest, " \t")])
        return bn_fault_bad_target(fa, "one link expected", err);
    fa->one_way = strchr(fa->sf->target, '/') != NULL;
    return bn_fault_add_port(fa, p, err);
}

int bn_fault_resolve_node(struct bn_faults *ft, struct fault *fa, uint8_t kind,
                          struct bn_error *err)
{
    const struct bn_topo *t = ft->env.t;
    uint32_t n = bn_topo_find_node(t, fa->sf->target);
    if (n == UINT32_MAX || t->nodes[n].kind != kind)
        return bn_fault_bad_target(fa, kind == BN_NODE_HOST ? "no such host (e.g. host3)"
                                                            : "no such switch (e.g. spine1)",
                                   err);
    const struct bn_topo_node *nd = &t->nodes[n];
    int rc = BN_OK;
    for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports && rc == BN_OK; p++)
        if (bn_fault_backend_link(t, p) && (kind == BN_NODE_SWITCH || p == nd->first_port))
            rc = bn_fault_add_port(fa, p, err);
    return rc;
}

static int check_times(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    const struct bn_scenario_fault *sf = fa->sf;
    const char *src = ft->env.sc->source;
    if (sf->until_us > 0 && sf->until_us <= sf->at_us)
        return bn_fail(err, BN_EINPUT, "%s: key 'faults[%u].until_us': %g us is not after at_us "
                       "(%g us)", src, fa->index, sf->until_us, sf->at_us);
    const struct bn_fault_kind_ops *k = bn_fault_kind_at(sf->kind);
    int rc = k->validate ? k->validate(sf, fa->keys, src, fa->index, err) : BN_OK;
    if (rc != BN_OK)
        return rc;
    if (!k->draws_links && !sf->target[0])
        return bn_fail(err, BN_EINPUT, "%s: key 'faults[%u].target': missing (what fails?)", src,
                       fa->index);
    return BN_OK;
}

static int resolve(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    int rc = check_times(ft, fa, err);
    if (rc != BN_OK)
        return rc;
    fa->at = bn_time_from_us(fa->sf->at_us);
    fa->until = fa->sf->until_us > 0 ? bn_time_from_us(fa->sf->until_us) : BN_TIME_NEVER;
    fa->converged = fa->restored = BN_TIME_NEVER;
    return bn_fault_kind_at(fa->sf->kind)->resolve(ft, fa, err);
}

/* ---- links ---- */

static int hold(struct bn_faults *ft, uint32_t p, bool down, struct bn_error *err)
{
    uint32_t q = ft->env.t->ports[p].peer;
    if (!down && ft->down[p] == 0)
        return BN_OK;
    if (down && ft->down[p] == UINT8_MAX)
        return bn_fail(err, BN_EINPUT, "%s: more than 255 faults hold one link down",
                       ft->env.sc->source);
    ft->down[p] = (uint8_t)(ft->down[p] + (down ? 1 : -1));
    ft->down[q] = ft->down[p];
    bool now_down = ft->down[p] != 0;
    if (now_down == bn_link_is_down(ft->env.f, p))
        return BN_OK;
    return bn_link_set_down(ft->env.f, p, now_down, err);
}

int bn_fault_hold_all(struct bn_faults *ft, struct fault *fa, bool down, struct bn_error *err)
{
    int rc = BN_OK;
    for (uint32_t i = 0; i < fa->nports && rc == BN_OK; i++)
        rc = hold(ft, fa->ports[i], down, err);
    return rc == BN_OK ? bn_fault_reroute(ft, fa, err) : rc;
}

/* ---- throughput ---- */

static double pkts_gbps(const struct bn_faults *ft, uint64_t pkts)
{
    return (double)pkts * ft->env.nics->mtu * 8.0 / (double)ft->window * 1e3;
}

/* A queue pair stalled (a timeout since its last progress) and not yet
 * failed. */
static bool stalled(const struct bn_qp *qp)
{
    return qp->stalled && !qp->failed && qp->snd_una < qp->snd_max;
}

static bool needs_probe(const struct bn_faults *ft)
{
    for (uint32_t i = 0; i < ft->nfaults; i++)
        if (!ft->fault[i].struck || ft->fault[i].collecting || ft->fault[i].measuring)
            return true;
    const struct bn_nics *n = ft->env.nics;
    for (uint32_t q = 0; q < n->nqps; q++)
        if (stalled(&n->qp[q]))
            return true;
    return false;
}

/* Nothing left to change the fabric (no fault or route install to come
 * for routing.stuck_us): a queue pair that has made no progress for that
 * long has no path that works, and will not get one. Only a queue pair
 * that would retry for ever (nic.ack_timeout 0) fails here: one with a
 * retry budget keeps it, as an RC queue pair does, and survives a reroute
 * slower than stuck_us (its backed-off retransmission finds the new
 * route); if none comes, its budget ends it with the hardware's error. */
static void fail_stuck(struct bn_faults *ft)
{
    bn_time_t now = ft->env.f->now;
    struct bn_nics *n = ft->env.nics;
    if (n->qp_fail_after || ft->pending || now - ft->last_change < ft->stuck_after)
        return;
    for (uint32_t q = 0; q < n->nqps; q++)
        if (stalled(&n->qp[q]) && now - n->qp[q].stall_since >= ft->stuck_after)
            bn_nic_qp_fail(n, q, BN_QP_NO_PATH);
}

/* Every queue pair's in-order packets now; the last snapshot becomes prev. */
static int snapshot(struct bn_faults *ft, struct bn_error *err)
{
    const struct bn_nics *n = ft->env.nics;
    if (n->nqps > ft->snap_cap) {
        uint32_t cap = n->nqps * 2;
        uint32_t *a = realloc(ft->snap, cap * sizeof *a), *b = a ? realloc(ft->prev, cap * sizeof *b) : NULL;
        if (a)
            ft->snap = a;
        if (!a || !b)
            return bn_fail(err, BN_ENOMEM, "out of memory for the fault probe");
        ft->prev = b;
        ft->snap_cap = cap;
    }
    for (uint32_t q = ft->nsnap; q < n->nqps; q++)
        ft->snap[q] = 0; /* new since: it had delivered nothing */
    uint32_t *t = ft->prev;
    ft->prev = ft->snap;
    ft->snap = t;
    for (uint32_t q = 0; q < n->nqps; q++)
        ft->snap[q] = n->qp[q].rcv_nxt;
    ft->nsnap = n->nqps;
    ft->prev_t = ft->probe_t;
    ft->probe_t = ft->env.f->now;
    return BN_OK;
}

/* The hit queue pairs' packets over the last window; one that has
 * delivered all it was given counts at its rate before the fault. */
static uint64_t hit_pkts(const struct bn_faults *ft, const struct fault *fa)
{
    const struct bn_nics *n = ft->env.nics;
    uint64_t sum = 0;
    for (uint32_t q = 0; q < fa->npre; q++) {
        if (!fa->hit[q])
            continue;
        bool finished = n->qp[q].rcv_nxt >= n->qp[q].post_end;
        sum += finished ? fa->pre[q] : ft->snap[q] - ft->prev[q];
    }
    return sum;
}

static void judge(struct bn_faults *ft, struct fault *fa)
{
    bn_time_t now = ft->env.f->now;
    if (fa->collecting && now >= fa->at + ft->window) { /* the hit set is known */
        uint64_t before = 0;
        for (uint32_t q = 0; q < fa->npre; q++)
            before += fa->hit[q] ? fa->pre[q] : 0;
        fa->collecting = false;
        fa->rate_before_gbps = pkts_gbps(ft, before);
        fa->measuring = before > 0;
        if (!before)
            fa->restored = fa->at; /* it hit nothing that was moving */
        return;
    }
    if (!fa->measuring || ft->prev_t < fa->at)
        return;
    if (pkts_gbps(ft, hit_pkts(ft, fa)) >= ft->env.sc->routing.restore_fraction * fa->rate_before_gbps) {
        fa->restored = now;
        fa->measuring = false;
    } else if (now - fa->at > GIVE_UP_PS) {
        fa->measuring = false;
    }
}

static int probe(struct bn_faults *ft, struct bn_error *err)
{
    for (uint32_t i = 0; i < ft->log.n; i++) /* who lost frames since the last probe */
        for (uint32_t k = 0; k < ft->nfaults; k++) {
            struct fault *fa = &ft->fault[k];
            if (fa->collecting && ft->log.qp[i] < fa->npre)
                fa->hit[ft->log.qp[i]] = 1;
        }
    ft->log.n = 0;
    int rc = snapshot(ft, err);
    for (uint32_t i = 0; i < ft->nfaults && rc == BN_OK; i++)
        judge(ft, &ft->fault[i]);
    fail_stuck(ft);
    ft->probing = needs_probe(ft);
    if (ft->probing)
        bn_fabric_schedule(ft->env.f, ft->env.f->now + ft->window, BN_EV_FAULT, PROBE, 0);
    return rc;
}

/* At the strike: each queue pair's packets in the last window before it. */
static int start_measuring(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    uint32_t n = ft->nsnap;
    fa->pre = calloc((size_t)n + 1, sizeof *fa->pre);
    fa->hit = calloc((size_t)n + 1, 1);
    if (!fa->pre || !fa->hit)
        return bn_fail(err, BN_ENOMEM, "out of memory for the fault probe");
    for (uint32_t q = 0; q < n; q++)
        fa->pre[q] = ft->snap[q] - ft->prev[q];
    fa->npre = n;
    /* a degraded link loses nothing to tell its traffic by; before the
     * first probe there is no window to compare with */
    fa->measurable = !bn_fault_kind_at(fa->sf->kind)->loses_nothing && ft->probe_t > 0;
    fa->collecting = fa->measurable;
    return BN_OK;
}

/* ---- events ---- */

void bn_fault_later(struct bn_faults *ft, const struct fault *fa, bn_time_t t, uint32_t phase)
{
    if (t < fa->until)
        bn_fault_schedule(ft, t, BN_EV_FAULT, (uint32_t)(fa - ft->fault), phase);
}

int bn_fault_strike_down(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    return bn_fault_hold_all(ft, fa, true, err);
}

int bn_fault_end_up(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    return bn_fault_hold_all(ft, fa, false, err);
}

static int strike(struct bn_faults *ft, struct fault *fa, struct bn_error *err)
{
    const struct bn_fault_kind_ops *k = bn_fault_kind_at(fa->sf->kind);
    fa->struck = true;
    int rc = start_measuring(ft, fa, err);
    if (rc != BN_OK)
        return rc;
    if (fa->until != BN_TIME_NEVER && !k->ends_itself)
        bn_fault_schedule(ft, fa->until, BN_EV_FAULT, (uint32_t)(fa - ft->fault), PH_END);
    return k->strike(ft, fa, err);
}

int bn_faults_event(struct bn_faults *ft, const struct bn_event *ev, struct bn_error *err)
{
    if (ev->kind == BN_EV_ROUTE || ev->obj != PROBE) {
        ft->pending--;
        ft->last_change = ft->env.f->now;
    }
    if (ev->kind == BN_EV_ROUTE) {
        bn_fault_install(ft, ev->obj, ev->arg);
        return BN_OK;
    }
    if (ev->obj == PROBE)
        return probe(ft, err);
    struct fault *fa = &ft->fault[ev->obj];
    const struct bn_fault_kind_ops *k = bn_fault_kind_at(fa->sf->kind);
    if (ev->arg == PH_STRIKE)
        return strike(ft, fa, err);
    if (ev->arg == PH_END)
        return k->end(ft, fa, err);
    if (k->phase && ev->arg <= PH_LIT)
        return k->phase(ft, fa, ev->arg, err);
    return bn_fail(err, BN_EINTERNAL, "unknown fault phase %u", ev->arg);
}

/* ---- set-up ---- */

/* Each leaf's hosts' table blocks (64 destinations), for the SM's cost. */
static int leaf_blocks(struct bn_faults *ft, struct bn_error *err)
{
    const struct bn_topo *t = ft->env.t;
    uint32_t nblocks = (t->nhosts + 63) / 64;
    ft->leaf_block_off = calloc((size_t)t->nleaves + 2, sizeof *ft->leaf_block_off);
    ft->leaf_block = malloc(((size_t)t->nhosts + 1) * sizeof *ft->leaf_block);
    ft->stamp = calloc((size_t)nblocks + 1, sizeof *ft->stamp);
    if (!ft->leaf_block_off || !ft->leaf_block || !ft->stamp)
        return bn_fail(err, BN_ENOMEM, "out of memory for faults");
    /* hosts in leaf order: a counting sort, a block listed once per leaf */
    for (uint32_t h = 0; h < t->nhosts; h++)
        ft->leaf_block_off[t->nodes[h].leaf + 1]++;
    for (uint32_t l = 0; l < t->nleaves; l++)
        ft->leaf_block_off[l + 1] += ft->leaf_block_off[l];
    uint32_t *fill = calloc((size_t)t->nleaves + 1, sizeof *fill);
    if (!fill)
        return bn_fail(err, BN_ENOMEM, "out of memory for faults");
    for (uint32_t h = 0; h < t->nhosts; h++) {
        uint32_t l = t->nodes[h].leaf, at = ft->leaf_block_off[l] + fill[l];
        if (fill[l] == 0 || ft->leaf_block[at - 1] != h / 64) {
            ft->leaf_block[at] = h / 64;
            fill[l]++;
        }
    }
    /* close the gaps left by blocks counted once */
    uint32_t out = 0;
    for (uint32_t l = 0; l < t->nleaves; l++) {
        uint32_t from = ft->leaf_block_off[l];
        ft->leaf_block_off[l] = out;
        for (uint32_t i = 0; i < fill[l]; i++)
            ft->leaf_block[out++] = ft->leaf_block[from + i];
    }
    ft->leaf_block_off[t->nleaves] = out;
    free(fill);
    return BN_OK;
}

/* The probe's window: routing.window_us, or 50 times the longest port
 * latency (at least 10 us): long enough to average over a round trip. */
static bn_time_t probe_window(const struct bn_faults *ft)
{
    if (ft->env.sc->routing.window_us > 0)
        return bn_time_from_us(ft->env.sc->routing.window_us);
    bn_time_t lat = 0;
    for (uint32_t p = 0; p < ft->env.f->nports; p++)
        if (ft->env.f->ports[p].lat_ps > lat)
            lat = ft->env.f->ports[p].lat_ps;
    bn_time_t w = 50 * lat, floor = bn_time_from_us(10);
    return w > floor ? w : floor;
}

static const struct bn_cp_ops *control_plane(const struct bn_fault_env *env)
{
    unsigned i = env->sc->routing.control_plane;
    if (i > 0)
        return bn_cp_at(i - 1);
    return env->f->fc->link_layer == BN_LL_INFINIBAND ? &bn_cp_ib_sm : &bn_cp_ethernet;
}

int bn_faults_init(struct bn_faults **out, const struct bn_fault_env *env, struct bn_error *err)
{
    *out = NULL;
    if (env->sc->nfaults == 0)
        return BN_OK;
    const struct bn_topo *t = env->t;
    struct bn_faults *ft = calloc(1, sizeof *ft);
    if (!ft)
        return bn_fail(err, BN_ENOMEM, "out of memory for faults");
    *out = ft;
    ft->env = *env;
    ft->cp = control_plane(env);
    ft->nfaults = env->sc->nfaults;
    ft->fault = calloc(ft->nfaults, sizeof *ft->fault);
    ft->down = calloc((size_t)t->nports + 1, 1);
    ft->installed = malloc(((size_t)t->nswitches + 1) * sizeof *ft->installed);
    ft->dist = malloc(((size_t)t->nswitches + 1) * sizeof *ft->dist);
    ft->blocks = malloc(((size_t)t->nswitches + 1) * sizeof *ft->blocks);
    ft->queue = malloc(((size_t)t->nswitches + 1) * sizeof *ft->queue);
    ft->at = malloc(((size_t)t->nswitches + 1) * sizeof *ft->at);
    if (!ft->fault || !ft->down || !ft->installed || !ft->dist || !ft->blocks || !ft->queue ||
        !ft->at || !ft->cp)
        return bn_fail(err, BN_ENOMEM, "out of memory for faults");
    memset(ft->installed, 0xff, ((size_t)t->nswitches + 1) * sizeof *ft->installed);
    int rc = leaf_blocks(ft, err);
    for (uint32_t i = 0; i < ft->nfaults && rc == BN_OK; i++) {
        struct fault *fa = &ft->fault[i];
        fa->sf = &env->sc->faults[i];
        fa->keys = bn_fault_keys(fa->sf, bn_fault_kind_at(fa->sf->kind));
        fa->index = i;
        rc = resolve(ft, fa, err);
        if (rc == BN_OK)
            bn_fault_schedule(ft, fa->at, BN_EV_FAULT, i, PH_STRIKE);
    }
    ft->window = probe_window(ft);
    ft->stuck_after = bn_time_from_us(env->sc->routing.stuck_us);
    ft->log.cap = 1u << 16;
    ft->log.qp = malloc(ft->log.cap * sizeof *ft->log.qp);
    if (!ft->log.qp)
        return bn_fail(err, BN_ENOMEM, "out of memory for faults");
    env->f->loss_log = &ft->log;
    ft->probing = true;
    bn_fabric_schedule(env->f, ft->window, BN_EV_FAULT, PROBE, 0);
    return rc;
}

/* ---- results ---- */

const char *bn_faults_control_plane(const struct bn_faults *ft)
{
    return ft->cp->name;
}

double bn_faults_reroute_s(const struct bn_faults *ft)
{
    return ft->reroute_s;
}

static void describe_links(const struct bn_faults *ft, const struct fault *fa, char *buf,
                           size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < fa->nports && used + 1 < len; i++) {
        char a[BN_TOPO_NAME_MAX], b[BN_TOPO_NAME_MAX];
        bn_topo_node_name(ft->env.t, ft->env.t->ports[fa->ports[i]].node, a, sizeof a);
        bn_topo_node_name(ft->env.t, ft->env.t->ports[ft->env.t->ports[fa->ports[i]].peer].node,
                          b, sizeof b);
        int w = snprintf(buf + used, len - used, "%s%s %s", i ? ", " : "", a, b);
        used += w > 0 ? (size_t)w : 0;
    }
}

static double us_since(bn_time_t t, bn_time_t from)
{
    return t == BN_TIME_NEVER ? -1 : bn_time_to_us(t - from);
}

int bn_faults_report(const struct bn_faults *ft, struct bn_fault_result **out, uint32_t *n,
                     struct bn_error *err)
{
    *n = 0;
    *out = calloc(ft->nfaults + 1, sizeof **out);
    if (!*out)
        return bn_fail(err, BN_ENOMEM, "out of memory for fault results");
    const struct bn_fabric *f = ft->env.f;
    for (uint32_t i = 0; i < ft->nfaults; i++) {
        const struct fault *fa = &ft->fault[i];
        struct bn_fault_result *r = &(*out)[i];
        const char *kind = bn_fault_kind_name(fa->sf->kind);
        snprintf(r->kind, sizeof r->kind, "%s", kind ? kind : "?");
        if (bn_fault_kind_at(fa->sf->kind)->draws_links)
            describe_links(ft, fa, r->target, sizeof r->target);
        else
            snprintf(r->target, sizeof r->target, "%s", fa->sf->target);
        r->at_us = fa->sf->at_us;
        r->until_us = fa->sf->until_us;
        r->links = fa->nports;
        r->flaps = fa->flaps;
        r->switches_changed = fa->switches_changed;
        /* -1: never (not struck, static routes, a switch cut off); 0: nothing to reroute */
        r->converged_us = !fa->struck || !fa->planned ? -1
                          : fa->switches_changed == 0 ? 0
                          : us_since(fa->converged, fa->at);
        r->rate_before_gbps = fa->rate_before_gbps;
        r->restored_us = us_since(fa->restored, fa->at);
        r->restore_measured = fa->measurable;
        for (uint32_t k = 0; k < fa->nports; k++)
            r->pkts_lost += f->stats[fa->ports[k]].lost + f->stats[f->ports[fa->ports[k]].peer].lost;
    }
    *n = ft->nfaults;
    return BN_OK;
}

const uint32_t *bn_faults_ports(const struct bn_faults *ft, uint32_t i, uint32_t *n)
{
    *n = ft && i < ft->nfaults ? ft->fault[i].nports : 0;
    return *n ? ft->fault[i].ports : NULL;
}

void bn_faults_free(struct bn_faults *ft)
{
    if (!ft)
        return;
    for (uint32_t i = 0; i < ft->nfaults && ft->fault; i++) {
        free(ft->fault[i].ports);
        free(ft->fault[i].pre);
        free(ft->fault[i].hit);
    }
    if (ft->env.f->loss_log == &ft->log)
        ft->env.f->loss_log = NULL;
    free(ft->log.qp);
    free(ft->snap);
    free(ft->prev);
    bn_fault_routes_free(ft);
    free(ft->fault);
    free(ft->down);
    free(ft->rate0);
    free(ft->installed);
    free(ft->dist);
    free(ft->blocks);
    free(ft->queue);
    free(ft->at);
    free(ft->leaf_block_off);
    free(ft->leaf_block);
    free(ft->stamp);
    free(ft);
}
