/*
 * The embedded default cluster of `bnet` and `bnet coll`: the same text as
 * scenarios/cluster128.yaml (a test compares the two), loaded over the key
 * defaults.
 */
#include "bnet/scenario.h"

static const char cluster_yaml[] =
    "# bnet's default cluster: 128 GPUs in 16 servers of 8. Each GPU has its own\n"
    "# 400 Gb/s InfiniBand NDR NIC into a rail-optimized fabric (NIC i of every\n"
    "# server on rail leaf i, 4 spines, non-blocking) and NVLink 4 to the other\n"
    "# GPUs of its server. `bnet` (like `bnet coll` without a file) sweeps an\n"
    "# AllReduce over it from 8 B to 1 GiB, nccl-tests style. Keys not set here\n"
    "# keep their defaults (docs/scenario.md).\n"
    "\n"
    "fabric: ib-ndr                  # credit flow control, adaptive routing, 400G\n"
    "nic:\n"
    "  congestion_control: none      # IB CC is optional and often off on AI fabrics; with the\n"
    "                                # preset's ib_cc, a tree's 2:1 fan-in throttles it (docs/collectives.md)\n"
    "\n"
    "topology:\n"
    "  kind: rail_optimized\n"
    "  k: 32                         # rail leaf: 16 server ports + 16 uplinks\n"
    "  gpus_per_server: 8\n"
    "  servers_per_su: 16\n"
    "  scalable_units: 1\n"
    "\n"
    "scale_up:\n"
    "  domain_gpus: 8                # one NVSwitch domain per server\n"
    "  rate_gbps: 3600               # H100 NVLink 4: 900 GB/s both ways\n"
    "\n"
    "coll:\n"
    "  op: allreduce\n"
    "  algo: auto                    # the tuner picks per size\n"
    "  channels: 0                   # NCCL's count: 2 rings per NIC, 16 here\n"
    "  min_bytes: 8\n"
    "  max_bytes: 1GiB\n"
    "  step_factor: 2\n";

const char *bn_scenario_cluster_yaml(void) { return cluster_yaml; }
