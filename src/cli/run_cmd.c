/*
 * `bnet run` / `topo` / `coll` / `job` / `p2p` / `compare`: options, scenario loading and
 * output. Every input problem is one line on stderr and exit status 2.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bnet/bnet.h"
#include "bnet/coll.h"
#include "bnet/compare.h"
#include "bnet/job.h"
#include "bnet/p2p.h"
#include "bnet/sweep.h"
#include "cli/cli.h"
#include "cli/dist.h"
#include "cli/progress.h"
#include "cli/signals.h"
#include "plot/plot.h"

/* "key=value" in a fresh allocation; NULL if out of memory. */
static char *assignment_of(const char *key, const char *value)
{
    size_t n = strlen(key) + strlen(value) + 2;
    char *a = malloc(n);
    if (a)
        snprintf(a, n, "%s=%s", key, value);
    return a;
}

static int load_scenario(const struct cli_opts *o, enum bn_cli_mode mode, struct bn_scenario *sc,
                         struct bn_error *err)
{
    /* `bnet coll` and `bnet compare` without a file run the embedded 128-GPU cluster */
    bool cluster = mode == BN_CLI_COLL || mode == BN_CLI_COMPARE;
    const char *yaml = cluster              ? bn_scenario_cluster_yaml()
                       : mode == BN_CLI_JOB ? bn_scenario_job_yaml()
                       : mode == BN_CLI_P2P ? bn_scenario_p2p_yaml()
                                            : bn_scenario_default_yaml();
    const char *name = cluster              ? "<cluster128>"
                       : mode == BN_CLI_JOB ? "<job_default>"
                       : mode == BN_CLI_P2P ? "<p2p_ib_ndr>"
                                            : "<default>";
    int rc = o->file ? bn_scenario_load_file(sc, o->file, err)
                     : bn_scenario_load_string(sc, yaml, name, err);
    /* coll as nccl-tests: NCCL's variables, the program name's collective,
     * the rank count; then the flags, which have the last word */
    if (rc == BN_OK && mode == BN_CLI_COLL)
        rc = bn_cli_nccl_env(sc, err);
    if (rc == BN_OK && o->program_op) {
        char *a = assignment_of("coll.op", o->program_op);
        rc = a ? bn_scenario_set_flag(sc, a, "program", o->program_op, err)
               : bn_fail(err, BN_ENOMEM, "out of memory");
        free(a);
    }
    if (rc == BN_OK && o->ranks > 0) {
        char typed[24];
        snprintf(typed, sizeof typed, "%lld", (long long)o->ranks);
        rc = bn_scenario_set_ranks(sc, (uint64_t)o->ranks,
                                   o->nranks ? "--nranks" : "-t x -g x -N", typed, err);
    }
    /* a run drawn with --plot records the link series its heatmaps need,
     * unless the scenario sizes it (docs/plots.md); --set still decides */
    if (rc == BN_OK && o->plot && mode == BN_CLI_RUN && sc->observe.link_rows == 0)
        rc = bn_scenario_set_flag(sc, "observe.link_rows=128", "--plot", o->plot, err);
    if (rc == BN_OK && o->calibration) /* fitted keys; --set still has the last word */
        rc = bn_scenario_apply_calibration(sc, o->calibration, err);
    for (int i = 0; rc == BN_OK && i < o->nsets; i++)
        rc = bn_scenario_set_flag(sc, o->sets[i].assignment, o->sets[i].flag, o->sets[i].typed,
                                  err);
    if (rc == BN_OK && o->seed) {
        char *a = assignment_of("seed", o->seed); /* its message names key 'seed' */
        rc = a ? bn_scenario_set_flag(sc, a, "--seed", o->seed, err)
               : bn_fail(err, BN_ENOMEM, "out of memory");
        free(a);
    }
    if (rc == BN_OK)
        rc = bn_scenario_validate(sc, err);
    return rc;
}

static int exit_status(const struct bn_error *err)
{
    if (bn_cli_dist()->rank == 0) /* under mpirun every rank has it: one says it */
        fprintf(stderr, "bnet: %s\n", err->msg); /* BN_EINTR: 128 + the signal, after */
    return err->status == BN_EINPUT ? 2 : 1;
}

/* Exit status 3 (the results are whole, but faults made work fail), said
 * on stderr too: with --json - the table that shows it is not printed. */
