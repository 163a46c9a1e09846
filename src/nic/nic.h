/*
 * NICs and RDMA reliable-connection queue pairs. A queue pair joins a sender
 * host to a receiver host; messages (WRITE or SEND) posted on it are cut into
 * MTU packets numbered by a packet sequence number (PSN, 32-bit here, no wrap
 * within a run). The NIC's single port is fed by pulling: when it is free it
 * sends queued ACK/NAKs first, then one data packet from the next active queue
 * pair, round-robin. Reliability is the transport's (bn_transport_ops); the NIC
 * only moves packets and reports message completions upward.
 */
#ifndef BN_NIC_NIC_H
#define BN_NIC_NIC_H

#include <stdbool.h>
#include <stdint.h>

#include "bnet/error.h"
#include "bnet/scenario.h"
#include "core/keyrow.h"
#include "link/fabric.h"
#include "link/telemetry.h"
#include "nic/encap.h"
#include "nic/endpoint.h"

#define BN_NONE UINT32_MAX

/* What a message is. READ and ATOMIC are requests: their responses travel
 * back on the queue pair's reverse (qp->peer) as READ_RESP and ATOMIC_RESP
 * messages the responder's NIC posts itself, and the requester's
 * completion comes when the response is in. */
enum bn_verb {
    BN_VERB_WRITE = 0, BN_VERB_SEND, BN_VERB_READ, BN_VERB_ATOMIC,
    BN_VERB_READ_RESP, BN_VERB_ATOMIC_RESP,
};
/* An atomic's operand: 8 bytes (IBTA spec vol. 1, 9.4.5). */
#define BN_ATOMIC_BYTES 8
/* Why a queue pair is in the error state (0: it is not). */
enum bn_qp_failure { BN_QP_OK = 0, BN_QP_RETRIES = 1, BN_QP_NO_PATH = 2 };
enum bn_completion_side { BN_COMPLETE_RX = 0, BN_COMPLETE_TX = 1 };

struct bn_msg {
    uint64_t bytes;      /* payload on the wire (0 for a READ or atomic request) */
    uint64_t len;        /* a READ's length (what its response carries) */
    bn_time_t posted;    /* when the poster posted it (a response: its request's) */
    bn_time_t at;        /* ready for the send engine; once received, when that completes */
    uint32_t first_psn, npkts;
    uint32_t next;       /* next message on the queue pair (or free list) */
    uint32_t cookie;     /* the poster's id for it */
    uint8_t verb;        /* enum bn_verb */
};

/* A queue pair, both ends. Line-aligned, with everything a packet reads or
 * writes in its first two lines, which the engine prefetches ahead of the
 * packet's event (at 8192 hosts a queue pair was last touched milliseconds
 * of wall time before): the message records themselves stay out of the
 * way, since the queue pair keeps what a packet needs of them (the PSNs
 * inside the message being sent, where its packets are all full; where the
 * oldest message at either end ends). The rest (rate-control timers,
 * message lists, rarer counters) in the lines after. */
