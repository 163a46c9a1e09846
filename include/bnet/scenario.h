/*
 * bnet scenario: every knob of one simulation run, as plain data.
 *
 * A scenario is read from YAML (bn_scenario_load_file / _load_string), then
 * single keys may be overridden with dotted paths ("link.rate_gbps=400", as the
 * CLI's --set does). Every key lives in one registry (src/scenario/keys.c,
 * with the rows the modules carry in their own files spliced in) with its
 * type, unit, default and documentation; docs/scenario.md mirrors it and a
 * test keeps the two in step. A module's own keys are fields of its struct,
 * in a reserved block here (cc, lb, fc, topo, tp, wl, cp, algo, agg; a fault
 * kind's in each faults[] item): read them by path (bn_scenario_get).
 *
 * Units are in the field names: _gbps, _ns, _us, _m, _bytes. Times are turned
 * into integer picoseconds by the simulator, never here.
 */
#ifndef BNET_SCENARIO_H
#define BNET_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bnet/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BN_NAME_MAX 64   /* room for a name, NUL included (bytes) */
#define BN_PATH_MAX 512  /* room for a path or list, NUL included (bytes) */

/*
 * Enum-like keys are stored resolved, as the index of their value among
 * the key's choices (bnet keys lists them, in this order). A module key
 * (topology.kind, link.flow_control, switch.load_balancing, nic.encap,
 * nic.transport, nic.congestion_control, workload.kind, coll.op/algo/
 * datatype/redop) holds an index into that module kind's registry; the
 * others hold these enums. bn_scenario_choice() turns one back into text.
 */
/* link.host_cable, link.fabric_cable: twinax copper (DAC) or optical fiber. */
enum bn_sc_cable { BN_SC_COPPER = 0, BN_SC_FIBER };
/* switch.forwarding: once the header is in, or once the whole packet is. */
enum bn_sc_forwarding { BN_SC_CUT_THROUGH = 0, BN_SC_STORE_AND_FORWARD };
/* switch.ecmp_fields: what ECMP hashes: destination and flow entropy (the
 * UDP source port), destination only, or entropy only. */
enum bn_sc_ecmp_fields { BN_SC_HASH_DST_ENTROPY = 0, BN_SC_HASH_DST, BN_SC_HASH_ENTROPY };
/* switch.ecmp_salt: each switch seeds its hash, or all alike (polarization). */
enum bn_sc_ecmp_salt { BN_SC_SALT_PER_SWITCH = 0, BN_SC_SALT_SAME };
/* switch.nonminimal (dragonfly_plus): minimal routes only, via a random
 * intermediate group (Valiant), or the source leaf's pick of the two (UGAL). */
enum bn_sc_nonminimal { BN_SC_NM_NONE = 0, BN_SC_NM_VALIANT, BN_SC_NM_UGAL };
/* nic.entropy: one entropy value per flow, or a new one per packet (spraying). */
enum bn_sc_entropy { BN_SC_PER_FLOW = 0, BN_SC_PER_PACKET };
/* workload.verb: RDMA WRITE or SEND. */
enum bn_sc_verb { BN_SC_WRITE = 0, BN_SC_SEND };
/* host.memory: message data in host memory, or in GPU memory (GPUDirect RDMA). */
enum bn_sc_memory { BN_SC_MEM_HOST = 0, BN_SC_MEM_GPU };
/* `bnet p2p` tests, as perftest's programs (ib_write_bw, ib_write_lat, ...). */
enum bn_sc_p2p_test {
    BN_SC_P2P_WRITE_BW = 0, BN_SC_P2P_WRITE_LAT, BN_SC_P2P_SEND_BW, BN_SC_P2P_SEND_LAT,
    BN_SC_P2P_READ_BW, BN_SC_P2P_READ_LAT, BN_SC_P2P_ATOMIC_BW, BN_SC_P2P_ATOMIC_LAT,
};
/* observe.ports: list every port (link direction), or only those with
 * pauses, ECN marks or drops. */
enum bn_sc_ports { BN_SC_PORTS_ALL = 0, BN_SC_PORTS_ACTIVE };
/* sim.prefetch: by fabric size (from 4096 ports), always, never; speed only. */
enum bn_sc_prefetch { BN_SC_PREFETCH_AUTO = 0, BN_SC_PREFETCH_ON, BN_SC_PREFETCH_OFF };
/* sim.fidelity: every packet through queues, flow and congestion control;
 * or each queue pair's data as a max-min fair flow (docs/flow_level.md); or
 * packets inside sim.region and flows outside it (hybrid, docs/hybrid.md). */
enum bn_sc_fidelity { BN_SC_FIDELITY_PACKET = 0, BN_SC_FIDELITY_FLOW, BN_SC_FIDELITY_HYBRID };
/* sim.event_order: simultaneous events in push order, or by kind and
 * object first (keyed: what a partitioned run needs); auto: keyed when
 * partitioned. */
