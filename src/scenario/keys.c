/*
 * The scenario key registry: one table describing every field of struct
 * bn_scenario (YAML path, type, unit, default, doc, bounds), with the rows
 * the modules carry (flow-control modules', load-balancing policies',
 * congestion controls', fault kinds', workload generators', ...) spliced in, plus
 * the single setter every value goes through. Defaults are parsed from the
 * table's default text, so the documented default is by construction the
 * real one.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "coll/sched.h"
#include "coll/proto.h"
#include "core/units.h"
#include "fault/fault.h"
#include "link/fc.h"
#include "nic/nic.h"
#include "scenario/keys.h"
#include "switch/lb.h"
#include "topo/topo.h"
#include "workload/workload.h"

/* The lists; a key of one is a field of every item ("faults[].kind"). */
enum { LIST_FAULTS = BN_KEY_LIST_FAULTS, LIST_JOBS = BN_KEY_LIST_JOBS };
static const struct bn_scn_list lists[] = {
    {"faults", "fault", offsetof(struct bn_scenario, faults), sizeof(struct bn_scenario_fault),
     offsetof(struct bn_scenario, nfaults), BN_SC_FAULTS_MAX},
    {"jobs", "job", offsetof(struct bn_scenario, jobs), sizeof(struct bn_scenario_job),
     offsetof(struct bn_scenario, njobs), BN_SC_JOBS_MAX},
};
#define ITEM(m) BN_ROW_FAULT(m)
#define JOB(m) \
    .offset = offsetof(struct bn_scenario, jobs[0].m), \
    .size = sizeof(((struct bn_scenario *)0)->jobs[0].m), .list = LIST_JOBS

#define FIELD(m) \
    .offset = offsetof(struct bn_scenario, m), .size = sizeof(((struct bn_scenario *)0)->m)

/* Short names for core/keyrow.h's row pieces. */
#define INT_KEY BN_ROW_INT
#define FLOAT_KEY BN_ROW_FLOAT
#define BOOL_KEY BN_ROW_BOOL
#define STRING_KEY BN_ROW_STRING
#define ENUM_KEY BN_ROW_ENUM
#define ABOVE_ZERO BN_ROW_ABOVE_ZERO
#define AT_LEAST(v) BN_ROW_AT_LEAST(v)
#define RANGE(a, b) BN_ROW_RANGE(a, b)

/* The choices of enum-like keys: a module key's are its registry's names,
 * in registry order (the index stored is the module's); the others' are
 * listed here in the order of their enum in bnet/scenario.h. */
#define CHOICES(fn, ...)                                                  \
    static const char *fn(size_t i)                                       \
    {                                                                     \
        static const char *const v[] = {__VA_ARGS__};                     \
        return i < sizeof v / sizeof v[0] ? v[i] : NULL;                  \
    }
CHOICES(cable_choice, "copper", "fiber")
CHOICES(forwarding_choice, "cut_through", "store_and_forward")
CHOICES(ecmp_fields_choice, "dst_entropy", "dst", "entropy")
CHOICES(ecmp_salt_choice, "per_switch", "same")
CHOICES(nonminimal_choice, "none", "valiant", "ugal")
CHOICES(entropy_choice, "per_flow", "per_packet")
CHOICES(tuner_choice, "bnet", "nccl", "both")
CHOICES(verb_choice, "write", "send")
CHOICES(memory_choice, "host", "gpu")
CHOICES(p2p_test_choice, "write_bw", "write_lat", "send_bw", "send_lat", "read_bw", "read_lat",
        "atomic_bw", "atomic_lat")
CHOICES(ports_choice, "all", "active")
CHOICES(prefetch_choice, "auto", "on", "off")
CHOICES(event_order_choice, "auto", "push", "keyed")
CHOICES(partition_choice, "auto", "pods")
CHOICES(fidelity_choice, "packet", "flow", "hybrid")

/* "auto", then the algorithms' registry (coll.algo = 1 + its index). */
static const char *algo_choice(size_t i)
{
    return i == 0 ? "auto" : bn_coll_algo_name(i - 1);
}

/* nccl-tests' datatypes and reductions, then "all" (a row per each). */
static const char *with_all(const char *(*names)(size_t), size_t i)
{
    size_t n = 0;
    while (names(n))
        n++;
    return i < n ? names(i) : i == n ? "all" : NULL;
}

static const char *type_choice(size_t i) { return with_all(bn_coll_type_name, i); }

static const char *redop_choice(size_t i) { return with_all(bn_coll_redop_name, i); }

/* "auto", then NCCL's protocols (coll.proto = 1 + its index). */
static const char *proto_choice(size_t i)
{
    return i == 0 ? "auto" : bn_coll_proto_name(i - 1);
}

/* "auto", then the control planes' registry (routing.control_plane =
 * 1 + its index). */
static const char *control_plane_choice(size_t i)
{
    return i == 0 ? "auto" : bn_cp_name(i - 1);
}

CHOICES(job_kind_choice, "training", "inference", "background")
CHOICES(placement_choice, "packed", "spread", "random", "explicit")
CHOICES(dtype_choice, "bf16", "fp16", "fp32", "fp8")
CHOICES(pattern_choice, "permutation", "incast", "all_to_all")
CHOICES(scaleup_comm_choice, "model", "packet")

/* "none", then the presets (fabric = 1 + its index). */
static const char *fabric_choice(size_t i)
{
    return i == 0 ? "none" : bn_scenario_preset_name(i - 1);
}

static const struct bn_key_row head[] = {
    { .info.path = "seed", INT_KEY, .info.unit = "", .info.def = "1",
      .info.doc = "Seed for every random choice in the run; same seed, same run (at most 2^53-1, "
                  "exact in any JSON reader).",
      FIELD(seed), RANGE(0, 9007199254740991.0) },

    { .info.path = "fabric", ENUM_KEY, .info.unit = "", .info.def = "none",
      .info.choice = fabric_choice,
      .info.doc = "Technology preset: sets the keys of one fabric technology first; the "
                  "scenario's other keys override them (bnet presets lists the values).",
      FIELD(fabric) },

    { .info.path = "topology.kind", ENUM_KEY, .info.unit = "", .info.def = "fat_tree",
      .info.choice = bn_topo_builder_name,
      .info.doc = bn_topo_builder_doc, /* each builder's name and summary, beside the registry */
      FIELD(topology.kind) },
    { .info.path = "topology.k", INT_KEY, .info.unit = "ports", .info.def = "8",
      .info.doc = "Switch radix (ports per switch); sets the network size. Even, 2..256 "
                  "(rail_optimized: 64 for a QM9700).",
      FIELD(topology.k) },
    { .info.path = "topology.oversubscription", FLOAT_KEY, .info.unit = "ratio", .info.def = "1",
      .info.doc = "Leaf (ToR) tier: host-facing ports per uplink port (3 = 3:1); the radix is "
                  "split k*r/(r+1) down, k/(r+1) up, which must be whole.",
      FIELD(topology.oversubscription), RANGE(0.01, 1000) },
    { .info.path = "topology.agg_oversubscription", FLOAT_KEY, .info.unit = "ratio",
      .info.def = "1",
      .info.doc = "Aggregation (spine) tier of three-tier fabrics: down ports per up port.",
      FIELD(topology.agg_oversubscription), RANGE(0.01, 1000) },
    { .info.path = "topology.gpus_per_server", INT_KEY, .info.unit = "GPUs", .info.def = "8",
      .info.doc = "GPUs per server, one NIC each: hosts are GPUs, server = host / this "
                  "(hierarchical collectives); rail_optimized: = rails (leaves per SU).",
      FIELD(topology.gpus_per_server), RANGE(1, 256) },
};

/* The topology builders' own keys (topology.servers_per_su, ...) go here. */
static const struct bn_key_row topo_tail[] = {
    { .info.path = "topology.file", STRING_KEY, .info.unit = "", .info.def = "",
      .info.doc = "file / ibnetdiscover / ns3: the topology file; relative to the scenario's "
                  "folder.",
      FIELD(topology.file) },
    { .info.path = "topology.gpu_tflops", FLOAT_KEY, .info.unit = "TFLOPS", .info.def = "0",
      .info.doc = "Dense compute per host (GPU), for the planner's Gb/s per PFLOPS; 0 = not "
                  "stated.",
      FIELD(topology.gpu_tflops), RANGE(0, 1e9) },

    { .info.path = "link.rate_gbps", FLOAT_KEY, .info.unit = "Gb/s", .info.def = "100",
      .info.doc = "Line rate of every link (fabric links too unless link.fabric_rate_gbps is set).",
      FIELD(link.rate_gbps), RANGE(0.001, 1e6) },
    { .info.path = "link.fabric_rate_gbps", FLOAT_KEY, .info.unit = "Gb/s",
      .info.def = "= link.rate_gbps",
      .info.doc = "Line rate of switch-to-switch links; unset = link.rate_gbps (a given value must be > 0).",
      FIELD(link.fabric_rate_gbps), .lo = 0.001, .hi = 1e6,
      .flags = BN_KEY_LO | BN_KEY_HI | BN_KEY_DERIVED },
    { .info.path = "link.host_cable_m", FLOAT_KEY, .info.unit = "m", .info.def = "2",
      .info.doc = "Cable length between a host and its switch.",
      FIELD(link.host_cable_m), RANGE(0, 1e6) },
    { .info.path = "link.host_cable", ENUM_KEY, .info.unit = "", .info.def = "copper",
      .info.choice = cable_choice,
      .info.doc = "Cable medium between hosts and their switch.",
      FIELD(link.host_cable) },
    { .info.path = "link.fabric_cable_m", FLOAT_KEY, .info.unit = "m", .info.def = "10",
      .info.doc = "Cable length between two switches.",
      FIELD(link.fabric_cable_m), RANGE(0, 1e6) },
    { .info.path = "link.fabric_cable", ENUM_KEY, .info.unit = "", .info.def = "fiber",
      .info.choice = cable_choice,
      .info.doc = "Cable medium between switches.",
      FIELD(link.fabric_cable) },
    { .info.path = "link.copper_ns_per_m", FLOAT_KEY, .info.unit = "ns/m", .info.def = "4.3",
      .info.doc = "Propagation delay in copper (twinax DAC).",
      FIELD(link.copper_ns_per_m), RANGE(0, 1000) },
    { .info.path = "link.fiber_ns_per_m", FLOAT_KEY, .info.unit = "ns/m", .info.def = "5.0",
      .info.doc = "Propagation delay in optical fiber.",
      FIELD(link.fiber_ns_per_m), RANGE(0, 1000) },
    { .info.path = "link.fec_ns", FLOAT_KEY, .info.unit = "ns", .info.def = "0",
      .info.doc = "Fixed forward-error-correction latency added to every link traversal.",
      FIELD(link.fec_ns), RANGE(0, 1e9) },

    { .info.path = "switch.latency_ns", FLOAT_KEY, .info.unit = "ns", .info.def = "300",
      .info.doc = "Port-to-port forwarding latency of a switch.",
      FIELD(sw.latency_ns), RANGE(0, 1e9) },
    { .info.path = "switch.forwarding", ENUM_KEY, .info.unit = "", .info.def = "cut_through",
      .info.choice = forwarding_choice,
      .info.doc = "Forward once the header is in (cut_through) or once the whole packet is.",
      FIELD(sw.forwarding) },
    { .info.path = "link.flow_control", ENUM_KEY, .info.unit = "", .info.def = "lossy",
      .info.choice = bn_fc_name,
      .info.doc = bn_fc_doc, /* each module's name and summary, beside the registry */
      FIELD(link.flow_control) },
};

