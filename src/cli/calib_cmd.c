/*
 * `bnet calibrate FILE...`: read nccl-tests and perftest outputs, run the
 * same rows on the matching cluster, fit the keys, print the table and
 * write the calibration (docs/calibration.md). Input problems: one line on
 * stderr, exit status 2.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bnet/calib.h"
#include "cli/cli.h"
#include "plot/plot.h"

static const char *const usage =
    "usage: bnet calibrate FILE... [--scenario FILE] [--set KEY=VALUE]... [--fit KEYS]\n"
    "                      [--no-fit] [--calibration FILE] [--out FILE] [--json PATH]\n"
    "                      [--report DIR|FILE.svg] [--max-runs N] [-j N] [--quiet]\n\n"
    "Fit bnet to a cluster's measurements. FILE: nccl-tests output (any *_perf, out of\n"
    "place and in place, the 'Using devices' lines giving hosts x GPUs; NCCL version and\n"
    "NCCL_* lines where present) or perftest output (ib_write_bw, ib_send_lat, ...) as\n"
    "the tools print them. Each file's rows run on the matching cluster (the scenario\n"
    "at its shape); the keys are fitted by least squares on ln(bnet / measured): a\n"
    "compass search, then MINPACK's Levenberg-Marquardt, within published bounds.\n"
    "Prints each key's value and standard deviation and every row before and after.\n"
    "  --scenario FILE  the cluster's fabric (default: scenarios/cluster128.yaml's,\n"
    "                   ib-ndr with NVLink; its topology is reshaped per file)\n"
    "  --set KEY=VALUE  override one scenario key before the fit\n"
    "  --fit KEYS       the keys to fit, comma-separated (default: coll.step_latency_us,\n"
    "                   coll.ll128_step_latency_us, scale_up.efficiency, link.rate_gbps,\n"
    "                   coll.channels (a whole number); also coll.ll_step_latency_us,\n"
    "                   coll.channel_gbs, host.pcie_ns, host.gpu_pcie_ns,\n"
    "                   switch.latency_ns, scale_up.latency_ns, nic.tx_ns, nic.rx_ns,\n"
    "                   nic.msg_rate_mpps)\n"
    "  --no-fit         run the rows only: with --calibration, a calibration's prediction\n"
    "  --calibration FILE  apply a calibration first (as bnet coll --calibration)\n"
    "  --out FILE       the calibration (default calibration.yaml): apply it with\n"
    "                   bnet coll|job|compare --calibration FILE\n"
    "  --json PATH      the whole result as JSON ('-': stdout)\n"
    "  --report DIR     the table (calibration.txt), the JSON and an SVG of measured and\n"
    "                   bnet's busbw per size (calibration.svg, gnuplot) into DIR; a\n"
    "                   path ending in .svg: the figure there, the table beside it\n"
    "  --max-runs N     runs of every row the fit may make (default 30)\n"
    "  -j N             rows run at once, each in its own process (default: the\n"
    "                   processors online); the results do not depend on it\n"
    "  --quiet          no table on stdout\n"
    "docs/calibration.md.\n";

void bn_cli_print_calibrate_usage(FILE *out)
{
    fputs(usage, out);
}

struct copts {
    const char **files;
    int nfiles;
    const char *scenario, *calibration, *out, *json, *report, *fit, *max_runs, *jobs;
    const char **sets;
    int nsets;
    bool no_fit, quiet;
};

static int parse(int argc, char **argv, int first, struct copts *o)
{
    static const struct option longs[] = {
        {"scenario", required_argument, NULL, 's'}, {"set", required_argument, NULL, 'S'},
        {"fit", required_argument, NULL, 'f'}, {"no-fit", no_argument, NULL, 'n'},
        {"calibration", required_argument, NULL, 'c'}, {"out", required_argument, NULL, 'o'},
        {"json", required_argument, NULL, 'J'}, {"report", required_argument, NULL, 'r'},
        {"max-runs", required_argument, NULL, 'm'}, {"quiet", no_argument, NULL, 'q'},
        {"jobs", required_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    optind = 0;
    opterr = 0;
    int c;
    char **av = argv + first - 1;
    int ac = argc - first + 1;
    while ((c = getopt_long(ac, av, ":hj:", longs, NULL)) != -1) {
        switch (c) {
        case 's': o->scenario = optarg; break;
        case 'S': o->sets[o->nsets++] = optarg; break;
        case 'f': o->fit = optarg; break;
        case 'n': o->no_fit = true; break;
        case 'c': o->calibration = optarg; break;
        case 'o': o->out = optarg; break;
        case 'J': o->json = optarg; break;
        case 'r': o->report = optarg; break;
        case 'm': o->max_runs = optarg; break;
        case 'q': o->quiet = true; break;
        case 'j': o->jobs = optarg; break;
        case 'h': fputs(usage, stdout); return -1;
        case ':':
            fprintf(stderr, "bnet: calibrate: option '%s' needs a value\n", av[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "bnet: calibrate: unknown option '%s' (bnet calibrate --help)\n",
                    av[optind - 1]);
            return 2;
        }
    }
    for (int i = optind; i < ac; i++)
        o->files[o->nfiles++] = av[i];
    if (o->nfiles == 0) {
        fprintf(stderr, "bnet: calibrate: give nccl-tests or perftest output files "
                "(bnet calibrate --help)\n");
        return 2;
    }
    if (o->no_fit && (o->fit || o->out)) {
        fprintf(stderr, "bnet: calibrate: --no-fit fits nothing: it takes no --fit or --out\n");
        return 2;
    }
    return 0;
}

/* The scenario, with the calibration when `calibrated`, then the --sets. */
static int load_base(const struct copts *o, bool calibrated, struct bn_scenario *sc,
                     struct bn_error *err)
{
    int rc = o->scenario ? bn_scenario_load_file(sc, o->scenario, err)
                         : bn_scenario_load_string(sc, bn_scenario_cluster_yaml(),
                                                   "<cluster128>", err);
    if (rc == BN_OK && calibrated && o->calibration)
        rc = bn_scenario_apply_calibration(sc, o->calibration, err);
    for (int i = 0; rc == BN_OK && i < o->nsets; i++)
        rc = bn_scenario_set(sc, o->sets[i], err);
    return rc == BN_OK ? bn_scenario_validate(sc, err) : rc;
}

