/*
 * Rate classes of the flow level: queue pairs whose flows load the same
 * links alike (the same ports, weights and passive uses, in the same
 * order) get the same max-min rate whenever they compete, since
 * progressive filling raises identical flows together and stops them on
 * the same link. They are one solver flow of k members (bn_mm_set_mult):
 * a ring's channels between two neighbours, a rail's identical transfers.
 *
 * Members share one clock of progress: v, the bytes each member has sent
 * since the class was last idle. A member's message is sent when v
 * reaches its key (v at its start + its wire bytes), so a rate change
 * costs one update per class, not per member, and the member to finish
 * first is always the one with the least key (a min-heap): the virtual
 * time of fair queueing (Demers, Keshav & Shenker, SIGCOMM 1989), here
 * for flows of equal rate.
 */
#ifndef BN_FLOW_RATECLASS_H
#define BN_FLOW_RATECLASS_H

#include <stdbool.h>
#include <stdint.h>

#include "bnet/error.h"
#include "core/time.h"

struct bn_rc_member {
    double key;   /* the class's v at which its message's last byte has left */
    uint32_t qp;
};

struct bn_flow_cls {
    double v;                 /* bytes each member has sent since idle, at upd */
    double rate;              /* each member's, bytes per ps */
    bn_time_t upd;
    bn_time_t done_at;        /* when its first member's message is sent (BN_TIME_NEVER) */
    uint32_t hpos;            /* its place in the engine's finish heap (BN_NONE: not there) */
    uint32_t n, cap;          /* members sending; room */
    struct bn_rc_member *mem; /* a min-heap by key, ties by queue pair */
    /* its uses, to tell a class from one that hashes alike */
    uint64_t hash;
    uint32_t next;            /* the next class in its hash bucket (UINT32_MAX: none) */
    uint32_t uoff, nuse;
};

struct bn_rateclass {
    struct bn_flow_cls *c;
    uint32_t ncls;            /* classes made (ids 0 .. ncls - 1 when found by uses) */
    uint32_t cap;             /* ids below it usable */
    uint32_t *tab, tabsz;     /* hash buckets: the first class of each */
    uint32_t *u_p, nu, ucap;  /* the classes' uses */
    float *u_w;
    uint8_t *u_pass;
};

void bn_rc_init(struct bn_rateclass *rc);
void bn_rc_free(struct bn_rateclass *rc);
/* Room for class ids below n. */
int bn_rc_reserve(struct bn_rateclass *rc, uint32_t n, struct bn_error *err);
/* The class of a flow with these uses: an existing one (*fresh false) or
 * a new id (*fresh true), whose path the caller then gives the solver. */
int bn_rc_find(struct bn_rateclass *rc, const uint32_t *p, const float *w, const uint8_t *pass,
               uint32_t n, uint32_t *id, bool *fresh, struct bn_error *err);
/* Members: join; the first one's key raised (its next message); the
 * first one gone. */
int bn_rc_push(struct bn_flow_cls *c, double key, uint32_t qp, struct bn_error *err);
void bn_rc_fix_top(struct bn_flow_cls *c);
void bn_rc_pop(struct bn_flow_cls *c);

#endif