struct bn_qp {
    /* lines 0-1: what every packet touches */
    uint32_t src, dst;   /* hosts */
    uint32_t snic, rnic; /* the sender's and receiver's NIC (backend or NVLink port) */
    uint32_t entropy;    /* flow identity for ECMP (stands for the UDP source port) */
    uint32_t next_active;
    uint32_t snd_nxt;    /* next PSN to send */
    uint32_t snd_una;    /* oldest PSN not yet acknowledged */
    uint32_t snd_max;    /* one past the highest PSN ever sent */
    uint32_t snd_end;    /* one past the last PSN the send engine has (post_end: posted) */
    /* PSNs in [snd_full_lo, snd_full_hi) are full packets inside one
     * message (MTU payload, no RETH, not its last): a transport shapes them
     * without reading the message (bn_nic_psn_full, bn_nic_shape_full) */
    uint32_t snd_full_lo, snd_full_hi;
    uint32_t head_end;   /* one past the last PSN of msg_head (none: UINT32_MAX) */
    uint32_t rtt_psn;    /* the packet being timed for a round-trip sample (BN_NONE: none) */
    uint32_t last_wire;  /* wire bytes of its last data packet (the pacing gap) */
    uint32_t rcv_nxt;    /* next PSN expected in order */
    uint32_t rcv_end;    /* one past the last PSN of rcv_msg (none: UINT32_MAX) */
    uint32_t since_ack;
    uint32_t spray_seq;
    uint8_t active, rto_pending, nak_sent;
    uint8_t nvlink;      /* both ends in one NVLink domain: over NVLink, no congestion control */
    uint8_t ce_echo;     /* receiver side: the next ACK echoes a CE mark */
    uint8_t stalled;     /* a timeout fired since the last progress (stall_since holds) */
    uint8_t backoff;     /* while stalled: the timer is nic.rto_us x 2^backoff (capped) */
    uint8_t failed;      /* enum bn_qp_failure: in the error state, it sends no more */
    uint64_t rate_bps;   /* sending rate the NIC paces this queue pair to (bn_cc_ops sets it) */
    bn_time_t next_send; /* earliest start of its next data packet */
    bn_time_t last_send; /* start of its last data packet (the gap is recomputed from it
                          * and last_wire when the rate changes) */
    bn_time_t rto_deadline;
    uint64_t retransmits;
    /* line 2: rate-control timers (a module that has them touches its
     * cc_priv lines anyway), the message lists, what lossy runs add to */
    bn_time_t pace_at;   /* a BN_EV_QP_PACE is due then (BN_TIME_NEVER: none) */
    bn_time_t cc_timer;  /* when the module wants on_timer (BN_TIME_NEVER: never) */
    bn_time_t cc_timer_at; /* the earliest BN_EV_CC_TIMER scheduled (BN_TIME_NEVER: none) */
    bn_time_t rtt_sent;
    bn_time_t last_cnp;  /* receiver side: when it last sent a CNP */
    uint32_t msg_head, msg_tail; /* messages not yet completed at the sender */
    uint32_t snd_msg;    /* message holding snd_nxt (go-back-N) */
    uint32_t rcv_msg;    /* message holding rcv_nxt */
    uint32_t ooo_last;   /* PSN of the last out-of-order packet discarded */
    uint32_t post_end;   /* one past the last PSN posted (wr.c) */
    uint64_t out_of_order;
    uint64_t duplicates;  /* receiver: data it already had (spurious retransmissions) */
    /* rarer counters */
    uint64_t timeouts, cnps_sent, cnps_received;
    bn_time_t stall_since; /* when its last progress was (valid while stalled) */
    /* the endpoint model (wr.c, endpoint.h); its wake-ups are pace_at's */
    uint32_t gate_msg;   /* oldest message posted but not yet given to the send engine */
    uint32_t rd_out;     /* READs and atomics outstanding */
    uint32_t peer;       /* the reverse queue pair responses travel on (BN_NONE: none yet) */
    uint8_t by_packet;   /* hybrid (src/flow/hybrid.c): packets carry it though carry is set */
    uint64_t cc_priv[16]; /* the congestion-control module's own state */
} __attribute__((aligned(64)));
_Static_assert(__builtin_offsetof(struct bn_qp, pace_at) == 128,
               "a packet's fields fill the queue pair's first two lines");
_Static_assert(sizeof(struct bn_qp) == 384, "a queue pair is six lines");

/* 32 bytes, aligned: every packet a NIC sends or receives touches one
 * line of NICs, never two. */
struct bn_nic {
    uint32_t port;
    struct bn_pktq ctrl;              /* ACK/NAKs waiting for the port */
    uint32_t active_head, active_tail;
    uint64_t line_bps;                /* its port's rate: the most a queue pair on it sends */
} __attribute__((aligned(32)));
_Static_assert(sizeof(struct bn_nic) == 32, "a NIC is half a line");

struct bn_nics;

/* Distinct NIC port rates a fabric may have (each its own parameter set). */
#define BN_CC_RATES_MAX 8

/*
 * Congestion control: one module per file behind this table (as Linux's
 * tcp_congestion_ops). The NIC calls it when a data packet leaves, when a
 * congestion notification (RoCE CNP, InfiniBand BECN) arrives, and when the
 * module's timer (qp->cc_timer) comes due; the module keeps its state in
 * qp->cc_priv and steers qp->rate_bps, which the NIC paces to.
 */
