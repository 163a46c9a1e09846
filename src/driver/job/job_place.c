/*
 * Placement: which host runs each rank of each job. Jobs take hosts in
 * scenario order from those the earlier ones left free, a server
 * (topology.gpus_per_server hosts) at a time as a scheduler allocates
 * nodes: packed (in host order), spread (a server from each leaf switch in
 * turn), random (free servers in an order drawn from the seed) or explicit
 * (the hosts `ranks` lists, rank by rank).
 */
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "core/where.h"
#include "driver/job/job.h"

struct pool {
    const struct bn_topo *t;
    uint8_t *used;       /* per host */
    uint32_t gps;        /* hosts per server */
    uint32_t nservers;
};

static uint32_t leaf_of(const struct bn_topo *t, uint32_t h)
{
    return t->ports[t->ports[t->nodes[h].first_port].peer].node;
}

/* Take server v's free hosts, up to `want` more, into host[*n ..]. */
static void take_server(struct pool *pl, uint32_t v, uint32_t *host, uint32_t *n, uint32_t want)
{
    for (uint32_t h = v * pl->gps; h < (v + 1) * pl->gps && h < pl->t->nhosts && *n < want; h++)
        if (!pl->used[h]) {
            pl->used[h] = 1;
            host[(*n)++] = h;
        }
}

static bool server_free(const struct pool *pl, uint32_t v)
{
    for (uint32_t h = v * pl->gps; h < (v + 1) * pl->gps && h < pl->t->nhosts; h++)
        if (pl->used[h])
            return false;
    return true;
}

/* "0-63,128-191": hosts in rank order; -1 with why filled if malformed. */
static int parse_ranks(struct pool *pl, const char *text, uint32_t *host, uint32_t want,
                       uint32_t *n, char *why, size_t len)
{
    const char *p = text;
    *n = 0;
    while (*p) {
        char *end;
        unsigned long lo = strtoul(p, &end, 10), hi = lo;
        if (end == p || *p == '-' || *p == '+')
            return snprintf(why, len, "expected host numbers like \"0-63,128-191\" at \"%.20s\"",
                            p), -1;
        p = end;
        if (*p == '-') {
            const char *q = p + 1;
            hi = strtoul(q, &end, 10);
            if (end == q || *q == '-' || *q == '+' || hi < lo)
                return snprintf(why, len, "a bad range at \"%.20s\"", q), -1;
            p = end;
        }
        for (unsigned long h = lo; h <= hi; h++) {
            if (h >= pl->t->nhosts)
                return snprintf(why, len, "host %lu is past the fabric's %u hosts", h,
                                pl->t->nhosts), -1;
            if (pl->used[h])
                return snprintf(why, len, "host %lu is given twice or to an earlier job", h), -1;
            if (*n == want)
                return snprintf(why, len, "more than the job's %u GPUs", want), -1;
            pl->used[h] = 1;
            host[(*n)++] = (uint32_t)h;
        }
        if (*p == ',')
            p++;
        else if (*p)
            return snprintf(why, len, "unexpected '%c'", *p), -1;
    }
    if (*n != want)
        return snprintf(why, len, "%u hosts for a job of %u GPUs", *n, want), -1;
    return 0;
}

static int place_one(struct pool *pl, const struct bn_scenario *sc, struct bn_job_rt *jr,
                     uint32_t want, struct bn_error *err)
{
    const struct bn_topo *t = pl->t;
    uint32_t n = 0, i = jr->index;
    char why[200];
    switch (jr->j->placement) {
    case BN_SC_PLACE_EXPLICIT:
        if (parse_ranks(pl, jr->j->ranks, jr->host, want, &n, why, sizeof why) != 0)
            return bn_fail(err, BN_EINPUT, "%s: key 'jobs[%u].ranks': %s",
                           BN_WHERE_ITEM(sc, "jobs[].ranks", i), i, why);
        return BN_OK;
    case BN_SC_PLACE_PACKED:
        for (uint32_t v = 0; v < pl->nservers && n < want; v++)
            take_server(pl, v, jr->host, &n, want);
        break;
    case BN_SC_PLACE_SPREAD: { /* one server per leaf, leaves in turn */
        bool took = true;
        while (n < want && took) {
            took = false;
            uint32_t last_leaf = UINT32_MAX;
            for (uint32_t v = 0; v < pl->nservers && n < want; v++) {
                uint32_t leaf = leaf_of(t, v * pl->gps);
                if (leaf == last_leaf || !server_free(pl, v))
                    continue;
                take_server(pl, v, jr->host, &n, want);
                last_leaf = leaf; /* hosts of a leaf are consecutive: skip to the next leaf */
                took = true;
            }
        }
        for (uint32_t v = 0; v < pl->nservers && n < want; v++) /* partly used servers */
            take_server(pl, v, jr->host, &n, want);
        break;
    }
    case BN_SC_PLACE_RANDOM: {
        uint32_t *order = malloc(((size_t)pl->nservers + 1) * sizeof *order);
        if (!order)
            return bn_fail(err, BN_ENOMEM, "out of memory placing a job");
        struct bn_rng rng;
        bn_rng_init(&rng, sc->seed, 0x6a6f6200ULL + i); /* its own stream per job */
        for (uint32_t v = 0; v < pl->nservers; v++)
            order[v] = v;
        for (uint32_t v = pl->nservers; v > 1; v--) { /* Fisher-Yates */
            uint32_t k = (uint32_t)bn_rng_below(&rng, v);
            uint32_t tmp = order[v - 1];
            order[v - 1] = order[k];
            order[k] = tmp;
        }
        for (uint32_t v = 0; v < pl->nservers && n < want; v++)
            if (server_free(pl, order[v]))
                take_server(pl, order[v], jr->host, &n, want);
        for (uint32_t v = 0; v < pl->nservers && n < want; v++)
            take_server(pl, order[v], jr->host, &n, want);
        free(order);
        break;
    }
    }
    if (n < want)
        return bn_fail(err, BN_EINPUT, "%s: key 'jobs[%u].gpus': %u GPUs, but only %u hosts are "
                       "left free of the fabric's %u", BN_WHERE_ITEM(sc, "jobs[].gpus", i), i,
                       want, n, t->nhosts);
    return BN_OK;
}

int bn_jobs_place(const struct bn_sim *s, struct bn_job_rt *jobs, uint32_t njobs,
                  struct bn_error *err)
{
    const struct bn_topo *t = &s->topo;
    uint32_t gps = s->sc->topology.gpus_per_server ? s->sc->topology.gpus_per_server : 1;
    struct pool pl = {.t = t, .gps = gps, .nservers = (t->nhosts + gps - 1) / gps};
    pl.used = calloc((size_t)t->nhosts + 1, 1);
    if (!pl.used)
        return bn_fail(err, BN_ENOMEM, "out of memory placing jobs");
    int rc = BN_OK;
    for (uint32_t k = 0; k < njobs && rc == BN_OK; k++) {
        uint32_t want = jobs[k].g.nranks;
        jobs[k].host = malloc(((size_t)want + 1) * sizeof *jobs[k].host);
        rc = jobs[k].host ? place_one(&pl, s->sc, &jobs[k], want, err)
                          : bn_fail(err, BN_ENOMEM, "out of memory placing jobs");
    }
    free(pl.used);
    return rc;
}