static int failed_status(uint32_t n, uint32_t of, const char *what)
{
    fprintf(stderr, "bnet: %u of %u %s (faults: queue pairs ran out of retries, or waited for "
            "work that did); exit status 3 (docs/failures.md)\n", n, of, what);
    return 3;
}

/* A run the livelock watchdog stopped (sim.stall_us): the results so far
 * are written, sim.stalled; docs/limits.md. */
enum { STALLED_STATUS = 4 };

/* "3 minutes", "2.5 hours" into buf. */
static const char *minutes(double s, char *buf, size_t len)
{
    if (s >= 5400)
        snprintf(buf, len, "%.1f hours", s / 3600);
    else
        snprintf(buf, len, "%.0f minutes", s / 60 < 1 ? 1 : s / 60);
    return buf;
}

/* A run that takes over a minute (its events or flow-rate recomputations,
 * estimated: bn_estimate_time), or a fabric whose routing tables take
 * minutes: say so before the wait. */
static void warn_slow(const struct bn_scenario *sc, enum bn_est_what what)
{
    struct bn_mem_estimate e;
    struct bn_time_estimate t;
    struct bn_error err = {0};
    char d[32];
    if (bn_check_memory(sc, what, &err) != BN_OK) /* refused next, no wait to tell */
        return;
    if (bn_estimate_time(sc, what, &t, &err) == BN_OK && t.wall_s > 60 &&
        t.events + t.recomputations > 0) {
        bool flow = t.recomputations > 0;
        fprintf(stderr, "bnet: estimate: about %.3g %s, about %s of wall time in one process "
                "(docs/limits.md, \"Time\"); --max-wall SECONDS stops it "
                "with what it measured\n", flow ? t.recomputations : t.events,
                flow ? "flow-rate recomputations at flow level" : "events at packet level",
                minutes(t.wall_s, d, sizeof d));
        return;
    }
    if (bn_estimate_memory(sc, BN_EST_TOPO, &e, &err) == BN_OK && e.route_s > 60)
        fprintf(stderr, "bnet: warning: routing %llu switches to %llu leaves takes about %.0f "
                "minutes (docs/limits.md)\n", (unsigned long long)e.switches,
                (unsigned long long)e.leaves, e.route_s / 60);
}

/* --plot DIR: the figures of the JSON just written, or of a temporary copy
 * in DIR when there is no JSON file (docs/plots.md). */
static int plot_results(const struct cli_opts *o, enum bn_cli_mode mode, const void *res)
{
    bool file = o->json && strcmp(o->json, "-") != 0;
    const char *path = o->json;
    char tmp[PATH_MAX];
    if (!file) {
        struct bn_error err = {0};
        int fd = -1, rc = BN_OK;
        if ((size_t)snprintf(tmp, sizeof tmp, "%s/.bnet-results-XXXXXX", o->plot) < sizeof tmp)
            fd = mkstemp(tmp);
        if (fd < 0) {
            fprintf(stderr, "bnet: plot folder '%s': cannot write in it: %s\n", o->plot,
                    strerror(errno));
            return 2;
        }
        close(fd);
        rc = mode == BN_CLI_RUN    ? bn_results_write_json(res, tmp, 0, &err)
             : mode == BN_CLI_COLL ? bn_coll_write_json(res, tmp, &err)
                                   : bn_compare_write_json(res, tmp, &err);
        if (rc != BN_OK) {
            remove(tmp);
            return exit_status(&err);
        }
        path = tmp;
    }
    bool to_stdout = !o->quiet && !(o->json && strcmp(o->json, "-") == 0);
    int rc = bn_plot_files(&path, 1, o->plot, to_stdout ? stdout : stderr);
    if (!file)
        remove(tmp);
    return rc;
}

/* -j N: a count of 1..64; 0 if it is not one. */
static unsigned jobs_value(const char *v)
{
    const char *end;
    uint64_t n;
    return bn_cli_digits(v, &end, 64, &n) == 0 && !*end && n >= 1 ? (unsigned)n : 0;
}

/* -j N, or `fallback` without it; false (after a message) if N is not a
 * count of 1..64. */
static bool jobs_of(const struct cli_opts *o, unsigned fallback, unsigned *jobs)
{
    *jobs = o->jobs ? jobs_value(o->jobs) : fallback;
    if (o->jobs && !*jobs)
        fprintf(stderr, "bnet: option '-j' needs a count of worker processes, 1 to 64 (got "
                "'%s')\n", o->jobs);
    return !o->jobs || *jobs;
}

