/*
 * The engine: the assembled model (topology, routes, fabric, switches,
 * NICs) and a loop that pops events and dispatches each to the layer that
 * owns its object, until the driver's work is done (or sim.max_time_us).
 * It knows no workload: drivers (src/driver: flows, collectives) inject
 * work through struct bn_driver_ops and hear completions back. Another
 * engine (flow-level, distributed) can drive the same model and drivers.
 *
 *   build.c      the assembly: a simulation from a scenario, each layer
 *                setting itself up from its keys
 *   build_agg.c  SHARP units' ports and fixed routes
 *   loop.c       the event loop, dispatch, prefetch hints, packet ledger
 *   plan.c       bnet topo's figures (no simulation)
 *   partition.c  sim.partitions: the cut, its lookahead, the windows' messages
 *   ranks.c      the parts on separate processes: exchange, the end, the gather
 *                (ranks_gather.c)
 */
#ifndef BN_SIM_SIM_H
#define BN_SIM_SIM_H

#include "bnet/bnet.h"
#include "fault/fault.h"
#include "flow/flow.h"
#include "link/fabric.h"
#include "nic/nic.h"
#include "switch/switch.h"
#include "topo/routing.h"
#include "topo/topo.h"

struct bn_sim;

/*
 * What injects work: flows, a collective, later a training job or a fault
 * schedule. `self` is the driver's own state. start schedules its first
 * events; event handles its own (BN_EV_APP: obj and arg are its); complete
 * and arrival are the NICs' message completions and data arrivals (arrival
 * may be NULL); done says when the run may end; progress (may be NULL)
 * counts units for the progress line; prefetch (may be NULL) is a hint:
 * start loading what arrival will touch for `pk`, changing nothing.
 */
/* A partitioned run on ranks (ranks.c): what the driver tells the other
 * parts at each exchange and makes of theirs. Only such a run reads it. */
struct bn_driver_ranks_ops {
    /* Two counts this part tells every other, and what the driver makes
     * of all n parts' there: every part alike may schedule its own events,
     * from a lookahead on; it returns the earliest (BN_TIME_NEVER: none).
     * Both may be NULL. */
    void (*state)(const void *self, uint64_t out[2]);
    bn_time_t (*sync)(void *self, const uint64_t (*all)[2], uint32_t n);
    /* The notes this part sends every other (both NULL or both set): their
     * length (*out: them), and the other parts' notes, in part order, to
     * apply (which makes the part's own sent): returns the earliest event
     * it scheduled (BN_TIME_NEVER: none). */
    size_t (*notes)(void *self, const void **out);
    bn_time_t (*apply)(void *self, const void *notes, size_t len);
    /* Every part runs every one of the driver's own events (BN_EV_APP),
     * which one process runs once; else each runs in one part, or in two
     * as a mirror (bn_sim_mirrored). */
    bool app_everywhere;
};

struct bn_driver_ops {
    const char *name;
    int (*start)(struct bn_sim *s, void *self, struct bn_error *err);
    int (*event)(struct bn_sim *s, void *self, const struct bn_event *ev, struct bn_error *err);
    void (*complete)(void *self, uint32_t cookie, enum bn_completion_side side, bn_time_t when);
    void (*arrival)(void *self, uint32_t qpid, const struct bn_packet *pk);
    bool (*done)(const void *self);
    void (*progress)(const void *self, uint32_t *done, uint32_t *total);
    void (*prefetch)(const void *self, const struct bn_packet *pk);
    /* A queue pair went to the error state (retries exhausted; may be NULL). */
    void (*qp_error)(void *self, uint32_t qpid, bn_time_t when);
    /* A count that grows whenever the work moves on (in-order data taken,
     * a flow done), for the livelock watchdog (may be NULL: no watchdog). */
    uint64_t (*work_mark)(const void *self);
    const struct bn_driver_ranks_ops *ranks; /* on ranks (NULL: nothing to tell) */
};

struct bn_driver {
    const struct bn_driver_ops *ops;
    void *self;
};

