/*
 * The flows driver: the workload's flows (permutation, incast, all-to-all,
 * a flow list: workload/), each one message on its own queue pair, started
 * at its time; their completions and the paths their packets took; a time
 * series while they run (flow_series.c) and their results (flow_results.c).
 */
#ifndef BN_DRIVER_FLOWS_H
#define BN_DRIVER_FLOWS_H

#include "sim/sim.h"
#include "workload/workload.h"

#define BN_PATHS_MAX 64
#define BN_PATHS_SLOTS 128 /* a power of two, twice BN_PATHS_MAX: probes stay short */

/* The paths a flow's packets took, by the hash switches stamp on them, in
 * the order first seen. A sprayed flow crosses hundreds of paths on a large
 * fabric; `slot` finds a path's entry without scanning them all (open
 * addressing by id; 1 + its index, 0 = empty). */
struct bn_path_hist {
    uint32_t n, last;   /* read on every delivery: on the line of the first paths */
    struct {
        uint32_t count;
        uint16_t id;
    } path[BN_PATHS_MAX];
    uint8_t slot[BN_PATHS_SLOTS];
};

struct bn_flow_state {
    uint32_t qp;
    bn_time_t rx_done, tx_done;   /* BN_TIME_NEVER until then */
    bn_time_t failed;             /* its queue pair's error (BN_TIME_NEVER: none) */
    uint8_t failed_why;           /* enum bn_qp_failure */
    bool dep_failed;              /* never started: a flow it waited for failed */
    uint32_t msgs_left;           /* messages not yet acknowledged */
    uint32_t msgs_rx_left;        /* messages not yet received */
    struct bn_path_hist paths;
};

/* The driver's own events (BN_EV_APP, arg): a flow starts (obj = flow), a
 * time-series sample is due. */
enum bn_flows_event { BN_FLOWS_START = 0, BN_FLOWS_SAMPLE = 1 };

/* link_series.c: which ports make each row of the link series, and their
 * busy and paused time at the last sample. */
struct bn_link_rows {
    uint32_t *order;            /* fabric ports grouped by tier pair */
    uint32_t *first;            /* [nlinks + 1]: row r is order[first[r] .. first[r + 1]) */
    uint64_t *busy, *paused;    /* [nlinks]: the row's totals (ps) at `at` */
    bn_time_t at;
    double *span;               /* per sample: its interval (ps) */
};

/* flow_gates.c: flows that wait for others, at run time. */
struct bn_flow_gates {
    uint32_t *sig_first, *sig;  /* flow -> its signals (indices into the list's), CSR */
    uint32_t *tgt_first, *tgt;  /* trigger -> the flows gated on it, in order, CSR */
    uint32_t *acts;             /* per trigger: activations so far */
    uint32_t *potential;        /* per trigger: signals that may still come */
    uint32_t *started;          /* per trigger: its flows started (in order) */
    bool *spent;                /* per signal: given, or never will be */
};

struct bn_flows {
    struct bn_sim *s;
    struct bn_flow_list flows;
    struct bn_wl_hosts hosts;   /* what the workload was generated for */
    uint32_t *host_leaf;        /* hosts.leaf's storage */
    struct bn_flow_state *fstate;
    uint32_t *qp_flow;          /* queue pair -> flow */
    uint32_t flows_done;
    uint32_t flows_failed;      /* their queue pair went to the error state */
    uint32_t flows_here;        /* sent from this process's part (on ranks; else all) */
    struct bn_series series;    /* flow_series.c; handed to the results */
    uint32_t series_cap;
    uint32_t samples_taken;     /* ever, halving aside */
    uint32_t sample_done;       /* flows done at the last sample */
    bn_time_t sample_at;        /* its time */
    uint32_t sample_decided;    /* on ranks: samples whose successor is decided */
    struct bn_link_rows links;
    struct bn_flow_gates gates;
};

/* flow_series.c: time series. */
int bn_flows_series_init(struct bn_flows *fl, struct bn_error *err);
int bn_flows_series_sample(struct bn_flows *fl, struct bn_error *err);
/* Schedule the sample after the last one; its time. */
bn_time_t bn_flows_series_next(struct bn_flows *fl);
void bn_series_free(struct bn_series *sr);
/* link_series.c: the link rows (at init) and their values at sample k. */
int bn_flows_links_init(struct bn_flows *fl, struct bn_error *err);
void bn_flows_links_sample(struct bn_flows *fl, uint32_t k);
/* After the run: the samples' busy and paused time as fractions. */
void bn_flows_links_finish(struct bn_flows *fl);
void bn_flows_links_free(struct bn_flows *fl);
/* flow_gates.c: set up (nothing without triggers), free; flow f's
 * receiver (or sender: sent) is done at `at`; flow f failed at `at`. */
int bn_flow_gates_init(struct bn_flows *fl, struct bn_error *err);
void bn_flow_gates_free(struct bn_flow_gates *g);
void bn_flow_gates_signal(struct bn_flows *fl, uint32_t f, bool sent, bn_time_t at);
void bn_flow_gates_dead(struct bn_flows *fl, uint32_t f, bn_time_t at);

/* flow_faults.c: a flow file's failure lines as the scenario's faults: a
 * copy of sc with them appended in *with (NULL: the file has none). */
int bn_flow_file_faults(const struct bn_scenario *sc, struct bn_scenario **with,
                        struct bn_error *err);
/* flow_ranks.c: a run's parts on processes (sim/ranks.c): refuse what
 * they cannot run apart; after the run, rank 0 takes every flow's ends. */
int bn_flows_ranks_bind(struct bn_flows *fl, const struct bn_ranks *ranks, struct bn_error *err);
int bn_flows_ranks_gather(struct bn_flows *fl, struct bn_error *err);
/* flow_results.c: results after the run. */
int bn_flows_collect(struct bn_flows *fl, struct bn_results *out, struct bn_error *err);

/* bn_check_memory, and on mpirun's ranks (r, size 2 and more) the same per
 * rank against its share of the machine, naming the ranks per machine that
 * would fit (estimate.c). */
int bn_check_memory_ranks(const struct bn_scenario *sc, enum bn_est_what what,
                          const struct bn_ranks *r, struct bn_error *err);

#endif
