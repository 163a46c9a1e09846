/*
 * A job from a workload text file as Alibaba's AICB writes it for SimAI
 * (ASTRA-sim 1.x's format, which SimAI extends). The first line names the
 * parallelism and its degrees:
 *   HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1
 *   pp: 1 vpp: 8 ga: 1 all_gpus: 16 checkpoints: 0 checkpoint_initiates: 0
 *   pp_comm: 0
 * the second the number of layers, then one line per layer of twelve
 * fields: name, dependency, forward compute time, forward communication
 * type and size, input-gradient compute, type and size, weight-gradient
 * compute, type and size, weight-update time. Times are nanoseconds
 * (ASTRA-sim's cycles at 1 GHz), sizes bytes. Forward and input-gradient
 * communication runs on the tensor-parallel group (an _EP type: the
 * expert-parallel group), weight-gradient communication on the
 * data-parallel group (_DP_EP: the expert-data-parallel group), after the
 * last micro-batch's backward of that layer and not waited for by the
 * compute. The lines are one pipeline stage's layers, every stage running
 * them; ga is the micro-batches, pp_comm the bytes a stage hands the next.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/num.h"
#include "core/path.h"
#include "core/fail_key.h"
#include "job/build.h"
#include "job/pipeline.h"

#define LINE_MAX_BYTES 4096
#define LAYERS_MAX 1000000u
#define TIME_MAX_NS 1000000000000ULL   /* 1000 s: far from integer-picosecond overflow */
#define BYTES_MAX 1000000000000ULL     /* as workload.message_bytes */
#define TASKS_MAX 50000000ULL          /* a graph of about 5 GB */

struct reader {
    const struct bn_scenario *sc;
    uint32_t index;
    uint32_t hosts;             /* the cluster's: a job on more is refused before its graph */
    const char *path;
    FILE *f;
    unsigned long line;
    char buf[LINE_MAX_BYTES];
    char *raw;                  /* getline's */
    size_t raw_cap;
    const char *bad_line;       /* why next_line refused a line */
    struct bn_error *err;
};

static int bad(struct reader *r, const char *fmt, const char *what)
{
    char msg[300];
    snprintf(msg, sizeof msg, fmt, what);
    return bn_fail(r->err, BN_EINPUT, "%s:%lu: key 'jobs[%u].workload_file': %s", r->path,
                   r->line, r->index, msg);
}

/* The next line (without its end); false at the end of the file or on a
 * line bnet cannot take (r->bad_line says which: a NUL byte inside, C
 * strings would stop at it; longer than the buffer). */
static bool next_line(struct reader *r)
{
    ssize_t n = getline(&r->raw, &r->raw_cap, r->f);
    if (n < 0)
        return false;
    r->line++;
    if (strlen(r->raw) != (size_t)n)
        r->bad_line = "the line contains a NUL byte";
    else if ((size_t)n >= sizeof r->buf)
        r->bad_line = "a line longer than 4095 bytes";
    if (r->bad_line)
        return false;
    memcpy(r->buf, r->raw, (size_t)n + 1);
    r->buf[strcspn(r->buf, "\r\n")] = '\0';
    return true;
}

/* The line next_line could not take, or `what` at the end of the file. */
static int no_line(struct reader *r, const char *what)
{
    return bad(r, "%s", r->bad_line ? r->bad_line : what);
}

static bool parse_u64(const char *s, uint64_t *out)
{
    return bn_num_u64(s, UINT64_MAX, out);
}

struct header {
    uint64_t tp, ep, pp, ga, gpus, pp_comm;
    bool hybrid, data_only, model_only;   /* MODEL: tp = all the GPUs */
};

/* The first line: the kind, then "name: value" pairs (unknown ones are
 * skipped: vpp, checkpoints, checkpoint_initiates). */
static int header(struct reader *r, struct header *h)
{
    static const char *const kinds[] = {"HYBRID_TRANSFORMER_FWD_IN_BCKWD", "HYBRID_TRANSFORMER",
                                        "DATA", "MICRO", "MODEL"};
    *h = (struct header){.tp = 1, .ep = 1, .pp = 1, .ga = 1};
    if (!next_line(r))
        return no_line(r, "empty: expected a first line naming the parallelism");
    char *save = NULL, *tok = strtok_r(r->buf, " \t", &save);
    size_t k = 0;
    while (tok && k < sizeof kinds / sizeof kinds[0] && strcmp(tok, kinds[k]) != 0)
        k++;
    if (!tok || k == sizeof kinds / sizeof kinds[0])
        return bad(r, "parallelism '%.40s' is not one bnet reads (HYBRID_TRANSFORMER, "
                   "HYBRID_TRANSFORMER_FWD_IN_BCKWD, DATA, MICRO, MODEL)", tok ? tok : "");
    h->hybrid = k < 2;
    h->data_only = k == 2 || k == 3;
    h->model_only = k == 4;
    /* a known name takes the next token as its value; any other token
     * (vpp, checkpoint lists) is passed over alone */
    static const char *const names[] = {"model_parallel_NPU_group", "ep", "pp", "ga",
                                        "all_gpus", "pp_comm"};
    uint64_t *slots[] = {&h->tp, &h->ep, &h->pp, &h->ga, &h->gpus, &h->pp_comm};
    while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
        size_t n = strlen(tok);
        if (n && tok[n - 1] == ':')
            tok[n - 1] = '\0';
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strcmp(tok, names[i]) == 0 && !parse_u64(strtok_r(NULL, " \t", &save), slots[i]))
                return bad(r, "'%s' needs a whole number after it", names[i]);
    }
    if (h->data_only)
        h->tp = 1;
    if (!h->tp || !h->ep || !h->pp || !h->ga || h->ga > 1000000)
        return bad(r, "%s", "model_parallel_NPU_group, ep, pp and ga must be 1 or more (ga at "
                   "most 1000000)");
    return BN_OK;
}