/* The processors online, at most 64: the default -j of compare and sweep. */
static unsigned processors(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (unsigned)(cpus < 64 ? cpus : 64) : 1;
}

/* "PREFIX-SUFFIX.csv", allocated; NULL if out of memory. */
static char *csv_path(const char *prefix, const char *suffix)
{
    size_t len = strlen(prefix) + strlen(suffix) + 6;
    char *path = malloc(len);
    if (path)
        snprintf(path, len, "%s-%s.csv", prefix, suffix);
    return path;
}

/* Under mpirun: every rank's outcome of its share, the lowest failing
 * rank's status (0: all succeeded), said once, by that rank. */
static int ranks_status(int rc, const struct bn_error *err)
{
    bool print;
    int st = bn_cli_dist_status(rc == BN_OK ? 0 : err->status == BN_EINPUT ? 2 : 1, &print);
    int rank = bn_cli_dist()->rank;
    if (print && rank)
        fprintf(stderr, "bnet: rank %d: %s\n", rank, err->msg);
    else if (print)
        fprintf(stderr, "bnet: %s\n", err->msg);
    return st;
}

static int do_run(const struct cli_opts *o, const struct bn_scenario *sc)
{
    struct bn_error err = {0};
    struct bn_run_opts ro = {.ranks = bn_cli_dist_ranks()};
    int rank = bn_cli_dist()->rank;
    struct bn_results res;
    if (rank == 0)
        warn_slow(sc, BN_EST_RUN);
    if (ro.ranks)
        bn_cli_dist_watch(sc->sim.window_timeout_s);
    int rc = bn_run(sc, &ro, &res, &err);
    bn_cli_progress_end();
    if (ro.ranks) { /* one part per rank: rank 0 reports (docs/parallel.md) */
        int st = ranks_status(rc, &err);
        if (st == 0) /* all ran: rank 0 lists every rank's peak memory */
            bn_cli_dist_gather_rss(bn_cli_dist(), &res);
        if (rc == BN_OK && (st || rank))
            bn_results_free(&res);
        if (st || rank)
            return st;
    } else if (rc != BN_OK) {
        return exit_status(&err);
    }
    rc = bn_provenance_command(&res.prov, o->command, &err);
    if (res.stalled)
        fprintf(stderr, "bnet: stopped at %.1f us: no flow took data in order for "
                "sim.stall_us (%.0f us) while frames kept arriving, a livelock (docs/model.md, "
                "\"Livelock\"); %u of %u flows completed; results written, sim.stalled; exit "
                "status 4 (docs/limits.md)\n", res.simulated_us, sc->sim.stall_us,
                res.flows_completed, res.nflows);
    if (!o->quiet && !(o->json && strcmp(o->json, "-") == 0))
        bn_results_print(stdout, &res);
    if (rc == BN_OK && o->json)
        rc = bn_results_write_json(&res, o->json, o->reproducible ? BN_JSON_REPRODUCIBLE : 0, &err);
    if (rc == BN_OK && o->csv)
        rc = bn_results_write_csv(&res, o->csv, &err);
    int st = rc != BN_OK ? exit_status(&err) : o->plot ? plot_results(o, BN_CLI_RUN, &res) : 0;
    /* 4: the livelock watchdog stopped it, its results written but not
     * whole; 3: the run is whole, but faults made flows fail (docs/results.md) */
    if (!st && res.stalled)
        st = STALLED_STATUS;
    else if (!st && res.flows_failed)
        st = failed_status(res.flows_failed, res.nflows, "flows failed");
    bn_results_free(&res);
    return st;
}

/* nccl-tests' nThread and nGpus (-t, -g; without them one thread driving
 * every GPU) and whether bnet's columns follow. */
static void launch_of(const struct cli_opts *o, struct bn_coll_results *r)
{
    r->nthreads = o->threads ? (uint32_t)strtoul(o->threads, NULL, 10) : 1;
    uint32_t nodes = o->nodes ? (uint32_t)strtoul(o->nodes, NULL, 10) : 1;
    uint32_t per = r->nthreads * nodes;
    r->ngpus = o->gpus ? (uint32_t)strtoul(o->gpus, NULL, 10) : r->nranks / (per ? per : 1);
    r->bnet_columns = o->bnet_columns;
}

/* Rows go out as they are measured, as nccl-tests prints them: a sweep to
 * 1 GiB takes minutes. */
