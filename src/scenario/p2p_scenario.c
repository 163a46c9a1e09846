/*
 * The embedded scenario of `bnet p2p` without a file: the same text as
 * scenarios/p2p_ib_ndr.yaml (a test compares the two).
 */
#include "bnet/scenario.h"

static const char p2p_yaml[] =
    "# bnet p2p's default: two hosts with ConnectX-7-class NDR NICs (400 Gb/s\n"
    "# InfiniBand, PCIe Gen5 x16) under one switch, 2 m copper cables each;\n"
    "# perftest's ib_write_lat with 2-byte messages. The NIC and host keys come\n"
    "# from the ib-ndr preset (docs/endpoints.md, docs/presets.md).\n"
    "\n"
    "fabric: ib-ndr\n"
    "nic:\n"
    "  inline_bytes: 220             # perftest's default inline size for RDMA WRITE\n"
    "\n"
    "topology:\n"
    "  kind: leaf_spine\n"
    "  k: 8                          # 4 hosts per leaf: hosts 0 and 1 share one\n"
    "\n"
    "p2p:\n"
    "  test: write_lat\n"
    "  bytes: 2\n"
    "  hosts: \"0,1\"\n";

const char *bn_scenario_p2p_yaml(void) { return p2p_yaml; }