/* Where a communication type runs: a step kind (TP or EP), or for weight
 * gradients the DP (*dp = 1) or expert-DP (*dp = 2) group. */
static int comm_type(struct reader *r, const char *t, bool wg, bool data_only, uint8_t *op,
                     uint8_t *kind, int *dp)
{
    static const char *const ops[] = {"ALLREDUCE", "ALLGATHER", "REDUCESCATTER", "ALLTOALL",
                                      "BROADCAST"};
    static const uint8_t kinds[] = {BN_COLL_ALLREDUCE, BN_COLL_ALLGATHER, BN_COLL_REDUCESCATTER,
                                    BN_COLL_ALLTOALL, BN_COLL_BROADCAST};
    *dp = 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        size_t n = strlen(ops[i]);
        if (strncmp(t, ops[i], n) != 0)
            continue;
        const char *suffix = t + n;
        *op = kinds[i];
        *kind = BN_STEP_TP;
        if (strcmp(suffix, "_EP") == 0)
            *kind = BN_STEP_EP;
        else if (strcmp(suffix, "_DP_EP") == 0)
            *dp = 2;
        else if (*suffix == '\0' && (wg || data_only))
            *dp = 1;
        else if (*suffix)
            break;
        return BN_OK;
    }
    return bad(r, "communication type '%.40s' (expected NONE, ALLREDUCE, ALLGATHER, "
               "REDUCESCATTER, ALLTOALL or BROADCAST, optionally with _EP or _DP_EP)", t);
}

/* One layer line into l; its update time into *update_ns. */
static int layer_line(struct reader *r, bool data_only, struct bn_job_layer *l,
                      uint64_t *update_ns)
{
    char *f[13], *save = NULL;
    int n = 0;
    for (char *tok = strtok_r(r->buf, " \t", &save); tok && n < 13;
         tok = strtok_r(NULL, " \t", &save))
        f[n++] = tok;
    if (n < 12)
        return bad(r, "%s", "a layer line needs 12 fields: name, dependency, then compute time, "
                   "communication type and size for forward, input and weight gradient, and "
                   "the update time");
    uint64_t v[12];
    static const int nums[] = {2, 4, 5, 7, 8, 10, 11};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        bool bytes = nums[i] == 4 || nums[i] == 7 || nums[i] == 10;
        if (!parse_u64(f[nums[i]], &v[nums[i]]))
            return bad(r, "field '%.40s' is not a whole number", f[nums[i]]);
        if (v[nums[i]] > (bytes ? BYTES_MAX : TIME_MAX_NS))
            return bad(r, "field '%.40s' is too large (times at most 10^12 ns, sizes at most "
                       "10^12 bytes)", f[nums[i]]);
    }
    *update_ns += v[11];
    /* forward: compute, then its communication; backward: input-gradient
     * compute and communication, weight-gradient compute */
    const int phase_first[3] = {2, 5, 8};
    for (int ph = 0; ph < 3; ph++) {
        int at = phase_first[ph], bwd = ph > 0;
        struct bn_job_step *s = &l->step[bwd][l->nsteps[bwd]];
        *s = (struct bn_job_step){.kind = BN_STEP_COMPUTE, .us = (double)v[at] / 1e3};
        l->nsteps[bwd]++;
        if (strcmp(f[at + 1], "NONE") == 0 || v[at + 2] == 0)
            continue;
        uint8_t op = 0, kind = 0;
        int dp = 0;
        int rc = comm_type(r, f[at + 1], ph == 2, data_only, &op, &kind, &dp);
        if (rc != BN_OK)
            return rc;
        if (dp) { /* gradients, reduced off the compute's path */
            l->grad_op = op;
            *(dp == 1 ? &l->grad_bytes : &l->expert_grad_bytes) += v[at + 2];
            continue;
        }
        s = &l->step[bwd][l->nsteps[bwd]++];
        *s = (struct bn_job_step){.kind = kind, .op = op, .bytes = v[at + 2]};
    }
    return BN_OK;
}

