/*
 * Hybrid fidelity (hybrid.h): the region, which queue pairs packets carry,
 * and the links both levels share. Packets in one part of a fabric with a
 * cheaper model of the rest is MimicNet's split (Zhang et al., SIGCOMM
 * 2021: one cluster at packet level, the others learned); Parsimon (Zhao
 * et al., NSDI 2023) gives each link's packet model the rest as
 * background load. Here the rest is the flow level, and it sees the packet
 * part too, as competing flows.
 */
#include <stdlib.h>
#include <string.h>

#include "core/fail_key.h"
#include "core/num.h"
#include "flow/hybrid.h"

struct bn_hybrid {
    uint8_t *node_in;       /* per node: in the region */
    uint8_t *shared;        /* per port: crossed by a packet queue pair outside the region */
    uint64_t *rate0;        /* per port: its own rate (bits/s) */
    uint32_t *backlog;      /* per port: the flows' queue for ECN (f->ecn_backlog) */
    uint32_t *sports, nsports;  /* the shared ports */
    uint32_t *live, nlive, live_cap; /* packet queue pairs competing in the solve */
    uint32_t job;           /* "job:": its index, the region set once it is placed */
    uint32_t fault, hops;   /* "fault:I:N": faults[I], N hops around its target */
    bool ready;             /* the region is known */
    bool queues;            /* sim.hybrid_queues: the flows' backlog on shared switch ports */
    bn_time_t every;        /* sim.hybrid_update_us */
    bool pending;           /* a BN_EV_FLOW_HYBRID is scheduled */
    struct bn_hybrid_stats st;
};

/* "0-15,32": host ranges into node_in; a message in why if malformed. */
static int parse_hosts(const struct bn_topo *t, const char *s, uint8_t *in, char *why, size_t len)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *dash = strchr(tok, '-');
        if (dash)
            *dash = '\0';
        uint64_t lo, hi;
        if (!bn_num_u64(tok, UINT32_MAX, &lo) || (dash && !bn_num_u64(dash + 1, UINT32_MAX, &hi)))
            return snprintf(why, len, "expected host numbers like \"hosts:0-15,32\""), -1;
        if (!dash)
            hi = lo;
        if (hi < lo || hi >= t->nhosts)
            return snprintf(why, len, "hosts %llu-%llu: the fabric has hosts 0-%u",
                            (unsigned long long)lo, (unsigned long long)hi, t->nhosts - 1), -1;
        for (uint64_t h = lo; h <= hi; h++)
            in[h] = 1; /* hosts are nodes 0 .. nhosts - 1 */
    }
    return 0;
}

/* "tor0,agg1": switches by name. */
static int parse_switches(const struct bn_topo *t, const char *s, uint8_t *in, char *why,
                          size_t len)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
        uint32_t n = bn_topo_find_node(t, tok);
        if (n == UINT32_MAX || t->nodes[n].kind != BN_NODE_SWITCH)
            return snprintf(why, len, "no switch named '%.40s' (names as bnet topo --dot "
                            "prints them: tor0, agg1 ...)", tok), -1;
        in[n] = 1;
    }
    return 0;
}

/* "trainer" or "1": a job of jobs[] by name (default job<index>) or index. */
static int parse_job(const struct bn_scenario *sc, const char *s, uint32_t *job, char *why,
                     size_t len)
{
    if (sc->njobs == 0)
        return snprintf(why, len, "the scenario has no jobs (\"job:\" is for bnet job)"), -1;
    uint64_t k;
    if (bn_num_u64(s, UINT32_MAX, &k)) {
        if (k >= sc->njobs)
            return snprintf(why, len, "job %llu: the scenario has jobs 0-%u",
                            (unsigned long long)k, sc->njobs - 1), -1;
        *job = (uint32_t)k;
        return 0;
    }
    for (uint32_t i = 0; i < sc->njobs; i++) {
        char dflt[32];
        snprintf(dflt, sizeof dflt, "job%u", i);
        const char *name = sc->jobs[i].name[0] ? sc->jobs[i].name : dflt;
        if (strcmp(name, s) == 0) {
            *job = i;
            return 0;
        }
    }
    return snprintf(why, len, "no job named '%.40s' among the scenario's %u", s, sc->njobs), -1;
}

