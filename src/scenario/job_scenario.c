/*
 * The embedded scenario of `bnet job` without a file: the same text as
 * scenarios/job_default.yaml (a test compares the two).
 */
#include "bnet/scenario.h"

static const char job_yaml[] =
    "# bnet job's default: a training job on bnet's default cluster (128 GPUs in\n"
    "# 16 servers of 8, 400 Gb/s NDR rails, NVLink inside each server). Llama 2\n"
    "# 7B's shape (the jobs[] defaults) with tensor parallelism inside each\n"
    "# server and data parallelism across the rails; docs/jobs.md.\n"
    "\n"
    "fabric: ib-ndr\n"
    "nic:\n"
    "  congestion_control: none\n"
    "\n"
    "topology:\n"
    "  kind: rail_optimized\n"
    "  k: 32\n"
    "  gpus_per_server: 8\n"
    "  servers_per_su: 16\n"
    "  scalable_units: 1\n"
    "\n"
    "scale_up:\n"
    "  domain_gpus: 8\n"
    "  rate_gbps: 3600\n"
    "\n"
    "coll:\n"
    "  channels: 2\n"
    "\n"
    "jobs:\n"
    "  - name: llama7b\n"
    "    tp: 8                       # inside each server's NVLink domain\n"
    "    dp: 16                      # one GPU per server on each rail\n"
    "    layers: 8                   # a slice of the model, to run in seconds\n"
    "    seq_len: 2048\n"
    "    global_batch: 32\n"
    "    untie_embeddings: true      # Llama 2's output layer is its own weight\n";

const char *bn_scenario_job_yaml(void) { return job_yaml; }
