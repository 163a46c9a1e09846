/*
 * `bnet job` results: a table per job (iteration, compute, exposed
 * communication, per dimension and per collective) and the JSON document
 * (schema in docs/results.md). Machine-dependent figures (wall time,
 * memory) stay out of the JSON so a scenario and seed give one file.
 */
#include "bnet/job.h"
#include "report/json_util.h"

static void print_job(FILE *out, const struct bn_job_result *r)
{
    fprintf(out, "\njob %s (%s): %u GPUs", r->name, r->kind, r->gpus);
    if (r->traffic) {
        fprintf(out, ", %llu flows done, %.1f Gb/s while the others ran\n",
                (unsigned long long)r->flows_done, r->goodput_gbps);
        return;
    }
    fprintf(out, " = tp %u x cp %u x pp %u x dp %u (ep %u), %u micro-batches, hosts %u.. "
            "(span %u)\n", r->tp, r->cp, r->pp, r->dp, r->ep, r->micro_batches, r->first_host,
            r->hosts_span);
    if (r->failed)
        fprintf(out, "  FAILED at %.3f us: a queue pair's retries ran out\n", r->failed_us);
    fprintf(out, "  iteration %12.1f us  (%u done; min %.1f, max %.1f)\n", r->iteration_us,
            r->iterations, r->iteration_min_us, r->iteration_max_us);
    fprintf(out, "  compute   %12.1f us  (busiest GPU)\n", r->compute_us);
    fprintf(out, "  bubbles   %12.1f us  (pipeline, with communication taking no time)\n",
            r->bubble_us);
    fprintf(out, "  exposed   %12.1f us  communication not hidden by overlap (%.1f %%)\n",
            r->exposed_comm_us,
            r->iteration_us > 0 ? 100 * r->exposed_comm_us / r->iteration_us : 0);
    if (r->alone_us > 0)
        fprintf(out, "  alone     %12.1f us  slowdown %.3f beside the other jobs\n", r->alone_us,
                r->slowdown);
    if (r->decodes)
        fprintf(out, "  prefill %.1f us, decode step %.1f us (network %.1f us per output "
                "token), %.0f tokens/s\n", r->prefill_us, r->decode_us, r->decode_network_us,
                r->tokens_per_s);
    fprintf(out, "  %-4s %8s %14s %12s %12s\n", "dim", "count", "bytes", "busy_us",
            "exposed_us");
    for (uint32_t d = 0; d < r->ndims; d++) {
        const struct bn_job_dim_row *w = &r->dims[d];
        if (w->count)
            fprintf(out, "  %-4s %8llu %14llu %12.1f %12.1f\n", w->dim,
                    (unsigned long long)w->count, (unsigned long long)w->bytes, w->busy_us,
                    w->exposed_us);
    }
    if (!r->ncolls)
        return;
    fprintf(out, "  %-4s %-14s %-7s %6s %12s %7s %10s %10s %9s\n", "dim", "op", "algo", "ranks",
            "size", "count", "mean_us", "max_us", "busbw");
    for (uint32_t c = 0; c < r->ncolls; c++) {
        const struct bn_job_coll_row *w = &r->colls[c];
        fprintf(out, "  %-4s %-14s %-7s %6u %12llu %7llu %10.2f %10.2f %9.2f%s\n", w->dim, w->op,
                w->algo[0] ? w->algo : "-", w->ranks, (unsigned long long)w->bytes, (unsigned long long)w->count, w->mean_us,
                w->max_us, w->busbw_gbs, w->modelled ? "  (NVLink model)" : "");
    }
}

void bn_job_print(FILE *out, const struct bn_job_results *r)
{
    fprintf(out, "# bnet job: %s, %u hosts, %u jobs\n", r->scenario, r->topo.hosts, r->njobs);
    for (uint32_t k = 0; k < r->njobs; k++)
        print_job(out, &r->jobs[k]);
    fprintf(out, "\n# simulated %.1f us in %.2f s wall, %llu events, %llu packet hops; "
            "backend %llu B, NVLink %llu B%s\n", r->simulated_us, r->wall_s,
            (unsigned long long)r->events, (unsigned long long)r->packet_hops,
            (unsigned long long)r->backend_tx_bytes, (unsigned long long)r->nvlink_tx_bytes,
            r->interrupted ? " (interrupted)" : "");
    struct bn_seed_report seed;
    bn_seed_of_topo(&r->topo, &seed);
    fputc('\n', out);
    bn_seed_print(out, "# ", &seed);
}