/* Here come the flow-control modules' own keys (src/link/fc_*.c), then: */
static const struct bn_key_row sw_head[] = {
    { .info.path = "switch.buffer_bytes", INT_KEY, .info.unit = "bytes", .info.def = "1048576",
      .info.doc = "Packet buffer per port: the egress drop-tail limit (lossy); the receive "
                  "buffer per ingress port (credit); XOFF + headroom per ingress port (pfc). "
                  "Below 4 GiB (ports keep 32-bit queue lengths).",
      FIELD(sw.buffer_bytes), RANGE(1, 4294967294.0) },
    { .info.path = "switch.load_balancing", ENUM_KEY, .info.unit = "", .info.def = "ecmp",
      .info.choice = bn_lb_name,
      .info.doc = bn_lb_doc, /* each policy's name and summary, beside the registry */
      FIELD(sw.load_balancing) },
    { .info.path = "switch.lb_per_tier", STRING_KEY, .info.unit = "", .info.def = "",
      .info.doc = "Tiers whose policy differs, e.g. '1=ecmp 2=adaptive' (1 = leaves/ToRs).",
      FIELD(sw.lb_per_tier) },
    { .info.path = "switch.ecmp_fields", ENUM_KEY, .info.unit = "", .info.def = "dst_entropy",
      .info.choice = ecmp_fields_choice,
      .info.doc = "What ECMP hashes: destination and flow entropy (UDP source port), or one.",
      FIELD(sw.ecmp_fields) },
    { .info.path = "switch.ecmp_salt", ENUM_KEY, .info.unit = "", .info.def = "per_switch",
      .info.choice = ecmp_salt_choice,
      .info.doc = "per_switch: each switch seeds its hash; same: all alike (polarization).",
      FIELD(sw.ecmp_salt) },
};

/* Here come the load-balancing policies' own keys (src/switch/lb_*.c), then: */
static const struct bn_key_row body[] = {
    { .info.path = "switch.trim", BOOL_KEY, .info.unit = "", .info.def = "false",
      .info.doc = "Lossy links: trim a data packet that does not fit to its header, forward that "
                  "ahead of the queue, and let the receiver ask for it again (NDP, Ultra Ethernet).",
      FIELD(sw.trim) },
    { .info.path = "switch.control_reserve_bytes", INT_KEY, .info.unit = "bytes",
      .info.def = "65536",
      .info.doc = "With switch.trim: each port's room beyond buffer_bytes for trimmed headers, "
                  "ACKs and NAKs, the control class Ultra Ethernet keeps apart, so the frames "
                  "that recover a loss are not lost themselves.",
      FIELD(sw.control_reserve_bytes), RANGE(0, 1e9) },
    { .info.path = "switch.nonminimal", ENUM_KEY, .info.unit = "", .info.def = "none",
      .info.choice = nonminimal_choice,
      .info.doc = "dragonfly_plus: none (minimal routes), valiant (via a random intermediate "
                  "group), ugal (the source leaf picks minimal or Valiant by queue x hops).",
      FIELD(sw.nonminimal) },
    { .info.path = "switch.ecn.enabled", BOOL_KEY, .info.unit = "", .info.def = "true",
      .info.doc = "Mark ECN by egress queue depth (probability rising from kmin to kmax).",
      FIELD(sw.ecn.enabled) },
    { .info.path = "switch.ecn.kmin_bytes", INT_KEY, .info.unit = "bytes", .info.def = "102400",
      .info.doc = "Queue depth where ECN marking starts (<= switch.ecn.kmax_bytes).",
      FIELD(sw.ecn.kmin_bytes) },
    { .info.path = "switch.ecn.kmax_bytes", INT_KEY, .info.unit = "bytes", .info.def = "409600",
      .info.doc = "Queue depth where the marking probability reaches pmax; above it, all marked.",
      FIELD(sw.ecn.kmax_bytes) },
    { .info.path = "switch.ecn.pmax", FLOAT_KEY, .info.unit = "", .info.def = "0.2",
      .info.doc = "Marking probability at kmax, 0..1.",
      FIELD(sw.ecn.pmax), .lo = 0, .hi = 1, .flags = BN_KEY_LO | BN_KEY_HI },

    { .info.path = "nic.encap", ENUM_KEY, .info.unit = "", .info.def = "roce",
      .info.choice = bn_encap_name,
      .info.doc = "Packet headers: RoCEv2 (Ethernet/IP/UDP) or native InfiniBand.",
      FIELD(nic.encap) },
    { .info.path = "nic.mtu_bytes", INT_KEY, .info.unit = "bytes", .info.def = "4096",
      .info.doc = "Payload bytes per packet: 256..9000 for roce, 256..4096 for ib.",
      FIELD(nic.mtu_bytes) },
    { .info.path = "nic.transport", ENUM_KEY, .info.unit = "", .info.def = "go_back_n",
      .info.choice = bn_transport_name,
      .info.doc = bn_transport_doc, /* each transport's name and summary, beside the registry */
      FIELD(nic.transport) },
    { .info.path = "nic.entropy", ENUM_KEY, .info.unit = "", .info.def = "per_flow",
      .info.choice = entropy_choice,
      .info.doc = "Entropy (UDP source port) the NIC stamps: one per flow, or a new one per "
                  "packet so that ECMP sprays it (Ultra Ethernet style).",
      FIELD(nic.entropy) },
};

/* The transports' own keys (nic.sr_window, ...) go here. */
static const struct bn_key_row body_cc[] = {
    { .info.path = "nic.congestion_control", ENUM_KEY, .info.unit = "", .info.def = "none",
      .info.choice = bn_cc_name,
      .info.doc = bn_cc_doc, /* each module's name and summary, beside the registry */
      FIELD(nic.congestion_control) },
    { .info.path = "nic.cnp_interval_us", FLOAT_KEY, .info.unit = "us", .info.def = "= preset",
      .info.doc = "Receiver sends at most one congestion notification per queue pair per "
                  "interval; unset = dcqcn.preset's (nvidia 4, paper 50), ib_cc 0.",
      FIELD(nic.cnp_interval_us), .lo = 0, .hi = 1e6,
      .flags = BN_KEY_LO | BN_KEY_HI | BN_KEY_DERIVED },
};

/* Here come the congestion-control modules' own keys (src/nic/cc_*.c), then: */
static const struct bn_key_row mid[] = {
    { .info.path = "nic.rto_us", FLOAT_KEY, .info.unit = "us",
      .info.def = "= 100 lossy, 10000 lossless",
      .info.doc = "Retransmission timeout; unset = 100 us on lossy links, 10 ms on lossless "
                  "ones (where a short timer only fires spuriously behind pauses); never "
                  "longer than the local ACK timeout (nic.ack_timeout), IB's transport timer.",
      FIELD(nic.rto_us), .lo = 0.001, .hi = 1e9, .flags = BN_KEY_LO | BN_KEY_HI | BN_KEY_DERIVED },
    { .info.path = "nic.retry_cnt", INT_KEY, .info.unit = "retries", .info.def = "7",
      .info.doc = "Retransmissions without progress, each a local ACK timeout apart, before a "
                  "queue pair goes to the error state and its flow or collective fails (IB RC "
                  "retry_cnt, 3 bits; NCCL_IB_RETRY_CNT defaults to 7).",
      FIELD(nic.retry_cnt), RANGE(0, 7) },
    { .info.path = "nic.ack_timeout", INT_KEY, .info.unit = "", .info.def = "20",
      .info.doc = "Local ACK timeout exponent: 4.096 us x 2^this (IB spec 12.7.34; "
                  "NCCL_IB_TIMEOUT, 20 since NCCL 2.23: 4.3 s, 8 x 4.3 s with 7 retries); 0 = a "
                  "queue pair never fails. It caps nic.rto_us, which retransmits.",
      FIELD(nic.ack_timeout), RANGE(0, 31) },
    { .info.path = "nic.rto_backoff", BOOL_KEY, .info.unit = "", .info.def = "true",
      .info.doc = "The retransmission timer doubles per timeout without progress, up to the "
                  "local ACK timeout (NVIDIA ConnectX adaptive retransmission); false: it stays "
                  "nic.rto_us.",
      FIELD(nic.rto_backoff) },
    { .info.path = "nic.ack_every", INT_KEY, .info.unit = "packets", .info.def = "1",
      .info.doc = "Receiver ACKs every N data packets (and always the last one).",
      FIELD(nic.ack_every), AT_LEAST(1) },
    { .info.path = "nic.tx_ns", FLOAT_KEY, .info.unit = "ns", .info.def = "0",
      .info.doc = "Send processing: a work request fetched to its first byte on the wire "
                  "(0: an ideal NIC; presets set their NIC's, docs/endpoints.md).",
      FIELD(nic.tx_ns), RANGE(0, 1e6) },
    { .info.path = "nic.rx_ns", FLOAT_KEY, .info.unit = "ns", .info.def = "0",
      .info.doc = "Receive processing: a message's last byte in to its DMA write issued.",
      FIELD(nic.rx_ns), RANGE(0, 1e6) },
    { .info.path = "nic.msg_rate_mpps", FLOAT_KEY, .info.unit = "M/s", .info.def = "0",
      .info.doc = "Work requests the NIC processes per second, in millions, shared by its "
                  "queue pairs (0: no limit).",
      FIELD(nic.msg_rate_mpps), RANGE(0, 1e6) },
    { .info.path = "nic.qp_cache", INT_KEY, .info.unit = "QPs", .info.def = "0",
      .info.doc = "Queue-pair contexts the NIC caches; sending on another costs a PCIe round "
                  "trip of its send pipeline (0: every context fits).",
      FIELD(nic.qp_cache), RANGE(0, 1e9) },
    { .info.path = "nic.max_rd_atomic", INT_KEY, .info.unit = "requests", .info.def = "16",
      .info.doc = "RDMA READs and atomics a queue pair keeps outstanding (IB max_rd_atomic; "
                  "perftest -o).",
      FIELD(nic.max_rd_atomic), RANGE(1, 65536) },
    { .info.path = "nic.inline_bytes", INT_KEY, .info.unit = "bytes", .info.def = "0",
      .info.doc = "A work request whose data is at most this size is pushed with its "
                  "doorbell: no work-request or data fetch over PCIe (READ and atomic requests "
                  "carry none; 0: every one is fetched; perftest -I).",
      FIELD(nic.inline_bytes), RANGE(0, 4096) },
    { .info.path = "nic.rx_buffer_bytes", INT_KEY, .info.unit = "bytes", .info.def = "1048576",
      .info.doc = "The NIC's receive buffer: data packets waiting for the receive DMA (with "
                  "host.pcie_gen) hold at most this; on lossy links one that would overflow it "
                  "is dropped (counted in drops, at the host's port). Credits hold a waiting "
                  "packet's credit instead; PFC from a NIC is not modelled.",
      FIELD(nic.rx_buffer_bytes), RANGE(1, 1e15) },

    { .info.path = "host.pcie_gen", INT_KEY, .info.unit = "", .info.def = "0",
      .info.doc = "PCIe generation between NIC and memory, 1..6 (its lane rate caps the "
                  "NIC's DMA); 0: no PCIe model, memory is free to the NIC.",
      FIELD(host.pcie_gen), RANGE(0, 6) },
    { .info.path = "host.pcie_lanes", INT_KEY, .info.unit = "lanes", .info.def = "16",
      .info.doc = "PCIe link width.",
      FIELD(host.pcie_lanes), RANGE(1, 32) },
    { .info.path = "host.pcie_ns", FLOAT_KEY, .info.unit = "ns", .info.def = "0",
      .info.doc = "One-way PCIe latency between NIC and host memory (doorbell, work request "
                  "and completion); with host.pcie_gen 0, ignored.",
      FIELD(host.pcie_ns), RANGE(0, 1e6) },
    { .info.path = "host.gpu_pcie_ns", FLOAT_KEY, .info.unit = "ns", .info.def = "0",
      .info.doc = "One-way latency between NIC and GPU memory (GPUDirect RDMA, through the "
                  "PCIe switch both sit under).",
      FIELD(host.gpu_pcie_ns), RANGE(0, 1e6) },
    { .info.path = "host.memory", ENUM_KEY, .info.unit = "", .info.def = "host",
      .info.choice = memory_choice,
      .info.doc = "Where message data lives: host memory, or GPU memory (GPUDirect RDMA).",
      FIELD(host.memory) },

    { .info.path = "workload.kind", ENUM_KEY, .info.unit = "", .info.def = "permutation",
      .info.choice = bn_workload_name,
      .info.doc = bn_workload_doc, /* each generator's name and summary, beside the registry */
      FIELD(workload.kind) },
    { .info.path = "workload.message_bytes", INT_KEY, .info.unit = "bytes", .info.def = "2000000",
      .info.doc = "Bytes per flow (permutation, incast, all_to_all).",
      FIELD(workload.message_bytes), RANGE(1, 1e12) },
    { .info.path = "workload.messages", INT_KEY, .info.unit = "", .info.def = "1",
      .info.doc = "Messages each flow's bytes are posted as, all at its start on its queue "
                  "pair (bnet run's message latencies are theirs).",
      FIELD(workload.messages), RANGE(1, 1000000) },
    { .info.path = "workload.verb", ENUM_KEY, .info.unit = "", .info.def = "write",
      .info.choice = verb_choice,
      .info.doc = "RDMA operation used by each flow.",
      FIELD(workload.verb) },
    { .info.path = "workload.start_us", FLOAT_KEY, .info.unit = "us", .info.def = "0",
      .info.doc = "Simulated time when generated flows start.",
      FIELD(workload.start_us), RANGE(0, 1e12) },
    { .info.path = "workload.incast_senders", INT_KEY, .info.unit = "hosts", .info.def = "8",
      .info.doc = "incast: number of sending hosts.",
      FIELD(workload.incast_senders), AT_LEAST(1) },
};

