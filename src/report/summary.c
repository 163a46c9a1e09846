/* The human-readable summary of a run and of a topology: aligned text. */
#include "bnet/bnet.h"

void bn_topo_info_print(FILE *out, const struct bn_topo_info *t)
{
    fprintf(out, "topology        %s (k=%u, switch radix %u)\n", t->kind, t->k, t->radix);
    fprintf(out, "hosts           %u\n", t->hosts);
    fprintf(out, "switches        %u", t->switches);
    for (uint32_t i = 1; i <= t->tiers && i < 5; i++)
        fprintf(out, "%s%u %s", i == 1 ? " (" : ", ", t->switches_per_tier[i], t->tier_name[i]);
    fprintf(out, "%s\n", t->tiers ? ")" : "");
    fprintf(out, "links           %u (hosts %.0f Gb/s, fabric %.0f Gb/s)\n", t->links,
            t->host_rate_gbps, t->fabric_rate_gbps);
    fprintf(out, "diameter        %u hops (%u switches) host to host\n", t->diameter_hops,
            t->diameter_switches);
    fprintf(out, "bisection       %.1f Tb/s (%.2f of hosts' injection / 2)\n",
            t->bisection_gbps / 1000.0,
            t->bisection_gbps / (t->hosts * t->host_rate_gbps / 2.0));
}

static void print_flows(FILE *out, const struct bn_results *r)
{
    const struct bn_summary_stats *t = &r->throughput_gbps;
    fprintf(out, "flows           %u of %u completed%s\n", r->flows_completed, r->nflows,
            r->stopped_early ? " (stopped at sim.max_time_us)" : "");
    fprintf(out, "throughput      mean %.2f  min %.2f  p1 %.2f  p50 %.2f  p99 %.2f Gb/s per flow\n",
            t->mean, t->min, t->p1, t->p50, t->p99);
    fprintf(out, "FCT             p50 %.2f  p99 %.2f  p99.9 %.2f us\n", r->fct_p50_us,
            r->fct_p99_us, r->fct_p999_us);
}

static void print_fabric(FILE *out, const struct bn_results *r)
{
    fprintf(out, "drops           %llu packets (%llu data)\n",
            (unsigned long long)r->pkts_dropped, (unsigned long long)r->data_pkts_dropped);
    fprintf(out, "retransmits     %llu packets, %llu timeouts, %llu out of order\n",
            (unsigned long long)r->retransmits, (unsigned long long)r->timeouts,
            (unsigned long long)r->out_of_order);
    fprintf(out, "ECN marks       %llu\n", (unsigned long long)r->ecn_marks);
    fprintf(out, "link util       max %.1f%%  mean %.1f%%\n", 100 * r->link_util_max,
            100 * r->link_util_mean);
    fprintf(out, "packets         %llu injected = %llu delivered + %llu dropped + %llu in flight\n",
            (unsigned long long)r->pkts_injected, (unsigned long long)r->pkts_delivered,
            (unsigned long long)r->pkts_dropped, (unsigned long long)r->pkts_in_flight);
}

static void print_run(FILE *out, const struct bn_results *r)
{
    double rate = r->wall_s > 0 ? (double)r->packet_hops / r->wall_s : 0;
    fprintf(out, "simulated       %.3f us in %.3f s wall (+%.3f s setup)\n", r->simulated_us,
            r->wall_s, r->setup_s);
    fprintf(out, "events          %llu;  packet-hops %llu (%.2f M/s)\n",
            (unsigned long long)r->events, (unsigned long long)r->packet_hops, rate / 1e6);
    fprintf(out, "peak memory     %.1f MB\n", r->peak_rss_bytes / 1e6);
}

void bn_results_print(FILE *out, const struct bn_results *r)
{
    fprintf(out, "bnet %s  scenario %s  seed %llu  workload %s\n\n", BNET_VERSION, r->scenario,
            (unsigned long long)r->seed, r->workload);
    bn_topo_info_print(out, &r->topo);
    fputc('\n', out);
    print_flows(out, r);
    print_fabric(out, r);
    fputc('\n', out);
    print_run(out, r);
}
