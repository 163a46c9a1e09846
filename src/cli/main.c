/*
 * The `bnet` command: a thin client of the library. It parses flags, loads
 * the scenario (file or embedded default), applies --set/--seed, runs or
 * describes, prints, and maps errors to exit status 2 (bad input, or output
 * that cannot be written) or 1.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bnet/bnet.h"
#include "bnet_revision.h" /* generated at build time (cmake/revision.cmake) */
#include "cli/cli.h"
#include "cli/dist.h"
#include "cli/signals.h"

static const char *const usage_main =
    "usage: bnet [COMMAND] [OPTIONS]\n"
    "\n"
    "Packet-level simulator of AI-cluster backend networks.\n"
    "\n"
    "commands:\n"
    "  (none)            bnet coll on the embedded 128-GPU cluster (AllReduce sweep)\n"
    "  coll [FILE.yaml]  nccl-tests-style collective sweep (default: 128-GPU cluster)\n"
    "  run [FILE.yaml]   run a traffic scenario (default: permutation, k=8 fat-tree)\n"
    "  job [FILE.yaml]   training/inference jobs sharing the fabric (default: one\n"
    "                    data- and tensor-parallel training job on 128 GPUs)\n"
    "  compare [FILE]    the cluster over several fabrics, the seed's table measured\n"
    "                    (default: 128-GPU cluster; ib-ndr, roce-400g, uec-800g)\n"
    "  sweep [FILE.yaml] the scenario over a grid of key values and seeds, a row per\n"
    "                    point, points in parallel (-j)\n"
    "  p2p [FILE.yaml]   perftest-style latency and bandwidth between hosts\n"
    "                    (default: two NDR hosts under one switch)\n"
    "  topo [FILE.yaml]  print the topology's figures without simulating\n"
    "  calibrate FILE... fit bnet to nccl-tests and perftest outputs; write the keys\n"
    "                    as a calibration (--calibration FILE on coll, job, compare)\n"
    "  plot FILE.json... SVG figures of saved results (run, coll, compare; gnuplot)\n"
    "  report FILE.json... -o PAGE.html  one self-contained HTML page of saved results:\n"
    "                    figures, the seed's table, plots, configuration\n"
    "  keys [--json]     list every scenario key with type, unit and default\n"
    "  presets [--json]  list the technology presets (fabric: NAME) and their keys\n"
    "  help [TOPIC]      help for a command (coll, run, job, p2p, compare, sweep, topo,\n"
    "                    calibrate, plot, report, keys, presets, version, help, all_reduce_perf ...)\n"
    "  version           the version (and git revision when built from a checkout);\n"
    "                    also --version\n"
    "\n";

static const char *const usage_main_end =
    "Exit status: 0 success; 1 internal failure; 2 bad input or an output that\n"
    "cannot be written; 3 faults made work fail; 4 a livelock stopped the run\n"
    "(sim.stall_us; results written); 124 stopped at --max-wall; 130,\n"
    "143 SIGINT, SIGTERM (results so far written, marked interrupted); 141 SIGPIPE\n"
    "(docs/limits.md).\n"
    "Run 'bnet help run' for details. Docs: docs/scenario.md, docs/results.md.\n";

static const char *const usage_run =
    "Simulate the scenario and print a summary.\n"
    "  --set KEY=VALUE  override one scenario key, e.g. --set link.rate_gbps=400\n"
    "  --seed N         random seed (same as --set seed=N)\n"
    "  --json PATH      write results as JSON to PATH ('-' for stdout)\n"
    "  --csv PREFIX     write results as CSV: PREFIX-flows.csv, PREFIX-ports.csv,\n"
    "                   PREFIX-rates.csv, PREFIX-queues.csv and PREFIX-links.csv\n"
    "  --plot DIR       draw SVG figures into DIR: flow throughput and FCT CDFs,\n"
    "                   rate, alpha and queue series, link utilization and PFC pause\n"
    "                   heatmaps, the topology's busiest links (needs gnuplot)\n"
    "  --reproducible   write wall-clock and memory figures as 0 in the JSON, so\n"
    "                   the same scenario and seed give a byte-identical file\n"
    "  --quiet          no summary on stdout, no progress line\n"
    "  --max-wall SECONDS  stop after this wall time, as SIGINT does: the results\n"
    "                   so far, marked interrupted; exit status 124\n"
    "A run over 1 s shows a progress line on stderr when it is a terminal (every\n"
    "command that simulates does): simulated time, units done, share, ETA.\n";

