/* A program built against an installed bnet (tests/packaging/test_install.sh):
 * the embedded default permutation on a k=4 fat-tree, through the public API
 * only. Prints what it measured; exits non-zero on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bnet/bnet.h>

int main(void)
{
    if (strcmp(bn_version(), BNET_VERSION) != 0) {
        fprintf(stderr, "library %s, headers %s\n", bn_version(), BNET_VERSION);
        return 1;
    }
    static struct bn_scenario sc; /* large: not on the stack */
    struct bn_error err = {0};
    bn_scenario_defaults(&sc);
    if (bn_scenario_load_string(&sc, bn_scenario_default_yaml(), "<default>", &err) != BN_OK ||
        bn_scenario_set(&sc, "topology.k=4", &err) != BN_OK ||
        bn_scenario_validate(&sc, &err) != BN_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    struct bn_results res;
    memset(&res, 0, sizeof res);
    if (bn_run(&sc, NULL, &res, &err) != BN_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    int ok = res.nflows > 0 && res.flows_completed == res.nflows &&
             res.pkts_injected == res.pkts_delivered + res.pkts_dropped + res.pkts_in_flight;
    printf("bnet %s: %u of %u flows completed, mean %.1f Gb/s\n", bn_version(),
           res.flows_completed, res.nflows, res.throughput_gbps.mean);
    bn_results_free(&res);
    return ok ? 0 : 1;
}