static int read_file(struct reader *r, struct bn_job_plan *plan, struct bn_job_layer **layers,
                     uint64_t *gpus)
{
    struct header h;
    int rc = header(r, &h);
    if (rc != BN_OK)
        return rc;
    uint64_t nl = 0;
    if (!next_line(r))
        return no_line(r, "the file ends before its second line, the number of layers");
    if (!parse_u64(r->buf, &nl) || nl == 0 || nl > LAYERS_MAX)
        return bad(r, "%s", "the second line must be the number of layers (1 to 1000000)");
    /* all_gpus, else jobs[].gpus; which one, for the messages */
    const char *from = "all_gpus";
    if (!h.gpus) {
        h.gpus = r->sc->jobs[r->index].gpus;
        from = "jobs[].gpus (the file gives no all_gpus)";
    }
    if (!h.gpus)
        return bn_fail(r->err, BN_EINPUT, "%s:1: key 'jobs[%u].workload_file': the file gives no "
                       "all_gpus and jobs[%u].gpus is not set: the job's GPU count is unknown (set jobs[].gpus, as SimAI is told it on its command line)",
                       r->path, r->index, r->index);
    if (h.model_only)
        h.tp = h.gpus;
    uint64_t mp = h.tp * h.pp;
    if (h.gpus % mp || h.gpus > (1u << 24))
        return bn_fail(r->err, BN_EINPUT, "%s:1: key 'jobs[%u].workload_file': %s %llu must be "
                       "a multiple of model_parallel_NPU_group x pp = %llu, at most 16777216",
                       r->path, r->index, from, (unsigned long long)h.gpus,
                       (unsigned long long)mp);
    if (h.gpus > r->hosts)
        return bn_fail(r->err, BN_EINPUT, "%s:1: key 'jobs[%u].workload_file': %s %llu is more "
                       "than the cluster's %u GPUs", r->path, r->index, from,
                       (unsigned long long)h.gpus, r->hosts);
    uint64_t dp = h.gpus / mp;
    /* each unit runs each layer's steps (at most 4 a pass) per micro-batch */
    if ((double)dp * h.pp * h.ga * nl * 8 > (double)TASKS_MAX)
        return bn_fail(r->err, BN_EINPUT, "%s:2: key 'jobs[%u].workload_file': %llu layers x "
                       "ga %llu on %llu pipelines x %llu stages would make more than %llu tasks",
                       r->path, r->index, (unsigned long long)nl, (unsigned long long)h.ga,
                       (unsigned long long)dp, (unsigned long long)h.pp,
                       (unsigned long long)TASKS_MAX);
    if (dp % h.ep)
        return bn_fail(r->err, BN_EINPUT, "%s:1: key 'jobs[%u].workload_file': ep %llu does not "
                       "divide the data-parallel degree %llu", r->path, r->index,
                       (unsigned long long)h.ep, (unsigned long long)dp);
    *layers = calloc(nl, sizeof **layers);
    if (!*layers)
        return bn_fail(r->err, BN_ENOMEM, "out of memory for %llu layers",
                       (unsigned long long)nl);
    uint64_t update_ns = 0;
    for (uint64_t k = 0; k < nl; k++) {
        if (!next_line(r))
            return no_line(r, "fewer layer lines than the second line says");
        rc = layer_line(r, h.data_only, &(*layers)[k], &update_ns);
        if (rc != BN_OK)
            return rc;
    }
    *gpus = h.gpus;
    *plan = (struct bn_job_plan){
        .tp = (uint32_t)h.tp, .cp = 1, .pp = (uint32_t)h.pp, .dp = (uint32_t)dp,
        .ep = (uint32_t)h.ep, .micro = (uint32_t)h.ga, .layer = *layers,
        .nlayers = (uint32_t)nl,
        .pp_bytes = h.pp_comm, .overlap = true, .optimizer_us = (double)update_ns / 1e3,
    };
    return BN_OK;
}

int bn_job_build_aicb(const struct bn_scenario *sc, uint32_t index, uint32_t hosts,
                      struct bn_job_graph *g, struct bn_job_model *m, struct bn_error *err)
{
    const struct bn_scenario_job *j = &sc->jobs[index];
    char path[2 * BN_PATH_MAX];
    bn_path_beside(sc->source, j->workload_file, path, sizeof path);
    struct reader r = {.sc = sc, .index = index, .hosts = hosts, .path = path, .err = err};
    r.f = fopen(path, "r");
    if (!r.f)
        return bn_fail_item(err, BN_EINPUT, "jobs", index, "workload_file", "cannot open '%s': %s",
                            path,
                            strerror(errno));
    struct bn_job_plan plan;
    struct bn_job_layer *layers = NULL;
    uint64_t gpus = 0;
    int rc = read_file(&r, &plan, &layers, &gpus);
    fclose(r.f);
    free(r.raw);
    if (rc == BN_OK && j->gpus && j->gpus != gpus)
        rc = bn_fail_item(err, BN_EINPUT, "jobs", index, "gpus", "%u, but the workload file is "
                          "for %llu GPUs", j->gpus,
                          (unsigned long long)gpus);
    if (rc == BN_OK)
        rc = bn_job_build_pipeline(&plan, g, err);
    if (rc == BN_OK)
        *m = (struct bn_job_model){.tp = plan.tp, .cp = 1, .pp = plan.pp, .dp = plan.dp,
                                   .ep = plan.ep, .gpus = (uint32_t)gpus, .micro = plan.micro};
    free(layers);
    return rc;
}