static const char *const usage_topo =
    "Build the topology and print, without simulating: hosts; switches per tier\n"
    "with radix, capacity down and up and oversubscription; links by rate; cables\n"
    "and transceivers; diameter; bisection; Gb/s per PFLOPS (topology.gpu_tflops).\n"
    "  --set KEY=VALUE  override one scenario key\n"
    "  --seed N         random seed (same as --set seed=N), as for bnet run\n"
    "  --json PATH      write the figures as JSON to PATH ('-' for stdout)\n"
    "  --paths SRC,DST  count the minimal paths between hosts SRC and DST\n"
    "  --dot PATH       write the graph for Graphviz ('-' for stdout)\n"
    "Builders and file formats: docs/topologies.md.\n";

static const char *const usage_coll =
    "Sweep a collective over message sizes on the simulated cluster and print\n"
    "nccl-tests' table: its header, a line per rank, size count type redop root\n"
    "and time algbw busbw #wrong out of place then in place, its two footer lines.\n"
    "Flags as nccl-tests (short or long): -b/-e sizes (K, M, G, T alone: powers\n"
    "of 1024, as nccl-tests reads them; MB = 10^6, MiB = 2^20: docs/scenario.md),\n"
    "-f step factor (1: steps of -i), -o sum|prod|max|min|avg|all, -d type|all, -n\n"
    "iterations, -w warm-up, -r root, -c 0 (#wrong as N/A), -F PATH (CSV); -t x -g\n"
    "x -N (or --nranks) GPUs in servers of 8 on a rail-optimized fabric. The name\n"
    "all_reduce_perf (bnet all_reduce_perf, or a symlink) and the others choose the\n"
    "collective, or --coll allreduce|reducescatter|allgather|broadcast|reduce|\n"
    "alltoall|sendrecv; --algo auto|ring|tree|rhd|direct|hier|collnet|htree|nvls and\n"
    "--proto auto|ll|ll128|simple force NCCL_ALGO / NCCL_PROTO (read from the\n"
    "environment too); --set coll.tuner=nccl runs what NCCL 2.20.3's tuning model\n"
    "picks, both runs it beside bnet's pick. Without FILE: 16 servers x 8 GPUs,\n"
    "400 Gb/s NICs, NVLink inside each server (scenarios/cluster128.yaml).\n"
    "  --bnet-columns   after nccl-tests' 13 fields: algorithm, channels, protocol,\n"
    "                   NCCL's pick and (coll.tuner both) its measured time\n"
    "  -j N             rows measured at once, each in its own process (default: as\n"
    "                   many as the processors and memory allow); the same results\n"
    "  --plot DIR       draw busbw against size (a line per algorithm) as SVG into DIR\n"
    "  --no-seed-report the table without the seed's figures after its footer\n"
    "  --max-wall SECONDS  stop after this wall time, as SIGINT does: the results\n"
    "                   so far, marked interrupted; exit status 124\n"
    "  --quiet          no table on stdout, no progress line\n"
    "Algorithms, protocols and the tuners: docs/collectives.md.\n";