enum bn_sc_event_order { BN_SC_ORDER_AUTO = 0, BN_SC_ORDER_PUSH, BN_SC_ORDER_KEYED };
/* sim.partition: how the fabric is cut into sim.partitions parts. */
enum bn_sc_partition { BN_SC_PARTITION_AUTO = 0, BN_SC_PARTITION_PODS };
/* faults[].kind: the index of a kind in src/fault's registry
 * (kind_registry.c; bnet keys lists them); link_down, the default, is 0. */
enum bn_sc_fault_kind { BN_SC_FAULT_LINK_DOWN = 0 };
/* jobs[].kind: training iterations, inference (a prefill and decode steps),
 * or background flows of jobs[].pattern. */
enum bn_sc_job_kind { BN_SC_JOB_TRAINING = 0, BN_SC_JOB_INFERENCE, BN_SC_JOB_BACKGROUND };
/* jobs[].placement */
enum bn_sc_placement {
    BN_SC_PLACE_PACKED = 0,  /* the next free hosts, in order */
    BN_SC_PLACE_SPREAD,      /* one server at a time from each leaf switch in turn */
    BN_SC_PLACE_RANDOM,      /* free servers in a seeded random order */
    BN_SC_PLACE_EXPLICIT,    /* the hosts `ranks` lists */
};
/* jobs[].dtype, jobs[].grad_dtype: 2, 2, 4 and 1 bytes per element. */
enum bn_sc_dtype { BN_SC_BF16 = 0, BN_SC_FP16, BN_SC_FP32, BN_SC_FP8 };
/* jobs[].pattern (background): each host to another, all to the job's first
 * host, or every host to every other. */
enum bn_sc_pattern { BN_SC_PAT_PERMUTATION = 0, BN_SC_PAT_INCAST, BN_SC_PAT_ALL_TO_ALL };
/* jobs[].scaleup: collectives inside one NVLink domain timed by the tuner's
 * model (non-blocking NVSwitch), or simulated packet by packet. */
enum bn_sc_scaleup_comm { BN_SC_SCALEUP_MODEL = 0, BN_SC_SCALEUP_PACKET };

/* topology.*: the fabric's shape (docs/topologies.md). */
struct bn_scenario_topology {
    uint8_t kind;            /* topology builder: index in its registry (bnet keys lists them) */
    uint32_t k;              /* switch radix, ports (even, 2..256) */
    uint32_t gpus_per_server;    /* GPUs (one NIC each) per server; rail_optimized: = rails */
    double oversubscription;     /* leaf tier: host-facing : uplink ports (1 = non-blocking) */
    double agg_oversubscription; /* fat_tree / rail_optimized 3-tier: agg (spine) tier, ratio */
    double gpu_tflops;           /* per host (GPU), TFLOPS, for Gb/s per PFLOPS; 0 = not stated */
    char file[BN_PATH_MAX];      /* file / ibnetdiscover: path, relative to the scenario */
};

/* The topology builders' own parameters (issue 54), as the congestion
 * controls': a builder declares its keys and their struct in its own file
 * (src/topo/rail_optimized.c: topology.servers_per_su, ...), and
 * bn_scenario keeps a block of BN_SC_TOPO_BLOCK_BYTES for each, block i
 * for the builder at index i of topology.kind's registry (checked to fit
 * at build time, BN_TOPO_KEYS_CHECK). Read a builder's keys with bnet keys
 * or bn_scenario_get, not from the block. Keys several builders share
 * (topology.k, topology.file, ...) stay in struct bn_scenario_topology. */
#define BN_SC_TOPO_MAX 8
#define BN_SC_TOPO_BLOCK_BYTES 16
struct bn_scenario_topo_block {
    uint64_t words[BN_SC_TOPO_BLOCK_BYTES / 8]; /* 8-byte aligned, for doubles and uint64_t */
};

/* The transports' own parameters (issue 54), as the topology builders':
 * src/nic/tp_NAME.c declares its keys (nic.sr_window, ...) and their
 * struct, bn_scenario keeps a block of BN_SC_TP_BLOCK_BYTES for each, block
 * i for the transport at index i of nic.transport's registry (checked to
 * fit, BN_TP_KEYS_CHECK). Read them with bn_scenario_get. */
#define BN_SC_TP_MAX 4
#define BN_SC_TP_BLOCK_BYTES 16
struct bn_scenario_tp_block {
    uint64_t words[BN_SC_TP_BLOCK_BYTES / 8]; /* 8-byte aligned, for doubles and uint64_t */
};

/* link.*: cables and their line rates. */
struct bn_scenario_link {
    double rate_gbps;        /* every host and fabric link */
    double fabric_rate_gbps; /* switch-to-switch links; 0 = same as rate_gbps */
    double host_cable_m;     /* host <-> leaf cable length */
    uint8_t host_cable;      /* enum bn_sc_cable */
    double fabric_cable_m;   /* switch <-> switch cable length */
    uint8_t fabric_cable;    /* enum bn_sc_cable */
    double copper_ns_per_m;  /* propagation in copper (twinax DAC), ns per metre */
    double fiber_ns_per_m;   /* propagation in optical fiber, ns per metre */
    double fec_ns;           /* fixed FEC latency added per link traversal */
    uint8_t flow_control;    /* flow-control module: index in its registry */
};

