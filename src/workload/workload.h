/*
 * Workloads turn a scenario into a list of flows (one message each, on its
 * own queue pair): who sends how many bytes to whom, and when. One generator
 * per file behind an ops table; selected by workload.kind.
 */
#ifndef BN_WORKLOAD_WORKLOAD_H
#define BN_WORKLOAD_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bnet/error.h"
#include "bnet/scenario.h"
#include "core/keyrow.h"
#include "core/rng.h"
#include "core/time.h"

/* As workload.message_bytes: 1e12 B keeps PSNs (32-bit) and time in range. */
#define BN_MAX_MESSAGE_BYTES 1000000000000ULL

#define BN_NO_TRIGGER UINT32_MAX

struct bn_flow_spec {
    uint32_t src, dst;
    uint64_t bytes;
    bn_time_t start;        /* when it starts; a gated flow: how long after its gate opens */
    uint32_t gate;          /* the trigger that starts it (BN_NO_TRIGGER: its start time) */
    uint32_t line;          /* its line in the flow file (0: generated) */
    bool unbounded;         /* sends until the run ends (sim.max_time_us; htsim's size 0):
                             * bytes is then BN_MAX_MESSAGE_BYTES, never all sent */
};

/*
 * Dependencies between flows (flow files: bnet's `after`, htsim's
 * triggers). A trigger opens after `need` activations and starts every
 * flow gated on it; a multishot trigger starts its flows one per
 * activation instead, in list order (htsim's MultiShotTrigger). A signal
 * activates a trigger when its flow's receiver has every byte, or when
 * its sender has every ACK.
 */
struct bn_flow_trigger {
    uint32_t need;
    uint32_t line;          /* where the file defines it (0: generated) */
    bool multishot;
};

struct bn_flow_signal {
    uint32_t flow, trigger;
    bool on_sent;           /* at the sender's completion (else the receiver's) */
};

/* A link a flow file fails from the start (htsim's `failure` lines): the
 * link_id-th core uplink of aggregation switch switch_id. */
struct bn_flow_failure {
    uint32_t switch_id, link_id;
    unsigned line;               /* its line in the file */
};

struct bn_flow_list {
    struct bn_flow_spec *flows;
    uint32_t n, cap;
    struct bn_flow_trigger *trig;
    uint32_t ntrig, trig_cap;
    struct bn_flow_signal *sig;
    uint32_t nsig, sig_cap;
    struct bn_flow_failure *fail;
    uint32_t nfail, fail_cap;
};

/* What a generator knows of the fabric. */
struct bn_wl_hosts {
    uint32_t n;                  /* hosts */
    double rate_bps;             /* a host link's rate */
    const uint32_t *leaf;        /* host -> its leaf switch (NULL: not known) */
    /* A topology file's node ids (ns-3's) -> hosts, UINT32_MAX a switch;
     * NULL: the topology does not number its nodes (bn_topo.file_host). */
    const uint32_t *file_host;
    uint32_t nfile_ids;
};

struct bn_workload_ops {
    const char *name;
    const char *summary;         /* one line: the flows it makes (workload.kind's doc) */
    bool needs_flow_file;        /* reads workload.flow_file, which must be set */
    /* Its own scenario keys (core/keyrow.h rows, BN_ROW_WL: fields of its
     * keys struct, in bn_scenario.wl[its registry index], checked to fit,
     * BN_WL_KEYS_CHECK); nkeys of them, 0: none. */
    const struct bn_key_row *keys;
    size_t nkeys;
    /* Checks its parsed block (keys) beyond each key's range, whichever
     * generator runs (a bad value is bad before it is used); BN_OK, or
     * BN_EINPUT naming the key (bn_fail_key). NULL: nothing to check. */
    int (*validate)(const void *keys, struct bn_error *err);
    /* Its flows offer *load of the hosts' capacity over *duration_us
     * (results: the load offered); NULL: it offers none (poisson does). */
    void (*offered_load)(const void *keys, double *load, double *duration_us);
    int (*generate)(const struct bn_scenario *sc, const struct bn_wl_hosts *h,
                    struct bn_rng *rng, struct bn_flow_list *out, struct bn_error *err);
    /* Before generating, for the memory estimate (driver/estimate.c): how
     * many flows it will make on nhosts hosts (0: not known before), and
     * how many messages its busiest sender or receiver handles in a row. */
    uint64_t (*count)(const struct bn_scenario *sc, uint64_t nhosts, uint64_t *serial);
    /* The key to name when its flows do not fit (NULL: the flows follow
     * the fabric's size, topology.k): what makes count() large. */
    const char *count_key;
};

