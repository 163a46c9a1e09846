/*
 * The nccl-tests table as NVIDIA's nccl-tests prints it (src/common.cu):
 * the header line of the sweep's parameters, "Using devices", the columns
 * size, count, type, redop, root and then time, algbw, busbw, #wrong twice
 * (out of place, in place) with its units (bytes, elements, microseconds,
 * GB/s of 1e9 bytes) and busbw factors, and the two footer lines, so
 * scripts that read nccl-tests' fields by position read bnet's. bnet's own
 * columns (the algorithm and channels a row ran) follow only when asked,
 * and its own lines are comments.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bnet/coll.h"
#include "report/csv_util.h"

void bn_coll_print_header(FILE *out, const struct bn_coll_results *r)
{
    uint32_t threads = r->nthreads ? r->nthreads : 1;
    uint32_t gpus = r->ngpus ? r->ngpus : (r->nranks + threads - 1) / threads;
    fprintf(out, "# nThread %u nGpus %u minBytes %llu maxBytes %llu step: ", threads, gpus,
            (unsigned long long)r->min_bytes, (unsigned long long)r->max_bytes);
    if (r->step_factor > 1)
        fprintf(out, "%u(factor)", r->step_factor);
    else
        fprintf(out, "%llu(bytes)", (unsigned long long)r->step_bytes);
    fprintf(out, " warmup iters: %u iters: %u agg iters: 1 validation: %u graph: 0\n#\n",
            r->warmup, r->iters, r->check ? 1u : 0u);
    fprintf(out, "# bnet coll: %s, %u rank%s (%u GPU%s per server), %s fabric%s, %g Gb/s NICs\n",
            r->op, r->nranks, r->nranks == 1 ? "" : "s", r->gpus_per_server,
            r->gpus_per_server == 1 ? "" : "s", r->topo.kind,
            r->topo.scaleup_domains ? " + NVLink" : "", r->nic_gbps);
    fprintf(out, "#\n# Using devices\n");
    uint32_t g = r->gpus_per_server ? r->gpus_per_server : 1;
    for (uint32_t i = 0; i < r->nranks; i++) { /* a process per threads x GPUs, as launched */
        char host[24];
        snprintf(host, sizeof host, "server%u", i / g);
        fprintf(out, "#  Rank %2u Group  0 Pid %6u on %10s device %2u [0x%02x] bnet simulated "
                "GPU, %g Gb/s NIC\n", i, 1 + i / (threads * gpus), host, i % g, i % g,
                r->nic_gbps);
    }
    fprintf(out, "#\n");
    fprintf(out, "# %10s %12s %8s %6s %6s %8s%36s\n", "", "", "", "", "", "out-of-place",
            "in-place");
    fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s", "size",
            "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
            "algbw", "busbw", "#wrong");
    fprintf(out, r->bnet_columns ? "  %-8s %3s %6s  %-20s %9s\n" : "\n", "algo", "ch", "proto",
            "nccl-model", "nccl(us)");
    fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "(B)",
            "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
            "");
}

/* nccl-tests' time: fewer decimals as it grows, always 7 wide. */
static void group(FILE *out, const struct bn_coll_results *r, double us, double algbw,
                  double busbw, uint64_t wrong)
{
    char t[32], w[24];
    snprintf(t, sizeof t, us >= 10000.0 ? "%7.0f" : us >= 100.0 ? "%7.1f" : "%7.2f", us);
    if (r->check)
        snprintf(w, sizeof w, "%5llu", (unsigned long long)wrong);
    else
        snprintf(w, sizeof w, "%5s", "N/A");
    fprintf(out, "  %7s  %6.2f  %6.2f  %5s", t, algbw, busbw, w);
}

/* --bnet-columns: what ran, and what NCCL's tuning model picks (with its
 * measured time under coll.tuner both). */
static void bnet_columns(FILE *out, const struct bn_coll_row *w)
{
    char nccl[32], us[24];
    snprintf(nccl, sizeof nccl, "%s/%s", w->nccl_algo[0] ? w->nccl_algo : "-",
             w->nccl_proto[0] ? w->nccl_proto : "-");
    if (w->nccl_time_us > 0)
        snprintf(us, sizeof us, "%9.2f", w->nccl_time_us);
    else
        snprintf(us, sizeof us, "%9s", "-");
    fprintf(out, "  %-8s %3u %6s  %-20s %s", w->algo, w->channels, w->proto[0] ? w->proto : "-",
            nccl, us);
}

void bn_coll_print_row(FILE *out, const struct bn_coll_results *r, uint32_t row)
{
    const struct bn_coll_row *w = &r->rows[row];
    fprintf(out, "%12llu  %12llu  %8s  %6s  %6d", (unsigned long long)w->size,
            (unsigned long long)w->count, w->type, w->redop, r->root);
    if (w->failed) { /* a fault stopped it: say where, in the columns' place */
        fprintf(out, "  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s", "failed", "-", "-", "-",
                "failed", "-", "-", "-");
        if (r->bnet_columns)
            bnet_columns(out, w);
        fprintf(out, "  # failed at %.3f us: rank %u's send %u to rank %u failed\n",
                w->failed_us, w->failed_rank, w->failed_step, w->failed_peer);
        return;
    }
    group(out, r, w->time_us, w->algbw_gbs, w->busbw_gbs, w->wrong);
    if (r->in_place)
        group(out, r, w->inplace_time_us, w->inplace_algbw_gbs, w->inplace_busbw_gbs,
              w->inplace_wrong);
    else /* not timed (coll.in_place false): nccl-tests' columns stay in place */
        fprintf(out, "  %7s  %6s  %6s  %5s", "-", "-", "-", "-");
    if (r->bnet_columns)
        bnet_columns(out, w);
    if (w->baseline_us > 0) /* with faults: their cost */
        fprintf(out, "  # %.3fx of %.2f us without faults, %llu frames lost",
                w->time_us / w->baseline_us, w->baseline_us, (unsigned long long)w->pkts_lost);
    fputc('\n', out);
}