static void print_row(void *ud, const struct bn_coll_results *r, uint32_t row)
{
    const struct cli_opts *o = ud;
    struct bn_coll_results shown = *r; /* with the launch the flags describe */
    bn_cli_progress_clear();
    launch_of(o, &shown);
    if (row == 0)
        bn_coll_print_header(stdout, &shown);
    bn_coll_print_row(stdout, &shown, row);
    fflush(stdout);
}

/* How the drop-in tables print: --report_gbits, --no-seed-report. */
static unsigned print_flags(const struct cli_opts *o)
{
    return (o->report_gbits ? BN_PRINT_GBITS : 0u) | (o->no_seed_report ? BN_PRINT_NO_SEED : 0u);
}

/* Under mpirun, bnet run cuts the fabric into one part per rank
 * (sim.partitions, when given, must say so). */
static int ranks_parts_ok(const struct bn_scenario *sc)
{
    uint32_t size = (uint32_t)bn_cli_dist()->size;
    if (sc->sim.partitions == size)
        return 0;
    if (bn_cli_dist()->rank == 0)
        fprintf(stderr, "bnet: %s: key 'sim.partitions': %u parts, but mpirun started %u "
                "ranks; a run on ranks has one part each (docs/parallel.md)\n", sc->source,
                sc->sim.partitions, size);
    return 2;
}

static int ranks_parts(struct bn_scenario *sc)
{
    if (sc->sim.partitions == 0)
        sc->sim.partitions = (uint32_t)bn_cli_dist()->size;
    return ranks_parts_ok(sc);
}

/* Under mpirun: this rank's share of the rows, gathered on rank 0, which
 * prints the whole table; 0 and res to report on rank 0, else the exit
 * status (-1: another rank's results, nothing to report here). */
static int coll_ranks(const struct cli_opts *o, const struct bn_scenario *sc, unsigned jobs,
                      struct bn_coll_results *res)
{
    const struct bn_cli_dist *d = bn_cli_dist();
    struct bn_error err = {0};
    int rc = bn_coll_sweep_part(sc, jobs, (uint32_t)d->rank, (uint32_t)d->size, res, &err);
    int st = ranks_status(rc, &err);
    if (!st)
        bn_cli_dist_gather_coll(d, res);
    if (rc == BN_OK && (st || d->rank))
        bn_coll_results_free(res);
    if (st || d->rank)
        return st ? st : -1;
    if (!(o->json && strcmp(o->json, "-") == 0))
        for (uint32_t i = 0; i < res->nrows; i++)
            print_row((void *)o, res, i);
    return 0;
}

static int do_coll(const struct cli_opts *o, const struct bn_scenario *sc)
{
    struct bn_error err = {0};
    struct bn_coll_results res;
    bool table = !o->quiet && !(o->json && strcmp(o->json, "-") == 0);
    unsigned jobs;
    if (!jobs_of(o, 0, &jobs)) /* 0: as many as fit */
        return 2;
    if (bn_cli_dist()->rank == 0)
        warn_slow(sc, BN_EST_COLL);
    if (bn_cli_dist()->size > 1 && sc->sim.partitions) { /* each row cut across the ranks */
        int rank = bn_cli_dist()->rank, st = ranks_parts_ok(sc);
        if (st)
            return st;
        bn_cli_dist_watch(sc->sim.window_timeout_s);
        int rc = bn_coll_sweep_ranks(sc, bn_cli_dist_ranks(), table && !rank ? print_row : NULL,
                                     (void *)o, &res, &err);
        st = ranks_status(rc, &err);
        if (rc == BN_OK && (st || rank))
            bn_coll_results_free(&res);
        if (st || rank)
            return st;
    } else if (bn_cli_dist()->size > 1) {
        int st = coll_ranks(o, sc, jobs, &res);
        if (st)
            return st < 0 ? 0 : st;
    } else if (bn_coll_sweep_jobs(sc, jobs, table ? print_row : NULL, (void *)o, &res, &err) !=
               BN_OK) {
        bn_cli_progress_end();
        return exit_status(&err);
    }
    bn_cli_progress_end();
    launch_of(o, &res);
    int rc = bn_provenance_command(&res.prov, o->command, &err);
    if (table)
        bn_coll_print_footer_opts(stdout, &res, print_flags(o));
    if (rc == BN_OK && o->json)
        rc = bn_coll_write_json(&res, o->json, &err);
    if (rc == BN_OK && o->output_file)
        rc = bn_coll_write_csv(&res, o->output_file, &err);
    int st = rc != BN_OK ? exit_status(&err) : o->plot ? plot_results(o, BN_CLI_COLL, &res) : 0;
    uint32_t failed = 0;
    for (uint32_t i = 0; i < res.nrows; i++)
        failed += res.rows[i].failed;
    if (!st && failed)
        st = failed_status(failed, res.nrows, "rows' collectives failed");
    bn_coll_results_free(&res);
    return st;
}