/* The flow-control modules' parameters (issue 54), as the load-balancing
 * policies': each module declares its keys and their struct in its own
 * file (src/link/fc_NAME.c; pfc.*), and bn_scenario keeps a block of
 * BN_SC_FC_BLOCK_BYTES for each, block i for the module at index i of
 * link.flow_control's registry (checked to fit at build time,
 * BN_FC_KEYS_CHECK). Read a module's keys with bnet keys or
 * bn_scenario_get, not from the block. */
#define BN_SC_FC_MAX 4
#define BN_SC_FC_BLOCK_BYTES 32
struct bn_scenario_fc_block {
    uint64_t words[BN_SC_FC_BLOCK_BYTES / 8]; /* 8-byte aligned, for doubles and uint64_t */
};

/* switch.ecn.*: ECN marking by egress queue depth (RED-like). */
struct bn_scenario_ecn {
    bool enabled;            /* switches mark ECN-capable data packets */
    uint64_t kmin_bytes;     /* queue depth where marking starts */
    uint64_t kmax_bytes;     /* depth where the probability reaches pmax; above it, all marked */
    double pmax;             /* marking probability at kmax, in [0,1] */
};

/* switch.*: forwarding, buffers, load balancing (YAML key "switch"). */
struct bn_scenario_switch {
    double latency_ns;       /* forwarding latency, port to port */
    uint8_t forwarding;      /* enum bn_sc_forwarding */
    uint64_t buffer_bytes;   /* per port: egress drop-tail limit (lossy), ingress buffer
                              * (credit), XOFF + headroom per ingress port (pfc) */
    uint8_t load_balancing;  /* every tier's policy: index in the load-balancing registry */
    char lb_per_tier[BN_NAME_MAX];    /* "1=ecmp 2=adaptive": tiers that differ */
    uint8_t ecmp_fields;     /* enum bn_sc_ecmp_fields */
    uint8_t ecmp_salt;       /* enum bn_sc_ecmp_salt */
    bool trim;               /* cut the payload of a data packet that does not fit */
    uint32_t control_reserve_bytes; /* with trim: a port's room for control frames beyond buffer_bytes */
    uint8_t nonminimal;      /* dragonfly_plus: enum bn_sc_nonminimal */
    struct bn_scenario_ecn ecn; /* switch.ecn.* */
};

/* The load-balancing policies' parameters (issue 54), as the congestion
 * controls' below: each policy declares its keys and their struct in its
 * own file (src/switch/lb_NAME.c), and bn_scenario keeps a block of
 * BN_SC_LB_BLOCK_BYTES for each, block i for the policy at index i of
 * switch.load_balancing's registry (checked to fit at build time,
 * BN_LB_KEYS_CHECK). Read a policy's keys with bnet keys or
 * bn_scenario_get, not from the block. */
#define BN_SC_LB_MAX 8
#define BN_SC_LB_BLOCK_BYTES 32
struct bn_scenario_lb_block {
    uint64_t words[BN_SC_LB_BLOCK_BYTES / 8]; /* 8-byte aligned, for doubles and uint64_t */
};

/* nic.*: the endpoints' transport and congestion control (docs/endpoints.md). */
struct bn_scenario_nic {
    uint8_t encap;               /* encapsulation: index in its registry (roce, ib) */
    uint32_t mtu_bytes;          /* payload bytes per packet (256..9000 roce, 256..4096 ib) */
    uint8_t transport;           /* transport: index in its registry */
    uint8_t entropy;             /* enum bn_sc_entropy (per_packet: sender-side spraying) */
    uint8_t congestion_control;  /* congestion control: index in its registry */
    double rto_us;               /* retransmission timeout; 0 = 100 lossy, 10000 lossless */
    uint32_t retry_cnt;          /* retransmissions without progress before a queue pair fails */
    uint32_t ack_timeout;        /* local ACK timeout 4.096 us x 2^this (0: a QP never fails) */
    bool rto_backoff;            /* the timer doubles per timeout without progress */
    double cnp_interval_us;      /* receiver: min gap between CNPs per queue pair; 0 = preset */
    uint32_t ack_every;          /* receiver ACKs every N data packets (and the last) */
    uint32_t qp_cache;           /* queue-pair contexts the NIC caches (0: all of them) */
    uint32_t max_rd_atomic;      /* RDMA READs and atomics outstanding per queue pair */
    uint32_t inline_bytes;       /* messages up to this size go inline with the doorbell */
    uint64_t rx_buffer_bytes;    /* received data waiting for the receive DMA, at most (lossy) */
    /* the NIC's own time (docs/endpoints.md); 0: an ideal NIC */
    double tx_ns;                /* send processing: work request fetched to first byte out */
    double rx_ns;                /* receive processing: last byte in to its DMA write issued */
    double msg_rate_mpps;        /* work requests per second the NIC processes, in millions (0: no limit) */
};

/* The host side of a NIC: PCIe and the memory its data lives in. */
struct bn_scenario_host {
    double pcie_ns;              /* one way, NIC <-> host memory (doorbell, WQE, CQE) */
    double gpu_pcie_ns;          /* one way, NIC <-> GPU memory (GPUDirect RDMA) */
    uint32_t pcie_gen;           /* 1..6; 0: no PCIe model (the NIC reads memory for free) */
    uint32_t pcie_lanes;         /* link width: 1..32 */
    uint8_t memory;              /* enum bn_sc_memory: where message data lives */
};

