/*
 * The human-readable summary of a run and of a topology: aligned text. Lists
 * of "most paused" / "most marked" ports are the top few by that figure, ties
 * in port order, so the text is as deterministic as the JSON.
 */
#include "bnet/bnet.h"

#define TOP_PORTS 3

/* The planner's figures (bnet topo); the cable rule is docs/topologies.md's. */
static void print_plan(FILE *out, const struct bn_topo_info *t)
{
    fprintf(out, "tiers           %-8s %8s %6s %12s %12s %8s\n", "tier", "switches", "radix",
            "down Gb/s", "up Gb/s", "oversub");
    for (uint32_t i = 1; i <= t->tiers && i < 5; i++) {
        const struct bn_tier_info *ti = &t->tier[i];
        fprintf(out, "                %-8s %8u %6u %12.0f ", t->tier_name[i], ti->nodes,
                ti->ports_max, ti->down_gbps);
        if (ti->up_links)
            fprintf(out, "%12.0f %7.2f:1\n", ti->up_gbps, ti->oversubscription);
        else
            fprintf(out, "%12s %8s\n", "-", "-");
    }
    fputs("links by rate  ", out);
    for (uint32_t i = 0; i < t->nrates; i++)
        fprintf(out, "%s %u x %g Gb/s", i ? "," : "", t->rates[i].links, t->rates[i].gbps);
    fputc('\n', out);
    fprintf(out, "cables          host links %u copper (DAC) + %u fiber; switch links %u copper + "
            "%u fiber\n", t->host_copper, t->host_fiber, t->fabric_copper, t->fabric_fiber);
    fprintf(out, "transceivers    %u (2 per fiber link)\n", t->transceivers);
    if (t->cost_stated)
        fprintf(out, "cost, power     %.0f USD and %.1f W per GPU; the network %.2f M USD, "
                "%.1f kW (estimates: cost.*%s%s)\n", t->cost_per_gpu_usd, t->power_per_gpu_w,
                t->cost_usd / 1e6, t->power_w / 1e3, t->cost_unstated[0] ? "; not stated: " : "",
                t->cost_unstated);
    if (t->gpu_tflops > 0)
        fprintf(out, "compute         %u GPUs x %g TFLOPS = %.1f PFLOPS: %.1f Gb/s per PFLOPS "
                "injected, %.1f across the bisection\n", t->hosts, t->gpu_tflops,
                t->hosts * t->gpu_tflops / 1000.0, t->gbps_per_pflops,
                t->bisection_gbps_per_pflops);
    if (t->paths_asked)
        fprintf(out, "paths           host %u -> host %u: %llu minimal path%s of %u hop%s\n",
                t->path_src, t->path_dst, (unsigned long long)t->minimal_paths,
                t->minimal_paths == 1 ? "" : "s", t->path_hops, t->path_hops == 1 ? "" : "s");
    if (t->memory_available_bytes)
        fprintf(out, "memory (est.)   bnet run %.1f MB, bnet coll's largest row %.1f MB "
                "(%.1f GB available)\n", t->memory_run_bytes / 1e6, t->memory_coll_bytes / 1e6,
                t->memory_available_bytes / 1e9);
    if (t->memory_available_bytes && t->memory_jobs_bytes)
        fprintf(out, "                bnet job %.1f MB\n", t->memory_jobs_bytes / 1e6);
}