static const char *const usage_job =
    "Run the scenario's jobs: list together on its fabric: training iterations\n"
    "(forward, backward, gradient reduction, optimizer) or inference steps of a\n"
    "model's shape and parallelism, or a SimAI/AICB workload file, and background\n"
    "traffic. Prints per job the iteration time, compute, pipeline bubbles and\n"
    "exposed communication, per parallel dimension and per collective.\n"
    "  --set KEY=VALUE  override one scenario key, e.g. --set jobs.0.dp=16\n"
    "  --seed N         random seed (same as --set seed=N)\n"
    "  --json PATH      write results as JSON to PATH ('-' for stdout)\n"
    "  --trace PATH     write the timeline as Chrome trace-event JSON (Perfetto)\n"
    "  --max-wall SECONDS  stop after this wall time, as SIGINT does: the results\n"
    "                   so far, marked interrupted; exit status 124\n"
    "  --quiet          no table on stdout, no progress line\n"
    "Without FILE: scenarios/job_default.yaml. Keys and models: docs/jobs.md.\n";

static const char *const usage_p2p =
    "Run perftest's tests between hosts of the simulated fabric: --test write_bw|\n"
    "write_lat|send_bw|send_lat|read_bw|read_lat|atomic_bw|atomic_lat (as ib_write_bw,\n"
    "ib_write_lat, ...), -s BYTES or -a (2 B to 8 MiB), -n iterations, -q queue pairs,\n"
    "-t messages outstanding per queue pair, -o READs outstanding, -I inline size,\n"
    "--hosts A,B,... (indices or names; every pair of them), -m MTU. Prints\n"
    "perftest's columns: #bytes #iterations BW peak, BW average [MB/sec: 2^20 B/s;\n"
    "Gb/sec with --report_gbits], MsgRate [Mpps]; or t_min, t_max, t_typical,\n"
    "t_avg, t_stdev, 99% and 99.9% percentiles [usec], from each message's own\n"
    "sample. Host-side flags (-d, -x, -p, -F, -R) are accepted, no effect; -b\n"
    "(bidirectional) and -D (duration) are not modelled and refused (exit 2).\n"
    "  --set KEY=VALUE  override one scenario key, e.g. --set fabric=roce-400g\n"
    "  --json PATH      write results as JSON to PATH ('-' for stdout)\n"
    "  --no-seed-report the table without the seed's figures after it\n"
    "  --max-wall SECONDS  stop after this wall time, as SIGINT does: the results\n"
    "                   so far, marked interrupted; exit status 124\n"
    "  --quiet          no table on stdout, no progress line\n"
    "Without FILE: two ConnectX-7 NDR hosts under one switch (scenarios/p2p_ib_ndr.yaml).\n"
    "The NIC and host model: docs/endpoints.md.\n";

static const char *const usage_compare =
    "Measure the scenario's cluster over several fabrics (technology presets) and\n"
    "print the seed's comparison table, a column per fabric: link layer, flow and\n"
    "congestion control, load balancing, port rate, switch latency; 2-byte latency\n"
    "(bnet p2p); permutation throughput under ECMP and the fabric's own load\n"
    "balancing; a 16:1 incast's drops, pauses and time; AllReduce busbw at 1 MiB,\n"
    "64 MiB and 1 GiB; failure convergence (the scenario's faults); Gb/s per PFLOPS.\n"
    "Each column is the scenario with fabric=PRESET, then the --sets again.\n"
    "  --fabrics A,B,...  presets (compare.fabrics; default auto: ib-ndr,roce-400g,\n"
    "                   uec-800g, and nvlink5 when one NVLink domain holds the cluster)\n"
    "  -j N             fabrics measured at once, each in its own process (default:\n"
    "                   the processors online); the results do not depend on it\n"
    "  --set KEY=VALUE  override one scenario key, for every fabric\n"
    "  --json PATH      write results as JSON to PATH ('-' for stdout)\n"
    "  --csv PREFIX     write the table as PREFIX-compare.csv\n"
    "  --plot DIR       draw busbw against size per fabric as SVG into DIR (gnuplot)\n"
    "  --max-wall SECONDS  stop after this wall time, as SIGINT does: the results\n"
    "                   so far, marked interrupted; exit status 124\n"
    "  --quiet          no table on stdout, no progress line\n"
    "Without FILE: scenarios/cluster128.yaml. docs/compare.md.\n";