/* "a,b,c" into a NULL-terminated list in buf's storage. */
static int split_keys(char *buf, const char **keys, int max)
{
    int n = 0;
    for (char *k = strtok(buf, ","); k; k = strtok(NULL, ",")) {
        if (n == max) {
            fprintf(stderr, "bnet: calibrate: --fit: more than %d keys\n", max);
            return -1;
        }
        keys[n++] = k;
    }
    keys[n] = NULL;
    return n;
}

static int make_dir(const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST)
        return 0;
    fprintf(stderr, "bnet: calibrate: --report '%s': cannot make it: %s\n", dir, strerror(errno));
    return 2;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

/* --report: DIR/calibration.{txt,json,svg}, or FILE.svg with FILE.txt and
 * FILE.json beside it. */
static int write_report(const struct copts *o, const struct bn_calib_results *res)
{
    char dir[PATH_MAX], base[PATH_MAX], path[PATH_MAX + 16];
    bool svg = ends_with(o->report, ".svg");
    if (svg) {
        snprintf(base, sizeof base, "%.*s", (int)(strlen(o->report) - 4), o->report);
        const char *slash = strrchr(o->report, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - o->report) : 1,
                 slash ? o->report : ".");
    } else {
        snprintf(dir, sizeof dir, "%s", o->report);
        snprintf(base, sizeof base, "%s/calibration", o->report);
    }
    int st = make_dir(dir);
    if (st)
        return st;
    snprintf(path, sizeof path, "%s.txt", base);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bnet: calibrate: %s: cannot write: %s\n", path, strerror(errno));
        return 2;
    }
    bn_calib_print(f, res);
    if (fclose(f) != 0) {
        fprintf(stderr, "bnet: calibrate: %s: write failed\n", path);
        return 2;
    }
    snprintf(path, sizeof path, "%s.json", base);
    struct bn_error err = {0};
    if (bn_calib_write_json(res, path, &err) != BN_OK) {
        fprintf(stderr, "bnet: %s\n", err.msg);
        return 2;
    }
    /* the figure is named after the JSON: calibration.svg, or FILE.svg */
    const char *paths[] = {path};
    char plotdir[PATH_MAX];
    snprintf(plotdir, sizeof plotdir, "%s", dir);
    st = bn_plot_files(paths, 1, plotdir, o->quiet ? stderr : stdout);
    if (st == 0 && svg) {
        char made[PATH_MAX + 32];
        snprintf(made, sizeof made, "%s/calibration.svg", dir);
        if (strcmp(made, o->report) != 0 && rename(made, o->report) != 0) {
            fprintf(stderr, "bnet: calibrate: %s: cannot write: %s\n", o->report,
                    strerror(errno));
            return 2;
        }
    }
    return st;
}