/* The planner's price and power table (docs/topologies.md): per device of
 * the fabric's class, list-price-class estimates; 0: not stated. */
struct bn_scenario_cost {
    double switch_usd, switch_w;           /* a fabric switch */
    uint32_t switch_ports;                 /* its ports (0: per switch, whatever its radix) */
    double nic_usd, nic_w;                 /* a host's backend NIC */
    double transceiver_usd, transceiver_w; /* an optical module (2 per fiber link) */
    double dac_usd, fiber_usd;             /* a copper (DAC) or fiber cable */
};

/* `bnet compare`: the fabrics it measures the cluster over. */
struct bn_scenario_compare {
    char fabrics[BN_PATH_MAX];   /* presets, comma-separated */
};

/* `bnet p2p`: perftest-style tests between hosts. */
struct bn_scenario_p2p {
    uint64_t bytes;              /* message size; 0: every power of two 2 B .. 8 MiB (-a) */
    uint32_t iterations;         /* per size (and per queue pair); 0: perftest's (1000 lat, 5000 bw) */
    uint32_t qps;                /* queue pairs of a bandwidth test */
    uint32_t tx_depth;           /* messages outstanding per queue pair (bandwidth tests) */
    uint8_t test;                /* enum bn_sc_p2p_test */
    char hosts[BN_PATH_MAX];     /* "0,1": the hosts; every pair of them is tested */
};

/* The congestion-control modules' parameters (issue 54): each module
 * declares its keys and their struct in its own file (src/nic/cc_NAME.c),
 * and bn_scenario keeps a block of BN_SC_CC_BLOCK_BYTES for each, block i
 * for the module at index i of nic.congestion_control's registry (each
 * module's struct is checked at build time to fit, BN_CC_KEYS_CHECK, as
 * Linux's ICSK_CA_PRIV_SIZE). Read a module's keys with bnet keys or
 * bn_scenario_get, not from the block. */
#define BN_SC_CC_MAX 16
#define BN_SC_CC_BLOCK_BYTES 128
struct bn_scenario_cc_block {
    uint64_t words[BN_SC_CC_BLOCK_BYTES / 8]; /* 8-byte aligned, for doubles and uint64_t */
};

/* The workload generators' own parameters (issue 54), as the congestion
 * controls': src/workload/NAME.c declares its keys (workload.load,
 * workload.flow_file, ...) and their struct, bn_scenario keeps a block of
 * BN_SC_WL_BLOCK_BYTES for each, block i for the generator at index i of
 * workload.kind's registry (checked to fit, BN_WL_KEYS_CHECK; poisson's
 * size_cdf path sets the size). Read them with bn_scenario_get. */
#define BN_SC_WL_MAX 8
#define BN_SC_WL_BLOCK_BYTES 544
struct bn_scenario_wl_block {
    uint64_t words[BN_SC_WL_BLOCK_BYTES / 8]; /* 8-byte aligned, for doubles and uint64_t */
};

/* workload.*: the flows bn_run starts; the keys several generators share. */
struct bn_scenario_workload {
    uint8_t kind;                /* workload generator: index in its registry */
    uint64_t message_bytes;      /* bytes per flow (permutation, incast, all_to_all, poisson's
                                  * incast bursts) */
    uint32_t messages;           /* messages (count) a flow's bytes are posted as, back to back */
    uint8_t verb;                /* enum bn_sc_verb */
    double start_us;             /* when generated flows start */
    uint32_t incast_senders;     /* incast, and poisson's incast bursts: number of senders */
};

/* NVLink/NVSwitch scale-up domains beside the backend fabric. */
struct bn_scenario_scale_up {
    double rate_gbps;            /* per GPU, each direction */
    double efficiency;           /* the share of rate_gbps data gets (NVLink's protocol) */
    double latency_ns;           /* NVSwitch forwarding latency */
    uint32_t domain_gpus;        /* GPUs per domain (hosts h / domain_gpus share one); 0 = none */
    bool nvls;                   /* NVLink SHARP: the NVSwitch reduces and multicasts */
    double nvls_efficiency;      /* its engine's throughput, a fraction of the GPU ports' rate */
};