/* Here come the workload generators' own keys (src/workload/NAME.c), then: */
static const struct bn_key_row mid_obs[] = {
    { .info.path = "observe.sample_us", FLOAT_KEY, .info.unit = "us", .info.def = "10",
      .info.doc = "Interval of the time series (flow rates, DCQCN alpha, queue depths); 0 = none.",
      FIELD(observe.sample_us), RANGE(0, 1e9) },
    { .info.path = "observe.max_flows", INT_KEY, .info.unit = "flows", .info.def = "64",
      .info.doc = "How many flows (the first N) the time series follows.",
      FIELD(observe.max_flows), RANGE(0, 100000) },
    { .info.path = "observe.ports", ENUM_KEY, .info.unit = "", .info.def = "all",
      .info.choice = ports_choice,
      .info.doc = "Ports listed in the results: all (every link direction: hot and idle links) "
                  "or active (only those with pauses, ECN marks or drops).",
      FIELD(observe.ports) },
    { .info.path = "observe.queue_ports", STRING_KEY, .info.unit = "", .info.def = "",
      .info.doc = "Ports whose queue depth is sampled, e.g. 'tor0/0 agg1/2'; empty = the "
                  "ports facing the sampled flows' receivers.",
      FIELD(observe.queue_ports) },
    { .info.path = "observe.max_samples", INT_KEY, .info.unit = "samples", .info.def = "1024",
      .info.doc = "Most samples a series keeps: past it every other one goes and the interval "
                  "doubles.",
      FIELD(observe.max_samples), RANGE(2, 10000000) },
    { .info.path = "observe.link_rows", INT_KEY, .info.unit = "rows", .info.def = "0",
      .info.doc = "Rows of the link utilization and pause series: every link direction when "
                  "the fabric has no more, else runs of links of one tier pair; 0 = none "
                  "(--plot makes it 128).",
      FIELD(observe.link_rows), RANGE(0, 1000000) },
    { .info.path = "observe.slowdown_step_pct", FLOAT_KEY, .info.unit = "%", .info.def = "5",
      .info.doc = "FCT slowdown buckets: flows sorted by size, this percent of them per bucket "
                  "(the HPCC paper's analysis).",
      FIELD(observe.slowdown_step_pct), RANGE(0.1, 100) },
    { .info.path = "observe.slowdown_edges", STRING_KEY, .info.unit = "bytes", .info.def = "",
      .info.doc = "FCT slowdown buckets cut at these sizes instead ('10K,100K,1M': <=10K, "
                  "<=100K, <=1M, larger); \"\": by observe.slowdown_step_pct.",
      FIELD(observe.slowdown_edges) },
    { .info.path = "routing.control_plane", ENUM_KEY, .info.unit = "", .info.def = "auto",
      .info.choice = control_plane_choice,
      .info.doc = bn_cp_doc, /* each plane's name and summary, then auto, beside the registry */
      FIELD(routing.control_plane) },
};

/* Here come the control planes' own keys (src/fault/cp_*.c), then: */
static const struct bn_key_row mid2[] = {
    { .info.path = "routing.restore_fraction", FLOAT_KEY, .info.unit = "ratio", .info.def = "0.95",
      .info.doc = "Traffic counts as restored after a fault once the fabric delivers this share "
                  "of its rate before the fault.",
      FIELD(routing.restore_fraction), RANGE(0.01, 1) },
    { .info.path = "routing.window_us", FLOAT_KEY, .info.unit = "us", .info.def = "0",
      .info.doc = "Window over which delivered bytes give the rate before and after a fault; "
                  "0 = auto (50 x the longest link's delay, at least 10 us).",
      FIELD(routing.window_us), RANGE(0, 1e9) },

    { .info.path = "routing.stuck_us", FLOAT_KEY, .info.unit = "us", .info.def = "100000",
      .info.doc = "With nic.ack_timeout 0 (queue pairs retry for ever): once no fault or route "
                  "change has happened for this long, a queue pair that has made no progress "
                  "for as long has no working path: it fails, so the run ends. A queue pair "
                  "with a retry budget keeps it.",
      FIELD(routing.stuck_us), RANGE(1, 1e9) },

    { .info.path = "routing.baseline", BOOL_KEY, .info.unit = "", .info.def = "true",
      .info.doc = "With faults, also run the scenario without them and report the slowdown "
                  "(bnet coll: per row); false halves the time.",
      FIELD(routing.baseline) },

    { .info.path = "faults[].kind", ENUM_KEY, .info.unit = "", .info.def = "link_down",
      .info.choice = bn_fault_kind_name,
      .info.doc = bn_fault_kind_doc, /* each kind's name and summary, beside the registry */
      ITEM(kind) },
    { .info.path = "faults[].at_us", FLOAT_KEY, .info.unit = "us", .info.def = "0",
      .info.doc = "When it strikes (simulated time).",
      ITEM(at_us), RANGE(0, 1e9) },
    { .info.path = "faults[].until_us", FLOAT_KEY, .info.unit = "us", .info.def = "0",
      .info.doc = "When it is over (link back up, rate or BER back to normal); 0 = for good.",
      ITEM(until_us), RANGE(0, 1e9) },
    { .info.path = "faults[].target", STRING_KEY, .info.unit = "", .info.def = "",
      .info.doc = "A link by its two ends (\"tor0 agg1\") or a port (\"tor0/5\"); a switch "
                  "(\"spine1\"); a host (\"host3\"); ocs_reconfigure: two circuits "
                  "(\"a b c d\": a-b and c-d become a-d and c-b).",
      ITEM(target) },
};

