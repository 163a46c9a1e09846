/*
 * The flows driver on a partitioned run's processes (sim/ranks.c): every
 * process starts every flow (its queue pair and messages, so that both
 * ends hold them; only the sender's process sends), the sender's process
 * sees it acknowledged, the receiver's sees it in. After the run rank 0
 * takes each flow's sending end from the one and its receiving end from
 * the other.
 */
#include <stdlib.h>

#include "driver/flows.h"
#include "sim/ranks_buf.h"

int bn_flows_ranks_bind(struct bn_flows *fl, const struct bn_ranks *ranks, struct bn_error *err)
{
    struct bn_sim *s = fl->s;
    const char *at = s->sc->source;
    if (s->sc->observe.sample_us > 0)
        return bn_fail(err, BN_EINPUT, "%s: key 'observe.sample_us': time series are not "
                       "sampled across processes (a sample reads every part); set it to 0",
                       at);
    for (uint32_t i = 0; i < fl->flows.n; i++)
        if (fl->flows.flows[i].gate != BN_NO_TRIGGER)
            return bn_fail(err, BN_EINPUT, "%s: flow %u waits for other flows, which "
                           "processes cannot tell each other in time: run it in one", at, i);
    return bn_ranks_bind(s, ranks, err);
}

/* A flow's sending end (its sender's process) and receiving end. */
struct tx_end {
    uint32_t flow;
    uint8_t failed_why;
    bn_time_t tx_done, failed;
    uint32_t msgs_left;
};
struct rx_end {
    uint32_t flow;
    bn_time_t rx_done;
    uint32_t msgs_rx_left;
    struct bn_path_hist paths;
};
struct counts {
    uint32_t done, failed, ntx, nrx;
};

static void pack(const struct bn_flows *fl, struct bn_rbuf *b)
{
    const struct bn_sim *s = fl->s;
    struct counts c = {fl->flows_done, fl->flows_failed, 0, 0};
    for (uint32_t i = 0; i < fl->flows.n; i++) {
        c.ntx += bn_sim_here(s, fl->flows.flows[i].src);
        c.nrx += bn_sim_here(s, fl->flows.flows[i].dst);
    }
    bn_rbuf_put(b, &c, sizeof c);
    for (uint32_t i = 0; i < fl->flows.n; i++) {
        const struct bn_flow_state *fs = &fl->fstate[i];
        if (bn_sim_here(s, fl->flows.flows[i].src)) {
            struct tx_end t = {i, fs->failed_why, fs->tx_done, fs->failed, fs->msgs_left};
            bn_rbuf_put(b, &t, sizeof t);
        }
    }
    for (uint32_t i = 0; i < fl->flows.n; i++) {
        const struct bn_flow_state *fs = &fl->fstate[i];
        if (bn_sim_here(s, fl->flows.flows[i].dst)) {
            struct rx_end r = {i, fs->rx_done, fs->msgs_rx_left, fs->paths};
            bn_rbuf_put(b, &r, sizeof r);
        }
    }
}

static bool unpack(struct bn_flows *fl, struct bn_rcur *c, uint32_t *done, uint32_t *failed)
{
    struct counts n;
    if (!bn_rcur_get(c, &n, sizeof n))
        return false;
    *done += n.done;
    *failed += n.failed;
    for (uint32_t k = 0; k < n.ntx; k++) {
        struct tx_end t;
        if (!bn_rcur_get(c, &t, sizeof t) || t.flow >= fl->flows.n)
            return false;
        struct bn_flow_state *fs = &fl->fstate[t.flow];
        fs->failed_why = t.failed_why;
        fs->tx_done = t.tx_done;
        fs->failed = t.failed;
        fs->msgs_left = t.msgs_left;
    }
    for (uint32_t k = 0; k < n.nrx; k++) {
        struct rx_end r;
        if (!bn_rcur_get(c, &r, sizeof r) || r.flow >= fl->flows.n)
            return false;
        struct bn_flow_state *fs = &fl->fstate[r.flow];
        fs->rx_done = r.rx_done;
        fs->msgs_rx_left = r.msgs_rx_left;
        fs->paths = r.paths;
    }
    return c->len == 0;
}

int bn_flows_ranks_gather(struct bn_flows *fl, struct bn_error *err)
{
    struct bn_sim *s = fl->s;
    int rc = bn_ranks_gather_fabric(s, err);
    if (rc != BN_OK)
        return rc;
    struct bn_rbuf b = {0};
    pack(fl, &b);
    size_t *lens = calloc(s->part->parts, sizeof *lens);
    void *all = NULL;
    rc = lens && !b.oom ? bn_ranks_gather(s, b.p, b.n, &all, lens, err)
                        : bn_fail(err, BN_ENOMEM, "out of memory gathering the flows");
    free(b.p);
    if (rc == BN_OK && bn_sim_reports(s)) {
        uint32_t done = 0, failed = 0;
        size_t off = 0;
        for (uint32_t r = 0; r < s->part->parts && rc == BN_OK; off += lens[r], r++) {
            struct bn_rcur c = {(const char *)all + off, lens[r]};
            if (!unpack(fl, &c, &done, &failed))
                rc = bn_fail(err, BN_EINTERNAL, "part %u's flows do not match the run's", r);
        }
        fl->flows_done = done;
        fl->flows_failed = failed;
        fl->flows_here = fl->flows.n;
    }
    free(all);
    free(lens);
    return rc;
}
