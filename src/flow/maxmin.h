/*
 * Max-min fair sharing of link capacity among flows, by progressive
 * filling (Bertsekas & Gallager, Data Networks, 2nd ed., 6.5.2): every
 * flow's rate rises at the same pace until some link is full; the flows
 * on it keep that rate and the rest go on rising. A flow loads each link
 * it uses by a weight times its rate: 1 on the links of its one path, the
 * share of its packets that cross a link when it is spread over many
 * paths (spraying), a small fraction on the links its acknowledgements
 * take back. A passive use (the acknowledgements') loads its link but
 * never holds its flow back: when the link fills, the flows using it
 * actively stop rising and the passive ones go on, their small share
 * carried over the link's capacity. Links are plain ids with a capacity;
 * the caller says what they are (ports, here).
 *
 * Incremental: a flow joining or leaving marks its links; solve()
 * recomputes only what the change can move.
 * - The component: the flows that joined; the marked links that were full
 *   (a flow leaving a link that was not full frees nothing anyone waited
 *   for); then the flows a component link holds (those at its level) and
 *   every full link of a component flow. A change moves a link's level, and through it
 *   the flows held there and the links those load at higher levels; a
 *   flow held at a lower level elsewhere is a fixed load (the precedence
 *   of bottlenecks: Ros-Giralt et al., "On the Bottleneck Structure of
 *   Congestion-Controlled Networks", SIGMETRICS 2020). Should a level
 *   fall under such a flow's rate, the flow joins and it is solved again.
 * - The floor: no rate below the least of the leaving flows' rates and the
 *   joining flows' links' floors ((capacity - passive load at ceilings) /
 *   active weight) moves, since progressive filling does the same up to
 *   that level (Bertsekas & Gallager 6.5.2); such flows stay as they are.
 * - The retry: a component flow whose rate rose may overload a link that
 *   was not full; that link joins the component, its own flows as fixed
 *   loads (those over the level it fills at join as above), and it is
 *   solved again, so the rates are those of a solve over every link.
 * A flow whose rate moves is not followed through its passive uses: the
 * links it loads that way see the new load at their own next solve.
 *
 * Rate classes (bn_mm_set_mult): flows with the same uses are one flow of
 * k members, so a collective's identical transfers cost one entry.
 */
#ifndef BN_FLOW_MAXMIN_H
#define BN_FLOW_MAXMIN_H

#include <stdbool.h>
#include <stdint.h>

#include "bnet/error.h"

/* A flow's load on one link: weight x its rate. */
struct bn_mm_use {
    uint32_t link;
    uint32_t flow;
    uint32_t pos;      /* its index in the link's list while active */
    uint32_t apos;     /* its index in the link's list of every use */
    float weight;
    uint8_t passive;   /* loads the link, never bottlenecks the flow */
};

struct bn_mm_list {
    uint32_t *use;     /* uses of the active flows on this link */
    uint32_t n, cap;
};

struct bn_maxmin {
    uint32_t nlinks, nflows;
    double *cap;                 /* per link: capacity (any unit; rates come in it) */
    struct bn_mm_list *on;       /* per link: its active flows' uses */
    struct bn_mm_list *all;      /* per link: every flow's use, active or not */
    struct bn_mm_use *use;       /* all flows' uses, a flow's contiguous */
    uint32_t nuse, use_cap, nlive; /* uses made, room; of them, a flow's current ones */
    uint32_t *use_off, *use_len; /* per flow: its uses (len 0: no path set) */
    uint32_t *use_room;          /* per flow: slots its block holds (splits add uses) */
    double *rate;                /* per flow: its rate while active, else 0 (a member's) */
    double *mult;                /* per flow: members of its rate class (1: a lone flow) */
    double *fcap;                /* per flow: its ceiling, min over its active uses of cap / w */
    double *load;                /* per link: sum of w x rate over its active flows' uses */
    uint8_t *full;               /* per link: it filled in the last solve that covered it */
    double *lvl;                 /* per link, if full: the rate of the flows it holds */
    double *aw, *pmax;           /* per link: active users' weights; passive users' w x ceiling */
    double theta;                /* no rate below it moves at the next solve */
    double below;                /* this solve's theta, less rounding */
    uint8_t *active;
    /* scratch of solve() */
    uint32_t *dirty, ndirty;      /* links marked since the last solve, each once */
    uint32_t *pscan, npscan;     /* full links a passive use left: their rates bound theta */
    uint8_t *pscanned;
    uint32_t *seed, nseed;       /* flows that joined: solved whatever their links */
    uint8_t *seeded;
    uint8_t *ldirty;
    uint32_t *link_mark, *flow_mark, stamp;
    uint32_t *bare;              /* per link, = stamp: in the component without its flows */
    double *rem, *wsum;
    uint32_t *nunf;              /* per link: flows using it actively, not yet frozen */
    uint32_t *comp_links, *comp_flows;
    double *comp_prev;           /* per component flow: its rate before this solve */
    uint8_t *frozen;             /* per flow: stopped rising in this filling */
    struct bn_mm_heap { double key; uint32_t link; } *heap;
    uint32_t nheap, heap_cap;
    uint32_t *changed, nchanged;  /* flows whose rate solve() changed */
    uint32_t *late, nlate, late_cap; /* fixed flows over a level that fell: solve them too */
};

int bn_mm_init(struct bn_maxmin *m, uint32_t nlinks, uint32_t nflows, struct bn_error *err);
void bn_mm_free(struct bn_maxmin *m);
/* Capacity of a link (before any flow on it is active). */
static inline void bn_mm_set_cap(struct bn_maxmin *m, uint32_t link, double cap)
{
    m->cap[link] = cap;
}
/* Make room for flows up to id nflows - 1 (the flow set grows). */
int bn_mm_reserve(struct bn_maxmin *m, uint32_t nflows, struct bn_error *err);
/* Flow f's uses, once (n of them, links < nlinks, weights > 0; passive
 * may be NULL: none is). */
int bn_mm_set_path(struct bn_maxmin *m, uint32_t f, const uint32_t *links, const float *weights,
                   const uint8_t *passive, uint32_t n, struct bn_error *err);
/* Link d, unused so far, becomes a copy of link c: every flow on c uses d
 * the same way, and d has c's capacity and state (linkclass.c splits a
 * class of identical links this way). */
int bn_mm_split(struct bn_maxmin *m, uint32_t c, uint32_t d, struct bn_error *err);
/* Flow f is a rate class of k identical members (k >= 1; 1 when its path
 * is set): it loads each link k x weight x rate, its rate is each
 * member's. Progressive filling raises identical flows together and stops
 * them on the same link, so one entry of k members has the rates k flows
 * would have (the sums taken in another order: the last bits may differ).
 * While f is active this is a leave and a join, solved at the next solve. */
int bn_mm_set_mult(struct bn_maxmin *m, uint32_t f, uint32_t k, struct bn_error *err);
/* Flow f starts or stops competing (its links are marked for solve()). */
int bn_mm_activate(struct bn_maxmin *m, uint32_t f, struct bn_error *err);
int bn_mm_deactivate(struct bn_maxmin *m, uint32_t f, struct bn_error *err);
/* Recompute the rates of the flows connected to marked links; the flows
 * whose rate changed are changed[0 .. nchanged). */
int bn_mm_solve(struct bn_maxmin *m, struct bn_error *err);

#endif