/* Here come the fault kinds' own faults[] keys (src/fault/kind_*.c), then: */
static const struct bn_key_row tail[] = {
    { .info.path = "faults[].instant", BOOL_KEY, .info.unit = "", .info.def = "false",
      .info.doc = "The control plane knows at once: every switch's routes change as the fault "
                  "strikes (and ends), with no detection or propagation delay (a link known "
                  "down before the run, as htsim's failure lines fail it).",
      ITEM(instant) },

    { .info.path = "jobs[].kind", ENUM_KEY, .info.unit = "", .info.def = "training",
      .info.choice = job_kind_choice,
      .info.doc = "A list item of jobs: (at most 8): training (iterations of forward, backward "
                  "and optimizer), inference (a prefill and a decode step) or background "
                  "(flows of `pattern` over its hosts, repeated until the other jobs finish).",
      JOB(kind) },
    { .info.path = "jobs[].name", STRING_KEY, .info.unit = "", .info.def = "",
      .info.doc = "Its name in reports and traces; empty = job<index>.", JOB(name) },
    { .info.path = "jobs[].gpus", INT_KEY, .info.unit = "GPUs", .info.def = "0",
      .info.doc = "GPUs it runs on; 0 = tp x cp x pp x dp (background: required).",
      JOB(gpus), RANGE(0, 1 << 24) },
    { .info.path = "jobs[].placement", ENUM_KEY, .info.unit = "", .info.def = "packed",
      .info.choice = placement_choice,
      .info.doc = "Which hosts: packed (the next free ones), spread (a server from each leaf "
                  "switch in turn), random (free servers in a seeded order), explicit (ranks).",
      JOB(placement) },
    { .info.path = "jobs[].ranks", STRING_KEY, .info.unit = "", .info.def = "",
      .info.doc = "placement explicit: its hosts in rank order, e.g. \"0-63,128-191\".",
      JOB(ranks) },
    { .info.path = "jobs[].start_us", FLOAT_KEY, .info.unit = "us", .info.def = "0",
      .info.doc = "When its first iteration starts.", JOB(start_us), RANGE(0, 1e12) },
    { .info.path = "jobs[].iterations", INT_KEY, .info.unit = "", .info.def = "1",
      .info.doc = "Iterations run back to back (inference: prefill + decode steps).",
      JOB(iterations), RANGE(1, 1000000) },
    { .info.path = "jobs[].tp", INT_KEY, .info.unit = "GPUs", .info.def = "1",
      .info.doc = "Tensor-parallel degree: consecutive ranks, inside a server when it fits.",
      JOB(tp), RANGE(1, 1 << 16) },
    { .info.path = "jobs[].cp", INT_KEY, .info.unit = "GPUs", .info.def = "1",
      .info.doc = "Context-parallel degree: the sequence split, keys and values gathered per "
                  "layer.", JOB(cp), RANGE(1, 1 << 16) },
    { .info.path = "jobs[].dp", INT_KEY, .info.unit = "GPUs", .info.def = "0",
      .info.doc = "Data-parallel degree; 0 = gpus / (tp x cp x pp), or 1 without gpus.",
      JOB(dp), RANGE(0, 1 << 24) },
    { .info.path = "jobs[].pp", INT_KEY, .info.unit = "stages", .info.def = "1",
      .info.doc = "Pipeline stages (1F1B schedule, Megatron-LM's), layers split evenly.",
      JOB(pp), RANGE(1, 1 << 16) },
    { .info.path = "jobs[].ep", INT_KEY, .info.unit = "GPUs", .info.def = "1",
      .info.doc = "Expert-parallel degree, carved out of data parallelism (divides dp and "
                  "experts).", JOB(ep), RANGE(1, 1 << 16) },
    { .info.path = "jobs[].layers", INT_KEY, .info.unit = "", .info.def = "32",
      .info.doc = "Transformer layers (default shape: Llama 2 7B, Touvron et al. 2023).",
      JOB(layers), RANGE(1, 1 << 16) },
    { .info.path = "jobs[].hidden", INT_KEY, .info.unit = "", .info.def = "4096",
      .info.doc = "Hidden size h.", JOB(hidden), RANGE(1, 1 << 20) },
    { .info.path = "jobs[].ffn_hidden", INT_KEY, .info.unit = "", .info.def = "11008",
      .info.doc = "MLP inner size; 0 = 4 x hidden.", JOB(ffn_hidden), RANGE(0, 1 << 22) },
    { .info.path = "jobs[].heads", INT_KEY, .info.unit = "", .info.def = "32",
      .info.doc = "Attention heads.", JOB(heads), RANGE(1, 1 << 16) },
    { .info.path = "jobs[].kv_heads", INT_KEY, .info.unit = "", .info.def = "0",
      .info.doc = "Key/value heads (grouped-query attention); 0 = heads.", JOB(kv_heads),
      RANGE(0, 1 << 16) },
    { .info.path = "jobs[].seq_len", INT_KEY, .info.unit = "tokens", .info.def = "4096",
      .info.doc = "Sequence length (inference: the prompt; decode attends to it).",
      JOB(seq_len), RANGE(1, 1 << 24) },
    { .info.path = "jobs[].vocab", INT_KEY, .info.unit = "", .info.def = "32000",
      .info.doc = "Vocabulary: the output layer's size on the last stage.", JOB(vocab),
      RANGE(1, 1 << 24) },
    { .info.path = "jobs[].micro_batch", INT_KEY, .info.unit = "sequences", .info.def = "1",
      .info.doc = "Sequences per micro-batch (inference: requests batched per step).",
      JOB(micro_batch), RANGE(1, 1 << 20) },
    { .info.path = "jobs[].global_batch", INT_KEY, .info.unit = "sequences", .info.def = "0",
      .info.doc = "Sequences per iteration, a multiple of micro_batch x dp; 0 = micro_batch x "
                  "dp x pp (pp micro-batches per pipeline).", JOB(global_batch),
      RANGE(0, 1 << 30) },
    { .info.path = "jobs[].experts", INT_KEY, .info.unit = "", .info.def = "0",
      .info.doc = "MoE: experts per MoE layer (every layer); 0 = a dense model.", JOB(experts),
      RANGE(0, 1 << 16) },
    { .info.path = "jobs[].top_k", INT_KEY, .info.unit = "", .info.def = "2",
      .info.doc = "MoE: experts each token is routed to.", JOB(top_k), RANGE(1, 1 << 10) },
    { .info.path = "jobs[].dtype", ENUM_KEY, .info.unit = "", .info.def = "bf16",
      .info.choice = dtype_choice,
      .info.doc = "Activations and weights: bf16, fp16, fp32, fp8.", JOB(dtype) },
    { .info.path = "jobs[].grad_dtype", ENUM_KEY, .info.unit = "", .info.def = "bf16",
      .info.choice = dtype_choice,
      .info.doc = "Gradients as reduced across data parallelism (fp32: Megatron-LM's "
                  "--accumulate-allreduce-grads-in-fp32).", JOB(grad_dtype) },
    { .info.path = "jobs[].gpu_tflops", FLOAT_KEY, .info.unit = "TFLOP/s", .info.def = "989",
      .info.doc = "A GPU's dense peak at dtype (989: H100 SXM BF16, NVIDIA's datasheet).",
      JOB(gpu_tflops), RANGE(1e-3, 1e7) },
    { .info.path = "jobs[].utilization", FLOAT_KEY, .info.unit = "", .info.def = "0.5",
      .info.doc = "Share of the peak the model's kernels reach (compute time = FLOPs / "
                  "(gpu_tflops x utilization)).", JOB(utilization), .lo = 0, .hi = 1,
      .flags = BN_KEY_LO | BN_KEY_LO_EXCL | BN_KEY_HI },
    { .info.path = "jobs[].gpu_hbm_gbs", FLOAT_KEY, .info.unit = "GB/s", .info.def = "3350",
      .info.doc = "GPU memory bandwidth: a decode step reads the weights and KV cache at it "
                  "(3350: H100 SXM).", JOB(gpu_hbm_gbs), RANGE(1e-3, 1e7) },
    { .info.path = "jobs[].forward_us", FLOAT_KEY, .info.unit = "us", .info.def = "0",
      .info.doc = "A layer's forward per micro-batch, given instead of from FLOPs (0: from "
                  "FLOPs).", JOB(forward_us), RANGE(0, 1e9) },
    { .info.path = "jobs[].backward_us", FLOAT_KEY, .info.unit = "us", .info.def = "0",
      .info.doc = "A layer's backward per micro-batch; 0 = 2 x forward.", JOB(backward_us),
      RANGE(0, 1e9) },
    { .info.path = "jobs[].optimizer_us", FLOAT_KEY, .info.unit = "us", .info.def = "0",
      .info.doc = "The optimizer step, after the last gradient reduction.", JOB(optimizer_us),
      RANGE(0, 1e9) },
    { .info.path = "jobs[].bucket_mb", FLOAT_KEY, .info.unit = "MiB", .info.def = "25",
      .info.doc = "Gradient bucket, reduced once its layers' backward is done (PyTorch DDP "
                  "bucket_cap_mb, default 25).", JOB(bucket_mb), RANGE(1e-3, 1e6) },
    { .info.path = "jobs[].overlap", BOOL_KEY, .info.unit = "", .info.def = "true",
      .info.doc = "Reduce gradient buckets during the last micro-batch's backward (false: "
                  "after it).", JOB(overlap) },
    { .info.path = "jobs[].sequence_parallel", BOOL_KEY, .info.unit = "", .info.def = "false",
      .info.doc = "Megatron-LM's sequence parallelism: TP all-reduces become all-gather + "
                  "reduce-scatter and tokens outside attention are split across TP.",
      JOB(sequence_parallel) },
    { .info.path = "jobs[].gated_mlp", BOOL_KEY, .info.unit = "", .info.def = "true",
      .info.doc = "SwiGLU MLP (three matrices) rather than two.", JOB(gated_mlp) },
    { .info.path = "jobs[].untie_embeddings", BOOL_KEY, .info.unit = "", .info.def = "false",
      .info.doc = "The input embedding and the output layer are separate weights (Megatron-LM's "
                  "--untie-embeddings-and-output-weights; Llama 2). false: one shared weight, "
                  "its gradient all-reduced between the first and the last stage when pp > 1.",
      JOB(untie_embeddings) },
    { .info.path = "jobs[].pp_scatter_gather", BOOL_KEY, .info.unit = "", .info.def = "false",
      .info.doc = "Narayanan et al.'s scatter/gather (SC'21, sec. 4.1): each TP rank sends a "
                  "1/tp slice of the activation to the next stage, which all-gathers it over "
                  "its TP group. false: each TP rank sends the whole (replicated) activation. "
                  "With sequence_parallel each rank sends its own 1/tp of the tokens either way.",
      JOB(pp_scatter_gather) },
    { .info.path = "jobs[].scaleup", ENUM_KEY, .info.unit = "", .info.def = "model",
      .info.choice = scaleup_comm_choice,
      .info.doc = "Collectives whose ranks share one NVLink domain: model (the tuner's "
                  "alpha-beta time on the non-blocking NVSwitch) or packet (simulated).",
      JOB(scaleup) },
    { .info.path = "jobs[].network", BOOL_KEY, .info.unit = "", .info.def = "true",
      .info.doc = "false: communication takes no time (the compute-only iteration).",
      JOB(network) },
    { .info.path = "jobs[].alone", BOOL_KEY, .info.unit = "", .info.def = "false",
      .info.doc = "Also run it alone on the same fabric and hosts, and report its slowdown.",
      JOB(alone) },
    { .info.path = "jobs[].workload_file", STRING_KEY, .info.unit = "", .info.def = "",
      .info.doc = "Training: take the iteration from a SimAI/AICB (ASTRA-sim 1.x) workload "
                  "text file, or from Chakra execution traces (rank 0's NAME.0.et, rank r's "
                  "NAME.r.et), instead of the model keys (docs/jobs.md); a relative path is "
                  "taken from the scenario file's folder.", JOB(workload_file) },
    { .info.path = "jobs[].pattern", ENUM_KEY, .info.unit = "", .info.def = "permutation",
      .info.choice = pattern_choice,
      .info.doc = "background: permutation (each host to another), incast (all to its first "
                  "host) or all_to_all.", JOB(pattern) },
    { .info.path = "jobs[].bytes", INT_KEY, .info.unit = "bytes", .info.def = "1048576",
      .info.doc = "background: each flow's size; a flow starts again when it completes.",
      JOB(bytes), RANGE(1, 1e12) },

    { .info.path = "sim.memory_limit_bytes", INT_KEY, .info.unit = "bytes", .info.def = "0",
      .info.doc = "A run whose estimated memory passes this is refused before it is built "
                  "(docs/limits.md); 0 = the memory available (MemAvailable).",
      FIELD(sim.memory_limit_bytes), RANGE(0, 1e18) },
    { .info.path = "sim.max_time_us", FLOAT_KEY, .info.unit = "us", .info.def = "0",
      .info.doc = "Stop at this simulated time; 0 runs until every flow completes.",
      FIELD(sim.max_time_us), RANGE(0, 1e12) },
    { .info.path = "sim.stall_us", FLOAT_KEY, .info.unit = "us", .info.def = "10000",
      .info.doc = "Stop a livelock: a run whose flows delivered nothing in order for this long "
                  "while frames kept arriving stops, marked stalled; 0 = never.",
      FIELD(sim.stall_us), RANGE(0, 1e12) },
    { .info.path = "sim.prefetch", ENUM_KEY, .info.unit = "", .info.def = "auto",
      .info.choice = prefetch_choice,
      .info.doc = "Software prefetching in the event loop, and event-queue pushes written "
                  "behind (speed only: results are the same). auto: prefetching for fabrics of "
                  "4096 ports or more, writing behind from 32768, where the state outgrows the "
                  "caches.",
      FIELD(sim.prefetch) },
    { .info.path = "sim.fidelity", ENUM_KEY, .info.unit = "", .info.def = "packet",
      .info.choice = fidelity_choice,
      .info.doc = "packet: every packet through queues, flow control and congestion control. "
                  "flow: each queue pair's data as a flow at its max-min fair share of the "
                  "links it crosses, same routes and endpoints (docs/flow_level.md). hybrid: "
                  "packets for the queue pairs whose path enters sim.region, flows for the "
                  "rest (docs/hybrid.md).",
      FIELD(sim.fidelity) },
    { .info.path = "sim.region", STRING_KEY, .info.unit = "", .info.def = "",
      .info.doc = "With sim.fidelity hybrid, where packets run: 'hosts:0-15,32' (those hosts, "
                  "their leaves and every switch whose links down all lead into them: a pod's "
                  "aggregation layer), 'switches:tor0,agg1' (by name), "
                  "'job:NAME' (bnet job: the job's hosts, by name or index) or 'fault:I:N' (the "
                  "nodes within N hops, 0-8, of faults[I]'s target). A queue pair whose "
                  "data or ACKs pass a region node runs at packet level end to end.",
      FIELD(sim.region) },
    { .info.path = "sim.hybrid_update_us", FLOAT_KEY, .info.unit = "us", .info.def = "1",
      .info.doc = "With sim.fidelity hybrid: how often a link that packets and flows both "
                  "cross is given, for its packets, its rate less the flows' load on it.",
      FIELD(sim.hybrid_update_us), BN_ROW_RANGE(0.01, 1e6) },
    { .info.path = "sim.hybrid_queues", BOOL_KEY, .info.unit = "", .info.def = "false",
      .info.doc = "With sim.fidelity hybrid: a switch port that packets and flows both cross "
                  "counts, for its packets' ECN marks, the M/D/1 queue of the flows' load on it; "
                  "false: the flows leave no queue there (docs/hybrid.md).",
      FIELD(sim.hybrid_queues) },
    { .info.path = "sim.event_order", ENUM_KEY, .info.unit = "", .info.def = "auto",
      .info.choice = event_order_choice,
      .info.doc = "Simultaneous events (the same picosecond) in the order they were "
                  "scheduled (push), or by kind and then the port or queue pair they are for "
                  "(keyed: the same however the fabric is partitioned; slower on fabrics in "
                  "lockstep). auto: keyed when sim.partitions is set (docs/parallel.md).",
      FIELD(sim.event_order) },
    { .info.path = "sim.partitions", INT_KEY, .info.unit = "", .info.def = "0",
      .info.doc = "Cut the fabric into this many parts along links and run them in "
                  "synchronous windows of the cut links' least propagation delay, frames and "
                  "flow-control signals crossing a cut held to the window's end, as separate "
                  "processes would exchange them; results are byte-identical for any count "
                  "(docs/parallel.md). 0 = one loop, no windows.",
      FIELD(sim.partitions), RANGE(0, 65536) },
    { .info.path = "sim.partition", ENUM_KEY, .info.unit = "", .info.def = "auto",
      .info.choice = partition_choice,
      .info.doc = "How sim.partitions cuts the fabric: auto balances hosts, each leaf with its "
                  "hosts (and their NVLink domain) kept whole, every other switch with the part "
                  "most of its links reach; pods keeps whole pods (a fat-tree's pod, a "
                  "Dragonfly+ group, a rail-optimized scalable unit), cutting only above them.",
      FIELD(sim.partition) },
    { .info.path = "sim.window_timeout_s", FLOAT_KEY, .info.unit = "s", .info.def = "300",
      .info.doc = "On mpirun's ranks: the longest a rank waits at an exchange for the others; "
                  "past it the rank says so and exits 1, ending the job (docs/parallel.md). "
                  "0 = wait forever.",
      FIELD(sim.window_timeout_s), RANGE(0, 1e6) },

    { .info.path = "scale_up.domain_gpus", INT_KEY, .info.unit = "GPUs", .info.def = "0",
      .info.doc = "GPUs per NVLink/NVSwitch domain: hosts h with equal h / domain_gpus share "
                  "one, over a second port of their own beside the NIC; traffic between them "
                  "takes it. 0 = no scale-up domain; 8 = one per 8-GPU server; 72 = NVL72.",
      FIELD(scale_up.domain_gpus), RANGE(0, 1000000) },
    { .info.path = "scale_up.rate_gbps", FLOAT_KEY, .info.unit = "Gb/s", .info.def = "3600",
      .info.doc = "NVLink bandwidth per GPU, each direction (H100 NVLink 4: 900 GB/s both "
                  "ways = 3600 Gb/s each way; B200 NVLink 5: 7200).",
      FIELD(scale_up.rate_gbps), RANGE(0.001, 1e6) },
    { .info.path = "scale_up.efficiency", FLOAT_KEY, .info.unit = "", .info.def = "0.824",
      .info.doc = "The share of scale_up.rate_gbps that carries data, NVLink's protocol taking "
                  "the rest: NCCL counts 20.6 GB/s per NVLink 4 link of 25 (0.824) and 40.1 per "
                  "NVLink 5 link of 50 (0.802; NVIDIA/nccl src/graph/topo.h, "
                  "SM90/SM100_NVLINK_BW).",
      FIELD(scale_up.efficiency), RANGE(0.01, 1) },
    { .info.path = "scale_up.latency_ns", FLOAT_KEY, .info.unit = "ns", .info.def = "250",
      .info.doc = "NVSwitch forwarding latency (added to the GPU-to-NVSwitch link).",
      FIELD(scale_up.latency_ns), RANGE(0, 1e6) },
    { .info.path = "scale_up.nvls", BOOL_KEY, .info.unit = "", .info.def = "false",
      .info.doc = "NVLink SHARP (NVLS): each domain's NVSwitch reduces and multicasts in the "
                  "switch (third-generation NVSwitch, H100 and later), so coll.algo nvls can "
                  "run (docs/collectives.md, NVLS).",
      FIELD(scale_up.nvls) },
    { .info.path = "scale_up.nvls_efficiency", FLOAT_KEY, .info.unit = "", .info.def = "0.85",
      .info.doc = "The NVSwitch's NVLS engine throughput as a fraction of its GPU ports' rate: "
                  "NCCL's nvlsEfficiency, 0.85 for Hopper, 0.74 for Blackwell (NVIDIA/nccl "
                  "src/graph/tuning.cc, 2.23 and later).",
      FIELD(scale_up.nvls_efficiency), RANGE(0.01, 1) },

    { .info.path = "cost.switch_usd", FLOAT_KEY, .info.unit = "USD", .info.def = "0",
      .info.doc = "A fabric switch of the preset's class, list-price class (an estimate); 0: not stated (docs/topologies.md).",
      FIELD(cost.switch_usd), RANGE(0, 1e9) },
    { .info.path = "cost.switch_w", FLOAT_KEY, .info.unit = "W", .info.def = "0",
      .info.doc = "A fabric switch's typical power; 0: not stated (docs/topologies.md).",
      FIELD(cost.switch_w), RANGE(0, 1e9) },
    { .info.path = "cost.switch_ports", INT_KEY, .info.unit = "ports", .info.def = "0",
      .info.doc = "The ports of that switch class: a switch is counted as its ports over this "
                  "many (a radix-32 leaf as half a 64-port switch), in price and power; 0: "
                  "each switch whole, whatever its radix (docs/topologies.md).",
      FIELD(cost.switch_ports), RANGE(0, 100000) },
    { .info.path = "cost.nic_usd", FLOAT_KEY, .info.unit = "USD", .info.def = "0",
      .info.doc = "A host's backend NIC, list-price class (an estimate); 0: not stated (docs/topologies.md).",
      FIELD(cost.nic_usd), RANGE(0, 1e9) },
    { .info.path = "cost.nic_w", FLOAT_KEY, .info.unit = "W", .info.def = "0",
      .info.doc = "A backend NIC's typical power; 0: not stated (docs/topologies.md).",
      FIELD(cost.nic_w), RANGE(0, 1e9) },
    { .info.path = "cost.transceiver_usd", FLOAT_KEY, .info.unit = "USD", .info.def = "0",
      .info.doc = "An optical transceiver (two per fiber link), list-price class (an estimate); 0: not stated (docs/topologies.md).",
      FIELD(cost.transceiver_usd), RANGE(0, 1e9) },
    { .info.path = "cost.transceiver_w", FLOAT_KEY, .info.unit = "W", .info.def = "0",
      .info.doc = "An optical transceiver's typical power; 0: not stated (docs/topologies.md).",
      FIELD(cost.transceiver_w), RANGE(0, 1e9) },
    { .info.path = "cost.dac_usd", FLOAT_KEY, .info.unit = "USD", .info.def = "0",
      .info.doc = "A copper (DAC) cable, list-price class (an estimate); 0: not stated (docs/topologies.md).",
      FIELD(cost.dac_usd), RANGE(0, 1e9) },
    { .info.path = "cost.fiber_usd", FLOAT_KEY, .info.unit = "USD", .info.def = "0",
      .info.doc = "A fiber cable without its transceivers, list-price class (an estimate); 0: not stated (docs/topologies.md).",
      FIELD(cost.fiber_usd), RANGE(0, 1e9) },
    { .info.path = "compare.fabrics", STRING_KEY, .info.unit = "",
      .info.def = "auto",
      .info.doc = "bnet compare's fabrics: technology presets, comma-separated (--fabrics; at "
                  "most 8); auto: ib-ndr, roce-400g, uec-800g, and each scale-up preset "
                  "(nvlink5) whose one domain holds the whole cluster.",
      FIELD(compare.fabrics) },
    { .info.path = "p2p.test", ENUM_KEY, .info.unit = "", .info.def = "write_lat",
      .info.choice = p2p_test_choice,
      .info.doc = "bnet p2p's test, as perftest's ib_write_bw, ib_write_lat, ... (--test).",
      FIELD(p2p.test) },
    { .info.path = "p2p.bytes", INT_KEY, .info.unit = "bytes", .info.def = "2",
      .info.doc = "Message size (-s); 0: every power of two from 2 B to 8 MiB (-a).",
      FIELD(p2p.bytes), RANGE(0, 1ull << 32) },
    { .info.path = "p2p.iterations", INT_KEY, .info.unit = "", .info.def = "0",
      .info.doc = "Messages per size and queue pair (-n); 0: perftest's, 5000 for write_bw "
                  "and 1000 for the others.",
      FIELD(p2p.iterations), RANGE(0, 1e8) },
    { .info.path = "p2p.qps", INT_KEY, .info.unit = "QPs", .info.def = "1",
      .info.doc = "Queue pairs a bandwidth test spreads its messages over (-q).",
      FIELD(p2p.qps), RANGE(1, 65536) },
    { .info.path = "p2p.tx_depth", INT_KEY, .info.unit = "messages", .info.def = "128",
      .info.doc = "Messages a bandwidth test keeps outstanding per queue pair (-t).",
      FIELD(p2p.tx_depth), RANGE(1, 65536) },
    { .info.path = "p2p.hosts", STRING_KEY, .info.unit = "", .info.def = "0,1",
      .info.doc = "Hosts tested, by index or name, comma-separated: each pair of them, the "
                  "first of a pair as the requester.",
      FIELD(p2p.hosts) },

    { .info.path = "coll.op", ENUM_KEY, .info.unit = "", .info.def = "allreduce",
      .info.choice = bn_coll_op_name,
      .info.doc = "Collective of `bnet coll` (nccl-tests -o picks the reduction, not this).",
      FIELD(coll.op) },
    { .info.path = "coll.algo", ENUM_KEY, .info.unit = "", .info.def = "auto",
      .info.choice = algo_choice,
      .info.doc = bn_coll_algo_doc, /* auto, then each algorithm's summary, beside the registry */
      FIELD(coll.algo) },
    { .info.path = "coll.channels", INT_KEY, .info.unit = "", .info.def = "0",
      .info.doc = "Channels, like NCCL_MIN/MAX_NCHANNELS: parallel rings/trees, each on its "
                  "own queue pairs (own ECMP entropy). 0 = NCCL's choice on servers of GPUs "
                  "with a NIC each: 2 per NIC (2 x topology.gpus_per_server, at most 32), "
                  "else 2.",
      FIELD(coll.channels), RANGE(0, 64) },
    { .info.path = "coll.min_bytes", INT_KEY, .info.unit = "B", .info.def = "8",
      .info.doc = "Smallest size of the sweep (nccl-tests -b).",
      FIELD(coll.min_bytes), RANGE(1, 1e12) },
    { .info.path = "coll.max_bytes", INT_KEY, .info.unit = "B", .info.def = "1073741824",
      .info.doc = "Largest size of the sweep (nccl-tests -e).",
      FIELD(coll.max_bytes), RANGE(1, 1e12) },
    { .info.path = "coll.step_factor", INT_KEY, .info.unit = "", .info.def = "2",
      .info.doc = "Each size is the previous times this (nccl-tests -f); 1: plus "
                  "coll.step_bytes instead.",
      FIELD(coll.step_factor), RANGE(1, 1024) },
    { .info.path = "coll.step_bytes", INT_KEY, .info.unit = "B", .info.def = "1048576",
      .info.doc = "With coll.step_factor 1, each size is the previous plus this (nccl-tests "
                  "-i).",
      FIELD(coll.step_bytes), RANGE(1, 1e12) },
    { .info.path = "coll.datatype", ENUM_KEY, .info.unit = "", .info.def = "float",
      .info.choice = type_choice,
      .info.doc = "Element type (nccl-tests -d); sizes are rounded down to whole elements. "
                  "all: every type in turn, as nccl-tests -d all.",
      FIELD(coll.datatype) },
    { .info.path = "coll.redop", ENUM_KEY, .info.unit = "", .info.def = "sum",
      .info.choice = redop_choice,
      .info.doc = "Reduction (nccl-tests -o); shown in the table, it does not change traffic. "
                  "all: every reduction in turn.",
      FIELD(coll.redop) },
    { .info.path = "coll.root", INT_KEY, .info.unit = "", .info.def = "0",
      .info.doc = "Root rank of broadcast and reduce (nccl-tests -r).",
      FIELD(coll.root) },
    { .info.path = "coll.slice_bytes", INT_KEY, .info.unit = "B", .info.def = "524288",
      .info.doc = "Pipelining unit: a chunk moves in slices of at most this many bytes (NCCL "
                  "Simple: 4 MiB buffer / 8 steps = 512 KiB).",
      FIELD(coll.slice_bytes), RANGE(64, 1e12) },
    { .info.path = "coll.step_latency_us", FLOAT_KEY, .info.unit = "us", .info.def = "1",
      .info.doc = "Software overhead between a transfer becoming ready and its post (NCCL's "
                  "tuning model: 1 us network overhead per step).",
      FIELD(coll.step_latency_us), RANGE(0, 1e6) },
    { .info.path = "coll.ll_step_latency_us", FLOAT_KEY, .info.unit = "us", .info.def = "2.7",
      .info.doc = "A ring's network step under LL (NCCL's hwLat[NET][RING][LL], 2.20.3 "
                  "src/graph/tuning.cc); a ring's NVLink steps and a tree's steps are NCCL's "
                  "figures scaled by the same ratio; the fabric's hop is simulated, the "
                  "rest waits.",
      FIELD(coll.ll_step_latency_us), RANGE(0, 1e6) },
    { .info.path = "coll.ll128_step_latency_us", FLOAT_KEY, .info.unit = "us", .info.def = "4",
      .info.doc = "A ring's network step under LL128 (NCCL's hwLat[NET][RING][LL128]); a "
                  "ring's NVLink steps and a tree's scaled alike, as coll.ll_step_latency_us.",
      FIELD(coll.ll128_step_latency_us), RANGE(0, 1e6) },
    { .info.path = "coll.channel_gbs", FLOAT_KEY, .info.unit = "GB/s", .info.def = "0",
      .info.doc = "A channel's throughput at each rank (one CTA's copy rate): its sends "
                  "are paced to it. 0 = unbounded (the links bound it).",
      FIELD(coll.channel_gbs), RANGE(0, 1e6) },
    { .info.path = "coll.iters", INT_KEY, .info.unit = "", .info.def = "1",
      .info.doc = "Timed iterations per size (nccl-tests -n); the time is their mean.",
      FIELD(coll.iters), RANGE(1, 1000) },
    { .info.path = "coll.warmup", INT_KEY, .info.unit = "", .info.def = "0",
      .info.doc = "Untimed iterations before them (nccl-tests -w).",
      FIELD(coll.warmup), RANGE(0, 1000) },
    { .info.path = "coll.in_place", BOOL_KEY, .info.unit = "", .info.def = "true",
      .info.doc = "After the out-of-place iterations, time as many in place, the output "
                  "buffer the input (nccl-tests' second group of columns).",
      FIELD(coll.in_place) },
    { .info.path = "coll.check", INT_KEY, .info.unit = "", .info.def = "1",
      .info.doc = "nccl-tests -c: 0 prints #wrong as N/A; bnet checks every delivery "
                  "either way.",
      FIELD(coll.check), RANGE(0, 1000) },
    { .info.path = "coll.proto", ENUM_KEY, .info.unit = "", .info.def = "auto",
      .info.choice = proto_choice,
      .info.doc = "NCCL protocol, like NCCL_PROTO: ll, ll128 or simple set each transfer's wire "
                  "bytes, step size, 8 slots in flight and step latency; auto: bnet's "
                  "protocol-free model (docs/collectives.md).",
      FIELD(coll.proto) },
    { .info.path = "coll.tuner", ENUM_KEY, .info.unit = "", .info.def = "bnet",
      .info.choice = tuner_choice,
      .info.doc = "Who picks under coll.algo/proto auto: bnet (its model of this fabric), nccl "
                  "(NCCL 2.20.3's tuning model: algorithm and protocol), or both (bnet's pick, "
                  "and NCCL's also run, for the gap).",
      FIELD(coll.tuner) },
    { .info.path = "coll.pxn", BOOL_KEY, .info.unit = "", .info.def = "true",
      .info.doc = "PXN, as NCCL's: a send between GPUs of different servers and rails first "
                  "crosses NVLink to its server's GPU on the destination's rail, whose NIC sends "
                  "it on, so no data crosses rails in the network.",
      FIELD(coll.pxn) },
    { .info.path = "coll.aggregate", BOOL_KEY, .info.unit = "", .info.def = "false",
      .info.doc = "With sim.fidelity flow: each connection's transfers run as one flow of "
                  "all their bytes, and a row takes at least the longest chain of hops a piece "
                  "makes, so it costs O(ranks x channels) whatever its size (ring and hier; "
                  "no #wrong check; bnet coll and bnet job's collectives; docs/flow_level.md).",
      FIELD(coll.aggregate) },
    /* here come the collective algorithms' keys, then the SHARP units' */
};