/* "2:1": faults[2] and the nodes within 1 hop of its links' ends. */
static int parse_fault(const struct bn_scenario *sc, const char *s, uint32_t *fault,
                       uint32_t *hops, char *why, size_t len)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    char *colon = strchr(buf, ':');
    uint64_t i, n;
    if (colon)
        *colon = '\0';
    if (!colon || !bn_num_u64(buf, UINT32_MAX, &i) || !bn_num_u64(colon + 1, UINT32_MAX, &n))
        return snprintf(why, len, "expected \"fault:I:N\" (faults[I], N hops around it)"), -1;
    /* a baseline run's copy keeps faults[] but has nfaults 0: the same region */
    if (i >= BN_SC_FAULTS_MAX || (i >= sc->nfaults && !sc->faults[i].target[0]))
        return sc->nfaults ? snprintf(why, len, "fault %llu: the scenario has faults 0-%u",
                                      (unsigned long long)i, sc->nfaults - 1)
                           : snprintf(why, len, "the scenario has no faults"), -1;
    if (n > BN_HYBRID_HOPS_MAX)
        return snprintf(why, len, "%llu hops: 0 to %u", (unsigned long long)n,
                        BN_HYBRID_HOPS_MAX), -1;
    *fault = (uint32_t)i;
    *hops = (uint32_t)n;
    return 0;
}

/* Nodes within N hops of faults[I]'s target (its names as bnet topo --dot
 * prints them; a port "tor0/5" stands for both ends of its link), breadth
 * first over every link: the links that touch them are the region's. */
static int fault_region(const struct bn_topo *t, const char *target, uint32_t hops, uint8_t *in,
                        char *why, size_t len)
{
    uint32_t *fr = malloc(((size_t)t->nnodes + 1) * sizeof *fr), nfr = 0;
    if (!fr)
        return snprintf(why, len, "out of memory"), -1;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", target);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *slash = strchr(tok, '/');
        if (slash)
            *slash = '\0';
        uint32_t n = bn_topo_find_node(t, tok), ends[2] = {n, UINT32_MAX};
        uint64_t k;
        if (n != UINT32_MAX && slash && bn_num_u64(slash + 1, UINT32_MAX, &k) &&
            k < t->nodes[n].nports)
            ends[1] = t->ports[t->ports[t->nodes[n].first_port + k].peer].node;
        for (uint32_t j = 0; j < 2; j++)
            if (ends[j] != UINT32_MAX && !in[ends[j]]) {
                in[ends[j]] = 1;
                fr[nfr++] = ends[j];
            }
    }
    for (uint32_t h = 0, lo = 0; h < hops; h++) { /* fr[lo .. hi) is hop h's ring */
        uint32_t hi = nfr;
        for (uint32_t k = lo; k < hi; k++) {
            const struct bn_topo_node *nd = &t->nodes[fr[k]];
            for (uint32_t i = 0; i < nd->nports; i++) {
                uint32_t peer = t->ports[t->ports[nd->first_port + i].peer].node;
                if (!in[peer]) {
                    in[peer] = 1;
                    fr[nfr++] = peer;
                }
            }
        }
        lo = hi;
    }
    free(fr);
    return 0;
}

/* The hosts' leaves, then every switch all of whose links down lead into
 * the region (a pod's aggregation switches over its leaves). */
static void close_region(const struct bn_topo *t, uint8_t *in)
{
    for (uint32_t h = 0; h < t->nhosts; h++)
        if (in[h])
            for (uint32_t i = 0; i < t->nodes[h].nports; i++) {
                uint32_t peer = t->ports[t->ports[t->nodes[h].first_port + i].peer].node;
                if (t->nodes[peer].kind == BN_NODE_SWITCH)
                    in[peer] = 1;
            }
    for (uint8_t tier = 2; tier <= t->ntiers; tier++)
        for (uint32_t n = 0; n < t->nnodes; n++) {
            const struct bn_topo_node *nd = &t->nodes[n];
            if (nd->kind != BN_NODE_SWITCH || nd->tier != tier || in[n])
                continue;
            uint32_t down = 0, inside = 0;
            for (uint32_t i = 0; i < nd->nports; i++) {
                uint32_t peer = t->ports[t->ports[nd->first_port + i].peer].node;
                if (t->nodes[peer].kind == BN_NODE_SWITCH && t->nodes[peer].tier < tier) {
                    down++;
                    inside += in[peer];
                }
            }
            if (down && inside == down)
                in[n] = 1;
        }
}

