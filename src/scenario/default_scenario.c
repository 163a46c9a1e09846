/*
 * The embedded default scenario, returned by bn_scenario_default_yaml(). It is
 * the same text as scenarios/default.yaml (a test compares the two) and loads
 * to exactly bn_scenario_defaults(), so `bnet` runs without any file.
 */
#include <stddef.h> /* scenario.h uses size_t without including it */

#include "bnet/scenario.h"

static const char default_yaml[] =
    "# bnet default scenario: a random permutation on a k=8 fat-tree (128 hosts).\n"
    "# Every host sends one 2 MB RDMA write to another host over 100 Gb/s RoCE\n"
    "# links with a 4096-byte MTU. Each value below equals the built-in default;\n"
    "# see docs/scenario.md for every key. Override one with --set key=value.\n"
    "\n"
    "seed: 1                         # every random choice derives from this\n"
    "\n"
    "topology:\n"
    "  kind: fat_tree                # fat_tree | leaf_spine\n"
    "  k: 8                          # switch radix: even, 2..256\n"
    "\n"
    "link:\n"
    "  rate_gbps: 100                # every link\n"
    "  # fabric_rate_gbps: 400       # switch-to-switch links (default: = rate_gbps)\n"
    "  host_cable_m: 2\n"
    "  host_cable: copper            # copper | fiber\n"
    "  fabric_cable_m: 10\n"
    "  fabric_cable: fiber           # copper | fiber\n"
    "  copper_ns_per_m: 4.3          # propagation delay in twinax copper\n"
    "  fiber_ns_per_m: 5.0           # propagation delay in optical fiber\n"
    "  fec_ns: 0                     # FEC latency per link traversal\n"
    "\n"
    "switch:\n"
    "  latency_ns: 300               # port to port\n"
    "  forwarding: cut_through       # cut_through | store_and_forward\n"
    "  buffer_bytes: 1MiB            # per egress port (1048576)\n"
    "  load_balancing: ecmp\n"
    "  ecn:\n"
    "    enabled: true\n"
    "    kmin_bytes: 100KiB          # marking starts (102400)\n"
    "    kmax_bytes: 400KiB          # marking probability reaches pmax (409600)\n"
    "    pmax: 0.2\n"
    "\n"
    "nic:\n"
    "  encap: roce                   # roce | ib\n"
    "  mtu_bytes: 4096               # payload per packet\n"
    "  transport: go_back_n\n"
    "  congestion_control: none\n"
    "  rto_us: 100                   # retransmission timeout\n"
    "  ack_every: 1                  # ACK every N data packets\n"
    "\n"
    "workload:\n"
    "  kind: permutation             # permutation | incast | all_to_all | flow_list\n"
    "  message_bytes: 2MB            # per flow (2000000 bytes)\n"
    "  verb: write                   # write | send\n"
    "  start_us: 0\n"
    "  incast_senders: 8             # incast only\n"
    "  incast_receiver: 0            # incast only\n"
    "  flow_file: \"\"                 # flow_list only: \"src dst bytes start_us\" lines\n"
    "\n"
    "sim:\n"
    "  max_time_us: 0                # 0 = run until every flow completes\n";

const char *bn_scenario_default_yaml(void)
{
    return default_yaml;
}
