/*
 * The nccl-tests table: the columns of NVIDIA's nccl-tests (size, count,
 * type, redop, root, time, algbw, busbw, #wrong) with its units (bytes,
 * elements, microseconds, GB/s of 1e9 bytes) and its busbw factors, so a
 * user can lay bnet's rows beside a real run. nccl-tests prints the columns
 * twice, out-of-place and in-place; the two move the same traffic, so bnet
 * prints one set, then the algorithm the row ran.
 */
#include <stdio.h>

#include "bnet/coll.h"

void bn_coll_print_header(FILE *out, const struct bn_coll_results *r)
{
    fprintf(out, "# bnet coll: %s, %u rank%s (%u GPU%s per server), %s fabric%s, %g Gb/s NICs\n",
            r->op, r->nranks, r->nranks == 1 ? "" : "s", r->gpus_per_server,
            r->gpus_per_server == 1 ? "" : "s", r->topo.kind,
            r->topo.scaleup_domains ? " + NVLink" : "", r->nic_gbps);
    fprintf(out, "# one set of columns: in-place and out-of-place move the same traffic\n#\n");
    fprintf(out, "# %10s %12s %8s %6s %6s %10s %8s %8s %7s  %-8s %3s\n", "size", "count", "type",
            "redop", "root", "time", "algbw", "busbw", "#wrong", "algo", "ch");
    fprintf(out, "# %10s %12s %8s %6s %6s %10s %8s %8s %7s\n", "(B)", "(elements)", "", "", "",
            "(us)", "(GB/s)", "(GB/s)", "");
}

void bn_coll_print_row(FILE *out, const struct bn_coll_results *r, uint32_t row)
{
    const struct bn_coll_row *w = &r->rows[row];
    if (w->failed) { /* a fault stopped it: say where, in the time column's place */
        fprintf(out, "  %10llu %12llu %8s %6s %6d %10s %8s %8s %7s  %-8s %3u  # failed at %.3f us: "
                "rank %u's send %u to rank %u failed\n",
                (unsigned long long)w->size, (unsigned long long)w->count, r->datatype, r->redop,
                r->root, "failed", "-", "-", "-", w->algo, w->channels, w->failed_us,
                w->failed_rank, w->failed_step, w->failed_peer);
        return;
    }
    fprintf(out, "  %10llu %12llu %8s %6s %6d %10.2f %8.2f %8.2f %7llu  %-8s %3u",
            (unsigned long long)w->size, (unsigned long long)w->count, r->datatype, r->redop,
            r->root, w->time_us, w->algbw_gbs, w->busbw_gbs, (unsigned long long)w->wrong,
            w->algo, w->channels);
    if (w->baseline_us > 0) /* with faults: their cost */
        fprintf(out, "  # %.3fx of %.2f us without faults, %llu frames lost",
                w->time_us / w->baseline_us, w->baseline_us, (unsigned long long)w->pkts_lost);
    fputc('\n', out);
}

void bn_coll_print_footer(FILE *out, const struct bn_coll_results *r)
{
    double sum = 0;
    for (uint32_t i = 0; i < r->nrows; i++)
        sum += r->rows[i].busbw_gbs;
    fprintf(out, "# Out of bounds values : 0 OK\n");
    fprintf(out, "# Avg bus bandwidth    : %g\n", r->nrows ? sum / r->nrows : 0.0);
    fprintf(out, "# NIC goodput bound    : %.2f GB/s per GPU (%g Gb/s line rate)\n",
            r->nic_goodput_gbps / 8.0, r->nic_gbps);
    fprintf(out, "# simulated in %.2f s wall, peak memory %.1f MB\n", r->wall_s,
            r->peak_rss_bytes / 1e6);
    if (r->interrupted)
        fprintf(out, "# interrupted: the rows above are those measured before the signal\n");
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