static const char *const usage_sweep =
    "Run the scenario at every point of a grid: each --vary KEY=V1,V2,... is an\n"
    "axis (the last varies fastest), --seeds LIST (1-8 or 1,5,9) adds the seed as\n"
    "one. Every point is checked before any runs. Points run in worker processes,\n"
    "-j at once; the results are a row per point in grid order, the same bytes\n"
    "for any -j. The table gives flows done, throughput, FCT p99, drops, pauses\n"
    "and the busiest link per point; the JSON each point's summary and seed report.\n"
    "  --vary KEY=V1,V2  an axis of the grid (repeat for more, at most 8)\n"
    "  --seeds LIST     seeds to run each point with\n"
    "  -j N             points at once, each in its own process (default: the\n"
    "                   processors online)\n"
    "  --set KEY=VALUE  override one scenario key, for every point\n"
    "  --json PATH      write results as JSON to PATH ('-' for stdout)\n"
    "  --csv PREFIX     write the table as PREFIX-sweep.csv\n"
    "  --max-wall SECONDS  stop after this wall time, as SIGINT does: the results\n"
    "                   so far, marked interrupted; exit status 124\n"
    "  --quiet          no table on stdout, no progress line\n"
    "Progress (points done, ETA) goes to stderr when it is a terminal.\n"
    "Without FILE: the embedded traffic scenario. docs/sweep.md.\n";

static const char *const usage_plot =
    "usage: bnet plot FILE.json... [--out DIR]\n\n"
    "Draw SVG figures of results saved with --json, with gnuplot (package\n"
    "gnuplot-nox): for a run, flow throughput and FCT CDFs, rate, alpha and queue\n"
    "series, link utilization and PFC pause heatmaps by tier, the topology with\n"
    "its busiest links; for coll and compare results, bus bandwidth against size,\n"
    "a line per algorithm or fabric, every file on one figure. Each figure's\n"
    "gnuplot script (its data inline) is written beside it as NAME.gp.\n"
    "  --out DIR, -o DIR  the folder (made if missing; default FILE-plots for one\n"
    "                   file, plots for several; several runs get a subfolder each)\n"
    "The same figures come from run, coll and compare with --plot DIR. docs/plots.md.\n";

static const char *const usage_report =
    "usage: bnet report FILE.json... [-o PAGE.html]\n\n"
    "Write one self-contained HTML page (no other file or network needed to view\n"
    "it) of results saved with --json, any command's: per file what ran, its\n"
    "figures, the seed's table, the plots of bnet plot inlined as SVG (busbw\n"
    "against size, FCT CDFs, link utilization over time, ...; gnuplot), a job\n"
    "timeline for job results, and the configuration it ran with.\n"
    "  --out PAGE, -o PAGE  the page (default report.html; '-' for stdout)\n"
    "docs/plots.md, \"Report\".\n";

static const char *const usage_keys =
    "usage: bnet keys [--json [PATH] | --markdown]\n\nList every scenario key: path, type, unit, default, meaning\n"
    "(and choices); --json writes them as JSON (to stdout without PATH),\n"
    "--markdown as docs/scenario.md's table (scripts/gen-scenario-doc.sh).\n";

static const char *const usage_presets =
    "usage: bnet presets [--json [PATH]]\n\nList the technology presets: name, what it models and the keys\n"
    "it sets. Use one with 'fabric: NAME' in a scenario or --set fabric=NAME.\n"
    "--json writes them as JSON (to stdout without PATH).\n"
    "Values and sources: docs/presets.md.\n";

static const char *const usage_help =
    "usage: bnet help [TOPIC]\n\nTopics: coll, run, job, p2p, compare, sweep, topo, calibrate, plot, report, keys, presets, version, help.\n"
    "nccl-tests' program names (all_reduce_perf, ...) give bnet coll's help.\n"
    "Without one, the commands and the options each takes.\n";

