/* Private to src/fault: the fault schedule's state, shared by its files. */
#ifndef BN_FAULT_FAULTS_H
#define BN_FAULT_FAULTS_H

#include "fault/fault.h"

/* Phases of a fault's BN_EV_FAULT (arg); obj is the fault's index, or
 * PROBE for the throughput probe. */
enum { PH_STRIKE = 0, PH_END, PH_FLAP_DOWN, PH_FLAP_UP, PH_LIT };
#define PROBE UINT32_MAX

struct fault {
    const struct bn_scenario_fault *sf;
    const void *keys;           /* its kind's keys struct, in sf (bn_fault_keys) */
    uint32_t index;             /* in the scenario's list */
    uint32_t *ports;            /* one port of each link it acts on (ocs: a-b then c-d) */
    uint32_t nports;
    bool one_way;               /* named by a port: link_degrade slows its sending side only */
    bn_time_t at, until;        /* until: BN_TIME_NEVER for good */
    bool struck;
    uint32_t flaps;
    /* its first change, measured */
    bool planned;               /* the control plane was asked */
    uint32_t switches_changed;
    bn_time_t converged;        /* last install planned (BN_TIME_NEVER: some never learn) */
    /* the traffic it hit: queue pairs that lost a frame in the window
     * after it, their rates before it, and when they ran at
     * routing.restore_fraction of that again (or finished) */
    uint32_t *pre;              /* per queue pair: packets delivered in the window before */
    uint8_t *hit;
    uint32_t npre;
    bool measurable;            /* a window before it was measured, and it loses frames */
    bool collecting, measuring;
    double rate_before_gbps;
    bn_time_t restored;         /* BN_TIME_NEVER: not (yet) */
};

/* A computed set of routes: every switch's record, for one set of dead links. */
struct route_version {
    uint8_t *down;              /* the down set it was computed for (nports) */
    struct bn_route_switch *rec; /* [nswitches] */
};

struct bn_faults {
    struct bn_fault_env env;
    const struct bn_cp_ops *cp;
    struct fault *fault;
    uint32_t nfaults;
    uint8_t *down;              /* per port: faults holding its link down (both ends) */
    uint64_t *rate0;            /* per port: its rate before any degradation */
    struct route_version *ver;
    uint32_t nver, ver_cap;
    uint32_t *comp_ver;         /* computation -> version */
    uint32_t ncomp, comp_cap;
    uint32_t *installed;        /* per switch: last computation installed (UINT32_MAX: none) */
    /* scratch for a change */
    uint32_t *dist, *blocks, *queue;
    bn_time_t *at;
    /* the table blocks (64 hosts each) holding each leaf's hosts */
    uint32_t *leaf_block_off, *leaf_block;
    uint32_t *stamp, gen;       /* per block: counted for switch `gen` */
    /* throughput probe: every queue pair's in-order packets at the last
     * two probes, and the queue pairs of frames lost since */
    bn_time_t window, probe_t, prev_t;
    uint32_t *snap, *prev, nsnap, snap_cap;
    struct bn_loss_log log;
    bool probing;
    /* stuck queue pairs: fault events (and route installs) still to come,
     * and when the last one happened */
    uint32_t pending;
    bn_time_t last_change, stuck_after;
    double reroute_s;           /* wall time computing and comparing routes */
};

/* Schedule one of the schedule's own events (counted as pending). */
void bn_fault_schedule(struct bn_faults *ft, bn_time_t t, uint16_t kind, uint32_t obj,
                       uint32_t arg);

/* reroute.c: the control plane's answer to a change of the graph that
 * fault ft caused (its links' ports seed the distances). */
int bn_fault_reroute(struct bn_faults *ft, struct fault *fa, struct bn_error *err);
/* BN_EV_ROUTE: switch `sw` installs computation `comp`. */
void bn_fault_install(struct bn_faults *ft, uint32_t sw, uint32_t comp);
void bn_fault_routes_free(struct bn_faults *ft);

#endif