static int do_job(const struct cli_opts *o, const struct bn_scenario *sc)
{
    struct bn_error err = {0};
    struct bn_job_results res;
    struct bn_job_opts jo = {.trace = o->trace != NULL, .ranks = bn_cli_dist_ranks()};
    int rank = bn_cli_dist()->rank;
    if (rank == 0)
        warn_slow(sc, BN_EST_JOBS);
    if (jo.ranks)
        bn_cli_dist_watch(sc->sim.window_timeout_s);
    int run = bn_job_run(sc, &jo, &res, &err);
    bn_cli_progress_end();
    if (jo.ranks) { /* one part per rank: rank 0 reports (docs/parallel.md) */
        int st = ranks_status(run, &err);
        if (run == BN_OK && (st || rank))
            bn_job_results_free(&res);
        if (st || rank)
            return st;
    } else if (run != BN_OK) {
        return exit_status(&err);
    }
    int rc = bn_provenance_command(&res.prov, o->command, &err);
    bool to_stdout = (o->json && strcmp(o->json, "-") == 0) ||
                     (o->trace && strcmp(o->trace, "-") == 0);
    if (!o->quiet && !to_stdout)
        bn_job_print(stdout, &res);
    if (rc == BN_OK && o->json)
        rc = bn_job_write_json(&res, o->json, &err);
    if (rc == BN_OK && o->trace)
        rc = bn_job_write_trace(&res, o->trace, &err);
    uint32_t failed = 0, njobs = res.njobs;
    for (uint32_t k = 0; k < njobs; k++)
        failed += res.jobs[k].failed;
    bn_job_results_free(&res);
    return rc != BN_OK ? exit_status(&err) : failed ? failed_status(failed, njobs, "jobs failed") : 0;
}

/* perftest's table, a pair's rows as each is measured. */
static void print_p2p_row(void *ud, const struct bn_p2p_results *r, uint32_t pair, uint32_t row)
{
    const struct cli_opts *o = ud;
    bn_cli_progress_clear();
    if (row == 0)
        bn_p2p_print_header_opts(stdout, r, pair, print_flags(o));
    bn_p2p_print_row_opts(stdout, r, pair, row, print_flags(o));
    fflush(stdout);
}

static int do_p2p(const struct cli_opts *o, const struct bn_scenario *sc)
{
    struct bn_error err = {0};
    struct bn_p2p_results res;
    bool table = !o->quiet && !(o->json && strcmp(o->json, "-") == 0);
    int run = bn_p2p_run(sc, table ? print_p2p_row : NULL, (void *)o, &res, &err);
    bn_cli_progress_end();
    if (run != BN_OK)
        return exit_status(&err);
    if (table)
        bn_p2p_print_footer_opts(stdout, &res, print_flags(o));
    int rc = bn_provenance_command(&res.prov, o->command, &err);
    if (rc == BN_OK && o->json)
        rc = bn_p2p_write_json(&res, o->json, &err);
    bn_p2p_results_free(&res);
    return rc != BN_OK ? exit_status(&err) : 0;
}

/* --seeds "1-4,9": "seed=1,2,3,4,9" in a fresh allocation; NULL after a
 * message if it is not a list of seeds and ranges. */
static char *seeds_axis(const char *list)
{
    size_t cap = 64, at = (size_t)snprintf(NULL, 0, "seed=");
    char *out = malloc(cap);
    if (!out)
        return NULL;
    snprintf(out, cap, "seed=");
    for (const char *p = list;;) {
        const char *end;
        uint64_t a, b;
        if (bn_cli_digits(p, &end, UINT32_MAX, &a) != 0)
            goto bad;
        b = a;
        if (*end == '-' && (bn_cli_digits(end + 1, &end, UINT32_MAX, &b) != 0 || b < a))
            goto bad;
        if (b - a >= 100000)
            goto bad;
        for (uint64_t s = a; s <= b; s++) {
            if (at + 24 > cap) {
                char *grown = realloc(out, cap *= 2);
                if (!grown)
                    goto bad;
                out = grown;
            }
            at += (size_t)snprintf(out + at, cap - at, "%s%llu", at > 5 ? "," : "",
                                   (unsigned long long)s);
        }
        if (*end == '\0')
            return out;
        if (*end != ',')
            goto bad;
        p = end + 1;
    }
bad:
    fprintf(stderr, "bnet: option '--seeds' needs seeds and ranges, e.g. 1-8 or 1,5,9 (got "
            "'%s')\n", list);
    free(out);
    return NULL;
}