/* The registry (workload.kind): the i-th generator and its name, NULL past
 * the last. */
const struct bn_workload_ops *bn_workload_at(size_t i);
const char *bn_workload_name(size_t i);
const char *bn_workload_summary(size_t i);
/* workload.kind's doc: each generator's name and summary, in registry order. */
extern const char bn_workload_doc[];
/* Generator w's parsed keys: its block of sc (bn_scenario.wl[its index]). */
const void *bn_workload_keys(const struct bn_scenario *sc, const struct bn_workload_ops *w);
/* Every generator's own key rows, for the scenario registry to splice in
 * after workload.incast_senders (core/keyrow.h's walker), in registry order. */
extern const struct bn_key_modules bn_workload_key_modules;
/* Room in the scenario registry for them. */
#define BN_WL_KEYS_MAX 12
/* A generator's keys struct fits its block of the scenario (bn_scenario.wl). */
#define BN_WL_KEYS_CHECK(type) BN_KEYS_FIT(type, struct bn_scenario_wl_block)
/* A row's field m of its keys struct `type` (core/keyrow.h). */
#define BN_ROW_WL(type, m) BN_ROW_IN(BN_KEY_BLOCK_WL, type, m)
/* Every generator's check of its block (validate), in registry order: the
 * first refusal, naming its key; BN_OK if none. */
int bn_workload_validate(const struct bn_scenario *sc, struct bn_error *err);
/* What the scenario's generator offers (offered_load): false, *load and
 * *duration_us untouched, if it offers no load. */
bool bn_workload_offered_load(const struct bn_scenario *sc, double *load, double *duration_us);
/* flow_list's file (workload.flow_file, "" if not set), whichever workload
 * runs: the scenario's check that it is set, and the faults a file's
 * failure lines make, name it. */
const char *bn_flow_file(const struct bn_scenario *sc);
/* The registry of workload.flow_format: "auto", then the formats. */
const char *bn_flow_format_name(size_t i);
/* Whether workload.flow_file's format (workload.flow_format, or what its
 * first significant line claims) may fail links (bn_flow_list.fail); false
 * if it cannot be read (the reading proper reports why). */
bool bn_flow_file_fails_links(const struct bn_scenario *sc);
int bn_workload_generate_on(const struct bn_scenario *sc, const struct bn_wl_hosts *h,
                            struct bn_flow_list *out, struct bn_error *err);
/* The same knowing only the host count (rate: link.rate_gbps; no leaves). */
int bn_workload_generate(const struct bn_scenario *sc, uint32_t nhosts,
                         struct bn_flow_list *out, struct bn_error *err);
void bn_flow_list_free(struct bn_flow_list *l);
/* Append; returns BN_OK or BN_ENOMEM (filled in err). */
int bn_flow_list_add(struct bn_flow_list *l, uint32_t src, uint32_t dst, uint64_t bytes,
                     bn_time_t start, struct bn_error *err);
/* A trigger (its index in *id) and a signal into one. */
int bn_flow_list_trigger(struct bn_flow_list *l, uint32_t need, bool multishot, uint32_t line,
                         uint32_t *id, struct bn_error *err);
int bn_flow_list_signal(struct bn_flow_list *l, uint32_t flow, uint32_t trigger, bool on_sent,
                        struct bn_error *err);
/* Every gated flow can start once the flows before it run to the end
 * (its trigger gets enough signals from flows that can start); else
 * BN_EINPUT naming `path` and the first flow's line that cannot. */
int bn_flow_list_check_gates(const struct bn_flow_list *l, const char *path,
                             struct bn_error *err);

#endif
