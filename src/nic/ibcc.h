/*
 * InfiniBand congestion control at the sender, after the model of the IBTA
 * InfiniBand Architecture Specification vol. 1, annex A10 "Congestion
 * Control", with the parameter names OpenSM uses to configure it
 * (opensm.conf cc_* options: CCTI_Timer, CCTI_Increase, CCTI_Min, the CCT and
 * its CCTI_Limit at the CA; Threshold and Marking_Rate at switches).
 * Written from our reading of those documents; we have no source for defaults,
 * so the numbers below are bnet's documented choices, not measured values.
 *
 * The loop: a switch port whose queue exceeds a threshold marks packets FECN
 * (at most one in Marking_Rate + 1); the receiver returns a BECN to the
 * sender; each BECN raises the sender's congestion-control-table index CCTI by
 * CCTI_Increase, up to CCTI_Limit; a CCTI timer lowers it by one every
 * CCTI_Timer period, down to CCTI_Min. The table entry at CCTI is the
 * injection delay the sender inserts between packets.
 *
 * Rate model (our choice; the annex encodes entries as shift:multiplier and
 * the hardware's time unit for them is not in our references): the entry is
 * an inter-packet delay IPD measured in transmission times of the packet just
 * sent, so the injection rate is line / (1 + IPD). With a linear table,
 * IPD(i) = i * ipd_step and rate = line / (1 + i * ipd_step). An explicit
 * table may be given instead.
 *
 * Pure model: no events, no globals; the caller passes `now` and calls
 * bn_ibcc_on_timer at bn_ibcc_next_timer().
 */
#ifndef BN_NIC_IBCC_H
#define BN_NIC_IBCC_H

#include <stdbool.h>
#include <stdint.h>

#include "bnet/error.h"
#include "core/time.h"

/* CCTI_Timer is configured in units of 1.024 us (IBTA A10). */
#define BN_IBCC_TIMER_UNIT_PS 1024000LL

struct bn_ibcc_params {
    double line_rate_gbps;
    bn_time_t ccti_timer;    /* CCTI_Timer period, > 0 */
    uint16_t ccti_increase;  /* CCTI_Increase: index added per BECN */
    uint16_t ccti_limit;     /* CCTI_Limit: highest index (table size - 1) */
    uint16_t ccti_min;       /* CCTI_Min: lowest index, a cap on the rate */
    double ipd_step;         /* linear table: IPD(i) = i * ipd_step packet times */
    const double *cct;       /* or NULL; else ccti_limit + 1 nondecreasing IPDs, cct[0] >= 0 */
};

/*
 * Defaults (bnet's choices):
 *  ccti_increase 1 - the value in the OpenSM CC configurations we found;
 *  ccti_limit 127 - a 128-entry table, the size those configurations generate;
 *  ccti_min 0 - full line rate once congestion is gone;
 *  ccti_timer 128 units = 131.072 us - the geometric middle of the 2..8192
 *    units swept by the LLNL OpenSM CC tuning scripts;
 *  ipd_step 0.5 - index 127 gives line / 64.5, enough to settle a 64-to-1
 *    incast, and the first BECN gives line / 1.5;
 *  linear table (cct NULL).
 */
struct bn_ibcc_params bn_ibcc_params_default(double line_rate_gbps);

int bn_ibcc_params_check(const struct bn_ibcc_params *p, struct bn_error *err);

struct bn_ibcc {
    const struct bn_ibcc_params *p;  /* shared; must outlive the state */
    uint32_t ccti;
    bn_time_t next_dec;              /* next CCTI timer expiry, or BN_TIME_NEVER */
};

/* Start at CCTI_Min with no timer pending. */
void bn_ibcc_init(struct bn_ibcc *st, const struct bn_ibcc_params *p, bn_time_t now);
void bn_ibcc_on_becn(struct bn_ibcc *st, bn_time_t now);
/* Apply every CCTI timer expiry due at or before `now`. */
void bn_ibcc_on_timer(struct bn_ibcc *st, bn_time_t now);
/* Next expiry, or BN_TIME_NEVER when the index rests at CCTI_Min. */
static inline bn_time_t bn_ibcc_next_timer(const struct bn_ibcc *st) { return st->next_dec; }
static inline uint32_t bn_ibcc_ccti(const struct bn_ibcc *st) { return st->ccti; }

/* Injection rate at table index `ccti` (<= ccti_limit): line / (1 + IPD). */
double bn_ibcc_rate_for_index(const struct bn_ibcc_params *p, uint32_t ccti);
double bn_ibcc_rate_gbps(const struct bn_ibcc *st);

/*
 * Switch side, FECN marking of one departing packet. A port is congested while
 * its queue exceeds threshold_bytes (the annex's 4-bit Threshold is a vendor
 * specific scale; bnet takes bytes). Marking_Rate is the number of unmarked
 * packets between two marks (0 = mark every one); the hardware takes it as a
 * mean, bnet counts deterministically. `since_mark` is the caller's per-port
 * counter of eligible packets not marked, starting at 0.
 */
struct bn_ibcc_marking {
    uint64_t threshold_bytes;
    uint32_t marking_rate;
};

bool bn_ibcc_should_mark(const struct bn_ibcc_marking *m, uint64_t queue_bytes,
                         uint32_t *since_mark);

#endif
