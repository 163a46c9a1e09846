/*
 * The job graph builders, one per way of describing a job: a transformer's
 * shape and parallelism (transformer.c, with model.c's costs) and a
 * SimAI/AICB workload file (aicb.c).
 */
#ifndef BN_JOB_BUILD_H
#define BN_JOB_BUILD_H

#include "job/graph.h"
#include "job/model.h"

/* Training (1F1B) or inference (prefill + decode) as j->kind says. */
int bn_job_build_transformer(const struct bn_scenario_job *j, const struct bn_job_model *m,
                             struct bn_job_graph *g, struct bn_error *err);

/* Job `index` from its workload_file (SimAI/AICB, ASTRA-sim 1.x text):
 * its ranks, units, communicators and the finished graph; a job on more
 * GPUs than the cluster's `hosts` is refused before its graph is built. */
int bn_job_build_aicb(const struct bn_scenario *sc, uint32_t index, uint32_t hosts,
                      struct bn_job_graph *g, struct bn_job_model *m, struct bn_error *err);

#endif