struct bn_sim {
    const struct bn_scenario *sc;
    struct bn_topo topo;
    struct bn_routes routes;
    struct bn_fabric fab;
    struct bn_switches sw;
    struct bn_nics nics;
    struct bn_host_route *host_route;
    uint32_t *host_port;
    uint32_t *scaleup_port;     /* host -> NVSwitch port facing it (NVLink domains only) */
    uint32_t *host_nvlink;      /* host -> its own NVLink port (BN_NONE: none) */
    uint32_t *agg_port;         /* SHARP unit -> its port (build_agg.c) */
    uint32_t *agg_next;         /* [unit * nswitches + switch] -> next hop port */
    struct bn_faults *faults;   /* the scenario's fault schedule (NULL: none) */
    struct bn_flow_engine *flow; /* sim.fidelity: flow (NULL: packets) */
    struct bn_partition *part;  /* sim.partitions (NULL: one loop) */
    struct bn_driver drv;
    uint64_t events;
    uint64_t check_at;          /* the event count of the next wall-clock check (loop.c) */
    uint32_t check_every;       /* events between them (0: none yet) */
    double check_wall, report_wall; /* wall time of the last check, of the last report */
    bool stopped_early;
    bool interrupted;           /* bn_interrupt stopped it (stopped_early too) */
    bool stalled;               /* the livelock watchdog stopped it (stopped_early too) */
    uint64_t stall_mark, stall_delivered; /* work mark and frames delivered when... */
    bn_time_t stall_since;                /* ...the work last moved on */
};

/* build.c: the model from the scenario; bn_sim_free releases it. */
int bn_sim_build(struct bn_sim *s, const struct bn_scenario *sc, struct bn_error *err);
/* The same for one rank of a partitioned run (ranks NULL: the whole): the
 * cut comes first, and the fabric holds only the rank's ports and their
 * peers (bn_fabric.absent; bn_ranks_bind still binds it). */
int bn_sim_build_ranks(struct bn_sim *s, const struct bn_scenario *sc, const struct bn_ranks *ranks,
                       struct bn_error *err);
void bn_sim_free(struct bn_sim *s);
/* Hybrid with a "job:" region (bn_hybrid_job < njobs): the job's hosts,
 * once placed, and the faults checked against them. */
int bn_sim_hybrid_place_job(struct bn_sim *s, const uint32_t *host, uint32_t n,
                            struct bn_error *err);
/* build_agg.c: SHARP aggregation units' ports and routes. */
int bn_sim_build_agg(struct bn_sim *s, struct bn_nic_params *np, struct bn_error *err);
/* Describe the built topology (counts, diameter, bisection). */
void bn_sim_topo_info(const struct bn_sim *s, struct bn_topo_info *out);

/* loop.c: attach a driver (its completions and arrivals) and start it. */
int bn_sim_attach(struct bn_sim *s, const struct bn_driver_ops *ops, void *self,
                  struct bn_error *err);
/* Run the events before `end` (windows; else all of them), or until the
 * run is over (*over: the work done and no frame left, none held at a cut
 * either; sim.max_time_us passed; interrupted; stalled). On ranks
 * (ranks.c) it may pause instead, or run only up to the part's limit. */
int bn_sim_run_events(struct bn_sim *s, const struct bn_run_opts *opts, double t0, bool windows,
                      bn_time_t end, bn_time_t stop, bool prefetch, bool *over,
                      struct bn_error *err);
/* Advance time until the driver is done (or sim.max_time_us). */
int bn_sim_loop(struct bn_sim *s, const struct bn_run_opts *opts, double t0, struct bn_error *err);
/* Packet conservation, no loss in a lossless fabric, nothing left in
 * flight unless the run was cut short. */
int bn_sim_check_ledger(const struct bn_sim *s, struct bn_error *err);
double bn_wall_now(void);

/* partition.c: the fabric cut into sim.partitions parts (docs/parallel.md). */
struct bn_partition {
    uint32_t parts;
    uint32_t *owner;            /* per node: its part */
    uint32_t cut_links;
    bn_time_t lookahead;        /* the least propagation over a cut link */
    uint64_t *events;           /* per part: events of its ports and queue pairs */
    uint64_t unattributed;
    uint64_t windows, msgs, msgs_max;
    struct bn_cut cut;
    /* On separate processes (ranks.c; NULL: all parts here): this one
     * runs part ranks->rank and only its events. */
    const struct bn_ranks *ranks;
    uint8_t *elsewhere;         /* per node: another process runs it */
    uint8_t *absent;            /* per port: not held here (bn_fabric.absent; NULL: all are) */
    uint64_t replicated;        /* the driver's own events, which every process runs */
    uint64_t mirrors;           /* events run here only to mirror another part's */
    bool pausing, paused;       /* stop at the first idle point in the window; stopped */
    bool idle;                  /* after the last event: no frame here, its work done */
    bool past_stop;             /* an event beyond sim.max_time_us was popped */
    bool limited;               /* run only the events up to `limit` (the end) */
    struct bn_event mark;       /* the event that last left this part idle */
    bool marked;
    struct bn_event limit;
    uint64_t in_flight_elsewhere; /* rank 0, after the run: frames in the others' parts */
    void *ranks_bufs;           /* the exchange's buffers (ranks.c) */
    struct bn_fc_port_stats *fc_final; /* rank 0: every port's flow-control counters */
};
/* Cut the built fabric (build.c calls it when sim.partitions is set). */
int bn_partition_init(struct bn_sim *s, struct bn_error *err);
void bn_partition_free(struct bn_sim *s);
/* The window from `next` (the earliest event): its end. */
bn_time_t bn_partition_window(struct bn_sim *s, bn_time_t next);
/* Deliver what crossed a cut in the window just run; -1 if out of memory. */
int bn_partition_deliver(struct bn_sim *s);
/* Deliver messages that crossed the cut (another process's too), each
 * port's in the order its peer sent them. */