static json_t *job_json(const struct bn_job_result *r)
{
    json_t *o = json_pack("{s:o, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}",
                          "name", bn_json_text(r->name), "kind", r->kind, "gpus", (int)r->gpus,
                          "tp", (int)r->tp, "cp", (int)r->cp, "pp", (int)r->pp, "dp", (int)r->dp,
                          "ep", (int)r->ep, "micro_batches", (int)r->micro_batches,
                          "iterations", (int)r->iterations, "first_host", (int)r->first_host,
                          "hosts_span", (int)r->hosts_span);
    json_object_set_new(o, "start_us", json_real(r->start_us));
    json_object_set_new(o, "end_us", json_real(r->end_us));
    json_object_set_new(o, "iteration_us", json_real(r->iteration_us));
    json_object_set_new(o, "iteration_min_us", json_real(r->iteration_min_us));
    json_object_set_new(o, "iteration_max_us", json_real(r->iteration_max_us));
    json_object_set_new(o, "compute_us", json_real(r->compute_us));
    json_object_set_new(o, "no_comm_us", json_real(r->no_comm_us));
    json_object_set_new(o, "exposed_comm_us", json_real(r->exposed_comm_us));
    json_object_set_new(o, "bubble_us", json_real(r->bubble_us));
    if (r->alone_us > 0) {
        json_object_set_new(o, "alone_us", json_real(r->alone_us));
        json_object_set_new(o, "slowdown", json_real(r->slowdown));
    }
    if (r->decodes)
        json_object_set_new(o, "inference",
                            json_pack("{s:f, s:f, s:f, s:f}", "prefill_us", r->prefill_us,
                                      "decode_us", r->decode_us, "decode_network_us",
                                      r->decode_network_us, "tokens_per_s", r->tokens_per_s));
    if (r->traffic)
        json_object_set_new(o, "background",
                            json_pack("{s:I, s:I, s:f}", "flows_done", (json_int_t)r->flows_done,
                                      "bytes_done", (json_int_t)r->bytes_done, "goodput_gbps",
                                      r->goodput_gbps));
    if (r->failed)
        json_object_set_new(o, "failed", json_pack("{s:f}", "at_us", r->failed_us));
    json_t *dims = json_array(), *colls = json_array();
    for (uint32_t d = 0; d < r->ndims; d++) {
        const struct bn_job_dim_row *w = &r->dims[d];
        json_array_append_new(dims, json_pack("{s:s, s:I, s:I, s:f, s:f}", "dim", w->dim, "count",
                                              (json_int_t)w->count, "bytes", (json_int_t)w->bytes,
                                              "busy_us", w->busy_us, "exposed_us",
                                              w->exposed_us));
    }
    for (uint32_t c = 0; c < r->ncolls; c++) {
        const struct bn_job_coll_row *w = &r->colls[c];
        json_array_append_new(colls,
                              json_pack("{s:s, s:s, s:s, s:i, s:I, s:I, s:f, s:f, s:f, s:b}",
                                        "dim", w->dim, "op", w->op, "algo", w->algo, "ranks",
                                        (int)w->ranks, "size",
                                        (json_int_t)w->bytes, "count", (json_int_t)w->count,
                                        "mean_us", w->mean_us, "max_us", w->max_us, "busbw_gbs",
                                        w->busbw_gbs, "modelled", (int)w->modelled));
    }
    json_object_set_new(o, "dims", dims);
    json_object_set_new(o, "collectives", colls);
    return o;
}

int bn_job_write_json(const struct bn_job_results *r, const char *path, struct bn_error *err)
{
    json_t *jobs = json_array();
    for (uint32_t k = 0; k < r->njobs; k++)
        json_array_append_new(jobs, job_json(&r->jobs[k]));
    json_t *root = json_object();
    json_object_set_new(root, "bnet_version", json_string(BNET_VERSION));
    bn_json_command(root, &r->prov);
    json_object_set_new(root, "scenario", bn_json_text(r->scenario));
    json_object_set_new(root, "topology", bn_json_topo(&r->topo));
    json_object_set_new(root, "jobs", jobs);
    struct bn_seed_report seed;
    bn_seed_of_topo(&r->topo, &seed);
    json_object_set_new(root, "seed_report", bn_json_seed(&seed));
    bn_json_config(root, &r->prov);
    json_object_set_new(root, "sim", json_pack("{s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:s}",
                                               "simulated_us", r->simulated_us, "events",
                                               (json_int_t)r->events, "packet_hops",
                                               (json_int_t)r->packet_hops, "pkts_dropped",
                                               (json_int_t)r->pkts_dropped, "retransmits",
                                               (json_int_t)r->retransmits, "backend_tx_bytes",
                                               (json_int_t)r->backend_tx_bytes,
                                               "nvlink_tx_bytes", (json_int_t)r->nvlink_tx_bytes,
                                               "interrupted", (int)r->interrupted,
                                               "stop_reason",
                                               bn_stop_reason(r->interrupted, false, false)));
    return bn_json_dump(root, path, BN_JSON_FLAGS, err);
}