/* The region known: closed over the hosts' leaves (close) and counted. */
static void ready(struct bn_hybrid *hy, const struct bn_topo *t, bool close)
{
    if (close)
        close_region(t, hy->node_in);
    for (uint32_t n = 0; n < t->nnodes; n++)
        if (hy->node_in[n]) {
            hy->st.region_hosts += t->nodes[n].kind == BN_NODE_HOST;
            hy->st.region_switches += t->nodes[n].kind == BN_NODE_SWITCH;
        }
    hy->ready = true;
}

int bn_hybrid_init(struct bn_flow_engine *e, const struct bn_topo *t, const struct bn_scenario *sc,
                   struct bn_error *err)
{
    struct bn_hybrid *hy = calloc(1, sizeof *hy);
    if (!hy)
        return bn_fail(err, BN_ENOMEM, "hybrid: out of memory");
    e->hy = hy;
    hy->node_in = calloc((size_t)t->nnodes + 1, 1);
    hy->shared = calloc((size_t)t->nports + 1, 1);
    hy->rate0 = calloc((size_t)t->nports + 1, sizeof *hy->rate0);
    hy->sports = malloc(((size_t)t->nports + 1) * sizeof *hy->sports);
    hy->backlog = calloc((size_t)t->nports + 1, sizeof *hy->backlog);
    if (!hy->node_in || !hy->shared || !hy->rate0 || !hy->sports || !hy->backlog)
        return bn_fail(err, BN_ENOMEM, "hybrid: out of memory for %u nodes", t->nnodes);
    hy->job = hy->fault = UINT32_MAX;
    const char *spec = sc->sim.region;
    char why[160] = "";
    int bad = 0;
    if (strncmp(spec, "hosts:", 6) == 0)
        bad = parse_hosts(t, spec + 6, hy->node_in, why, sizeof why);
    else if (strncmp(spec, "switches:", 9) == 0)
        bad = parse_switches(t, spec + 9, hy->node_in, why, sizeof why);
    else if (strncmp(spec, "job:", 4) == 0)
        bad = parse_job(sc, spec + 4, &hy->job, why, sizeof why);
    else if (strncmp(spec, "fault:", 6) == 0)
        bad = parse_fault(sc, spec + 6, &hy->fault, &hy->hops, why, sizeof why) ||
              fault_region(t, sc->faults[hy->fault].target, hy->hops, hy->node_in, why,
                           sizeof why);
    else
        bad = snprintf(why, sizeof why, "expected \"hosts:LIST\", \"switches:NAMES\", "
                       "\"job:NAME\" or \"fault:I:N\"");
    bool any = hy->job != UINT32_MAX;
    for (uint32_t n = 0; n < t->nnodes && !bad && !any; n++)
        any = hy->node_in[n];
    if (!bad && !any)
        bad = snprintf(why, sizeof why, hy->fault == UINT32_MAX ? "no host or switch is named"
                                        : "its fault's target names no node of the fabric");
    if (bad)
        return bn_fail_key(err, BN_EINPUT, "sim.region", "'%.60s': %s", spec, why);
    hy->every = bn_time_from_ns(sc->sim.hybrid_update_us * 1e3);
    e->n->cc = e->cc; /* the packets' own congestion control */
    hy->queues = sc->sim.hybrid_queues;
    if (hy->queues)
        e->f->ecn_backlog = hy->backlog;
    if (hy->job == UINT32_MAX)
        ready(hy, t, hy->fault == UINT32_MAX); /* N hops is the region as it is */
    return BN_OK;
}

uint32_t bn_hybrid_job(const struct bn_flow_engine *e)
{
    return e && e->hy ? e->hy->job : UINT32_MAX;
}