static int do_sweep(const struct cli_opts *o, const struct bn_scenario *sc)
{
    unsigned jobs;
    if (!jobs_of(o, processors(), &jobs))
        return 2;
    char *seeds = o->seeds ? seeds_axis(o->seeds) : NULL;
    if (o->seeds && !seeds)
        return 2;
    const struct bn_cli_dist *d = bn_cli_dist(); /* under mpirun: this rank's share */
    const char **vary = calloc((size_t)o->nvary + 2, sizeof *vary);
    struct bn_sweep_results *res = malloc(sizeof *res);
    struct bn_error err = {0};
    int rc;
    if (!vary || !res) {
        rc = bn_fail(&err, BN_ENOMEM, "out of memory");
    } else {
        for (int i = 0; i < o->nvary; i++)
            vary[i] = o->vary[i];
        vary[o->nvary] = seeds;
        rc = bn_sweep_run_part(sc, vary, jobs, (uint32_t)d->rank, (uint32_t)d->size, NULL, NULL,
                               res, &err);
    }
    bn_cli_progress_end();
    free(vary);
    free(seeds);
    int st = ranks_status(rc, &err);
    if (st || d->size > 1) {
        if (!st)
            bn_cli_dist_gather_sweep(d, res);
        if (st || d->rank != 0) { /* rank 0 writes the one result */
            if (rc == BN_OK)
                bn_sweep_results_free(res);
            free(res);
            return st;
        }
    }
    if (rc == BN_OK)
        rc = bn_provenance_command(&res->prov, o->command, &err);
    if (rc == BN_OK && !o->quiet && !(o->json && strcmp(o->json, "-") == 0))
        bn_sweep_print(stdout, res);
    if (rc == BN_OK && o->json)
        rc = bn_sweep_write_json(res, o->json, &err);
    if (rc == BN_OK && o->csv) {
        char *path = csv_path(o->csv, "sweep");
        rc = path ? bn_sweep_write_csv(res, path, &err)
                  : bn_fail(&err, BN_ENOMEM, "out of memory");
        free(path);
    }
    uint32_t failed = 0, stalled = 0, npoints = rc == BN_OK ? res->npoints : 0;
    for (uint32_t p = 0; p < npoints; p++) {
        failed += res->points[p].res.flows_failed > 0;
        stalled += res->points[p].res.stalled;
    }
    if (rc == BN_OK && stalled)
        fprintf(stderr, "bnet: %u of %u points stopped by the livelock watchdog (sim.stall_us; "
                "sim.stalled in their results); exit status 4 (docs/limits.md)\n", stalled,
                npoints);
    if (res && rc == BN_OK)
        bn_sweep_results_free(res);
    free(res);
    return rc != BN_OK ? exit_status(&err)
           : stalled   ? STALLED_STATUS
           : failed    ? failed_status(failed, npoints, "points had flows that failed")
                       : 0;
}

static int do_compare(const struct cli_opts *o, const struct bn_scenario *sc)
{
    struct bn_error err = {0};
    unsigned jobs;
    if (!jobs_of(o, processors(), &jobs))
        return 2;
    const char **sets = calloc((size_t)o->nsets + 1, sizeof *sets);
    if (!sets) {
        fprintf(stderr, "bnet: out of memory\n");
        return 1;
    }
    for (int i = 0; i < o->nsets; i++)
        sets[i] = o->sets[i].assignment;
    struct bn_compare_results *res = malloc(sizeof *res);
    const struct bn_cli_dist *d = bn_cli_dist(); /* under mpirun: this rank's columns */
    int rc = res ? bn_compare_run_part(sc, sets, jobs, (uint32_t)d->rank, (uint32_t)d->size, res,
                                       &err)
                 : bn_fail(&err, BN_ENOMEM, "out of memory");
    bn_cli_progress_end();
    free(sets);
    if (d->size > 1) {
        int st = ranks_status(rc, &err);
        if (!st)
            bn_cli_dist_gather_compare(d, res);
        if (st || d->rank) {
            if (rc == BN_OK)
                bn_compare_results_free(res);
            free(res);
            return st;
        }
    }
    if (rc == BN_OK)
        rc = bn_provenance_command(&res->prov, o->command, &err);
    if (rc == BN_OK && !o->quiet && !(o->json && strcmp(o->json, "-") == 0))
        bn_compare_print(stdout, res);
    if (rc == BN_OK && o->json)
        rc = bn_compare_write_json(res, o->json, &err);
    if (rc == BN_OK && o->csv) {
        char *path = csv_path(o->csv, "compare");
        rc = path ? bn_compare_write_csv(res, path, &err)
                  : bn_fail(&err, BN_ENOMEM, "out of memory");
        free(path);
    }
    int st = rc != BN_OK ? exit_status(&err) : o->plot ? plot_results(o, BN_CLI_COMPARE, res) : 0;
    if (res && rc == BN_OK)
        bn_compare_results_free(res);
    free(res);
    return st;
}