void bn_topo_info_print(FILE *out, const struct bn_topo_info *t)
{
    if (t->k)
        fprintf(out, "topology        %s (k=%u, switch radix %u)\n", t->kind, t->k, t->radix);
    else
        fprintf(out, "topology        %s (switch radix %u)\n", t->kind, t->radix);
    if (t->gpus_per_server)
        fprintf(out, "hosts           %u GPUs, one NIC each (%u servers x %u)\n", t->hosts,
                t->hosts / t->gpus_per_server, t->gpus_per_server);
    else
        fprintf(out, "hosts           %u\n", t->hosts);
    fprintf(out, "switches        %u", t->switches);
    for (uint32_t i = 1; i <= t->tiers && i < 5; i++)
        fprintf(out, "%s%u %s", i == 1 ? " (" : ", ", t->switches_per_tier[i], t->tier_name[i]);
    fprintf(out, "%s\n", t->tiers ? ")" : "");
    fprintf(out, "links           %u (hosts %.0f Gb/s, fabric %.0f Gb/s)\n", t->links,
            t->host_rate_gbps, t->fabric_rate_gbps);
    if (t->scaleup_domains)
        fprintf(out, "scale-up        %u NVLink domains of %u GPUs, %.0f Gb/s per GPU each way\n",
                t->scaleup_domains, t->scaleup_gpus_per_domain, t->scaleup_rate_gbps);
    fprintf(out, "diameter        %u hops (%u switches) host to host\n", t->diameter_hops,
            t->diameter_switches);
    /* the planner knows each host link's rate (files may mix them) */
    double injection = t->planned ? t->tier[0].up_gbps : t->hosts * t->host_rate_gbps;
    fprintf(out, "bisection       %.1f Tb/s (%.2f of hosts' injection / 2)\n",
            t->bisection_gbps / 1000.0, t->bisection_gbps / (injection / 2.0));
    if (t->planned)
        print_plan(out, t);
}

static double paused_key(const struct bn_port_result *p) { return p->paused_fraction; }
static double marked_key(const struct bn_port_result *p) { return (double)p->ecn_marks; }

/* Indices of up to TOP_PORTS ports with the largest key > 0, largest first;
 * a later port must beat an earlier one strictly to pass it. */
static uint32_t top_ports(const struct bn_results *r,
                          double (*key)(const struct bn_port_result *), uint32_t top[TOP_PORTS])
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->nports; i++) {
        double k = key(&r->ports[i]);
        if (!(k > 0))
            continue;
        uint32_t j = n < TOP_PORTS ? n++ : TOP_PORTS;
        for (; j > 0 && k > key(&r->ports[top[j - 1]]); j--)
            if (j < TOP_PORTS)
                top[j] = top[j - 1];
        if (j < TOP_PORTS)
            top[j] = i;
    }
    return n;
}

/* poisson: the load, and the slowdown per flow-size bucket. */
static void print_buckets(FILE *out, const struct bn_results *r)
{
    fprintf(out, "load            %.4f offered for a target of %.4f (of the hosts' link rate)\n",
            r->load_offered, r->load_target);
    fprintf(out, "  %-23s %7s %8s %8s %8s %8s\n", "flow size (bytes)", "flows", "mean", "p50",
            "p95", "p99");
    for (uint32_t i = 0; i < r->nslowdown_buckets; i++) {
        const struct bn_slowdown_bucket *b = &r->slowdown_buckets[i];
        char range[48];
        snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)b->min_bytes,
                 (unsigned long long)b->max_bytes);
        fprintf(out, "  %-23s %7u %8.2f %8.2f %8.2f %8.2f\n", range, b->s.flows, b->s.mean,
                b->s.p50, b->s.p95, b->s.p99);
    }
}

static void print_flows(FILE *out, const struct bn_results *r)
{
    const struct bn_summary_stats *t = &r->throughput_gbps;
    /* a passive module ("none") reads as English: "no congestion control" */
    fprintf(out, "fabric          %s links, %s congestion control\n", r->flow_control,
            r->cc_passive ? "no" : r->congestion_control);
    fprintf(out, "flows           %u of %u completed%s", r->flows_completed, r->nflows,
            r->interrupted     ? " (interrupted: the figures are those so far)"
            : r->stalled       ? " (stopped: no flow progressed for sim.stall_us while frames "
                                 "kept arriving, a livelock)"
            : r->stopped_early ? " (stopped at sim.max_time_us)"
                               : "");
    if (r->flows_failed)
        fprintf(out, ", %u failed (faults: see below)", r->flows_failed);
    fputc('\n', out);
    fprintf(out, "throughput      mean %.2f  min %.2f  p1 %.2f  p50 %.2f  p99 %.2f Gb/s per flow\n",
            t->mean, t->min, t->p1, t->p50, t->p99);
    fprintf(out, "FCT             p50 %.2f  p99 %.2f  p99.9 %.2f us\n", r->fct_p50_us,
            r->fct_p99_us, r->fct_p999_us);
    const struct bn_slowdown_stats *sd = &r->fct_slowdown;
    fprintf(out, "FCT slowdown    mean %.2f  p50 %.2f  p95 %.2f  p99 %.2f  max %.2f "
            "(FCT over alone on the idle fabric)\n", sd->mean, sd->p50, sd->p95, sd->p99, sd->max);
    if (r->load_target > 0)
        print_buckets(out, r);
    fprintf(out, "messages        %llu, latency p50 %.2f  p99 %.2f  p99.9 %.2f  max %.2f us%s\n",
            (unsigned long long)r->messages, r->msg_lat_p50_us, r->msg_lat_p99_us,
            r->msg_lat_p999_us, r->msg_lat_max_us,
            r->msg_lat_over_target ? "  (P99.9 above the 10 us target)" : "");
    fprintf(out, "message rate    mean %.3g  max %.3g M/s per sending NIC\n",
            r->msg_rate_mean_mpps, r->msg_rate_max_mpps);
}

