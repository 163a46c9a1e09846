/*
 * DCQCN reaction point (RP): the sender-side rate controller of one RoCEv2
 * queue pair. It holds a current rate RC, a target rate RT and a congestion
 * estimate alpha; congestion notification packets (CNPs) cut RC, timers (and,
 * in the paper form, a byte counter) raise it back toward the line rate.
 *
 * Two variants, selected by bn_dcqcn_params.variant:
 *  - BN_DCQCN_NVIDIA: ConnectX-4+ firmware ("Mellanox version") as modelled by
 *    the HPCC ns-3 simulator (rdma-hw.cc, *Mlx functions) with the firmware
 *    defaults of NVIDIA DOCA "DCQCN CC Parameters" / Mellanox DOC-2790.
 *    Alpha is updated once per alpha period; a reduction happens at most once
 *    per rate-reduce period; rate increases come only from the RP timer.
 *  - BN_DCQCN_PAPER: the SIGCOMM'15 DCQCN algorithm as written in htsim
 *    (uet-htsim sim/dcqcn.cpp): every CNP cuts at once, alpha decays every
 *    period without CNP, increases come from a timer T and a byte counter B.
 * References: NVIDIA DOCA "DCQCN CC Parameters" (networking-docs.nvidia.com/
 * doca/archive/3-4-0/dcqcn-cc-parameters) and Mellanox community DOC-2790
 * "DCQCN Parameters"; alibaba-edu/High-Precision-Congestion-Control,
 * simulation/src/point-to-point/model/rdma-hw.cc; f-forcher/uet-htsim,
 * htsim/sim/dcqcn.cpp.
 *
 * The model is pure: no events and no globals. The caller passes `now`
 * (picoseconds, never decreasing) and calls bn_dcqcn_on_timer() at the time
 * bn_dcqcn_next_timer() returns. Alpha needs no events at all: between CNPs it
 * decays in closed form, alpha0 * (1 - g)^N after N whole periods, evaluated
 * when asked. A flow back at line rate therefore schedules nothing.
 */
#ifndef BN_NIC_DCQCN_H
#define BN_NIC_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

#include "bnet/error.h"
#include "core/time.h"

enum bn_dcqcn_variant {
    BN_DCQCN_NVIDIA = 0,
    BN_DCQCN_PAPER = 1,
};

/*
 * RC closer than this to the line rate counts as the line rate. Without it,
 * RC = (RC + RT) / 2 with RT capped at the line rate would approach it forever;
 * firmware rates are whole Mb/s (RPG_* rates), so a smaller gap cannot exist
 * in hardware either.
 */
#define BN_DCQCN_RATE_EPS_GBPS 0.001

/*
 * NVIDIA only: once the flow is at line rate and alpha has decayed below one
 * unit of the firmware's 10-bit alpha (1/1024), the rate limiter counts as
 * released and the next CNP is a "first CNP" again (alpha = initial_alpha).
 */
#define BN_DCQCN_RELEASE_ALPHA (1.0 / 1024.0)

struct bn_dcqcn_params {
    enum bn_dcqcn_variant variant;
    double line_rate_gbps;         /* RPG_MAX_RATE = 0: the port rate */
    double min_rate_gbps;          /* RPG_MIN_RATE: no cut goes below it */
    double ai_gbps;                /* additive increase of RT (RPG_AI_RATE, RAI) */
    double hai_gbps;               /* hyper increase of RT (RPG_HAI_RATE, RHAI) */
    double alpha_gain;             /* g: alpha <- (1-g) alpha + g; NVIDIA g = (1024 - G) / 1024 */
    double initial_alpha;          /* NVIDIA: alpha set by a first CNP; PAPER: alpha at init */
    double rate_on_first_cnp_gbps; /* NVIDIA: RC = RT = this on a first CNP; 0 = no change */
    double max_dec_pct;            /* RPG_MIN_DEC_FAC: one cut removes at most this % of RC */
    uint32_t fast_recovery;        /* F: RPG_THRESHOLD / htsim _F */
    uint64_t byte_counter_bytes;   /* PAPER: B, bytes per byte-counter event; 0 = off */
    bn_time_t alpha_period;        /* DCE_TCP_RTT / htsim cc update period */
    bn_time_t rate_reduce_period;  /* NVIDIA: RATE_REDUCE_MONITOR_PERIOD */
    bn_time_t rate_increase_period; /* RPG_TIME_RESET / htsim timer T */
    bool clamp_target;             /* every cut sets RT = RC (CLAMP_TGT_RATE) */
    bool clamp_target_after_time_inc; /* a cut sets RT = RC if a timer increase happened
                                         since the previous cut (CLAMP_TGT_RATE_AFTER_TIME_INC) */
};

