/* A built (not run) simulation for tests that look inside it. */
#ifndef BN_TESTS_SIM_SUPPORT_H
#define BN_TESTS_SIM_SUPPORT_H

#include "support.h"

#include "sim/sim.h"

/* Defaults, then each "key=value" in the NULL-terminated list; built. */
static inline struct bn_sim *test_sim_build(const char *const *sets)
{
    struct bn_scenario *sc = calloc(1, sizeof *sc);
    struct bn_sim *s = calloc(1, sizeof *s);
    struct bn_error err = {0};
    assert_non_null(sc);
    assert_non_null(s);
    test_scenario(sc, sets);
    if (bn_sim_build(s, sc, &err) != BN_OK)
        fail_msg("build: %s", err.msg);
    return s;
}

static inline void test_sim_free(struct bn_sim *s)
{
    const struct bn_scenario *sc = s->sc;
    bn_sim_free(s);
    free((void *)sc);
    free(s);
}

#endif