int bn_partition_deliver_msgs(struct bn_sim *s, struct bn_cut_msg *msg, uint32_t n);
/* Count an event for its part. */
void bn_partition_count(struct bn_sim *s, const struct bn_event *ev);
void bn_partition_report(const struct bn_sim *s, struct bn_partition_stats *out);

/* ranks.c: the parts on separate processes (docs/parallel.md). */
/* This process runs part ranks->rank of the cut: refuses what the parts
 * could not run apart. Before the driver starts. */
int bn_ranks_bind(struct bn_sim *s, const struct bn_ranks *ranks, struct bn_error *err);
/* While the model is built (bn_sim_build_ranks), after the cut: which
 * nodes run elsewhere and which ports this process holds: its nodes'
 * ports, their peers (a frame's way out reads the peer's line), every
 * endpoint's (NICs read their own). Nothing if the ranks do not match the
 * parts (bn_ranks_bind refuses them). */
int bn_ranks_place(struct bn_sim *s, const struct bn_ranks *ranks, struct bn_error *err);
/* Every process's rc where all of them pass (before the windows, before
 * the gather): one that failed (out of memory, say) while the others go
 * on would leave them waiting, so it ends them all, saying why. */
int bn_ranks_agree(const struct bn_ranks *r, int rc, struct bn_error *err);
/* After a run that went well so far (rc): the ledger on the process that
 * reports (bn_sim_check_ledger), then, on ranks (r not NULL), every rank
 * agreeing, so a failure only rank 0 sees ends the others with its message. */
int bn_ranks_check_ledger(const struct bn_sim *s, const struct bn_ranks *r, int rc,
                          struct bn_error *err);
/* The windows across the processes, until the run is over. */
void bn_ranks_free(struct bn_partition *pt);
int bn_ranks_loop(struct bn_sim *s, const struct bn_run_opts *opts, double t0, bn_time_t stop,
                  bool prefetch, struct bn_error *err);
/* After an event in a partitioned run on ranks: idle now? (may pause). */
void bn_ranks_after_event(struct bn_sim *s, const struct bn_event *ev);
/* Rank 0 takes what the others' parts measured of the fabric (ports, NICs,
 * queue pairs' ends, counters); collective. */
int bn_ranks_gather_fabric(struct bn_sim *s, struct bn_error *err);
/* Rank 0 gets every rank's `len` bytes at `mine`: *all (malloc'd, the
 * ranks' in order; NULL elsewhere) and each one's length in lens[size]. */
int bn_ranks_gather(struct bn_sim *s, const void *mine, size_t len, void **all, size_t *lens,
                    struct bn_error *err);
/* Rank 0 reads every part's records, part by part in rank order (its
 * own included), a piece at a time: pack() puts this rank's records (the
 * same every call), read() takes part `part`'s from its cursor, which
 * brings the pieces as it reads, so that no rank holds more than a piece
 * of any part's (an eighth, at least 1 MiB); collective. read() false,
 * or records left unread: an error, once every part's is through. */
struct bn_rbuf;
struct bn_rcur;
typedef void (*bn_ranks_pack_fn)(void *ud, struct bn_rbuf *b);
typedef bool (*bn_ranks_read_fn)(void *ud, uint32_t part, struct bn_rcur *c);
int bn_ranks_gather_stream(struct bn_sim *s, bn_ranks_pack_fn pack, void *pack_ud,
                           bn_ranks_read_fn read, void *read_ud, struct bn_error *err);
/* Is node `node` run by this process? */
static inline bool bn_sim_here(const struct bn_sim *s, uint32_t node)
{
    return !s->part || !s->part->elsewhere || !s->part->elsewhere[node];
}
/* The driver's event running now only mirrors another part's: one
 * process runs it once (the count of events leaves it out). */
static inline void bn_sim_mirrored(struct bn_sim *s)
{
    if (s->part)
        s->part->mirrors++;
}
/* This process holds the whole run's results (one process, or rank 0). */
static inline bool bn_sim_reports(const struct bn_sim *s)
{
    return !s->part || !s->part->ranks || s->part->ranks->rank == 0;
}

#endif