/* Collective sweeps (`bnet coll`), nccl-tests style. */
struct bn_scenario_coll {
    uint8_t op;                  /* collective: index in coll.op's registry */
    uint8_t algo;                /* 0 = auto, else 1 + index in the algorithms' registry */
    uint8_t datatype;            /* index in coll.datatype's registry */
    uint8_t redop;               /* index in coll.redop's registry (no effect on traffic) */
    uint64_t min_bytes, max_bytes; /* the sweep's smallest and largest size (-b, -e) */
    uint64_t slice_bytes;        /* pipelining unit */
    double step_latency_us;      /* software overhead before each transfer is posted */
    /* LL's and LL128's step latency: a ring's network step (NCCL's hwLat),
     * its other steps NCCL's table scaled alike (driver/coll/coll_nccl.c) */
    double ll_step_latency_us, ll128_step_latency_us;
    double channel_gbs;          /* a channel's (one CTA's) throughput per rank, GB/s; 0 = none */
    /* channels (parallel rings/trees); each size the last times step_factor
     * (-f); root rank (-r); timed iterations (-n); untimed ones first (-w) */
    uint32_t channels, step_factor, root, iters, warmup;
    uint64_t step_bytes;         /* with step_factor 1: each size the last plus this (-i) */
    uint32_t check;              /* nccl-tests -c: 0 shows #wrong as N/A (bnet always checks) */
    bool in_place;               /* also time in-place iterations (nccl-tests' second columns) */
    uint8_t proto;               /* 0 = auto, else 1 + index in the protocols' registry */
    uint8_t tuner;               /* enum bn_sc_coll_tuner: whose model picks under auto */
    bool pxn;                    /* cross-rail sends relayed over NVLink to the rail's GPU */
    bool aggregate;              /* flow level: a connection's transfers as one flow (coll/sched.h) */
};

/* coll.tuner: bnet's model of the fabric, NCCL 2.20.3's tuning model, or
 * bnet's pick with NCCL's run beside it. */
enum bn_sc_coll_tuner { BN_SC_TUNER_BNET = 0, BN_SC_TUNER_NCCL, BN_SC_TUNER_BOTH };

/* The collective algorithms' own parameters (issue 54), as the congestion
 * controls': src/coll/algo_NAME.c declares its keys and their struct,
 * bn_scenario keeps a block of BN_SC_ALGO_BLOCK_BYTES for each, block i
 * for the algorithm at index i of the algorithms' registry (checked to
 * fit, BN_COLL_KEYS_CHECK). Read them with bn_scenario_get. */
#define BN_SC_ALGO_MAX 12
#define BN_SC_ALGO_BLOCK_BYTES 32
struct bn_scenario_algo_block {
    uint64_t words[BN_SC_ALGO_BLOCK_BYTES / 8]; /* 8-byte aligned, for doubles and uint64_t */
};

/* In-network reduction's units (SHARP, sharp.*; issue 54): the switches'
 * aggregation units, src/topo/aggregation.c, declare their keys and
 * their struct, kept in this block (checked to fit). The topology, the
 * engine and the collective driver read them (CollNet runs on them). */
#define BN_SC_AGG_BLOCK_BYTES 32
struct bn_scenario_agg_block {
    uint64_t words[BN_SC_AGG_BLOCK_BYTES / 8]; /* 8-byte aligned, for doubles */
};

/* sim.*: the engine. */
struct bn_scenario_sim {
    double max_time_us;          /* stop simulated time here (0 = run to completion) */
    double stall_us;             /* stop a livelock: this long without progress (0 = never) */
    uint64_t memory_limit_bytes; /* refuse runs estimated above this (0: what is available) */
    uint8_t prefetch;            /* enum bn_sc_prefetch: the engine's prefetching */
    uint8_t fidelity;            /* enum bn_sc_fidelity: packets, or max-min fair flows */
    uint8_t event_order;         /* enum bn_sc_event_order */
    uint8_t partition;           /* enum bn_sc_partition */
    uint32_t partitions;         /* parts run in synchronous windows (0: one loop) */
    double window_timeout_s;     /* on ranks: the longest wait at an exchange (0 = forever) */
    char region[256];            /* hybrid: where packets run ("hosts:0-15"), flows elsewhere */
    double hybrid_update_us;     /* hybrid: how often the two levels' shared links are re-rated */
    bool hybrid_queues;          /* hybrid: the flows' M/D/1 backlog on shared switch ports */
};

/* observe.*: what the results follow beyond the totals. */
struct bn_scenario_observe {
    double sample_us;            /* time-series interval (0 = no series) */
    uint32_t max_flows;          /* flows whose rate is sampled: the first N */
    char queue_ports[BN_PATH_MAX]; /* "tor3/1 agg0/2"; empty = ports facing sampled receivers */
    uint8_t ports;               /* enum bn_sc_ports: which ports the results list */
    uint32_t max_samples;        /* past this the series halves its samples */
    uint32_t link_rows;          /* rows of the link series (0 = none) */
    /* FCT slowdown buckets: equal flow counts of slowdown_step_pct % each,
     * or cut at slowdown_edges ("10K,100K,1M") when set */
    double slowdown_step_pct;
    char slowdown_edges[BN_NAME_MAX];
};

/* The fault kinds' own parameters (issue 54), as the congestion
 * controls': a kind declares its faults[] keys and their struct in its own
 * file (src/fault/kind_link_flap.c: faults[].down_us, ...), and each
 * faults[] item keeps a block of BN_SC_FAULT_KIND_BLOCK_BYTES for each
 * kind, block i for the kind at index i of faults[].kind's registry
 * (checked to fit at build time, BN_FAULT_KEYS_CHECK). Read them with
 * bn_scenario_get ("faults.0.down_us"), not from the block. */