/*
 * Firmware defaults (NVIDIA DOCA "DCQCN CC Parameters", Mellanox DOC-2790):
 * G = 1019 (g = 5/1024), alpha period 1 us,
 * rate-reduce period 4 us, RP timer 300 us, F = 1, AI 5 Mb/s, HAI 50 Mb/s,
 * min rate 1 Mb/s, max decrease 50 %, initial alpha 1023/1024, no rate set on
 * first CNP, clamp_target off, clamp_target_after_time_inc on.
 * The byte counter is off: the HPCC model of this firmware (rdma-hw.cc)
 * increases only on the RP timer. RPG_BYTE_RESET = 32767 is documented by
 * NVIDIA but its unit is not, so it is not modelled.
 */
struct bn_dcqcn_params bn_dcqcn_params_nvidia(double line_rate_gbps);

/*
 * htsim's paper-style values (uet-htsim sim/dcqcn.cpp): g = 1/256, alpha period and timer T
 * 55 us, B = 10,000,000 bytes, F = 5, initial alpha 1. RAI = line/20 and
 * RHAI = line/10 are htsim's choice, not the paper's. Every CNP sets RT = RC
 * (clamp_target on). The 1 Mb/s min rate is bnet's floor (htsim has none).
 */
struct bn_dcqcn_params bn_dcqcn_params_paper(double line_rate_gbps);

/* BN_OK, or BN_EINPUT with a message naming the bad parameter. */
int bn_dcqcn_params_check(const struct bn_dcqcn_params *p, struct bn_error *err);

/* Per-QP state. `p` is shared and must outlive the state. */
struct bn_dcqcn {
    const struct bn_dcqcn_params *p;
    double rc, rt;          /* current and target rate, Gb/s */
    double alpha0;          /* alpha at alpha_t */
    bn_time_t alpha_t;      /* start of the current alpha period run */
    bn_time_t next_inc;     /* next timer increase event, or BN_TIME_NEVER */
    bn_time_t next_cut;     /* NVIDIA: deferred reduction, or BN_TIME_NEVER */
    bn_time_t last_cut;     /* time of the last reduction, or BN_TIME_NEVER */
    uint64_t bytes;         /* PAPER: bytes sent since the last byte-counter event */
    uint32_t t_events;      /* timer increase events since the last cut (stage, T) */
    uint32_t bc_events;     /* PAPER: byte-counter events since the last cut (BC) */
    bool alpha_cnp;         /* NVIDIA: a CNP arrived in the period starting at alpha_t */
    bool engaged;           /* NVIDIA: a first CNP was seen (rate limiter allocated) */
};

/* Start at line rate with no timer pending. */
void bn_dcqcn_init(struct bn_dcqcn *st, const struct bn_dcqcn_params *p, bn_time_t now);
void bn_dcqcn_on_cnp(struct bn_dcqcn *st, bn_time_t now);
/* The QP sent `bytes` more (feeds the PAPER byte counter; no-op for NVIDIA). */
void bn_dcqcn_on_sent(struct bn_dcqcn *st, uint64_t bytes, bn_time_t now);
/* Run every internal event due at or before `now`. */
void bn_dcqcn_on_timer(struct bn_dcqcn *st, bn_time_t now);
/* Earliest time a call to bn_dcqcn_on_timer is needed, or BN_TIME_NEVER. */
bn_time_t bn_dcqcn_next_timer(const struct bn_dcqcn *st);

static inline double bn_dcqcn_rate_gbps(const struct bn_dcqcn *st) { return st->rc; }
static inline double bn_dcqcn_target_gbps(const struct bn_dcqcn *st) { return st->rt; }
/* Alpha in force at `now` (>= the last call's time), pending decay applied. */
double bn_dcqcn_alpha(const struct bn_dcqcn *st, bn_time_t now);

#endif