struct bn_cc_ops {
    const char *name;
    const char *summary; /* one line: what it steers by (nic.congestion_control's doc) */
    bool notifies;   /* receivers send congestion notifications for CE marks */
    const char *notice; /* what reports call those notifications ("CNPs"); NULL: none */
    bool passive;    /* never slows a queue pair (reports: "no congestion control") */
    /* Its own scenario keys (core/keyrow.h rows, BN_ROW_CC: fields of its
     * keys struct, which lives in bn_scenario.cc[its registry index] and
     * is checked to fit, BN_CC_KEYS_CHECK); nkeys of them, 0: none. */
    const struct bn_key_row *keys;
    size_t nkeys;
    /* The module's parameters: params_size bytes (zeroed) that setup fills
     * from its parsed keys (`keys`, its block of the scenario; `source`
     * names the scenario in errors) for NICs of line_gbps, with the
     * receivers' default minimum gap between notifications per queue pair
     * (nic.cnp_interval_us overrides it). setup may be NULL (no
     * parameters). */
    size_t params_size;
    int (*setup)(const void *keys, const char *source, double line_gbps, void *params,
                 bn_time_t *cnp_interval, struct bn_error *err);
    /* Non-NULL: the module reads in-band telemetry. Switches stamp its
     * data packets (link/telemetry.h), the receiver copies the records
     * onto the ACK, on_ack finds them in bn_nics.cc_int, and the INT
     * header adds this many bytes to every data frame and ACK. */
    uint32_t (*telemetry_bytes)(const void *keys);
    /* The module reads how long the data an ACK answers waited for the
     * receiver's DMA (bn_nics.cc_int->host_ns; the side records of
     * link/telemetry.h, without stamping). */
    bool host_delay;
    void (*init)(struct bn_nics *n, struct bn_qp *qp);
    void (*on_sent)(struct bn_nics *n, struct bn_qp *qp, uint32_t bytes);
    void (*on_notify)(struct bn_nics *n, struct bn_qp *qp);
    void (*on_timer)(struct bn_nics *n, struct bn_qp *qp);
    /* For the time series: the module's alpha, if it has one (may be NULL). */
    double (*alpha)(const struct bn_nics *n, const struct bn_qp *qp);
    /* Window-based modules (else NULL): may the queue pair put one more
     * packet in flight, and the ACKs that open the window: `ece` echoes a
     * CE mark, `rtt` a round-trip sample (0 when this ACK carries none).
     * A module may set qp->rate_bps in on_ack too (a rate module without
     * can_send, or a window paced below one packet): the NIC applies it. */
    bool (*can_send)(const struct bn_nics *n, const struct bn_qp *qp);
    void (*on_ack)(struct bn_nics *n, struct bn_qp *qp, bool ece, bn_time_t rtt);
    /* For the time series (series.flows[].cwnd_bytes; a window module's
     * rate stays the line rate): the congestion window in bytes. NULL for
     * rate modules. */
    double (*window)(const struct bn_nics *n, const struct bn_qp *qp);
    /* Receiver-paced modules (else NULL): the receiver's NIC sends the
     * notices itself, at a pace of its own. mark: a data packet of qp is
     * leaving, the flags it carries (the module counts it sent);
     * on_arrival: a data packet (a trimmed header too) of qpid reached its
     * receiver; notice_due: when NIC nic's next notice is due
     * (BN_TIME_NEVER: none pending); notice_take: the queue pair it goes
     * to, now (the NIC sends it as a notice packet, which the sender's
     * on_notify hears). Their per-NIC state: nic_priv_size bytes each at
     * bn_nics.cc_nic, zeroed, then nic_init. */
    uint8_t (*mark)(struct bn_nics *n, struct bn_qp *qp);
    void (*on_arrival)(struct bn_nics *n, uint32_t qpid, const struct bn_packet *pk);
    bn_time_t (*notice_due)(const struct bn_nics *n, uint32_t nic);
    uint32_t (*notice_take)(struct bn_nics *n, uint32_t nic);
    size_t nic_priv_size;
    void (*nic_init)(struct bn_nics *n, uint32_t nic);
};

/* For modules with nothing to do on a hook (on_notify, on_timer). */
void bn_cc_ignore(struct bn_nics *n, struct bn_qp *qp);