#define BN_SC_FAULT_KINDS_MAX 12
#define BN_SC_FAULT_KIND_BLOCK_BYTES 16
struct bn_scenario_fault_kind_block {
    uint64_t words[BN_SC_FAULT_KIND_BLOCK_BYTES / 8]; /* 8-byte aligned, for doubles */
};

/* Failures and how the fabric's control plane reacts (src/fault). */
#define BN_SC_FAULTS_MAX 16   /* most items of faults: */
struct bn_scenario_fault {
    double at_us;                /* when it strikes */
    double until_us;             /* when it is over (link up, rate back); 0 = for good */
    char target[BN_NAME_MAX];    /* "leaf0 spine1" / "tor0/5" (a link), "spine1", "host3" */
    uint8_t kind;                /* index in the fault kinds' registry (src/fault) */
    bool instant;                /* every switch's routes change as it strikes (known at once) */
    /* where target was given, as key_line (bn_scenario_item_where): the
     * check against the topology names it (in the item's padding: its size
     * is unchanged) */
    uint32_t target_line;
    /* The kinds' own keys, by registry index (faults[].rate_gbps, ...). */
    struct bn_scenario_fault_kind_block kinds[BN_SC_FAULT_KINDS_MAX];
};

/* The control planes' own parameters (issue 54), as the congestion
 * controls': src/fault/cp_NAME.c declares its keys (routing.ib_sm.*, ...)
 * and their struct, bn_scenario keeps a block of BN_SC_CP_BLOCK_BYTES for
 * each, block i for the plane at index i of routing.control_plane's
 * registry (checked to fit, BN_CP_KEYS_CHECK). Read them with
 * bn_scenario_get. */
#define BN_SC_CP_MAX 6
#define BN_SC_CP_BLOCK_BYTES 48
struct bn_scenario_cp_block {
    uint64_t words[BN_SC_CP_BLOCK_BYTES / 8]; /* 8-byte aligned, for doubles and uint64_t */
};

/* routing.*: the control plane that reroutes around failures (docs/failures.md). */
struct bn_scenario_routing {
    double restore_fraction;     /* traffic counts as restored at this share (0..1) of its
                                  * pre-fault rate */
    double window_us;            /* the throughput window that measures it; 0 = auto */
    double stuck_us;             /* no fault event for this long: a queue pair stalled as long fails */
    uint8_t control_plane;       /* 0 = auto, else 1 + index in its registry (src/fault) */
    bool baseline;               /* also run without the faults, for the slowdown */
};

/* Jobs sharing the fabric (src/job, docs/jobs.md): a training or
 * inference job of a model's shape and parallelism, or background traffic. */
#define BN_SC_JOBS_MAX 8       /* most items of jobs: */
#define BN_SC_JOB_KEYS_MAX 48  /* room for a job's keys in job_key_line */
struct bn_scenario_job {
    char name[BN_NAME_MAX];      /* "" = job<index> */
    char ranks[BN_PATH_MAX];     /* placement explicit: hosts "0-63,128-191" */
    char workload_file[BN_PATH_MAX]; /* SimAI/AICB (ASTRA-sim 1.x) workload text */
    double start_us;             /* when its first iteration starts */
    double gpu_tflops;           /* dense peak of one GPU at dtype, TFLOP/s */
    double utilization;          /* share of the peak its kernels reach, 0..1 */
    double gpu_hbm_gbs;          /* memory bandwidth (inference decode), GB/s */
    double forward_us, backward_us; /* given per layer and micro-batch (0: from FLOPs;
                                     * backward 0: 2 x forward) */
    double optimizer_us;         /* the optimizer step after the gradients */
    double bucket_mb;            /* gradient bucket, MiB (DDP's bucket_cap_mb) */
    uint64_t bytes;              /* background: each flow's bytes */
    uint32_t gpus;               /* 0 = tp x cp x pp x dp */
    uint32_t iterations;         /* run back to back (inference: prefill + decode steps) */
    uint32_t tp, pp, dp, ep, cp; /* parallel degrees (dp 0: from gpus) */
    /* the model's shape: layers; hidden and MLP inner size (0: 4 x hidden);
     * attention heads, key/value heads (0: = heads); sequence length in
     * tokens; vocabulary size */
    uint32_t layers, hidden, ffn_hidden, heads, kv_heads, seq_len, vocab;
    uint32_t micro_batch, global_batch; /* sequences; global 0: micro_batch x dp x pp */
    uint32_t experts, top_k;     /* MoE (experts 0: dense) */
    uint8_t kind;                /* enum bn_sc_job_kind */
    uint8_t placement;           /* enum bn_sc_placement */
    uint8_t dtype, grad_dtype;   /* enum bn_sc_dtype */
    uint8_t pattern;             /* background: enum bn_sc_pattern */
    uint8_t scaleup;             /* enum bn_sc_scaleup_comm: collectives inside a domain */
    bool overlap;                /* gradient buckets reduce during backward */
    bool sequence_parallel;      /* TP as all-gather + reduce-scatter, tokens split */
    bool gated_mlp;              /* SwiGLU: three MLP matrices instead of two */
    bool network;                /* false: communication takes no time (a check) */
    bool alone;                  /* also run it alone on the fabric: its slowdown */
    bool untie_embeddings;       /* separate input embedding and output layer weights */
    bool pp_scatter_gather;      /* each TP rank sends a 1/tp slice to the next stage */
};