bool bn_hybrid_ready(const struct bn_flow_engine *e)
{
    return !e || !e->hy || e->hy->ready;
}

void bn_hybrid_place_job(struct bn_flow_engine *e, const struct bn_topo *t, const uint32_t *host,
                         uint32_t n)
{
    struct bn_hybrid *hy = e->hy;
    for (uint32_t i = 0; i < n; i++)
        hy->node_in[host[i]] = 1;
    ready(hy, t, true);
}

void bn_hybrid_free(struct bn_flow_engine *e)
{
    struct bn_hybrid *hy = e->hy;
    if (!hy)
        return;
    free(hy->node_in);
    free(hy->shared);
    free(hy->rate0);
    if (e->f && e->f->ecn_backlog == hy->backlog)
        e->f->ecn_backlog = NULL;
    free(hy->backlog);
    free(hy->sports);
    free(hy->live);
    free(hy);
    e->hy = NULL;
}

static bool touches(const struct bn_hybrid *hy, const struct bn_fabric *f, uint32_t p)
{
    return hy->node_in[f->port_node[p]] || hy->node_in[f->port_node[f->ports[p].peer]];
}

bool bn_hybrid_touches(const struct bn_flow_engine *e, uint32_t p)
{
    return touches(e->hy, e->f, p);
}

bool bn_hybrid_classify(struct bn_flow_engine *e, uint32_t qpid)
{
    struct bn_hybrid *hy = e->hy;
    struct bn_flow_walk *wk = &e->walk;
    if (!hy->ready && !e->rc) /* a job's region outside bnet job */
        e->rc = bn_fail_key(e->err, BN_EINPUT, "sim.region", "a \"job:\" region is placed "
                            "by bnet job; this command runs no jobs");
    bool in = false;
    for (uint32_t i = 0; i < wk->nuse && !in; i++)
        in = touches(hy, e->f, wk->use_p[i]);
    e->q[qpid].packet = in;
    if (!in) {
        hy->st.flow_qps++;
        return false;
    }
    hy->st.packet_qps++;
    e->n->qp[qpid].by_packet = 1;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < wk->nuse; i++) {
        uint32_t p = wk->use_p[i];
        if (touches(hy, e->f, p))
            continue; /* inside, the packets alone decide */
        wk->use_p[kept] = p;
        wk->use_w[kept] = wk->use_w[i];
        wk->use_passive[kept++] = wk->use_passive[i];
        if (!hy->shared[p]) {
            hy->shared[p] = 1;
            hy->rate0[p] = e->f->ports[p].rate_bps;
            hy->sports[hy->nsports++] = p;
        }
    }
    wk->nuse = kept;
    return true;
}

static void schedule(struct bn_flow_engine *e)
{
    struct bn_hybrid *hy = e->hy;
    if (!hy->pending && hy->nlive) {
        hy->pending = true;
        bn_fabric_schedule(e->f, e->f->now + hy->every, BN_EV_FLOW_HYBRID, 0, 0);
    }
}

bool bn_hybrid_carry(struct bn_flow_engine *e, uint32_t qpid)
{
    struct bn_hybrid *hy = e->hy;
    struct bn_flow_qp *fq = &e->q[qpid];
    if (!fq->walked && bn_flow_walk(e, qpid, e->err) != BN_OK) {
        e->rc = e->rc ? e->rc : BN_EINPUT;
        return true;
    }
    if (!fq->packet)
        return false;
    /* it competes in the solve while it has data, on the links it shares */
    if (!e->mm.active[qpid] && e->mm.use_len[qpid]) {
        if (hy->nlive == hy->live_cap) {
            uint32_t cap = hy->live_cap ? 2 * hy->live_cap : 256;
            uint32_t *l = realloc(hy->live, (size_t)cap * sizeof *l);
            if (!l) {
                e->rc = e->rc ? e->rc : bn_fail(e->err, BN_ENOMEM, "hybrid: out of memory");
                return true;
            }
            hy->live = l;
            hy->live_cap = cap;
        }
        int rc = bn_mm_activate(&e->mm, qpid, e->err);
        if (rc != BN_OK) {
            e->rc = e->rc ? e->rc : rc;
            return true;
        }
        hy->live[hy->nlive++] = qpid;
        bn_flow_solve_soon(e);
        schedule(e);
    }
    bn_nic_cc_sync(e->n, qpid);
    bn_nic_activate(e->n, qpid);
    return true;
}