#define BN_CC_PRIV_CHECK(type) \
    _Static_assert(sizeof(type) <= sizeof(((struct bn_qp *)0)->cc_priv), \
                   #type " must fit in bn_qp.cc_priv")
/* A module's keys struct fits its block of the scenario (bn_scenario.cc). */
#define BN_CC_KEYS_CHECK(type) BN_KEYS_FIT(type, struct bn_scenario_cc_block)
/* A row's field m of its keys struct `type` (core/keyrow.h). */
#define BN_ROW_CC(type, m) BN_ROW_IN(BN_KEY_BLOCK_CC, type, m)
#define BN_TP_KEYS_CHECK(type) BN_KEYS_FIT(type, struct bn_scenario_tp_block)
#define BN_ROW_TP(type, m) BN_ROW_IN(BN_KEY_BLOCK_TP, type, m)
#define BN_TP_PARAMS_CHECK(type) \
    _Static_assert(sizeof(type) <= sizeof(((struct bn_nics *)0)->tp_params), \
                   #type " must fit in bn_nics.tp_params")
/* "SOURCE: MODULE parameters: why", for a setup hook whose check failed. */
int bn_cc_params_error(struct bn_error *err, const char *source, const char *module);
/* The module's parameters for the rate of qp's NIC port (its setup's for
 * that rate). */
const void *bn_nic_cc_params(const struct bn_nics *n, const struct bn_qp *qp);

struct bn_transport_ops {
    const char *name;
    const char *summary; /* one line: what it resends (nic.transport's doc) */
    /* Its own scenario keys (core/keyrow.h rows, BN_ROW_TP: fields of its
     * keys struct, in bn_scenario.tp[its registry index], checked to fit,
     * BN_TP_KEYS_CHECK; setup reads them with bn_transport_keys); nkeys of
     * them, 0: none. */
    const struct bn_key_row *keys;
    size_t nkeys;
    /* Sender: fill `pk` (psn, payload, flags) with the next data packet; the
     * NIC has checked that qp has something to send. */
    void (*next_data)(struct bn_nics *n, struct bn_qp *qp, struct bn_packet *pk);
    bool (*has_data)(const struct bn_nics *n, const struct bn_qp *qp);
    /* Packets sent and neither acknowledged nor known lost (window CC). */
    uint32_t (*in_flight)(const struct bn_nics *n, const struct bn_qp *qp);
    /* Packets it has yet to send: new ones and the resends it knows of
     * (receiver-paced CC). */
    uint32_t (*backlog)(const struct bn_nics *n, const struct bn_qp *qp);
    /* Bytes of private state per queue pair (at bn_nic_tp_priv), zeroed at
     * creation, then init (may be NULL). */
    size_t (*priv_size)(const struct bn_nics *n);
    /* Optional: read its keys into n->tp_params (BN_TP_PARAMS_CHECK). */
    int (*setup)(struct bn_nics *n, const struct bn_scenario *sc, struct bn_error *err);
    void (*init)(struct bn_nics *n, uint32_t qpid);
    /* Receiver: a data packet arrived. */
    void (*on_data)(struct bn_nics *n, uint32_t qpid, const struct bn_packet *pk);
    /* Sender: an ACK or NAK arrived. */
    void (*on_ack)(struct bn_nics *n, uint32_t qpid, const struct bn_packet *pk);
    /* Sender: the retransmission timer expired with data outstanding. */
    void (*on_timeout)(struct bn_nics *n, uint32_t qpid);
    /* Optional, a prefetch hint that changes nothing: start loading the
     * private state that `pk` arriving for qpid (NULL: qpid's next send)
     * will touch. */
    void (*prefetch)(struct bn_nics *n, uint32_t qpid, const struct bn_packet *pk);
};

typedef void (*bn_completion_fn)(void *ud, uint32_t cookie, enum bn_completion_side side,
                                 bn_time_t when);

struct bn_nics {
    struct bn_fabric *fab;
    struct bn_nic *nic;
    uint32_t nnics, nhosts;
    uint32_t domain_gpus;         /* NVLink domain size (0: none) */
    bn_time_t fabric_rtt;         /* as bn_nic_params's */
    uint32_t fabric_switches;     /* as bn_nic_params's */
    uint32_t agg_nic0, agg_node0; /* SHARP units: NIC agg_nic0 + (node - agg_node0) */
    uint32_t nvls_node0, nnvls;   /* NVLS units (one per NVLink domain), reached over NVLink */
    struct bn_qp *qp;
    uint32_t nqps, qp_cap;
    struct bn_msg *msg;
    uint32_t msg_cap, msg_free;
    const struct bn_encap *encap; /* encap_run */
    struct bn_encap encap_run;    /* the scenario's, with the CC's telemetry header */
    const struct bn_transport_ops *tp;
    const struct bn_cc_ops *cc;
    /* the module's parameters (its own struct, its setup's), one set per
     * distinct NIC port rate, as each rate's constants differ */
    void *cc_params;
    uint64_t cc_rate_bps[BN_CC_RATES_MAX];
    uint32_t cc_nrates;
    bn_time_t cnp_interval;       /* receiver: at most one CNP per queue pair per interval */
    uint32_t mtu, ack_every, max_frame;
    bn_time_t rto;
    bn_time_t qp_fail_after;      /* no progress this long: the queue pair fails (0: never) */
    bn_time_t rto_max;            /* a stalled queue pair's timer doubles up to this */
    bool rto_backoff;
    uint32_t qps_failed;
    bn_completion_fn on_complete;
    /* A queue pair went to the error state (may be NULL). */
    void (*on_error)(void *ud, uint32_t qpid, bn_time_t when);
    void *ud;
    /* Every data packet reaching its receiver (for path statistics; may be NULL). */
    void (*on_arrival)(void *ud, uint32_t qpid, const struct bn_packet *pk);
    uint64_t ecn_ce_received;
    uint8_t *tp_priv;             /* transport state, tp_priv_size bytes per queue pair */
    size_t tp_priv_size;
    _Alignas(8) unsigned char tp_params[16]; /* the transport's parameters (its setup hook's) */
    bool spray_entropy;           /* a new entropy value per packet */
    bool ep_on;                   /* sends pay the endpoint model (ep_params.on), beside
                                   * what every packet reads */
    uint64_t seed;                /* run seed: queue pairs' entropy depends on it */
    uint64_t *reorder_hist;       /* [depth] out-of-order arrivals, depth capped */
    uint32_t reorder_hist_len;
    struct bn_ep_params ep_params; /* the endpoint model (endpoint.h) */
    struct bn_nic_ep *ep;         /* per NIC */
    uint32_t (*lru)[2];           /* per queue pair with nic.qp_cache: its cache list's
                                   * previous and next (BN_NONE: none) */
    /* Per message delivered: post to completion at the receiver (or of a
     * READ at its requester), when a driver asks for them (record_lat). */
    bool record_lat;
    bn_time_t *lat;
    uint32_t nlat, lat_cap;
    /* The flow-level engine (sim.fidelity: flow) carries what the send
     * engine is given, as flows instead of packets: bn_nic_release hands
     * it the queue pair. NULL: packets. */
    void (*carry)(void *ud, uint32_t qpid);
    void *carry_ud;
    /* Under carry: a driver that holds a queue pair's next work back until
     * the send engine has sent what it has (coll_exec.c's held transfers)
     * posts it when asked, as the last message leaves; true if it posted.
     * NULL: nothing is held back. */
    bool (*refill)(void *ud, uint32_t qpid);
    void *refill_ud;
    /* A partitioned run's other processes (sim/ranks.c): per node, 1 if
     * another runs it. Work posted here for their senders is only recorded
     * (the receiver's end needs the messages), never sent. NULL: none. */
    const uint8_t *elsewhere;
    /* In-band telemetry (cc->telemetry_bytes): the records of the data
     * packet being received (int_rx_valid while its ACK may be sent), and
     * of the ACK being handled, which on_ack reads at cc_int (else NULL). */
    struct bn_int_rec int_rx, int_ack;
    bool int_rx_valid;
    const struct bn_int_rec *cc_int;
    /* A receiver-paced module (cc->notice_due): its per-NIC state. */
    bool paced_notices;
    unsigned char *cc_nic;
    bool kick_full;               /* ep_on or paced_notices: kick's general path */
    bool rx_dma;                  /* host NICs write received payload at ep_params.dma_bps */
    uint32_t rx_wait_ns;          /* the data packet being received waited this long */
    uint64_t rx_dma_pkts;         /* data packets through host NICs' receive DMA */
    uint64_t rx_buffer_bytes;     /* nic.rx_buffer_bytes; 0: unbounded (lossless links) */
    bn_time_t rx_wait_sum, rx_wait_max; /* and how long they waited for it */
    bool cc_extra;                /* the module marks packets, hears arrivals or reads
                                   * telemetry: the NIC's paths for those */
};

/* The encapsulation a run's frames have: nic.encap's, plus the header the
 * congestion control's in-band telemetry adds (sim/build.c sizes buffers
 * and round trips with it). */
void bn_nic_encap(const struct bn_scenario *sc, struct bn_encap *out);

/* A receiver-paced module's state of NIC nic (nic_priv_size bytes). */
static inline void *bn_nic_cc_nic(struct bn_nics *n, uint32_t nic)
{
    return n->cc_nic + (size_t)nic * n->cc->nic_priv_size;
}

/* Where the NICs sit, as the assembled fabric says (the rest the NIC
 * layer reads from the scenario's nic.* keys and its modules' own). */
struct bn_nic_params {
    bn_time_t fabric_rtt;         /* the longest idle round trip between hosts: a full
                                   * data frame there, an ACK back (0: not known) */
    uint32_t fabric_switches;     /* switches on the longest minimal path */
    const uint32_t *nvlink_port;  /* per host: its NVLink port (NULL: no NVLink domains) */
    uint32_t domain_gpus;
    const uint32_t *agg_port;     /* per aggregation unit (SHARP, NVLS): its port (nagg) */
    uint32_t nagg, agg_node0;     /* units are nodes agg_node0 .. agg_node0 + nagg - 1 */
    uint32_t nvls_node0, nnvls;   /* of which NVLS units: nvls_node0 .. + nnvls - 1, by domain */
};

/* The NICs of nhosts hosts (host_port[h]: a host's backend port) on a
 * fabric whose flow control is set up; encapsulation, transport and
 * congestion control as the scenario names them, each set up from its
 * keys. */
int bn_nics_init(struct bn_nics *n, struct bn_fabric *f, const uint32_t *host_port,
                 uint32_t nhosts, const struct bn_scenario *sc, const struct bn_nic_params *p,
                 struct bn_error *err);
void bn_nics_free(struct bn_nics *n);

/* A queue pair from host src to host dst; returns its id or BN_NONE (oom). */
uint32_t bn_qp_create(struct bn_nics *n, uint32_t src, uint32_t dst);
/* Its "UDP source port" from `key` and the run's seed (bn_qp_create keys
 * it by the queue pair's index): a driver that wants a connection to hash
 * the same whatever else runs gives it a key of its own. */
void bn_qp_set_entropy(struct bn_nics *n, uint32_t qpid, uint64_t key);
/* Post a message; completions come back through on_complete with `cookie`
 * (a READ's or atomic's, at the requester with side BN_COMPLETE_TX, when
 * its response is in; its first post creates the reverse queue pair the
 * responses travel on, whose id drivers then see in arrivals). `bytes`:
 * what a WRITE or SEND carries, or a READ fetches (an atomic: ignored).
 * Returns 0, -1 out of memory, -2 PSN space of the queue pair exhausted. */
int bn_qp_post(struct bn_nics *n, uint32_t qpid, uint64_t bytes, enum bn_verb verb,
               uint32_t cookie);

/* A window module's can_send: one more packet in flight fits `cwnd`
 * bytes (packets in flight counted whole, as MTUs). */
static inline bool bn_cc_window_allows(const struct bn_nics *n, const struct bn_qp *qp,
                                       double cwnd)
{
    return ((double)n->tp->in_flight(n, qp) + 1) * n->mtu <= cwnd;
}

/* The NIC of an endpoint node (a host's backend NIC, or a SHARP unit's). */
static inline uint32_t bn_nic_of_node(const struct bn_nics *n, uint32_t node)
{
    return node < n->nhosts ? node : n->agg_nic0 + (node - n->agg_node0);
}
/* The NIC owning endpoint port `port`: backend NIC = host id, NVLink port
 * = nhosts + host, then the aggregation units'. */
static inline uint32_t bn_nic_of_port(const struct bn_nics *n, uint32_t port)
{
    uint32_t h = n->fab->port_node[port]; /* compact: a delivery needs no port line */
    if (n->nnics == n->nhosts)
        return h; /* hosts only: no NVLink port or SHARP unit to tell apart */
    if (h >= n->nhosts)
        return n->agg_nic0 + (h - n->agg_node0);
    return n->nic[h].port == port ? h : n->nhosts + h;
}
/* Hints (change nothing): start loading endpoint node `node`'s NIC (a
 * host's; nothing for others); a queue pair's first two lines (its ids,
 * sequence numbers and pacing) and what its transport will touch for `pk`
 * (NULL: its next send); the queue pair the NIC of host port `port` will
 * serve next. */
static inline void bn_nic_prefetch_node(const struct bn_nics *n, uint32_t node)
{
    if (node < n->nhosts)
        __builtin_prefetch(&n->nic[node]);
}
static inline void bn_nic_prefetch_qp(struct bn_nics *n, uint32_t qpid, const struct bn_packet *pk)
{
    if (qpid == BN_NONE)
        return;
    const char *qp = (const char *)&n->qp[qpid];
    __builtin_prefetch(qp, 1);
    __builtin_prefetch(qp + 64, 1);
    if (n->tp->prefetch)
        n->tp->prefetch(n, qpid, pk);
}
static inline void bn_nic_prefetch_next(struct bn_nics *n, uint32_t port)
{
    bn_nic_prefetch_qp(n, n->nic[bn_nic_of_port(n, port)].active_head, NULL);
}

/* The NIC's port is free: send the next packet, if any. */
void bn_nic_kick(struct bn_nics *n, uint32_t nic);
/* A packet arrived at NIC `nic`'s port. Consumes it. */
void bn_nic_receive(struct bn_nics *n, uint32_t nic, uint32_t pkt);
/* BN_EV_RTO for a queue pair. */
void bn_nic_rto_event(struct bn_nics *n, uint32_t qpid);
/* BN_EV_NIC_RX: a data packet that waited for NIC nic's receive DMA. */
void bn_nic_rx_event(struct bn_nics *n, uint32_t nic, uint32_t pkt);
/* BN_EV_QP_PACE: a paced queue pair may send again. */
void bn_nic_pace_event(struct bn_nics *n, uint32_t qpid);
/* Queue pair q is about to send from NIC nic: is its context cached? A
 * miss loads it, evicting the least recently used (nic.qp_cache). */
bool bn_nic_ep_touch(struct bn_nics *n, uint32_t nic, uint32_t q);
/* Give the send engine the queue pair's messages that are ready (wr.c). */
void bn_nic_release(struct bn_nics *n, uint32_t qpid);
/* BN_EV_COMPLETE: a completion the endpoint model delayed (wr.c). */
void bn_nic_complete_event(struct bn_nics *n, uint32_t cookie, uint32_t side);
/* BN_EV_CC_TIMER: the congestion-control module's timer. */
void bn_nic_cc_timer_event(struct bn_nics *n, uint32_t qpid);

/* After a congestion-control hook changed rate_bps or cc_timer. */
void bn_nic_cc_sync(struct bn_nics *n, uint32_t qpid);

/* For transports. */
void bn_nic_activate(struct bn_nics *n, uint32_t qpid);
/* ACK/NAK/CNP from the receiver: `psn` the next expected, `sack` (ACKs of a
 * selective-repeat receiver) the PSN that prompted it. */
void bn_nic_send_ctrl(struct bn_nics *n, uint32_t qpid, uint8_t type, uint32_t psn, uint32_t sack);
/* The transport's private state of a queue pair. */
static inline void *bn_nic_tp_priv(struct bn_nics *n, uint32_t qpid)
{
    return n->tp_priv + (size_t)qpid * n->tp_priv_size;
}
/* Receiver statistics shared by transports. */
void bn_nic_note_reorder(struct bn_nics *n, uint32_t depth);
void bn_nic_arm_rto(struct bn_nics *n, uint32_t qpid);
/* Put a queue pair in the error state (enum bn_qp_failure); the driver
 * hears of it. The fault schedule fails the ones no path can serve. */
void bn_nic_qp_fail(struct bn_nics *n, uint32_t qpid, uint8_t why);
/* Payload bytes of `psn` within message `m`. */
uint32_t bn_nic_psn_payload(const struct bn_nics *n, const struct bn_msg *m, uint32_t psn);
/* Data packet `psn`'s size and flags (psn, payload, bytes, BN_PKT_LAST).
 * A full packet inside a message is shaped from the queue pair alone
 * (bn_nic_psn_full); any other from its message `mi`, which refreshes the
 * queue pair's range of full packets. bn_nic_shape_from_msg is true if
 * `psn` is its message's last packet. */
static inline bool bn_nic_psn_full(const struct bn_qp *qp, uint32_t psn)
{
    return psn - qp->snd_full_lo < qp->snd_full_hi - qp->snd_full_lo;
}
static inline void bn_nic_shape_full(const struct bn_nics *n, uint32_t psn, struct bn_packet *pk)
{
    pk->psn = psn;
    pk->payload = (uint16_t)n->mtu;
    pk->bytes = bn_encap_frame(n->encap, 0, n->mtu);
}
bool bn_nic_shape_from_msg(struct bn_nics *n, struct bn_qp *qp, uint32_t mi, uint32_t psn,
                           struct bn_packet *pk);
/* Wire bytes of message m's packets, framing and wire overhead included,
 * and of its last frame (*last_wire): what the flow-level engine moves. */
uint64_t bn_nic_msg_wire(const struct bn_nics *n, const struct bn_msg *m, uint32_t *last_wire);
/* The sender's outstanding message holding `psn` (BN_NONE if none). */
uint32_t bn_nic_msg_holding(const struct bn_nics *n, const struct bn_qp *qp, uint32_t psn);
/* Completions of the messages the receiver (rx) or the sender's ACKs (tx)
 * have finished, if any: the checks inline, the work in wr.c. */
void bn_nic_complete_rx(struct bn_nics *n, uint32_t qpid);
void bn_nic_complete_tx(struct bn_nics *n, uint32_t qpid);
static inline void bn_nic_complete_rx_upto(struct bn_nics *n, uint32_t qpid)
{
    const struct bn_qp *qp = &n->qp[qpid];
    if (qp->rcv_nxt >= qp->rcv_end && qp->rcv_msg != BN_NONE)
        bn_nic_complete_rx(n, qpid);
}
static inline void bn_nic_complete_tx_upto(struct bn_nics *n, uint32_t qpid)
{
    const struct bn_qp *qp = &n->qp[qpid];
    if (qp->snd_una >= qp->head_end && qp->msg_head != BN_NONE && !qp->failed)
        bn_nic_complete_tx(n, qpid);
}

/* The registries (nic.transport, nic.congestion_control): the i-th module
 * and its name, NULL past the last. */
const struct bn_transport_ops *bn_transport_at(size_t i);
/* Transport i's parsed keys: its block of sc (bn_scenario.tp[i]). */
const void *bn_transport_keys(const struct bn_scenario *sc, size_t i);
/* Every transport's own key rows, for the scenario registry to splice in
 * after nic.entropy (core/keyrow.h's walker), in registry order. */
extern const struct bn_key_modules bn_transport_key_modules;
#define BN_TP_KEYS_MAX 4
/* Selective repeat's window (nic.sr_window), whichever transport runs:
 * the NIC's reorder histogram and the memory estimate size by it. */
uint32_t bn_tp_sr_window(const struct bn_scenario *sc);
const char *bn_transport_name(size_t i);
const char *bn_transport_summary(size_t i);
/* nic.transport's doc: "Reliability: " and each transport's "name
 * (summary)" (written beside the registry: the row needs a constant). */
extern const char bn_transport_doc[];
const struct bn_cc_ops *bn_cc_at(size_t i);
const char *bn_cc_name(size_t i);
const char *bn_cc_summary(size_t i);
/* nic.congestion_control's doc: "Sender rate control: " and each module's
 * "name (summary)" (written beside the registry: the row needs a constant). */
extern const char bn_cc_doc[];
extern const struct bn_cc_ops bn_cc_none;
/* Module i's parsed keys: its block of sc (bn_scenario.cc[i]). */
const void *bn_cc_keys(const struct bn_scenario *sc, size_t i);
/* Every module's own key rows, for the scenario registry to splice in
 * after nic.cnp_interval_us (core/keyrow.h's walker), in the order the
 * keys had in struct bn_scenario before issue 54 (cc_registry.c). */
extern const struct bn_key_modules bn_cc_key_modules;
/* Room in the scenario registry for them (tests/scenario/test_module_keys.c checks). */
#define BN_CC_KEYS_MAX 64

#endif