/* Room for the registry's keys in bn_scenario.key_line (checked at build). */
#define BN_SCENARIO_KEYS_MAX 336
/* key_line of a key given on the command line: by --set (bn_scenario_set,
 * or bn_scenario_set_flag without a flag), or by a flag (--seed, coll's
 * and p2p's flags, NCCL_* variables). */
#define BN_SCENARIO_LINE_CLI UINT32_MAX
#define BN_SCENARIO_LINE_FLAG (UINT32_MAX - 1)

/* The whole scenario. Plain data: copy it freely, nothing to free. */
struct bn_scenario {
    char source[BN_PATH_MAX];    /* file the scenario came from ("<default>" if embedded) */
    /* The line of `source` each key was read from, by registry index
     * (bn_scenario_key); 0 = a default or a preset's value;
     * BN_SCENARIO_LINE_CLI = an override. Checks that compare keys name it
     * (bn_scenario_where). */
    uint32_t key_line[BN_SCENARIO_KEYS_MAX];
    uint64_t seed;               /* every random choice's seed (0 .. 2^53-1) */
    uint8_t fabric;              /* technology preset applied first: 0 = none, else 1 + its index */
    struct bn_scenario_topology topology;
    /* The topology builders' keys, by registry index (topology.groups, ...). */
    struct bn_scenario_topo_block topo[BN_SC_TOPO_MAX];
    struct bn_scenario_link link;
    struct bn_scenario_switch sw;    /* YAML key: "switch" */
    /* The load-balancing policies' keys, by registry index (switch.ar_*, ...). */
    struct bn_scenario_lb_block lb[BN_SC_LB_MAX];
    /* The flow-control modules' keys, by registry index (pfc.*). */
    struct bn_scenario_fc_block fc[BN_SC_FC_MAX];
    struct bn_scenario_nic nic;
    /* The transports' keys, by registry index (nic.sr_window, ...). */
    struct bn_scenario_tp_block tp[BN_SC_TP_MAX];
    struct bn_scenario_host host;
    /* The congestion-control modules' keys, by registry index (dcqcn.*, ...). */
    struct bn_scenario_cc_block cc[BN_SC_CC_MAX];
    struct bn_scenario_workload workload;
    /* The workload generators' keys, by registry index (workload.load, ...). */
    struct bn_scenario_wl_block wl[BN_SC_WL_MAX];
    struct bn_scenario_sim sim;
    struct bn_scenario_observe observe;
    struct bn_scenario_scale_up scale_up;
    struct bn_scenario_coll coll;
    /* The collective algorithms' keys, by registry index (none yet). */
    struct bn_scenario_algo_block algo[BN_SC_ALGO_MAX];
    /* The aggregation units' keys (sharp.*). */
    struct bn_scenario_agg_block agg;
    struct bn_scenario_routing routing;
    /* The control planes' keys, by registry index (routing.ib_sm.*, ...). */
    struct bn_scenario_cp_block cp[BN_SC_CP_MAX];
    struct bn_scenario_p2p p2p;
    struct bn_scenario_compare compare;
    struct bn_scenario_cost cost;
    uint32_t nfaults;            /* faults[0 .. nfaults) are given */
    struct bn_scenario_fault faults[BN_SC_FAULTS_MAX];
    uint32_t njobs;              /* jobs[0 .. njobs) are given */
    /* The line each job's fields were read from, by the field's place among
     * the jobs[] keys (as key_line; bn_scenario_item_where). */
    uint32_t job_key_line[BN_SC_JOBS_MAX][BN_SC_JOB_KEYS_MAX];
    struct bn_scenario_job jobs[BN_SC_JOBS_MAX];
};

/* Fill every field with its documented default (source "<default>"). */
void bn_scenario_defaults(struct bn_scenario *sc);

/* Load YAML text over the defaults (a `fabric:` preset under the text's
 * own keys) into sc; `source` (NULL: "<string>") names it in error
 * messages. BN_OK, or BN_EINPUT (BN_ENOMEM) with sc unchanged. Does not
 * run bn_scenario_validate. */
int bn_scenario_load_string(struct bn_scenario *sc, const char *yaml,
                            const char *source, struct bn_error *err);
/* The same from a file, `path` becoming the source. */
int bn_scenario_load_file(struct bn_scenario *sc, const char *path,
                          struct bn_error *err);

/* Apply one "dotted.key=value" override (as from --set; a list item's
 * field as "faults.N.key"; "fabric=NAME" applies the preset's keys).
 * BN_OK, or BN_EINPUT naming the key. */
int bn_scenario_set(struct bn_scenario *sc, const char *assignment,
                    struct bn_error *err);
/* The same, for an override the caller made from another flag: errors
 * start with "FLAG 'TYPED'" (e.g. "-b '0'", the flag and value as the user
 * typed them) instead of "--set 'ASSIGNMENT'"; flag NULL = bn_scenario_set. */