/* On shared port p (bytes per ps): the flows' load, and the packet queue
 * pairs' as the solve has them (ACKs included), from its class's active
 * uses. */
static void loads(const struct bn_flow_engine *e, uint32_t p, double *flows, double *packets)
{
    *flows = *packets = 0;
    uint32_t c = e->lc.cls[p];
    if (c == UINT32_MAX)
        return;
    const struct bn_maxmin *m = &e->mm;
    for (uint32_t i = 0; i < m->on[c].n; i++) {
        const struct bn_mm_use *u = &m->use[m->on[c].use[i]];
        double l = (double)u->weight * m->rate[u->flow];
        if (e->q[u->flow].packet)
            *packets += l;
        else
            *flows += l;
    }
}

/* sim.hybrid_queues: the queue the flows would build at shared switch port
 * p, as an M/D/1 queue of full frames at their load in the solve (the
 * packets' own queue is simulated): Lq = rho^2 / (2 (1 - rho)) frames
 * ahead of an arrival (Kleinrock, Queueing Systems I, 1975), rho at most
 * BN_HYBRID_RHO_MAX. The packets count it for ECN.
 * Not as delay: a longer link would outrun PFC's headroom. Host ports
 * queue per queue pair and are left alone. */
static void backlog(struct bn_flow_engine *e, uint32_t p, double flow_bps)
{
    struct bn_hybrid *hy = e->hy;
    struct bn_port *port = &e->f->ports[p];
    if (port->flags & BN_PORT_AT_HOST)
        return;
    double rho = flow_bps / (double)hy->rate0[p];
    rho = rho < BN_HYBRID_RHO_MAX ? rho : BN_HYBRID_RHO_MAX;
    double frames = rho * rho / (2 * (1 - rho));
    double bytes = frames * e->full_wire;
    hy->backlog[p] = (uint32_t)(bytes + 0.5);
}

int bn_hybrid_update(struct bn_flow_engine *e, struct bn_error *err)
{
    struct bn_hybrid *hy = e->hy;
    hy->pending = false;
    /* packet queue pairs with nothing left to send leave the solve */
    uint32_t kept = 0;
    bool left = false;
    for (uint32_t i = 0; i < hy->nlive; i++) {
        uint32_t qpid = hy->live[i];
        const struct bn_qp *qp = &e->n->qp[qpid];
        bool done = (qp->snd_una >= qp->snd_end && qp->gate_msg == BN_NONE) || qp->failed;
        if (!done) {
            hy->live[kept++] = qpid;
            continue;
        }
        int rc = bn_mm_deactivate(&e->mm, qpid, err);
        if (rc != BN_OK)
            return rc;
        left = true;
    }
    hy->nlive = kept;
    if (left)
        bn_flow_solve_soon(e);
    /* packets see the flows on a shared link as capacity taken */
    for (uint32_t i = 0; i < hy->nsports; i++) {
        uint32_t p = hy->sports[i];
        double fl, pk, bps = 8.0 * (double)BN_PS_PER_S;
        loads(e, p, &fl, &pk);
        double own = (double)hy->rate0[p];
        /* the packets keep at least their own share: the flows' may pass the
         * capacity by the ACK loads the solve carries over it */
        double rate = own - fl * bps;
        if (rate < pk * bps)
            rate = pk * bps;
        if (rate < own / 100)
            rate = own / 100; /* and never stop outright */
        if (rate > own)
            rate = own;
        e->f->ports[p].rate_bps = (uint64_t)(rate + 0.5);
        if (hy->queues)
            backlog(e, p, fl * bps);
    }
    hy->st.updates++;
    schedule(e);
    return BN_OK;
}

void bn_hybrid_get_stats(const struct bn_flow_engine *e, struct bn_hybrid_stats *out)
{
    memset(out, 0, sizeof *out);
    if (e && e->hy) {
        *out = e->hy->st;
        out->shared_ports = e->hy->nsports;
    }
}