static void print_ecn(FILE *out, const struct bn_results *r)
{
    uint32_t top[TOP_PORTS];
    uint32_t n = top_ports(r, marked_key, top);
    fprintf(out, "ECN marks       %llu", (unsigned long long)r->ecn_marks);
    for (uint32_t i = 0; i < n; i++)
        fprintf(out, "%s%s %llu", i ? ", " : "; most marked: ", r->ports[top[i]].name,
                (unsigned long long)r->ports[top[i]].ecn_marks);
    fputc('\n', out);
}

static void print_pauses(FILE *out, const struct bn_results *r)
{
    uint32_t top[TOP_PORTS];
    uint32_t n = top_ports(r, paused_key, top);
    fprintf(out, "pauses          %llu sent (%llu resumes)", (unsigned long long)r->pause_frames,
            (unsigned long long)r->resume_frames);
    for (uint32_t i = 0; i < n; i++)
        fprintf(out, "%s%s %.1f%%", i ? ", " : "; most paused: ", r->ports[top[i]].name,
                100 * r->ports[top[i]].paused_fraction);
    fputc('\n', out);
}

static void print_fabric(FILE *out, const struct bn_results *r)
{
    fprintf(out, "drops           %llu packets (%llu data)", (unsigned long long)r->pkts_dropped,
            (unsigned long long)r->data_pkts_dropped);
    if (r->trimmed)
        fprintf(out, ", %llu trimmed", (unsigned long long)r->trimmed);
    fputc('\n', out);
    fprintf(out, "retransmits     %llu packets (%llu spurious), %llu timeouts\n",
            (unsigned long long)r->retransmits, (unsigned long long)r->spurious_retransmits,
            (unsigned long long)r->timeouts);
    fprintf(out, "reordering      %llu out of order, depth max %u p99 %.0f packets\n",
            (unsigned long long)r->out_of_order, r->reorder_depth_max, r->reorder_depth_p99);
    print_ecn(out, r);
    if (r->fc_pauses)
        print_pauses(out, r);
    if (r->notifications[0])
        fprintf(out, "%-16s%llu\n", r->notifications, (unsigned long long)r->cnps);
    fprintf(out, "link util       max %.1f%%  mean %.1f%%\n", 100 * r->link_util_max,
            100 * r->link_util_mean);
    if (r->host_wait_max_us > 0) /* hosts whose PCIe is slower than their link */
        fprintf(out, "host DMA wait   mean %.3f  max %.3f us (received data waiting for PCIe)\n",
                r->host_wait_mean_us, r->host_wait_max_us);
    fprintf(out, "packets         %llu injected = %llu delivered + %llu dropped + %llu lost + "
            "%llu in flight\n",
            (unsigned long long)r->pkts_injected, (unsigned long long)r->pkts_delivered,
            (unsigned long long)r->pkts_dropped, (unsigned long long)r->pkts_lost,
            (unsigned long long)r->pkts_in_flight);
}

/* "12.3 us", or what -1 stands for. */
static void print_us(FILE *out, double us, const char *never)
{
    if (us < 0)
        fprintf(out, "%s", never);
    else if (us >= 1000)
        fprintf(out, "%.3f ms", us / 1000);
    else
        fprintf(out, "%.2f us", us);
}