int bn_scenario_set_flag(struct bn_scenario *sc, const char *assignment, const char *flag,
                         const char *typed, struct bn_error *err);

/* Apply a calibration file (bnet calibrate's YAML; docs/calibration.md):
 * each key of its `set:` mapping as bn_scenario_set would, errors starting
 * "--calibration 'FILE:LINE'". BN_OK or BN_EINPUT. */
int bn_scenario_apply_calibration(struct bn_scenario *sc, const char *path,
                                  struct bn_error *err);

/* Shape the cluster for `nranks` GPUs, as `-g`/`mpirun -np` ask for them
 * (docs/collectives.md, "Rank count"): servers of 8 GPUs (one server of
 * nranks below 8), each GPU's NIC on a rail-optimized fabric whose radix
 * fits (servers per scalable unit up to 32, radix up to 64, SuperPOD
 * style), NVLink inside each server when the scenario has it. Sets the
 * topology.* and scale_up.domain_gpus keys, errors starting "FLAG 'TYPED'";
 * a count no such fabric holds is BN_EINPUT naming the nearest that are. */
int bn_scenario_set_ranks(struct bn_scenario *sc, uint64_t nranks, const char *flag,
                          const char *typed, struct bn_error *err);

/* Where key `path` got its value, for a message: "FILE:LINE" when the
 * scenario file gave it, "--set PATH" or "FILE, a flag (PATH)" when the command
 * line did, else the source alone. Writes buf (cut to len);
 * returns buf. */
const char *bn_scenario_where(const struct bn_scenario *sc, const char *path, char *buf,
                              size_t len);
/* The same for field `path` ("jobs[].tp") of list item `index`. */
const char *bn_scenario_item_where(const struct bn_scenario *sc, const char *path,
                                   uint32_t index, char *buf, size_t len);
/* An error the layers below raised about a key (err->key set: "workload.load",
 * "jobs[2].tp"): where the key got its value goes in front of its message,
 * as bn_scenario_where says, and err->key is cleared. Nothing otherwise
 * (err may be NULL). Returns rc, for `return bn_scenario_locate(sc, rc, err)`. */
int bn_scenario_locate(const struct bn_scenario *sc, int rc, struct bn_error *err);

/* Cross-field checks after all loads and overrides (e.g. k even); BN_OK,
 * or BN_EINPUT naming the key. bn_run and the other runs call it too. */
int bn_scenario_validate(const struct bn_scenario *sc, struct bn_error *err);

/* Technology presets (`fabric:`): apply one's keys (`fabric` as the key
 * holds it: 0 = none, else 1 + the preset's index; sc->fabric itself is
 * left as it is); BN_OK, or BN_EINPUT for no such preset or one bnet cannot
 * model yet. Then list them. Returned strings are static. */
int bn_scenario_apply_preset(struct bn_scenario *sc, unsigned fabric, struct bn_error *err);
size_t bn_scenario_preset_count(void);
const char *bn_scenario_preset_name(size_t i);   /* NULL past the last */
size_t bn_scenario_preset_find(const char *name); /* its index; the count if none */
/* Its name; `buf` gets a description and its keys, one per line (cut to
 * len). NULL (buf untouched) past the last. */
const char *bn_scenario_preset_describe(size_t i, char *buf, size_t len);
/* What it models, and its k-th "key=value" (NULL past the last). */
const char *bn_scenario_preset_about(size_t i);
const char *bn_scenario_preset_set(size_t i, size_t k);

/* The embedded default scenario, as YAML text (static, like the three below). */
const char *bn_scenario_default_yaml(void);
/* The embedded default cluster of `bnet coll` (scenarios/cluster128.yaml). */
const char *bn_scenario_cluster_yaml(void);
/* The embedded scenario of `bnet job` (scenarios/job_default.yaml). */
const char *bn_scenario_job_yaml(void);
/* The embedded scenario of `bnet p2p` (scenarios/p2p_ib_ndr.yaml). */
const char *bn_scenario_p2p_yaml(void);

/* Key registry, for `bnet keys` and documentation checks. Static: the
 * entries and their strings live as long as the program. */
struct bn_scenario_key_info {
    const char *path;     /* "link.rate_gbps" */
    const char *type;     /* "int", "float", "bool", "string", "enum" */
    const char *unit;     /* "Gb/s", "ns", "bytes", "" */
    const char *def;      /* default, as text */
    const char *doc;      /* one line */
    /* enum: the i-th allowed value, NULL past the last (a module key's
     * registry, in its order); NULL for other types */
    const char *(*choice)(size_t i);
};
size_t bn_scenario_key_count(void);
const struct bn_scenario_key_info *bn_scenario_key(size_t i); /* NULL past the last */
/* The text of enum key `path`'s value `index` (NULL: no such key or value). */
const char *bn_scenario_choice(const char *path, unsigned index);
/* Key `path`'s value in sc as text, as a scenario file would give it,
 * into buf (cut to len); a list item's field as "faults.N.key". BN_OK, or
 * BN_EINPUT for an unknown key or len 0 (no bn_error to fill). */
int bn_scenario_get(const struct bn_scenario *sc, const char *path, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
