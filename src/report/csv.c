/*
 * Results as CSV, for spreadsheets and data frames: six files named from a
 * prefix, each a header row then one row per record (docs/results.md):
 *   PREFIX-flows.csv   one row per flow, the JSON "flows" array
 *   PREFIX-ports.csv   one row per noteworthy port, the JSON "ports" array
 *   PREFIX-rates.csv   time series in long format: one row per sample and flow
 *   PREFIX-queues.csv  time series in long format: one row per sample and port
 *   PREFIX-links.csv   time series in long format: one row per sample and link row
 *   PREFIX-slowdown.csv FCT slowdown per flow-size bucket (docs/traffic.md)
 * Integers are written exactly, reals with 10 significant digits (as in the
 * JSON), so the same run gives byte-identical files.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bnet/bnet.h"
#include "report/csv_util.h"

#define REAL "%.10g"

typedef void (*csv_body_fn)(FILE *f, const struct bn_results *r);

void bn_csv_text(FILE *f, const char *s)
{
    if (!s[strcspn(s, ",\"\r\n")]) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void flows_body(FILE *f, const struct bn_results *r)
{
    fputs("src,dst,bytes,start_us,fct_us,ack_us,throughput_gbps,retransmits,timeouts,done,"
          "ideal_us,slowdown\n", f);
    for (uint32_t i = 0; i < r->nflows; i++) {
        const struct bn_flow_result *fl = &r->flows[i];
        fprintf(f, "%" PRIu32 ",%" PRIu32 ",%" PRIu64 "," REAL "," REAL "," REAL "," REAL
                   ",%" PRIu64 ",%" PRIu64 ",%s," REAL "," REAL "\n",
                fl->src, fl->dst, fl->bytes, fl->start_us, fl->fct_us, fl->ack_us,
                fl->throughput_gbps, fl->retransmits, fl->timeouts, fl->done ? "true" : "false",
                fl->ideal_us, fl->slowdown);
    }
}

static void slowdown_body(FILE *f, const struct bn_results *r)
{
    fputs("min_bytes,max_bytes,flows,mean,p50,p95,p99,max\n", f);
    for (uint32_t i = 0; i < r->nslowdown_buckets; i++) {
        const struct bn_slowdown_bucket *b = &r->slowdown_buckets[i];
        fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu32 "," REAL "," REAL "," REAL "," REAL
                   "," REAL "\n", b->min_bytes, b->max_bytes, b->s.flows, b->s.mean, b->s.p50,
                b->s.p95, b->s.p99, b->s.max);
    }
}

static void ports_body(FILE *f, const struct bn_results *r)
{
    fputs("name,peer,utilization,tx_bytes,drops,ecn_marks,pause_sent,pause_received,"
          "paused_fraction\n", f);
    for (uint32_t i = 0; i < r->nports; i++) {
        const struct bn_port_result *p = &r->ports[i];
        bn_csv_text(f, p->name);
        fputc(',', f);
        bn_csv_text(f, p->peer);
        fprintf(f, "," REAL ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                   "," REAL "\n",
                p->utilization, p->tx_bytes, p->drops, p->ecn_marks, p->pause_sent,
                p->pause_received, p->paused_fraction);
    }
}

static void rates_body(FILE *f, const struct bn_results *r)
{
    const struct bn_series *sr = &r->series;
    fputs("t_us,flow,rate_gbps,alpha,delivered_bytes,cwnd_bytes\n", f);
    for (uint32_t k = 0; k < sr->nsamples; k++)
        for (uint32_t i = 0; i < sr->nflows; i++) {
            size_t at = (size_t)k * sr->nflows + i;
            fprintf(f, REAL ",%" PRIu32 "," REAL "," REAL "," REAL "," REAL "\n", sr->t_us[k], i,
                    sr->rate_gbps[at], sr->alpha[at], sr->delivered_bytes[at],
                    sr->cwnd_bytes[at]);
        }
}

static void queues_body(FILE *f, const struct bn_results *r)
{
    const struct bn_series *sr = &r->series;
    fputs("t_us,port,bytes\n", f);
    for (uint32_t k = 0; k < sr->nsamples; k++)
        for (uint32_t q = 0; q < sr->nqueues; q++) {
            fprintf(f, REAL ",", sr->t_us[k]);
            bn_csv_text(f, sr->queue_name[q]);
            fprintf(f, ",%.0f\n", sr->queue_bytes[(size_t)k * sr->nqueues + q]);
        }
}

static void links_body(FILE *f, const struct bn_results *r)
{
    const struct bn_series *sr = &r->series;
    fputs("t_us,link,from,to,ports,utilization,paused_fraction\n", f);
    for (uint32_t k = 0; k < sr->nsamples; k++)
        for (uint32_t l = 0; l < sr->nlinks; l++) {
            const struct bn_series_link *sl = &sr->links[l];
            size_t at = (size_t)k * sr->nlinks + l;
            fprintf(f, REAL ",", sr->t_us[k]);
            bn_csv_text(f, sl->name);
            fputc(',', f);
            bn_csv_text(f, sl->from);
            fputc(',', f);
            bn_csv_text(f, sl->to);
            fprintf(f, ",%" PRIu32 "," REAL "," REAL "\n", sl->ports, sr->link_util[at],
                    sr->link_paused[at]);
        }
}

/* Write PREFIX-SUFFIX.csv with `body`; one error line naming the path. */
static int write_one(const struct bn_results *r, const char *prefix, const char *suffix,
                     csv_body_fn body, struct bn_error *err)
{
    size_t len = strlen(prefix) + strlen(suffix) + 6;
    char *path = malloc(len);
    if (!path)
        return bn_fail(err, BN_ENOMEM, "out of memory");
    snprintf(path, len, "%s-%s.csv", prefix, suffix);
    struct bn_output *o = bn_output_open(path, "CSV", err);
    int rc = o ? BN_OK : err ? err->status : BN_EINPUT;
    if (o) {
        body(bn_output_stream(o), r);
        rc = bn_output_close(o, false, err);
    }
    free(path);
    return rc;
}

int bn_results_write_csv(const struct bn_results *r, const char *prefix, struct bn_error *err)
{
    static const struct {
        const char *suffix;
        csv_body_fn body;
    } files[] = {
        { "flows", flows_body },
        { "ports", ports_body },
        { "rates", rates_body },
        { "queues", queues_body },
        { "links", links_body },
        { "slowdown", slowdown_body },
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        int rc = write_one(r, prefix, files[i].suffix, files[i].body, err);
        if (rc != BN_OK)
            return rc;
    }
    return BN_OK;
}