/* The registry is head[], the topology builders' keys, topo_tail[], the
 * flow-control modules' keys, sw_head[], the load-balancing policies'
 * keys, body[], the transports' keys, body_cc[], the congestion controls' keys,
 * mid[], the workload generators' keys, mid_obs[], the control planes' keys,
 * mid2[], the fault kinds' keys, tail[], the collective algorithms' keys,
 * the SHARP units' keys (after no rows of this file: a part of none): one
 * sequence of rows, indexed without any table built at run time. */
#define NHEAD (sizeof head / sizeof head[0])
#define NTOPO_TAIL (sizeof topo_tail / sizeof topo_tail[0])
#define NSW_HEAD (sizeof sw_head / sizeof sw_head[0])
#define NBODY (sizeof body / sizeof body[0])
#define NBODY_CC (sizeof body_cc / sizeof body_cc[0])
#define NMID (sizeof mid / sizeof mid[0])
#define NMID_OBS (sizeof mid_obs / sizeof mid_obs[0])
#define NMID2 (sizeof mid2 / sizeof mid2[0])
#define NTAIL (sizeof tail / sizeof tail[0])

_Static_assert(NHEAD + BN_TOPO_KEYS_MAX + NTOPO_TAIL + BN_FC_KEYS_MAX + NSW_HEAD +
                       BN_LB_KEYS_MAX + NBODY + BN_TP_KEYS_MAX + NBODY_CC + BN_CC_KEYS_MAX +
                       NMID + BN_WL_KEYS_MAX + NMID_OBS + BN_CP_KEYS_MAX + NMID2 +
                       BN_FAULT_KIND_KEYS_MAX + NTAIL + BN_COLL_ALGO_KEYS_MAX +
                       BN_TOPO_AGG_KEYS_MAX <= BN_SCENARIO_KEYS_MAX,
               "bn_scenario.key_line has no room for every key");