static void print_faults(FILE *out, const struct bn_results *r)
{
    fprintf(out, "faults          control plane %s; %llu frames lost (%llu corrupted); %u flows "
            "failed\n", r->control_plane, (unsigned long long)r->pkts_lost,
            (unsigned long long)r->pkts_corrupted, r->flows_failed);
    for (uint32_t i = 0; i < r->nfaults; i++) {
        const struct bn_fault_result *f = &r->faults[i];
        fprintf(out, "  %-14s %s at %.3f us: %u link%s, %llu lost; ", f->kind, f->target, f->at_us,
                f->links, f->links == 1 ? "" : "s", (unsigned long long)f->pkts_lost);
        if (f->switches_changed)
            fprintf(out, "%u switch%s rerouted, converged ", f->switches_changed,
                    f->switches_changed == 1 ? "" : "es");
        else
            fprintf(out, "converged ");
        print_us(out, f->converged_us, "never");
        if (f->restore_measured) {
            fprintf(out, ", traffic restored ");
            print_us(out, f->restored_us, "not within the run");
        }
        fputc('\n', out);
    }
    if (r->baseline_makespan_us > 0) {
        fprintf(out, "  last flow done at %.3f us, %.3f us without the faults", r->makespan_us,
                r->baseline_makespan_us);
        if (r->slowdown > 0)
            fprintf(out, ": %.3fx", r->slowdown);
        fputc('\n', out);
    }
    for (uint32_t i = 0, shown = 0; i < r->nflows && shown < 8; i++) {
        const struct bn_flow_result *fl = &r->flows[i];
        if (fl->failed_us < 0)
            continue;
        fprintf(out, "  flow %u (host%u -> host%u) failed at %.3f us: %s\n", i, fl->src, fl->dst,
                fl->failed_us,
                fl->dep_failed ? "never started: a flow it waited for failed"
                : fl->no_path  ? "no path delivered it after the faults (routing.stuck_us)"
                               : "its retries ran out (nic.retry_cnt, nic.ack_timeout)");
        shown++;
    }
}

static void print_run(FILE *out, const struct bn_results *r)
{
    double rate = r->wall_s > 0 ? (double)r->packet_hops / r->wall_s : 0;
    fprintf(out, "simulated       %.3f us in %.3f s wall (+%.3f s setup)\n", r->simulated_us,
            r->wall_s, r->setup_s);
    fprintf(out, "events          %llu;  packet-hops %llu (%.2f M/s)\n",
            (unsigned long long)r->events, (unsigned long long)r->packet_hops, rate / 1e6);
    fprintf(out, "peak memory     %.1f MB\n", r->peak_rss_bytes / 1e6);
    if (r->rss_ranks) /* rank 0's above; every rank's here */
        fprintf(out, "ranks' memory   %u ranks, peak %.1f MB most, %.1f MB least\n",
                r->rss_ranks, r->peak_rss_rank_max / 1e6, r->peak_rss_rank_min / 1e6);
    const struct bn_hybrid_stats *hy = &r->hybrid;
    if (hy->region_hosts || hy->region_switches) /* docs/hybrid.md */
        fprintf(out, "hybrid          region of %u hosts and %u switches: %u queue pairs as "
                "packets, %u as flows; %u link directions shared\n", hy->region_hosts,
                hy->region_switches, hy->packet_qps, hy->flow_qps, hy->shared_ports);
    const struct bn_partition_stats *p = &r->partition;
    if (p->parts) /* docs/parallel.md */
        fprintf(out, "partitions      %u parts, %u cut links, %llu windows of %.0f ns (%.1f per "
                "us), %.1f messages each; busiest part %.2fx the mean's events\n",
                p->parts, p->cut_links, (unsigned long long)p->windows, p->lookahead_ns,
                p->windows_per_us, p->msgs_per_window,
                p->events_part_mean > 0 ? (double)p->events_part_max / p->events_part_mean : 0);
}

void bn_results_print(FILE *out, const struct bn_results *r)
{
    fprintf(out, "bnet %s  scenario %s  seed %llu  workload %s\n\n", BNET_VERSION, r->scenario,
            (unsigned long long)r->seed, r->workload);
    bn_topo_info_print(out, &r->topo);
    fputc('\n', out);
    print_flows(out, r);
    print_fabric(out, r);
    if (r->nfaults)
        print_faults(out, r);
    fputc('\n', out);
    struct bn_seed_report seed;
    bn_seed_of_run(r, &seed);
    bn_seed_print(out, "", &seed);
    fputc('\n', out);
    print_run(out, r);
}