/* --max-wall SECONDS: a decimal number above 0 (digits, an optional
 * fraction; no sign, exponent or base, as bn_cli_digits), at most a year. */
static int max_wall_of(const char *v, double *out)
{
    const char *end;
    uint64_t whole, frac = 0, scale = 1;
    if (bn_cli_digits(v, &end, 31536000, &whole) != 0)
        return -1;
    if (*end == '.') {
        const char *f = end + 1;
        while (*f >= '0' && *f <= '9' && scale < 1000000000)
            frac = frac * 10 + (uint64_t)(*f++ - '0'), scale *= 10;
        if (f == end + 1 || *f)
            return -1;
        end = f;
    }
    *out = (double)whole + (double)frac / (double)scale;
    return *end || *out <= 0 ? -1 : 0;
}

/* "SRC,DST": two host indices. */
static int parse_paths(const char *v, struct bn_topo_query *q)
{
    const char *end;
    uint64_t a, b;
    if (bn_cli_digits(v, &end, UINT32_MAX, &a) != 0 || *end != ',' ||
        bn_cli_digits(end + 1, &end, UINT32_MAX, &b) != 0 || *end)
        return -1;
    q->paths = true;
    q->src = (uint32_t)a;
    q->dst = (uint32_t)b;
    return 0;
}

static int do_topo(const struct cli_opts *o, const struct bn_scenario *sc)
{
    struct bn_error err = {0};
    struct bn_topo_info info;
    struct bn_topo_query q = {.dot_path = o->dot};
    if (o->paths && parse_paths(o->paths, &q) != 0) {
        fprintf(stderr, "bnet: option '--paths' needs two host indices SRC,DST (got '%s')\n",
                o->paths);
        return 2;
    }
    bool quiet = (o->json && strcmp(o->json, "-") == 0) || (o->dot && strcmp(o->dot, "-") == 0);
    if (o->json && o->dot && strcmp(o->json, "-") == 0 && strcmp(o->dot, "-") == 0) {
        fprintf(stderr, "bnet: --json - and --dot - cannot both write to stdout\n");
        return 2;
    }
    struct bn_mem_estimate run, coll, jobs = {0};
    warn_slow(sc, BN_EST_TOPO);
    if (bn_check_memory(sc, BN_EST_TOPO, &err) != BN_OK ||
        bn_estimate_memory(sc, BN_EST_RUN, &run, &err) != BN_OK ||
        bn_estimate_memory(sc, BN_EST_COLL, &coll, &err) != BN_OK ||
        (sc->njobs && bn_estimate_memory(sc, BN_EST_JOBS, &jobs, &err) != BN_OK) ||
        bn_plan_topology(sc, &q, &info, &err) != BN_OK)
        return exit_status(&err);
    info.memory_run_bytes = run.total_bytes;
    info.memory_coll_bytes = coll.total_bytes;
    info.memory_jobs_bytes = jobs.total_bytes;
    info.memory_available_bytes = run.available_bytes;
    if (!quiet)
        bn_topo_info_print(stdout, &info);
    if (o->json && bn_topo_info_write_json(&info, o->json, &err) != BN_OK)
        return exit_status(&err);
    return 0;
}

static void free_opts(struct cli_opts *o)
{
    free(o->command);
    for (int i = 0; o->sets && i < o->nsets; i++)
        free(o->sets[i].owned);
    free(o->sets);
    free(o->vary);
}