/* A part of the sequence: rows of this file, then a module registry's. */
static const struct part {
    const struct bn_key_row *rows;
    size_t n;
    const struct bn_key_modules *spliced; /* NULL: nothing after */
} parts[] = {
    {head, NHEAD, &bn_topo_key_modules},
    {topo_tail, NTOPO_TAIL, &bn_fc_key_modules},
    {sw_head, NSW_HEAD, &bn_lb_key_modules},
    {body, NBODY, &bn_transport_key_modules},
    {body_cc, NBODY_CC, &bn_cc_key_modules},
    {mid, NMID, &bn_workload_key_modules},
    {mid_obs, NMID_OBS, &bn_cp_key_modules},
    {mid2, NMID2, &bn_fault_kind_key_modules},
    {tail, NTAIL, &bn_coll_algo_key_modules},
    {tail + NTAIL, 0, &bn_topo_agg_key_modules},
};
#define NPARTS (sizeof parts / sizeof parts[0])

/* A walk over the sequence, one row at a time: part p's segments are its
 * own rows (seg 0), then each spliced module's (seg 1 + its place). Loops
 * walk rather than index, as an index costs a walk over the modules. */
struct walk {
    size_t part, seg, i, n;        /* zero: the start */
    const struct bn_key_row *rows; /* the segment's rows, n of them */
    bool read;                     /* rows are segment seg's */
};

static const struct bn_key_row *seg_rows(const struct part *p, size_t seg, size_t *n)
{
    if (seg == 0) {
        *n = p->n;
        return p->rows;
    }
    return bn_key_modules_rows(p->spliced, seg - 1, n);
}

static size_t nsegs(const struct part *p) { return 1 + (p->spliced ? p->spliced->n : 0); }

/* The next row of the sequence; NULL after the last. */
static const struct bn_key_row *next_row(struct walk *w)
{
    if (w->i < w->n)
        return &w->rows[w->i++];
    while (w->part < NPARTS) {
        const struct part *p = &parts[w->part];
        if (w->read && ++w->seg == nsegs(p)) {
            w->seg = 0;
            if (++w->part == NPARTS)
                break;
            p++;
        }
        w->rows = seg_rows(p, w->seg, &w->n);
        w->read = true;
        w->i = 0;
        if (w->n)
            return &w->rows[w->i++];
    }
    return NULL;
}

size_t bn_scn_count(void)
{
    size_t n = 0;
    for (const struct part *p = parts; p < parts + NPARTS; p++)
        n += p->n + (p->spliced ? bn_key_modules_nrows(p->spliced) : 0);
    return n;
}

size_t bn_scn_index(const struct bn_key_row *k)
{
    struct walk w = {0};
    for (size_t i = 0; true; i++) {
        const struct bn_key_row *r = next_row(&w);
        if (!r)
            abort(); /* not a registry row: a bug */
        if (r == k)
            return i;
    }
}

const struct bn_key_row *bn_scn_at(size_t i)
{
    for (const struct part *p = parts; p < parts + NPARTS; p++)
        for (size_t seg = 0, n; seg < nsegs(p); seg++) {
            const struct bn_key_row *rows = seg_rows(p, seg, &n);
            if (i < n)
                return &rows[i];
            i -= n;
        }
    return NULL;
}

/* The module blocks of struct bn_scenario, by bn_key_row.block: where they
 * start, one's size, how many, and which module a row is of. */
