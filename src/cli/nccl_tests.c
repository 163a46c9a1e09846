/*
 * What makes `bnet coll` a drop-in for nccl-tests users: the program names
 * that choose the collective (all_reduce_perf ...), NCCL's environment
 * variables read as NCCL reads them (docs/collectives.md), and the rank
 * count of -t x -g x -N or --nranks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bnet/coll.h"
#include "bnet/scenario.h"
#include "cli/cli.h"

const char *bn_cli_perf_op(const char *name)
{
    static const char *const names[][2] = {
        {"all_reduce_perf", "allreduce"}, {"reduce_scatter_perf", "reducescatter"},
        {"all_gather_perf", "allgather"}, {"broadcast_perf", "broadcast"},
        {"reduce_perf", "reduce"},        {"alltoall_perf", "alltoall"},
        {"sendrecv_perf", "sendrecv"},
    };
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(base, names[i][0]) == 0)
            return names[i][1];
    return NULL;
}

/* NCCL's name of an algorithm or protocol as bnet's key value ("Ring" ->
 * "ring"); NULL if bnet has no such one. */
static const char *nccl_name(const char *v, const char *const (*map)[2], size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(v, map[i][0]) == 0)
            return map[i][1];
    return NULL;
}

static int env_set(struct bn_scenario *sc, const char *var, const char *key, const char *value,
                   const char *typed, struct bn_error *err)
{
    char a[96];
    snprintf(a, sizeof a, "%s=%s", key, value);
    return bn_scenario_set_flag(sc, a, var, typed, err);
}

/* NCCL_ALGO / NCCL_PROTO: one name (NCCL also takes lists and "^"
 * exclusions; bnet forces one or leaves the tuner free). */
static int env_choice(struct bn_scenario *sc, const char *var, const char *key,
                      const char *const (*map)[2], size_t n, struct bn_error *err)
{
    const char *v = getenv(var);
    if (!v || !*v)
        return BN_OK;
    const char *name = nccl_name(v, map, n);
    if (!name)
        return bn_fail(err, BN_EINPUT, "%s '%s': bnet takes one of NCCL's names it models "
                       "here, or the variable unset for its tuner (docs/collectives.md)", var, v);
    return env_set(sc, var, key, name, v, err);
}

static int env_count(const char *var, uint32_t *out, bool *given, struct bn_error *err)
{
    const char *v = getenv(var);
    *given = v && *v;
    if (!*given)
        return BN_OK;
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (*end || v[0] == '-' || n < 1 || n > 64)
        return bn_fail(err, BN_EINPUT, "%s '%s': a channel count, 1 to 64", var, v);
    *out = (uint32_t)n;
    return BN_OK;
}

int bn_cli_nccl_env(struct bn_scenario *sc, struct bn_error *err)
{
    static const char *const algos[][2] = {
        {"Ring", "ring"}, {"Tree", "tree"}, {"CollnetDirect", "collnet"},
        {"CollnetChain", "collnet"}, {"CollNet", "collnet"}, {"NVLS", "nvls"},
    };
    static const char *const protos[][2] = {{"LL", "ll"}, {"LL128", "ll128"},
                                            {"Simple", "simple"}};
    int rc = env_choice(sc, "NCCL_ALGO", "coll.algo", algos, sizeof algos / sizeof algos[0], err);
    if (rc == BN_OK)
        rc = env_choice(sc, "NCCL_PROTO", "coll.proto", protos, sizeof protos / sizeof protos[0],
                        err);
    /* either restricts NCCL's own choice: its model picks the rest, and its
     * algorithm runs as NCCL runs it (Tree across servers as htree) */
    for (int i = 0; rc == BN_OK && i < 2; i++) {
        const char *var = i ? "NCCL_PROTO" : "NCCL_ALGO", *v = getenv(var);
        if (v && *v)
            rc = env_set(sc, var, "coll.tuner", "nccl", v, err);
    }
    /* NCCL runs between its minimum and maximum channel counts: the
     * scenario's count, brought inside them */
    uint32_t lo = 1, hi = 64;
    bool has_lo, has_hi;
    if (rc == BN_OK)
        rc = env_count("NCCL_MIN_NCHANNELS", &lo, &has_lo, err);
    if (rc == BN_OK)
        rc = env_count("NCCL_MAX_NCHANNELS", &hi, &has_hi, err);
    if (rc != BN_OK || (!has_lo && !has_hi))
        return rc;
    if (lo > hi)
        return bn_fail(err, BN_EINPUT, "NCCL_MIN_NCHANNELS %u is above NCCL_MAX_NCHANNELS %u",
                       lo, hi);
    uint32_t now = bn_coll_channels(sc), ch = now < lo ? lo : now > hi ? hi : now;
    char v[16];
    snprintf(v, sizeof v, "%u", ch);
    return env_set(sc, has_lo ? "NCCL_MIN_NCHANNELS" : "NCCL_MAX_NCHANNELS", "coll.channels", v,
                   getenv(has_lo ? "NCCL_MIN_NCHANNELS" : "NCCL_MAX_NCHANNELS"), err);
}

/* A count of 1 .. 2^20; 0 if `v` is not one. */
static uint64_t count_of(const char *v)
{
    char *end;
    if (!v || !*v || v[0] == '-' || v[0] == '+' || v[0] == ' ')
        return 0;
    unsigned long long n = strtoull(v, &end, 10);
    return *end || n > (1u << 20) ? 0 : n;
}

int64_t bn_cli_rank_count(const struct cli_opts *o)
{
    const char *flags[] = {"-t", "-g", "-N", "--nranks"};
    const char *vals[] = {o->threads, o->gpus, o->nodes, o->nranks};
    uint64_t n = 1;
    bool any = false;
    for (int i = 0; i < 4; i++) {
        if (!vals[i])
            continue;
        uint64_t c = count_of(vals[i]);
        if (!c) {
            fprintf(stderr, "bnet: option '%s': '%s' is not a count (1 to 1048576)\n", flags[i],
                    vals[i]);
            return -1;
        }
        n *= c;
        any = true;
    }
    if (o->nranks && (o->threads || o->gpus || o->nodes)) {
        fprintf(stderr, "bnet: option '--nranks' is the whole count: give it, or -t x -g x -N, "
                "not both\n");
        return -1;
    }
    return any ? (int64_t)n : 0;
}