static const char *const usage_version =
    "usage: bnet version (or bnet --version)\n\nPrint bnet's version, with the git revision when it was built from a checkout\n"
    "('-dirty': the tree had changes). The JSON's bnet_version is the version alone.\n";

/* The commands, and the nccl-tests program names bnet answers to. */
static const char *const commands[] = {
    "run", "topo", "coll", "job", "p2p", "compare", "sweep", "calibrate", "plot", "report", "keys", "presets",
    "help",
    "version", "all_reduce_perf", "reduce_scatter_perf", "all_gather_perf", "broadcast_perf",
    "reduce_perf", "alltoall_perf", "sendrecv_perf", NULL,
};

static const char *mode_name(enum bn_cli_mode mode)
{
    static const char *const names[] = {"run", "topo", "coll", "job", "p2p", "compare", "sweep"};
    return names[mode];
}

/* "usage: bnet run [FILE.yaml] [--set KEY=VALUE]... ...", from the table
 * the parser reads, wrapped under the first option. */
static void print_synopsis(FILE *out, enum bn_cli_mode mode)
{
    int col = fprintf(out, "usage: bnet %s [FILE.yaml]", mode_name(mode));
    int indent = (int)strlen("usage: bnet ") + (int)strlen(mode_name(mode)) + 1;
    const struct bn_cli_opt *opt;
    for (size_t i = 0; (opt = bn_cli_opt_at(i)); i++) {
        if (!bn_cli_opt_in(opt, mode))
            continue;
        char item[64], name[32];
        if (opt->short_name)
            snprintf(name, sizeof name, "-%c", opt->short_name);
        else
            snprintf(name, sizeof name, "--%s", opt->long_name);
        int n = snprintf(item, sizeof item, "[%s%s%s]%s", name, opt->arg ? " " : "",
                         opt->arg ? opt->arg : "", opt->repeat ? "..." : "");
        if (col + 1 + n > 80)
            col = fprintf(out, "\n%*s", indent - 1, "");
        col += fprintf(out, " %s", item);
    }
    fputs("\n\n", out);
}

/* What a key-less flag of coll's list does, for its help line. */
static const char *field_help(const char *field)
{
    static const char *const help[][2] = {
        {"accept", "(host side: accepted, no effect)"}, {"threads", "(GPUs: -t x -g x -N)"},
        {"gpus", "(GPUs: -t x -g x -N)"}, {"nodes", "(GPUs: -t x -g x -N)"},
        {"nranks", "(GPUs, in servers of 8)"}, {"output_file", "(the rows as CSV)"},
        {"agg_iters", "(1 only)"}, {"bnet_columns", "(bnet's columns after field 13)"},
        {"accept_name", "(host side: accepted, no effect)"},
        {"refuse", "(not modelled: refused, exit status 2)"},
        {"report_gbits", "(bandwidth in Gb/sec; default MB/sec, 2^20 B/s)"},
    };
    for (size_t i = 0; i < sizeof help / sizeof help[0]; i++)
        if (strcmp(field, help[i][0]) == 0)
            return help[i][1];
    return "";
}

void bn_cli_print_usage(FILE *out, enum bn_cli_mode mode)
{
    print_synopsis(out, mode);
    static const char *const text[] = {usage_run, usage_topo, usage_coll, usage_job, usage_p2p,
                                       usage_compare, usage_sweep};
    fputs(text[mode], out);
    if (mode != BN_CLI_COLL && mode != BN_CLI_P2P)
        return;
    /* nccl-tests' and perftest's flags, short and long, and their keys */
    fputs("\nflags (short and long forms; the key each sets):\n", out);
    const struct bn_cli_opt *opt;
    for (size_t i = 0; (opt = bn_cli_opt_at(i)); i++) {
        if (opt->modes != 1u << mode)
            continue;
        char label[48], item[64];
        snprintf(item, sizeof item, "%s%s%s", bn_cli_opt_label(opt, label, sizeof label),
                 opt->arg ? " " : "", opt->arg ? opt->arg : "");
        fprintf(out, "  %-30s %s\n", item, opt->key ? opt->key : field_help(opt->field));
    }
}