static const struct block_kind {
    size_t at, size, max;
    const struct bn_key_modules *modules;
} blocks[] = {
    [BN_KEY_BLOCK_CC] = {offsetof(struct bn_scenario, cc), sizeof(struct bn_scenario_cc_block),
                         BN_SC_CC_MAX, &bn_cc_key_modules},
    [BN_KEY_BLOCK_LB] = {offsetof(struct bn_scenario, lb), sizeof(struct bn_scenario_lb_block),
                         BN_SC_LB_MAX, &bn_lb_key_modules},
    [BN_KEY_BLOCK_FC] = {offsetof(struct bn_scenario, fc), sizeof(struct bn_scenario_fc_block),
                         BN_SC_FC_MAX, &bn_fc_key_modules},
    [BN_KEY_BLOCK_TOPO] = {offsetof(struct bn_scenario, topo),
                           sizeof(struct bn_scenario_topo_block), BN_SC_TOPO_MAX,
                           &bn_topo_key_modules},
    [BN_KEY_BLOCK_TP] = {offsetof(struct bn_scenario, tp), sizeof(struct bn_scenario_tp_block),
                         BN_SC_TP_MAX, &bn_transport_key_modules},
    [BN_KEY_BLOCK_ALGO] = {offsetof(struct bn_scenario, algo),
                           sizeof(struct bn_scenario_algo_block), BN_SC_ALGO_MAX,
                           &bn_coll_algo_key_modules},
    [BN_KEY_BLOCK_AGG] = {offsetof(struct bn_scenario, agg), sizeof(struct bn_scenario_agg_block),
                          1, &bn_topo_agg_key_modules},
    [BN_KEY_BLOCK_CP] = {offsetof(struct bn_scenario, cp), sizeof(struct bn_scenario_cp_block),
                         BN_SC_CP_MAX, &bn_cp_key_modules},
    [BN_KEY_BLOCK_WL] = {offsetof(struct bn_scenario, wl), sizeof(struct bn_scenario_wl_block),
                         BN_SC_WL_MAX, &bn_workload_key_modules},
    [BN_KEY_BLOCK_FAULT] = {offsetof(struct bn_scenario, faults[0].kinds),
                            sizeof(struct bn_scenario_fault_kind_block), BN_SC_FAULT_KINDS_MAX,
                            &bn_fault_kind_key_modules},
};

size_t bn_scn_offset(const struct bn_key_row *k)
{
    if (!k->block)
        return k->offset;
    if (k->block >= sizeof blocks / sizeof blocks[0])
        abort(); /* a block kind of none: a bug */
    const struct block_kind *b = &blocks[k->block];
    size_t i = bn_key_modules_owner(b->modules, k);
    if (i >= b->max)
        abort(); /* a block row of no module: a bug */
    return b->at + i * b->size + k->offset;
}

size_t bn_scenario_key_count(void) { return bn_scn_count(); }

const struct bn_scenario_key_info *bn_scenario_key(size_t i)
{
    const struct bn_key_row *k = bn_scn_at(i);
    return k ? &k->info : NULL;
}

const struct bn_key_row *bn_scn_find(const char *path)
{
    struct walk w = {0};
    for (const struct bn_key_row *k; (k = next_row(&w)) != NULL;)
        if (strcmp(k->info.path, path) == 0)
            return k;
    return NULL;
}

const struct bn_scn_list *bn_scn_list_at(size_t i)
{
    return i < sizeof lists / sizeof lists[0] ? &lists[i] : NULL;
}

const struct bn_scn_list *bn_scn_list_of(const struct bn_key_row *k)
{
    return k && k->list ? &lists[k->list - 1] : NULL;
}

const struct bn_scn_list *bn_scn_list_find(const char *name)
{
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (strcmp(lists[i].name, name) == 0)
            return &lists[i];
    return NULL;
}

const char *bn_scn_field_name(const struct bn_key_row *k)
{
    return k->info.path + strlen(bn_scn_list_of(k)->name) + strlen("[].");
}

void bn_scn_list_fields(const struct bn_scn_list *l, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    struct walk wk = {0};
    for (const struct bn_key_row *k; used < len && (k = next_row(&wk)) != NULL;) {
        if (bn_scn_list_of(k) != l)
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", bn_scn_field_name(k));
        used += w > 0 ? (size_t)w : 0;
    }
}

const struct bn_key_row *bn_scn_item_field(const struct bn_scn_list *l, const char *field)
{
    struct walk w = {0};
    for (const struct bn_key_row *k; (k = next_row(&w)) != NULL;)
        if (bn_scn_list_of(k) == l && strcmp(bn_scn_field_name(k), field) == 0)
            return k;
    return NULL;
}

const struct bn_key_row *bn_scn_find_item(const char *path, uint32_t *index)
{
    size_t n = strcspn(path, ".");
    char name[16];
    if (n >= sizeof name || path[n] != '.')
        return NULL;
    memcpy(name, path, n);
    name[n] = '\0';
    const struct bn_scn_list *l = bn_scn_list_find(name);
    const char *p = path + n + 1;
    if (!l || *p < '0' || *p > '9')
        return NULL;
    uint32_t i = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((i = i * 10 + (uint32_t)(*p - '0')) >= l->max)
            return NULL;
    if (*p != '.')
        return NULL;
    *index = i;
    return bn_scn_item_field(l, p + 1);
}

static int apply_at(struct bn_scenario *sc, const struct bn_key_row *k, size_t delta,
                    const char *text, char *why, size_t len);

int bn_scn_apply_item(struct bn_scenario *sc, const struct bn_key_row *k, uint32_t index,
                      const char *text, char *why, size_t len)
{
    const struct bn_scn_list *l = bn_scn_list_of(k);
    if (index >= l->max)
        return bn_scn_why(why, len, "at most %u %ss", l->max, l->noun);
    if (apply_at(sc, k, index * l->stride, text, why, len) != 0)
        return -1;
    uint32_t *count = (uint32_t *)(void *)((char *)sc + l->count_offset);
    if (*count <= index)
        *count = index + 1;
    return 0;
}

/* If `path` lies under `section` ("" = top level), the start of its next
 * component, with that component's length in *n; else NULL. */
static const char *child_of(const char *path, const char *section, size_t *n)
{
    size_t sl = strlen(section);
    if (sl > 0) {
        if (strncmp(path, section, sl) != 0 || path[sl] != '.')
            return NULL;
        path += sl + 1;
    }
    *n = strcspn(path, ".");
    return path;
}

bool bn_scn_is_section(const char *prefix)
{
    size_t n = strlen(prefix);
    if (n == 0)
        return true;
    struct walk w = {0};
    for (const struct bn_key_row *k; (k = next_row(&w)) != NULL;)
        if (strncmp(k->info.path, prefix, n) == 0 && k->info.path[n] == '.')
            return true;
    return false;
}

/* True if a key before row `upto` has the same child name. */
static bool child_seen(const char *section, const struct bn_key_row *upto, const char *name,
                       size_t n)
{
    size_t m;
    struct walk w = {0};
    for (const struct bn_key_row *k; (k = next_row(&w)) != NULL && k != upto;) {
        const char *c = child_of(k->info.path, section, &m);
        if (c && m == n && strncmp(c, name, n) == 0)
            return true;
    }
    return false;
}

