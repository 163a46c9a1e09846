/*
 * The job graph builders, one per way of describing a job: a transformer's
 * shape and parallelism (transformer.c, with model.c's costs), a
 * SimAI/AICB workload file (aicb.c) and Chakra execution traces (chakra.c).
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

/* The same from Chakra execution traces (chakra.c), when the workload
 * file is one (a .et name: rank 0's, PREFIX.0.et). */
bool bn_job_is_chakra(const char *workload_file);
int bn_job_build_chakra(const struct bn_scenario *sc, uint32_t index, uint32_t hosts,
                        struct bn_job_graph *g, struct bn_job_model *m, struct bn_error *err);

#endif