void bn_coll_print_footer(FILE *out, const struct bn_coll_results *r)
{
    bn_coll_print_footer_opts(out, r, 0);
}

void bn_coll_print_footer_opts(FILE *out, const struct bn_coll_results *r, unsigned flags)
{
    double sum = 0;
    uint64_t wrong = 0;
    for (uint32_t i = 0; i < r->nrows; i++) {
        sum += r->rows[i].busbw_gbs;
        wrong += r->rows[i].wrong + r->rows[i].inplace_wrong;
    }
    /* nccl-tests counts the rows whose check failed; bnet's elements */
    fprintf(out, "# Out of bounds values : %llu %s\n", (unsigned long long)wrong,
            wrong ? "FAILED" : "OK");
    fprintf(out, "# Avg bus bandwidth    : %g \n", r->nrows ? sum / r->nrows : 0.0);
    fprintf(out, "#\n");
    fprintf(out, "# NIC goodput bound    : %.2f GB/s per GPU (%g Gb/s line rate)\n",
            r->nic_goodput_gbps / 8.0, r->nic_gbps);
    const struct bn_coll_row *big = NULL;
    for (uint32_t i = 0; i < r->nrows; i++)
        if (!r->rows[i].failed && (!big || r->rows[i].size > big->size))
            big = &r->rows[i];
    if (big && (big->nic_busbw_gbs > 0 || big->nvlink_busbw_gbs > 0)) {
        /* what each side alone allows the largest row's algorithm */
        fprintf(out, "# busbw bounds (%s)  :", big->algo);
        if (big->nic_busbw_gbs > 0)
            fprintf(out, " NICs %.2f GB/s", big->nic_busbw_gbs);
        if (big->nvlink_busbw_gbs > 0)
            fprintf(out, "%s NVLink %.2f GB/s", big->nic_busbw_gbs > 0 ? "," : "",
                    big->nvlink_busbw_gbs);
        if (big->nic_busbw_gbs > 0 && big->nvlink_busbw_gbs > 0)
            fprintf(out, " (%s bounds it)",
                    big->nvlink_busbw_gbs < big->nic_busbw_gbs ? "NVLink" : "the NICs");
        fprintf(out, "\n");
    }
    fprintf(out, "# simulated in %.2f s wall, peak memory %.1f MB\n", r->wall_s,
            r->peak_rss_bytes / 1e6);
    if (r->interrupted)
        fprintf(out, "# interrupted: the rows above are those measured before the signal\n");
    if (flags & BN_PRINT_NO_SEED)
        return;
    struct bn_seed_report seed;
    bn_seed_of_coll(r, &seed);
    fprintf(out, "#\n");
    bn_seed_print(out, "# ", &seed);
}

void bn_coll_print_table(FILE *out, const struct bn_coll_results *r)
{
    bn_coll_print_header(out, r);
    for (uint32_t i = 0; i < r->nrows; i++)
        bn_coll_print_row(out, r, i);
    bn_coll_print_footer(out, r);
}

/* -F PATH: the rows as CSV, nccl-tests' columns by name then bnet's; reals
 * with 10 significant digits, as the JSON. */
int bn_coll_write_csv(const struct bn_coll_results *r, const char *path, struct bn_error *err)
{
    struct bn_output *o = bn_output_open(path, "CSV", err);
    if (!o)
        return err ? err->status : BN_EINPUT;
    FILE *f = bn_output_stream(o);
    fputs("size,count,type,redop,root,time_us,algbw_gbs,busbw_gbs,wrong,inplace_time_us,"
          "inplace_algbw_gbs,inplace_busbw_gbs,inplace_wrong,algo,channels,failed,proto,"
          "nccl_algo,nccl_proto,nccl_predicted_us,nccl_time_us\n", f);
    for (uint32_t i = 0; i < r->nrows; i++) {
        const struct bn_coll_row *w = &r->rows[i];
        fprintf(f, "%llu,%llu,", (unsigned long long)w->size, (unsigned long long)w->count);
        bn_csv_text(f, w->type);
        fputc(',', f);
        bn_csv_text(f, w->redop);
        fprintf(f, ",%d,%.10g,%.10g,%.10g,%llu,", r->root, w->time_us, w->algbw_gbs,
                w->busbw_gbs, (unsigned long long)w->wrong);
        if (r->in_place)
            fprintf(f, "%.10g,%.10g,%.10g,%llu,", w->inplace_time_us, w->inplace_algbw_gbs,
                    w->inplace_busbw_gbs, (unsigned long long)w->inplace_wrong);
        else
            fputs(",,,,", f);
        bn_csv_text(f, w->algo);
        fprintf(f, ",%u,%s,%s,%s,%s,%.10g,%.10g\n", w->channels, w->failed ? "true" : "false",
                w->proto, w->nccl_algo, w->nccl_proto, w->nccl_predicted_us, w->nccl_time_us);
    }
    return bn_output_close(o, false, err);
}