void bn_scn_children(const char *section, char *buf, size_t len)
{
    size_t used = 0, n;
    unsigned lists_named = 0;
    buf[0] = '\0';
    struct walk wk = {0};
    for (const struct bn_key_row *k; used < len && (k = next_row(&wk)) != NULL;) {
        const char *c = child_of(k->info.path, section, &n);
        if (!c || child_seen(section, k, c, n) || (lists_named & (1u << k->list)))
            continue;
        if (k->list) { /* the list, as a file writes it */
            lists_named |= 1u << k->list;
            c = bn_scn_list_of(k)->name;
            n = strlen(c);
        }
        int w = snprintf(buf + used, len - used, "%s%.*s", used ? ", " : "", (int)n, c);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* "; did you mean 'topology.k'?" for a key one typo from a registry
 * key's path (list fields as faults.N.kind are not offered); "" if none. */
static void suggestion(const char *key, char *buf, size_t len)
{
    const char *paths[BN_SCENARIO_KEYS_MAX];
    size_t n = 0;
    struct walk w = {0};
    for (const struct bn_key_row *k; (k = next_row(&w)) != NULL;)
        if (!k->list)
            paths[n++] = k->info.path;
    const char *near = key ? bn_nearest_word(key, paths, n) : NULL;
    if (near)
        snprintf(buf, len, "; did you mean '%s'?", near);
    else if (len)
        buf[0] = '\0';
}

void bn_scn_unknown(const char *section, const char *key, const char *what, char *why,
                    size_t len)
{
    char list[300], hint[160];
    bn_scn_children(section, list, sizeof list);
    suggestion(key, hint, sizeof hint);
    if (section[0] == '\0')
        snprintf(why, len, "%s%s (valid top-level keys: %s)", what, hint, list);
    else
        snprintf(why, len, "%s%s (valid keys in '%s': %s)", what, hint, section, list);
}

int bn_scn_why(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return -1;
}

void bn_scn_excerpt(const char *s, size_t n, char *buf, size_t len)
{
    const size_t cap = 60;
    size_t k = n < cap ? n : cap;
    if (len < 4) {
        if (len)
            buf[0] = '\0';
        return;
    }
    if (k > len - 4)
        k = len - 4;
    while (k < n && k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--; /* do not cut a UTF-8 sequence in half */
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    strcpy(buf + k, k < n ? "..." : "");
}

/* ---- what a valid value looks like ---- */

static uint64_t width_max(const struct bn_key_row *k)
{
    return k->size >= sizeof(uint64_t) ? UINT64_MAX : UINT32_MAX;
}

static uint64_t int_lo(const struct bn_key_row *k)
{
    if (!(k->flags & BN_KEY_LO))
        return 0;
    return (uint64_t)k->lo + ((k->flags & BN_KEY_LO_EXCL) ? 1u : 0u);
}

static uint64_t int_hi(const struct bn_key_row *k)
{
    uint64_t hi = width_max(k);
    if ((k->flags & BN_KEY_HI) && (uint64_t)k->hi < hi)
        hi = (uint64_t)k->hi;
    return hi;
}

static void float_bounds(const struct bn_key_row *k, char *buf, size_t len)
{
    if ((k->flags & BN_KEY_LO) && (k->flags & BN_KEY_HI))
        snprintf(buf, len, " from %g to %g", k->lo, k->hi);
    else if (k->flags & BN_KEY_LO)
        snprintf(buf, len, ", %s %g", (k->flags & BN_KEY_LO_EXCL) ? ">" : ">=", k->lo);
    else if (k->flags & BN_KEY_HI)
        snprintf(buf, len, ", <= %g", k->hi);
    else
        buf[0] = '\0';
}

/* "a, b, c": an enum key's choices (cut short if buf is). */
static void choices_list(const struct bn_key_row *k, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; k->info.choice(i) && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", k->info.choice(i));
        used += n > 0 ? (size_t)n : 0;
    }
}

void bn_scn_expect(const struct bn_key_row *k, char *buf, size_t len)
{
    char unit[32] = "", extra[190] = ""; /* every choice: faults[].kind's 9 take 115 */
    if (k->info.unit[0])
        snprintf(unit, sizeof unit, " in %s", k->info.unit);
    switch (k->kind) {
    case BN_KEY_INT:
        snprintf(buf, len, "an integer%s from %llu to %llu", unit,
                 (unsigned long long)int_lo(k), (unsigned long long)int_hi(k));
        break;
    case BN_KEY_FLOAT:
        float_bounds(k, extra, sizeof extra);
        snprintf(buf, len, "a number%s%s", unit, extra);
        break;
    case BN_KEY_BOOL:
        snprintf(buf, len, "true/false, yes/no or on/off");
        break;
    case BN_KEY_ENUM:
        choices_list(k, extra, sizeof extra);
        snprintf(buf, len, "one of: %s", extra);
        break;
    case BN_KEY_STRING:
        snprintf(buf, len, "text of at most %zu bytes", k->size - 1);
        break;
    }
}

/* ---- parsing ---- */

/* 0 = ok, -1 = not a number, -2 = not finite. */
static int parse_float(const char *s, double *out)
{
    if (s[0] == '\0' || s[strspn(s, "0123456789+-.eE")] != '\0')
        return -1; /* also rules out spaces, hex, nan, inf */
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0')
        return -1;
    if (!isfinite(v))
        return -2;
    *out = v;
    return 0;
}

static int parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = { "true", "yes", "on" };
    static const char *const no[] = { "false", "no", "off" };
    for (size_t i = 0; i < 3; i++) {
        if (strcasecmp(s, yes[i]) == 0 || strcasecmp(s, no[i]) == 0) {
            *out = strcasecmp(s, yes[i]) == 0;
            return 0;
        }
    }
    return -1;
}

/* The index of `s` among k's choices, or -1. */
static int enum_index(const struct bn_key_row *k, const char *s)
{
    for (size_t i = 0; k->info.choice(i) && i <= UINT8_MAX; i++)
        if (strcmp(k->info.choice(i), s) == 0)
            return (int)i;
    return -1;
}

static bool float_in_bounds(const struct bn_key_row *k, double v)
{
    if (k->flags & BN_KEY_LO) {
        if (v < k->lo || ((k->flags & BN_KEY_LO_EXCL) && v == k->lo))
            return false;
    }
    return !((k->flags & BN_KEY_HI) && v > k->hi);
}

/* ---- storing ---- */

static void *field(struct bn_scenario *sc, const struct bn_key_row *k)
{
    return (char *)sc + bn_scn_offset(k);
}

static int set_int(struct bn_scenario *sc, const struct bn_key_row *k,
                   const char *text, const char *shown, char *bad, size_t len)
{
    uint64_t v = 0;
    int rc = bn_parse_uint(text, &v);
    if (rc == -1)
        return bn_scn_why(bad, len, "'%s' is not an integer", shown);
    if (rc == -2 || v < int_lo(k) || v > int_hi(k))
        return bn_scn_why(bad, len, "%s is out of range", shown);
    if (k->size == sizeof(uint64_t))
        *(uint64_t *)field(sc, k) = v;
    else
        *(uint32_t *)field(sc, k) = (uint32_t)v;
    return 0;
}

static int set_float(struct bn_scenario *sc, const struct bn_key_row *k,
                     const char *text, const char *shown, char *bad, size_t len)
{
    double v = 0;
    int rc = parse_float(text, &v);
    if (rc == -1)
        return bn_scn_why(bad, len, "'%s' is not a number", shown);
    if (rc == -2 || !float_in_bounds(k, v))
        return bn_scn_why(bad, len, "%s is out of range", shown);
    *(double *)field(sc, k) = v;
    return 0;
}

static int set_enum(struct bn_scenario *sc, const struct bn_key_row *k,
                    const char *text, const char *shown, char *bad, size_t len)
{
    int i = enum_index(k, text);
    if (i < 0)
        return bn_scn_why(bad, len, "'%s' is not a valid choice", shown);
    *(uint8_t *)field(sc, k) = (uint8_t)i;
    return 0;
}

static int set_text(struct bn_scenario *sc, const struct bn_key_row *k,
                    const char *text, char *bad, size_t len)
{
    size_t n = strlen(text);
    if (n >= k->size)
        return bn_scn_why(bad, len, "value is %zu bytes long", n);
    memset(field(sc, k), 0, k->size);
    memcpy(field(sc, k), text, n);
    return 0;
}

static int set_value(struct bn_scenario *sc, const struct bn_key_row *k,
                     const char *text, const char *shown, char *bad, size_t len)
{
    bool b = false;
    if (text[0] == '\0' && k->kind != BN_KEY_STRING)
        return bn_scn_why(bad, len, "missing value");
    switch (k->kind) {
    case BN_KEY_INT:
        return set_int(sc, k, text, shown, bad, len);
    case BN_KEY_FLOAT:
        return set_float(sc, k, text, shown, bad, len);
    case BN_KEY_BOOL:
        if (parse_bool(text, &b) != 0)
            return bn_scn_why(bad, len, "'%s' is not true or false", shown);
        *(bool *)field(sc, k) = b;
        return 0;
    case BN_KEY_STRING:
        return set_text(sc, k, text, bad, len);
    case BN_KEY_ENUM:
        return set_enum(sc, k, text, shown, bad, len);
    }
    return -1;
}

/* Set key k (a registry entry) `delta` bytes past its field: the same
 * field of a later item of the faults list. */
/* Set k's value (at delta into its list's item) from text; its line mark
 * is left alone. */
static int store(struct bn_scenario *sc, const struct bn_key_row *k, size_t delta,
                 const char *text, char *why, size_t len)
{
    char shown[80], bad[160], expect[200];
    struct bn_key_row at = *k;
    at.offset = bn_scn_offset(k) + delta; /* a copy: where it lives, once found */
    at.block = 0;
    bn_scn_excerpt(text, strlen(text), shown, sizeof shown);
    if (set_value(sc, &at, text, shown, bad, sizeof bad) == 0)
        return 0;
    bn_scn_expect(k, expect, sizeof expect);
    snprintf(why, len, "%s (expected %s)", bad, expect);
    return -1;
}

static int apply_at(struct bn_scenario *sc, const struct bn_key_row *k, size_t delta,
                    const char *text, char *why, size_t len)
{
    if (store(sc, k, delta, text, why, len) != 0)
        return -1;
    sc->key_line[bn_scn_index(k)] = 0; /* no longer the file's value */
    return 0;
}

int bn_scn_apply(struct bn_scenario *sc, const struct bn_key_row *k,
                 const char *text, char *why, size_t len)
{
    return apply_at(sc, k, 0, text, why, len);
}

void bn_scenario_defaults(struct bn_scenario *sc)
{
    char why[BN_SCN_WHY_MAX];
    memset(sc, 0, sizeof *sc);
    strcpy(sc->source, "<default>");
    struct walk w = {0};
    for (const struct bn_key_row *k; (k = next_row(&w)) != NULL;) {
        if (k->flags & BN_KEY_DERIVED)
            continue; /* stays 0: "same as" the key its default names */
        const struct bn_scn_list *l = bn_scn_list_of(k);
        for (uint32_t j = 0; j < (l ? l->max : 1); j++)
            if (store(sc, k, j * (l ? l->stride : 0), k->info.def, why, sizeof why) != 0)
                abort(); /* a registry default that fails its own check: a bug */
    }
}

/* "FILE:LINE", "--set KEY", "FILE, a flag (KEY)" or the source alone, by the
 * key's line mark. */
static const char *where_text(const char *src, const char *key, uint32_t line, char *buf,
                              size_t len)
{
    if (line == BN_SCENARIO_LINE_CLI)
        snprintf(buf, len, "--set %s", key);
    else if (line == BN_SCENARIO_LINE_FLAG)
        snprintf(buf, len, "%s, a flag (%s)", src, key);
    else if (line)
        snprintf(buf, len, "%s:%lu", src, (unsigned long)line);
    else
        snprintf(buf, len, "%s", src);
    return buf;
}

const char *bn_scenario_where(const struct bn_scenario *sc, const char *path, char *buf,
                              size_t len)
{
    const struct bn_key_row *k = bn_scn_find(path);
    const char *src = sc->source[0] ? sc->source : "<scenario>";
    uint32_t line = k ? sc->key_line[bn_scn_index(k)] : 0;
    return where_text(src, path, line, buf, len);
}

/* k's place among its list's keys. */
static uint32_t field_ordinal(const struct bn_key_row *k)
{
    uint32_t n = 0;
    struct walk w = {0};
    for (const struct bn_key_row *r; (r = next_row(&w)) != NULL && r != k;)
        n += r->list == k->list;
    return n;
}

uint32_t *bn_scn_item_line(struct bn_scenario *sc, const struct bn_key_row *k, uint32_t index)
{
    if (k->list == LIST_FAULTS && index < BN_SC_FAULTS_MAX &&
        k->offset == offsetof(struct bn_scenario, faults[0].target))
        return &sc->faults[index].target_line; /* checked later, against the topology */
    uint32_t f = field_ordinal(k);
    if (k->list != LIST_JOBS || index >= BN_SC_JOBS_MAX || f >= BN_SC_JOB_KEYS_MAX)
        return NULL;
    return &sc->job_key_line[index][f];
}

const char *bn_scenario_item_where(const struct bn_scenario *sc, const char *path,
                                   uint32_t index, char *buf, size_t len)
{
    const struct bn_key_row *k = bn_scn_find(path);
    const char *src = sc->source[0] ? sc->source : "<scenario>";
    const uint32_t *line = k ? bn_scn_item_line((struct bn_scenario *)(uintptr_t)sc, k, index)
                             : NULL;
    char item[160];
    const char *dot = strchr(path, '.');
    snprintf(item, sizeof item, "%.*s.%u%s", dot ? (int)(dot - path - 2) : 0, path, index,
             dot ? dot : "");
    return where_text(src, item, line ? *line : 0, buf, len);
}

int bn_scenario_locate(const struct bn_scenario *sc, int rc, struct bn_error *err)
{
    if (!err || !err->key[0])
        return rc;
    char where[BN_PATH_MAX + 16], path[sizeof err->key], msg[sizeof err->msg];
    /* "jobs[2].tp": field "jobs[].tp" of item 2 */
    const char *open = strchr(err->key, '['), *close = open ? strchr(open, ']') : NULL;
    char *end;
    unsigned long index = open ? strtoul(open + 1, &end, 10) : 0;
    if (open && close && end == close && end > open + 1) {
        snprintf(path, sizeof path, "%.*s[]%s", (int)(open - err->key), err->key, close + 1);
        bn_scenario_item_where(sc, path, (uint32_t)index, where, sizeof where);
    } else
        bn_scenario_where(sc, err->key, where, sizeof where);
    snprintf(msg, sizeof msg, "%s", err->msg);
    bn_fail(err, err->status, "%s: %s", where, msg); /* clears err->key */
    return rc;
}

const char *bn_scenario_choice(const char *path, unsigned index)
{
    const struct bn_key_row *k = bn_scn_find(path);
    return k && k->kind == BN_KEY_ENUM ? k->info.choice(index) : NULL;
}

int bn_scenario_get(const struct bn_scenario *sc, const char *path, char *buf, size_t len)
{
    uint32_t index = 0;
    const struct bn_key_row *k = bn_scn_find(path);
    if (k && k->list)
        k = NULL; /* "faults[].x" names no value; "faults.N.x" does */
    else if (!k)
        k = bn_scn_find_item(path, &index);
    if (!k || len == 0)
        return BN_EINPUT;
    const struct bn_scn_list *l = bn_scn_list_of(k);
    const char *at = (const char *)sc + bn_scn_offset(k) + index * (l ? l->stride : 0);
    const char *name;
    switch (k->kind) {
    case BN_KEY_INT:
        snprintf(buf, len, "%llu", k->size == sizeof(uint64_t)
                                       ? (unsigned long long)*(const uint64_t *)(const void *)at
                                       : (unsigned long long)*(const uint32_t *)(const void *)at);
        break;
    case BN_KEY_FLOAT:
        snprintf(buf, len, "%.17g", *(const double *)(const void *)at);
        break;
    case BN_KEY_BOOL:
        snprintf(buf, len, "%s", *(const bool *)(const void *)at ? "true" : "false");
        break;
    case BN_KEY_ENUM:
        name = k->info.choice(*(const uint8_t *)at);
        snprintf(buf, len, "%s", name ? name : "?");
        break;
    case BN_KEY_STRING:
        snprintf(buf, len, "%s", at);
        break;
    }
    return BN_OK;
}
