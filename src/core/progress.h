/*
 * The process's progress watcher (bn_progress_watch) and where the coming
 * run stands in its call's work. The engine reports to it a few times a
 * second; a call made of several runs (bnet coll's rows, bnet p2p's sizes)
 * says which share of its work each run is, and the parent of worker
 * processes reports as their tasks end (a worker reports nothing). One
 * watcher for the process, as one bn_interrupt flag is.
 */
#ifndef BN_CORE_PROGRESS_H
#define BN_CORE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "bnet/bnet.h"

/* The coming runs stand at share `base` of the call's work and make up
 * `span` of it; `parts_done` of `parts` runs are behind (parts 0: one
 * run). bn_progress_stage_clear: one run, the whole of the work. */
void bn_progress_stage(double base, double span, uint32_t parts_done, uint32_t parts);
void bn_progress_stage_clear(void);
bool bn_progress_watched(void);
/* Hand p to the watcher: p->share (of this run, 0 to 1, -1: not known)
 * made the call's, the parts filled in. */
void bn_progress_report(struct bn_run_progress *p);
/* From outside a run (a parent of workers): `done` of `parts` tasks over,
 * that share of the work; nothing simulated here (simulated_us -1). */
void bn_progress_parts(double share, uint32_t done, uint32_t parts, double wall_s);

#endif