int bn_cli_run(int argc, char **argv, int first, enum bn_cli_mode mode, const char *program_op)
{
    struct cli_opts o = {0};
    o.sets = calloc((size_t)argc + 1, sizeof *o.sets);
    o.vary = calloc((size_t)argc + 1, sizeof *o.vary);
    if (!o.sets || !o.vary) {
        free_opts(&o);
        return 1;
    }
    o.program_op = program_op;
    /* before parsing: getopt_long moves the operands after the options */
    o.command = bn_cli_command_of(argc, argv, first, mode);
    int rc = o.command ? bn_cli_parse(argc, argv, first, mode, &o) : 1;
    if (rc == 0 && mode == BN_CLI_COLL && (o.ranks = bn_cli_rank_count(&o)) < 0)
        rc = 2;
    double max_wall = 0;
    if (rc == 0 && o.max_wall && max_wall_of(o.max_wall, &max_wall) != 0) {
        fprintf(stderr, "bnet: option '--max-wall' needs seconds of wall time, a number above "
                "0 such as 60 or 0.5, at most a year (got '%s')\n", o.max_wall);
        rc = 2;
    }
    if (rc == 0)
        rc = bn_cli_check_outputs(&o);
    if (rc != 0) {
        free_opts(&o);
        return rc < 0 ? 0 : rc;
    }
    if (bn_cli_dist()->size > 1 && mode != BN_CLI_SWEEP && mode != BN_CLI_COLL &&
        mode != BN_CLI_COMPARE && mode != BN_CLI_RUN && mode != BN_CLI_JOB) {
        static const char *const names[] = {"run", "topo", "coll", "job", "p2p", "compare",
                                            "sweep"};
        if (bn_cli_dist()->rank == 0)
            fprintf(stderr, "bnet: under mpirun only bnet run and job (their parts), sweep, "
                    "coll and compare spread over the ranks; run bnet %s as one process "
                    "(docs/sweep.md)\n", names[mode]);
        free_opts(&o);
        return 2;
    }
    struct bn_scenario *sc = malloc(sizeof *sc);
    struct bn_error err = {0};
    if (!sc)
        rc = 1;
    else if (load_scenario(&o, mode, sc, &err) != BN_OK)
        rc = exit_status(&err);
    else if ((mode == BN_CLI_RUN || mode == BN_CLI_JOB) && bn_cli_dist()->size > 1 &&
             (rc = ranks_parts(sc)) != 0)
        ; /* refused, said by rank 0 */
    else if (o.plot && (rc = bn_plot_ready(o.plot)) != 0)
        ; /* refused before the run, not after it */
    else if (mode == BN_CLI_TOPO)
        rc = do_topo(&o, sc);
    else {
        bn_cli_signals_stoppable(); /* signals.c: the results so far, then 128 + it */
        if (max_wall > 0)
            bn_cli_signals_max_wall(max_wall); /* the same, then 124 */
        /* progress.c: what each command's runs count, and what its parts are */
        static const char *const units[] = {"flows", "", "transfers", "tasks", "messages",
                                            "units", "flows"};
        static const char *const parts[] = {NULL, NULL, "row", NULL, "size", "fabric",
                                            "point"};
        static const char *const names[] = {"run", "topo", "coll", "job", "p2p", "compare",
                                            "sweep"};
        bn_cli_progress_start(names[mode], units[mode], parts[mode], o.quiet);
        rc = mode == BN_CLI_COLL  ? do_coll(&o, sc)
             : mode == BN_CLI_JOB ? do_job(&o, sc)
             : mode == BN_CLI_P2P ? do_p2p(&o, sc)
             : mode == BN_CLI_COMPARE ? do_compare(&o, sc)
             : mode == BN_CLI_SWEEP ? do_sweep(&o, sc)
                                  : do_run(&o, sc);
        bn_cli_progress_end();
        int sig = bn_cli_caught();
        bool out = rc == 0 || rc == 3 || rc == STALLED_STATUS; /* the partial results are out */
        if (sig == SIGALRM && out)
            fprintf(stderr, "bnet: stopped at --max-wall %s s: what was measured before it is "
                    "reported, marked interrupted; exit status 124 (docs/limits.md)\n",
                    o.max_wall);
        else if (sig && out)
            fprintf(stderr, "bnet: interrupted by %s: what was measured before it is "
                    "reported, marked interrupted; exit status %d\n",
                    sig == SIGINT ? "SIGINT" : "SIGTERM", 128 + sig);
        if (sig && rc != 2) /* partial results out, or stopped in set-up (said) */
            rc = sig == SIGALRM ? 124 : 128 + sig;
    }
    free(sc);
    free_opts(&o);
    return rc;
}
