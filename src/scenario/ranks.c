/*
 * A cluster shaped for a rank count, as `-g N` or `mpirun -np N` ask for
 * GPUs: servers of 8 GPUs (NVIDIA's HGX/DGX baseboards), each GPU's NIC on
 * its rail leaf, a scalable unit of up to 32 servers on radix-64 switches
 * (a QM9700; the DGX SuperPOD reference architecture's SU), more SUs
 * joined by spines and then cores (topo/rail_optimized.c). Below 8 GPUs,
 * one server; a small SU gets switches of the radix it fills (a leaf's S
 * servers down and S uplinks), so every spine's ports are used.
 */
#include <stdio.h>

#include "bnet/scenario.h"
#include "bnet/error.h"

enum { SERVER_GPUS = 8, SU_SERVERS = 32, RADIX = 64, SU_GPUS = SERVER_GPUS * SU_SERVERS };

/* Pods of 32 leaves under radix-64 cores: at most 64 pods of 32 rail
 * leaves, 256 SUs. */
#define MAX_RANKS (256ull * SU_GPUS)

static bool fits(uint64_t n)
{
    return (n >= 2 && n <= SERVER_GPUS) || (n <= SU_GPUS && n % SERVER_GPUS == 0) ||
           (n <= MAX_RANKS && n % SU_GPUS == 0);
}

/* The nearest count below and above n that fits (0: none). */
static void nearest(uint64_t n, uint64_t *below, uint64_t *above)
{
    uint64_t step = n < SERVER_GPUS ? 1 : n < SU_GPUS ? SERVER_GPUS : SU_GPUS;
    *below = n >= 2 ? (n > MAX_RANKS ? MAX_RANKS : n / step * step) : 0;
    while (*below && !fits(*below))
        (*below)--;
    *above = n < 2 ? 2 : n < MAX_RANKS ? (n / step + 1) * step : 0;
}

int bn_scenario_set_ranks(struct bn_scenario *sc, uint64_t nranks, const char *flag,
                          const char *typed, struct bn_error *err)
{
    if (!fits(nranks)) {
        uint64_t below, above;
        nearest(nranks, &below, &above);
        char near[96];
        if (below && above)
            snprintf(near, sizeof near, "%llu or %llu", (unsigned long long)below,
                     (unsigned long long)above);
        else
            snprintf(near, sizeof near, "%llu", (unsigned long long)(below ? below : above));
        return bn_fail(err, BN_EINPUT, "%s '%s': %llu GPUs do not make servers of 8 on a "
                       "rail-optimized fabric (2-8 GPUs in one server, multiples of 8 up to "
                       "256, multiples of 256 up to %llu); the nearest that do: %s",
                       flag, typed, (unsigned long long)nranks, (unsigned long long)MAX_RANKS,
                       near);
    }
    uint64_t g = nranks < SERVER_GPUS ? nranks : SERVER_GPUS, servers = nranks / g;
    uint64_t s = servers < SU_SERVERS ? servers : SU_SERVERS, sus = servers / s;
    /* a leaf: s servers down, s uplinks; g leaves must fill whole spines.
     * An odd g (one server of 3, 5 or 7) cannot fill spines of an even
     * radix with one uplink a leaf: two uplinks, one spine of radix 2g. */
    uint64_t k = sus > 1 ? RADIX : 2 * s > g ? 2 * s : g;
    const char *over = "1";
    if (g % 2) {
        k = 2 * g;
        over = "0.5";
    }
    char a[10][64];
    int n = 0;
    snprintf(a[n++], sizeof a[0], "topology.kind=rail_optimized");
    snprintf(a[n++], sizeof a[0], "topology.gpus_per_server=%llu", (unsigned long long)g);
    snprintf(a[n++], sizeof a[0], "topology.servers_per_su=%llu", (unsigned long long)s);
    snprintf(a[n++], sizeof a[0], "topology.scalable_units=%llu", (unsigned long long)sus);
    snprintf(a[n++], sizeof a[0], "topology.k=%llu", (unsigned long long)k);
    snprintf(a[n++], sizeof a[0], "topology.oversubscription=%s", over);
    snprintf(a[n++], sizeof a[0], "topology.agg_oversubscription=1");
    if (sc->scale_up.domain_gpus) /* NVLink inside each server, as the scenario had it */
        snprintf(a[n++], sizeof a[0], "scale_up.domain_gpus=%llu", (unsigned long long)g);
    int rc = BN_OK;
    for (int i = 0; rc == BN_OK && i < n; i++)
        rc = bn_scenario_set_flag(sc, a[i], flag, typed, err);
    return rc;
}
