/*
 * Links a flow file fails (htsim's `failure` lines, workload/flow_htsim.c)
 * as the run's faults: each is the link_id-th core uplink of aggregation
 * switch switch_id of the fat-tree, down from the start: link_down at
 * 0 µs, instant (every switch's routes avoid it at once, as htsim builds
 * its routes without the link), after the scenario's own faults.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/path.h"
#include "driver/flows/flows.h"
#include "topo/topo.h"
#include "workload/workload.h"

int bn_flow_file_faults(const struct bn_scenario *sc, struct bn_scenario **with,
                        struct bn_error *err)
{
    *with = NULL;
    if (!bn_workload_at(sc->workload.kind)->needs_flow_file || !bn_flow_file_fails_links(sc))
        return BN_OK; /* only htsim's files fail links (HPCC's name nodes the fabric's ids) */
    struct bn_topo_counts c;
    struct bn_flow_list l = {0};
    int rc = bn_topo_count(sc, &c, err);
    if (rc == BN_OK)
        rc = bn_workload_generate(sc, (uint32_t)c.hosts, &l, err);
    rc = bn_scenario_locate(sc, rc, err);
    if (rc != BN_OK || l.nfail == 0) {
        bn_flow_list_free(&l);
        return rc;
    }
    char path[BN_PATH_MAX * 2];
    bn_path_beside(sc->source, bn_flow_file(sc), path, sizeof path);
    uint32_t aggs = 0, up = 0;
    struct bn_fat_tree_shape sh;
    if (!bn_topo_builder_at(sc->topology.kind)->fat_tree_shape)
        rc = bn_fail(err, BN_EINPUT, "%s:%u: htsim's failure lines name fat-tree links, but "
                     "topology.kind is %s", path, l.fail[0].line,
                     bn_topo_builder_name(sc->topology.kind));
    else
        rc = bn_fat_tree_shape(sc, &sh, err);
    if (rc == BN_OK) {
        aggs = sc->topology.k * sh.u1; /* k pods of u1 */
        up = sh.u2;
    }
    if (rc == BN_OK && sc->nfaults + l.nfail > BN_SC_FAULTS_MAX)
        rc = bn_fail(err, BN_EINPUT, "%s:%u: %u failure lines and %u faults: at most %d in all",
                     path, l.fail[0].line, l.nfail, sc->nfaults, BN_SC_FAULTS_MAX);
    struct bn_scenario *s = rc == BN_OK ? malloc(sizeof *s) : NULL;
    if (rc == BN_OK && !s)
        rc = bn_fail(err, BN_ENOMEM, "out of memory");
    if (s)
        *s = *sc;
    for (uint32_t i = 0; rc == BN_OK && i < l.nfail; i++) {
        const struct bn_flow_failure *f = &l.fail[i];
        if (f->switch_id >= aggs || f->link_id >= up) {
            rc = bn_fail(err, BN_EINPUT, "%s:%u: switch_id %u link_id %u: the fat-tree has %u "
                         "aggregation switches of %u core uplinks", path, f->line,
                         f->switch_id, f->link_id, aggs, up);
            break;
        }
        /* agg a of a pod links to cores a * up .. a * up + up - 1 */
        uint32_t per_pod = aggs / sc->topology.k, core = f->switch_id % per_pod * up + f->link_id;
        struct bn_scenario_fault *sf = &s->faults[s->nfaults++];
        *sf = (struct bn_scenario_fault){.kind = BN_SC_FAULT_LINK_DOWN, .instant = true};
        snprintf(sf->target, sizeof sf->target, "agg%u core%u", f->switch_id, core);
    }
    bn_flow_list_free(&l);
    if (rc != BN_OK) {
        free(s);
        return rc;
    }
    *with = s;
    return BN_OK;
}