/* The options of run, topo and coll, each with the commands that take it
 * (the coll-only nccl-tests flags are in 'bnet help coll'). */
static void print_main(FILE *out)
{
    fputs(usage_main, out);
    fputs("options:\n", out);
    const struct bn_cli_opt *opt;
    for (size_t i = 0; (opt = bn_cli_opt_at(i)); i++) {
        if (opt->key || opt->modes == 1u << BN_CLI_COLL || opt->modes == 1u << BN_CLI_P2P)
            continue; /* 'bnet help coll' and 'bnet help p2p' list their own */
        char item[64], name[48];
        snprintf(item, sizeof item, "%s%s%s", bn_cli_opt_label(opt, name, sizeof name),
                 opt->arg ? " " : "", opt->arg ? opt->arg : "");
        fprintf(out, "  %-20s ", item);
        const char *sep = "";
        for (int m = BN_CLI_RUN; m <= BN_CLI_SWEEP; m++)
            if (bn_cli_opt_in(opt, (enum bn_cli_mode)m)) {
                fprintf(out, "%s%s", sep, mode_name((enum bn_cli_mode)m));
                sep = ", ";
            }
        fputs(opt->repeat ? " (repeatable)\n" : "\n", out);
    }
    fputs("\n", out);
    fputs(usage_main_end, out);
}

static int help(const char *topic)
{
    static const struct {
        const char *name, *text;
        int mode; /* a command of the option table, or -1 */
    } topics[] = {
        {"run", NULL, BN_CLI_RUN}, {"topo", NULL, BN_CLI_TOPO}, {"coll", NULL, BN_CLI_COLL},
        {"job", NULL, BN_CLI_JOB}, {"p2p", NULL, BN_CLI_P2P}, {"compare", NULL, BN_CLI_COMPARE},
        {"sweep", NULL, BN_CLI_SWEEP},
        {"plot", usage_plot, -1}, {"calibrate", NULL, -2}, {"report", usage_report, -1}, {"keys", usage_keys, -1}, {"presets", usage_presets, -1},
        {"version", usage_version, -1}, {"help", usage_help, -1},
    };
    if (!topic) {
        print_main(stdout);
        return 0;
    }
    if (bn_cli_perf_op(topic)) { /* a nccl-tests program: bnet coll's help */
        printf("%s: bnet coll --coll %s, with nccl-tests' flags (also as 'bnet %s' or a\n"
               "symlink named %s to bnet).\n\n", topic, bn_cli_perf_op(topic), topic, topic);
        bn_cli_print_usage(stdout, BN_CLI_COLL);
        return 0;
    }
    for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++) {
        if (strcmp(topic, topics[i].name) != 0)
            continue;
        if (topics[i].mode >= 0)
            bn_cli_print_usage(stdout, (enum bn_cli_mode)topics[i].mode);
        else if (topics[i].mode == -2)
            bn_cli_print_calibrate_usage(stdout);
        else
            fputs(topics[i].text, stdout);
        return 0;
    }
    char hint[96];
    fprintf(stderr, "bnet: no help for '%s'%s (topics: run, job, p2p, compare, sweep, topo, coll, "
            "calibrate, plot, report, keys, presets, version, help, and nccl-tests' all_reduce_perf ...)\n",
            topic, bn_cli_did_you_mean(topic, commands, hint, sizeof hint));
    return 2;
}

void bn_cli_print_plot_usage(FILE *out)
{
    fputs(usage_plot, out);
}

void bn_cli_print_report_usage(FILE *out)
{
    fputs(usage_report, out);
}

static int cmd_presets(void)
{
    char buf[2048];
    for (size_t i = 0; i < bn_scenario_preset_count(); i++) {
        bn_scenario_preset_describe(i, buf, sizeof buf);
        printf("%s\n", buf);
    }
    printf("\nUse one with 'fabric: NAME' in a scenario or --set fabric=NAME; any key it sets\n"
           "can still be overridden. Values and sources: docs/presets.md.\n");
    return 0;
}