int bn_cli_calibrate(int argc, char **argv, int first)
{
    struct copts o = {0};
    o.files = calloc((size_t)argc + 1, sizeof *o.files);
    o.sets = calloc((size_t)argc + 1, sizeof *o.sets);
    struct bn_scenario *sc = malloc(sizeof *sc), *after = malloc(sizeof *after);
    char *keybuf = NULL;
    const char *keys[BN_CALIB_MAX_PARAMS + 2];
    struct bn_calib_data data = {0};
    struct bn_calib_results res;
    bool have_res = false;
    struct bn_error err = {0};
    int st = o.files && o.sets && sc && after ? parse(argc, argv, first, &o) : 1;
    uint64_t max_runs = 30;
    const char *end;
    if (st == 0 && o.max_runs &&
        (bn_cli_digits(o.max_runs, &end, 10000, &max_runs) != 0 || *end || max_runs < 2)) {
        fprintf(stderr, "bnet: calibrate: --max-runs needs a count, 2 to 10000 (got '%s')\n",
                o.max_runs);
        st = 2;
    }
    uint64_t jobs = 0;
    if (st == 0 && o.jobs && (bn_cli_digits(o.jobs, &end, 64, &jobs) != 0 || *end || jobs < 1)) {
        fprintf(stderr, "bnet: calibrate: option '-j' needs a count of worker processes, 1 to 64 "
                "(got '%s')\n", o.jobs);
        st = 2;
    }
    if (st == 0 && !o.jobs) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = cpus > 0 ? (uint64_t)(cpus < 64 ? cpus : 64) : 1;
    }
    if (st == 0 && o.fit) {
        keybuf = strdup(o.fit);
        if (!keybuf || split_keys(keybuf, keys, BN_CALIB_MAX_PARAMS + 1) < 1)
            st = keybuf ? 2 : 1;
    }
    if (st == 0 && o.report && !ends_with(o.report, ".svg"))
        st = bn_plot_ready(o.report);
    /* a prediction (--no-fit --calibration) runs the rows without it, then with it */
    bool predict = o.no_fit && o.calibration;
    if (st == 0 && (load_base(&o, !predict, sc, &err) != BN_OK ||
                    (predict && load_base(&o, true, after, &err) != BN_OK) ||
                    bn_calib_read(o.files, (uint32_t)o.nfiles, &data, &err) != BN_OK))
        st = err.status == BN_EINPUT ? 2 : 1;
    if (st == 0) {
        struct bn_calib_opts co = {.fit = !o.no_fit, .keys = o.fit ? keys : NULL,
                                   .max_evals = (uint32_t)max_runs, .applied = o.calibration,
                                   .jobs = (unsigned)jobs, .after = predict ? after : NULL};
        if (bn_calibrate(sc, &data, &co, &res, &err) != BN_OK)
            st = err.status == BN_EINPUT ? 2 : 1;
        else
            have_res = true;
    }
    if (st && err.msg[0])
        fprintf(stderr, "bnet: %s\n", err.msg);
    if (have_res) {
        bool json_stdout = o.json && strcmp(o.json, "-") == 0;
        if (!o.quiet && !json_stdout)
            bn_calib_print(stdout, &res);
        const char *out = o.out ? o.out : "calibration.yaml";
        int rc = BN_OK;
        if (res.fitted && (rc = bn_calib_write_yaml(&res, out, &err)) == BN_OK && !o.quiet &&
            !json_stdout)
            printf("# calibration written to %s (apply: bnet coll --calibration %s)\n", out,
                   out);
        if (rc == BN_OK && o.json)
            rc = bn_calib_write_json(&res, o.json, &err);
        if (rc != BN_OK) {
            fprintf(stderr, "bnet: %s\n", err.msg);
            st = 2;
        } else if (o.report) {
            st = write_report(&o, &res);
        }
        bn_calib_results_free(&res);
    }
    bn_calib_data_free(&data);
    free(keybuf);
    free(sc);
    free(after);
    free(o.files);
    free(o.sets);
    return st < 0 ? 0 : st;
}
