/*
 * Flow files (workload.kind: flow_list): bnet's own lines, htsim's
 * connection matrices and HPCC's flow.txt, one parser each behind this
 * table, picked by workload.flow_format or from the file's first line.
 */
#ifndef BN_WORKLOAD_FLOW_FILE_H
#define BN_WORKLOAD_FLOW_FILE_H

#include "workload/workload.h"

#define BN_FLOW_TOKENS_MAX 32

struct bn_flow_reader {
    const char *path;
    uint32_t nhosts;
    const uint32_t *file_host;   /* the topology file's node ids -> hosts (NULL: none) */
    uint32_t nfile_ids;
    double end_us;               /* sim.max_time_us (0: the run ends when its flows do) */
    struct bn_flow_list *out;
    void *state;                 /* the format's own */
};

struct bn_flow_format {
    const char *name;            /* as workload.flow_format */
    bool fails_links;            /* its files may fail links (bn_flow_list.fail) */
    /* Whether a file whose first significant line splits into tok[0..n)
     * is in this format. */
    bool (*claims)(char *const *tok, int n);
    int (*begin)(struct bn_flow_reader *r, struct bn_error *err);
    /* One line, split at blanks ('#' comments gone; n > 0). */
    int (*line)(struct bn_flow_reader *r, char *const *tok, int n, unsigned lineno,
                struct bn_error *err);
    int (*end)(struct bn_flow_reader *r, unsigned lines, struct bn_error *err);
    void (*free)(struct bn_flow_reader *r);
};

extern const struct bn_flow_format bn_flow_bnet, bn_flow_htsim, bn_flow_hpcc;

/* Field parsers: true if tok is a whole number / a real in 0..1e12. */
bool bn_flow_u64(const char *tok, uint64_t *v);
bool bn_flow_real(const char *tok, double *v);
/* A flow from the file's line (hosts and size checked, naming `what`). */
int bn_flow_file_add(struct bn_flow_reader *r, unsigned lineno, uint64_t src, uint64_t dst,
                     uint64_t bytes, double start_us, struct bn_error *err);

#endif