static int cmd_keys(void)
{
    printf("%-32s %-7s %-8s %-12s %s\n", "key", "type", "unit", "default", "meaning");
    for (size_t i = 0; i < bn_scenario_key_count(); i++) {
        const struct bn_scenario_key_info *k = bn_scenario_key(i);
        printf("%-32s %-7s %-8s %-12s %s", k->path, k->type, k->unit, k->def, k->doc);
        for (size_t c = 0; k->choice && k->choice(c); c++) /* " (a|b|c)" */
            printf("%s%s", c ? "|" : " (", k->choice(c));
        printf("%s\n", k->choice ? ")" : "");
    }
    return 0;
}

/* Text in a Markdown table cell: a '|' would end the cell. */
static void put_cell(const char *text)
{
    for (const char *c = text; *c; c++)
        printf("%s%c", *c == '|' ? "\\" : "", *c);
}

/* docs/scenario.md's key table: a row per key, in the registry's order,
 * its meaning the key's doc and its choices. */
static int cmd_keys_markdown(void)
{
    printf("| Key | Type | Unit | Default | Meaning |\n|-----|------|------|---------|---------|\n");
    for (size_t i = 0; i < bn_scenario_key_count(); i++) {
        const struct bn_scenario_key_info *k = bn_scenario_key(i);
        printf("| `%s` | %s | %s | `%s` | ", k->path, k->type, *k->unit ? k->unit : "-",
               *k->def ? k->def : "\"\"");
        put_cell(k->doc);
        for (size_t c = 0; k->choice && k->choice(c); c++) /* " Choices: `a`, `b`." */
            printf("%s`%s`", c ? ", " : " Choices: ", k->choice(c));
        printf("%s |\n", k->choice ? "." : "");
    }
    return 0;
}

/* `bnet keys` / `bnet presets`, as a table or with --json [PATH] as JSON
 * (stdout without a path); `bnet keys --markdown`. */
static int cmd_listing(const char *cmd, int argc, char **argv)
{
    bool keys = strcmp(cmd, "keys") == 0;
    if (argc == 2)
        return keys ? cmd_keys() : cmd_presets();
    if (keys && argc == 3 && strcmp(argv[2], "--markdown") == 0)
        return cmd_keys_markdown();
    bool json = strcmp(argv[2], "--json") == 0;
    if (!json || argc > 4) {
        fprintf(stderr, "bnet: '%s' takes only --json [PATH]%s (got '%s')\n", cmd,
                keys ? " or --markdown" : "", json ? argv[4] : argv[2]);
        return 2;
    }
    struct bn_error err = {0};
    const char *path = argc == 4 ? argv[3] : "-";
    if ((keys ? bn_keys_write_json(path, &err) : bn_presets_write_json(path, &err)) != BN_OK) {
        fprintf(stderr, "bnet: %s\n", err.msg);
        return 2;
    }
    return 0;
}

/* "bnet 0.1.0 (git 0123456789ab)"; the library's version too when the
 * shared library loaded is not the one the command was built with. */
static int print_version(int argc)
{
    if (argc > 2) {
        fprintf(stderr, "bnet: 'version' takes no arguments\n");
        return 2;
    }
    printf("bnet %s", BNET_VERSION);
    if (BNET_GIT_REVISION[0])
        printf(" (git %s)", BNET_GIT_REVISION);
    if (strcmp(bn_version(), BNET_VERSION) != 0)
        printf(" with libbnet %s", bn_version());
    printf("\n");
    return 0;
}

static int dispatch(int argc, char **argv);

/* The library's warnings on stderr, each once (a sweep builds its fabric
 * per point), by rank 0 alone under mpirun. */
static void print_warning(void *ctx, const char *msg)
{
    static uint64_t seen[64];
    static unsigned nseen;
    (void)ctx;
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *p = msg; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    bool first = true;
    for (unsigned i = 0; i < nseen && first; i++)
        first = seen[i] != h;
    if (first && nseen < sizeof seen / sizeof seen[0])
        seen[nseen++] = h;
    if (first && bn_cli_dist()->rank == 0)
        fprintf(stderr, "bnet: warning: %s\n", msg);
}

/* Everything bnet prints goes through stdout's buffer: a full disk or a
 * closed pipe shows only when it is flushed and closed, so both are checked
 * before bnet reports success (a lost summary is not a success). */
int main(int argc, char **argv)
{
    bn_cli_signals(); /* signals.c: no half-written file is left by a signal */
    int rc = bn_cli_dist_init(&argc, &argv); /* under mpirun: join its job */
    bn_set_warning_handler(print_warning, NULL);
    if (rc == 0)
        rc = dispatch(argc, argv);
    bn_cli_dist_finish();
    errno = 0;
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int saved = errno;
    bad |= fclose(stdout) != 0;
    if (!saved)
        saved = errno;
    if (bad && rc == 0) {
        fprintf(stderr, "bnet: cannot write to standard output: %s\n",
                strerror(saved ? saved : EIO));
        rc = 2;
    }
    return rc;
}

static int dispatch(int argc, char **argv)
{
    /* installed as all_reduce_perf (a symlink): nccl-tests' command line */
    if (argc >= 1 && bn_cli_perf_op(argv[0]))
        return bn_cli_run(argc, argv, 1, BN_CLI_COLL, bn_cli_perf_op(argv[0]));
    if (argc < 2)
        return bn_cli_run(argc, argv, 1, BN_CLI_COLL, NULL);
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0)
        return help(NULL);
    if (strcmp(cmd, "help") == 0)
        return help(argc > 2 ? argv[2] : NULL);
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0)
        return print_version(argc);
    if (strcmp(cmd, "run") == 0)
        return bn_cli_run(argc, argv, 2, BN_CLI_RUN, NULL);
    if (strcmp(cmd, "topo") == 0)
        return bn_cli_run(argc, argv, 2, BN_CLI_TOPO, NULL);
    if (strcmp(cmd, "coll") == 0)
        return bn_cli_run(argc, argv, 2, BN_CLI_COLL, NULL);
    if (strcmp(cmd, "job") == 0)
        return bn_cli_run(argc, argv, 2, BN_CLI_JOB, NULL);
    if (strcmp(cmd, "p2p") == 0)
        return bn_cli_run(argc, argv, 2, BN_CLI_P2P, NULL);
    if (strcmp(cmd, "compare") == 0)
        return bn_cli_run(argc, argv, 2, BN_CLI_COMPARE, NULL);
    if (strcmp(cmd, "sweep") == 0)
        return bn_cli_run(argc, argv, 2, BN_CLI_SWEEP, NULL);
    if (bn_cli_perf_op(cmd)) /* bnet all_reduce_perf ..., as nccl-tests */
        return bn_cli_run(argc, argv, 2, BN_CLI_COLL, bn_cli_perf_op(cmd));
    if (strcmp(cmd, "plot") == 0)
        return bn_cli_plot(argc, argv, 2);
    if (strcmp(cmd, "report") == 0)
        return bn_cli_report(argc, argv, 2);
    if (strcmp(cmd, "calibrate") == 0)
        return bn_cli_calibrate(argc, argv, 2);
    if (strcmp(cmd, "presets") == 0 || strcmp(cmd, "keys") == 0)
        return cmd_listing(cmd, argc, argv);
    if (cmd[0] == '-')
        return bn_cli_run(argc, argv, 1, BN_CLI_COLL, NULL);
    char hint[96];
    fprintf(stderr, "bnet: unknown command '%s'%s (see bnet --help)\n", cmd,
            bn_cli_did_you_mean(cmd, commands, hint, sizeof hint));
    return 2;
}
