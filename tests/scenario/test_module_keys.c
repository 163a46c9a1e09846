/*
 * The registries whose modules carry their own keys (issue 54): congestion
 * control (src/nic/cc_registry.c), load balancing (src/switch/lb_registry.c),
 * flow control (src/link/fc_registry.c), topology builders (src/topo/topo.c),
 * transports (src/nic/transport_registry.c), control planes
 * (src/fault/cp_registry.c) and collective algorithms
 * (src/coll/algo_registry.c), one table row each. For every one: each module
 * has a name and a short summary; its rows are fields of its own block of
 * the scenario, spliced into the scenario registry after one key, each once;
 * a key set lands in its own module's block only; the selecting key's doc is
 * the summaries (and, where a choice comes before the registry's, "auto",
 * says what it does); and every list of the names written by hand (the
 * default scenario's comment and sections, docs/scenario.md's row, a
 * registry's extra lists) says what the registry says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "coll/sched.h"
#include "fault/fault.h"
#include "link/fc.h"
#include "nic/nic.h"
#include "scenario/keys.h"
#include "switch/lb.h"
#include "topo/topo.h"
#include "workload/workload.h"

/* A registry's own checks of module i (its ops' type is the registry's). */
static bool cc_complete(size_t i)
{
    const struct bn_cc_ops *m = bn_cc_at(i);
    return m->nkeys == 0 || (m->keys && m->setup);
}

/* A policy with keys copies them into its state at set-up: pick reads
 * them there, not from the scenario. */
static bool lb_complete(size_t i)
{
    const struct bn_lb_ops *m = bn_lb_at(i);
    return bn_lb_find(m->name) == m && (m->nkeys == 0 || (m->keys && m->setup && m->priv_size));
}

static bool fc_complete(size_t i)
{
    const struct bn_fc_ops *m = bn_fc_at(i);
    return m->nkeys == 0 || (m->keys && m->setup); /* setup reads them */
}

static bool topo_complete(size_t i)
{
    const struct bn_topo_builder_ops *m = bn_topo_builder_at(i);
    return m->build && (m->nkeys == 0 || m->keys); /* build reads them (bn_topo_keys) */
}

static bool tp_complete(size_t i)
{
    const struct bn_transport_ops *m = bn_transport_at(i);
    return m->next_data && m->on_data && m->on_ack && m->on_timeout &&
           (m->nkeys == 0 || (m->keys && m->setup));
}

/* A plane that reroutes says when (plan receives its keys). */
static bool cp_complete(size_t i)
{
    const struct bn_cp_ops *m = bn_cp_at(i);
    return (!m->reroutes || m->plan) && (m->nkeys == 0 || m->keys);
}

static bool algo_complete(size_t i)
{
    const struct bn_coll_algo_ops *m = bn_coll_algo_at((uint32_t)i);
    return bn_coll_algo_find(m->name) == m && m->supports && m->build &&
           (m->nkeys == 0 || m->keys);
}

static const void *cc_block(const struct bn_scenario *sc, size_t i) { return bn_cc_keys(sc, i); }
static const void *lb_block(const struct bn_scenario *sc, size_t i)
{
    return bn_lb_keys(sc, bn_lb_at(i));
}
static const void *fc_block(const struct bn_scenario *sc, size_t i)
{
    return bn_fc_keys(sc, bn_fc_at(i));
}
static const void *topo_block(const struct bn_scenario *sc, size_t i) { return &sc->topo[i]; }
static const void *tp_block(const struct bn_scenario *sc, size_t i)
{
    return bn_transport_keys(sc, i);
}
static const void *cp_block(const struct bn_scenario *sc, size_t i)
{
    return bn_cp_keys(sc, bn_cp_at(i));
}
static const void *algo_block(const struct bn_scenario *sc, size_t i) { return &sc->algo[i]; }

/* A text that must name every module: in `file` (NULL: the default
 * scenario), the part from `from` to `to` (NULL: the end of its line),
 * each module's name as `pattern` (a printf format of the name). */
struct hand_list {
    const char *file, *from, *to, *pattern;
};

static const struct registry {
    const char *what;
    const struct bn_key_modules *rows;
    const char *(*name)(size_t i);
    const char *(*summary)(size_t i);
    bool (*complete)(size_t i);
    const void *(*block_of)(const struct bn_scenario *sc, size_t i);
    unsigned block;
    size_t block_bytes, nblocks, keys_max, min_modules, min_keys, summary_max;
    const char *prefix; /* every key's path starts so; NULL: one section per module */
    const char *selector, *doc, *doc_head;
    const char *doc_tail; /* what follows the summaries (NULL: ".") */
    const char *first;    /* NULL, or the selector's choice before the registry's ("auto") */
    const char *after, *next; /* the keys around the spliced rows (next NULL: unchecked) */
    const char *get, *get_want, *set; /* a default read, a key set ("k=v"); NULL: no keys */
    const char *yaml_line;           /* the default scenario's line listing them */
    const char *section_note;        /* NULL, or what heads each module's section */
    const char *doc_section;         /* NULL, or how the selector's doc row names a section */
    struct hand_list extra[3];
} registries[] = {
    {
        .what = "congestion control", .rows = &bn_cc_key_modules, .name = bn_cc_name,
        .summary = bn_cc_summary, .complete = cc_complete, .block_of = cc_block,
        .block = BN_KEY_BLOCK_CC, .block_bytes = BN_SC_CC_BLOCK_BYTES, .nblocks = BN_SC_CC_MAX,
        .keys_max = BN_CC_KEYS_MAX, .min_modules = 9, .summary_max = 80,
        .selector = "nic.congestion_control", .doc = bn_cc_doc,
        .doc_head = "Sender rate control: ", .after = "nic.cnp_interval_us",
        .get = "dctcp.g", .get_want = "0.0625", .set = "swift.max_cwnd=50",
        .yaml_line = "congestion_control: none      # ",
        .section_note = "# with nic.congestion_control: %s\n", .doc_section = "the `%s.*` keys",
    },
    {
        .what = "load balancing", .rows = &bn_lb_key_modules, .name = bn_lb_name,
        .summary = bn_lb_summary, .complete = lb_complete, .block_of = lb_block,
        .block = BN_KEY_BLOCK_LB, .block_bytes = BN_SC_LB_BLOCK_BYTES, .nblocks = BN_SC_LB_MAX,
        .keys_max = BN_LB_KEYS_MAX, .min_modules = 5, .min_keys = 4, .summary_max = 60,
        .prefix = "switch.", .selector = "switch.load_balancing", .doc = bn_lb_doc,
        .doc_head = "How a switch picks among equal-cost next hops: ", .after = "switch.ecmp_salt",
        .next = "switch.trim", .get = "switch.flowlet_slots", .get_want = "4096",
        .set = "switch.ar_metric=load", .yaml_line = "  load_balancing: ecmp          # ",
        .extra = {{"docs/load_balancing.md", "\n| policy |", "\n\n", "`%s`"},
                  {"tests/e2e/test_load_balancing.c", "test_every_scheme_and_transport_delivers",
                   "\n}\n", "{\"%s\", "}},
    },
    {
        .what = "flow control", .rows = &bn_fc_key_modules, .name = bn_fc_name,
        .summary = bn_fc_summary, .complete = fc_complete, .block_of = fc_block,
        .block = BN_KEY_BLOCK_FC, .block_bytes = BN_SC_FC_BLOCK_BYTES, .nblocks = BN_SC_FC_MAX,
        .keys_max = BN_FC_KEYS_MAX, .min_modules = 3, .min_keys = 3, .summary_max = 60,
        .selector = "link.flow_control", .doc = bn_fc_doc,
        .doc_head = "Link-level flow control: ", .after = "link.flow_control",
        .next = "switch.buffer_bytes", .get = "pfc.dt_shift", .get_want = "3",
        .set = "pfc.threshold=dynamic", .yaml_line = "  flow_control: lossy           # ",
    },
    {
        .what = "topology builder", .rows = &bn_topo_key_modules, .name = bn_topo_builder_name,
        .summary = bn_topo_builder_summary, .complete = topo_complete, .block_of = topo_block,
        .block = BN_KEY_BLOCK_TOPO, .block_bytes = BN_SC_TOPO_BLOCK_BYTES,
        .nblocks = BN_SC_TOPO_MAX, .keys_max = BN_TOPO_KEYS_MAX, .min_modules = 7,
        .min_keys = 3, .summary_max = 60, .prefix = "topology.", .selector = "topology.kind",
        .doc = bn_topo_builder_doc, .doc_head = "Network shape: ",
        .doc_tail = ". See docs/topologies.md.", .after = "topology.gpus_per_server",
        .next = "topology.file", .get = "topology.scalable_units", .get_want = "4",
        .set = "topology.groups=3", .yaml_line = "  kind: fat_tree                # ",
        .extra = {{"docs/topologies.md", "\n## Builders", "\n## ", "\n### `%s` — "}},
    },
    {
        .what = "transport", .rows = &bn_transport_key_modules, .name = bn_transport_name,
        .summary = bn_transport_summary, .complete = tp_complete, .block_of = tp_block,
        .block = BN_KEY_BLOCK_TP, .block_bytes = BN_SC_TP_BLOCK_BYTES, .nblocks = BN_SC_TP_MAX,
        .keys_max = BN_TP_KEYS_MAX, .min_modules = 2, .min_keys = 2, .summary_max = 60,
        .prefix = "nic.", .selector = "nic.transport", .doc = bn_transport_doc,
        .doc_head = "Reliability: ", .after = "nic.entropy", .next = "nic.congestion_control",
        .get = "nic.sr_window", .get_want = "1024", .set = "nic.sr_reorder_threshold=64",
        .yaml_line = "  transport: go_back_n          # ",
        .extra = {{"docs/model.md", "\n## NICs and the RDMA transport", "\n### ",
                   "`nic.transport: %s`"}},
    },
    {
        .what = "control plane", .rows = &bn_cp_key_modules, .name = bn_cp_name,
        .summary = bn_cp_summary, .complete = cp_complete, .block_of = cp_block,
        .block = BN_KEY_BLOCK_CP, .block_bytes = BN_SC_CP_BLOCK_BYTES, .nblocks = BN_SC_CP_MAX,
        .keys_max = BN_CP_KEYS_MAX, .min_modules = 4, .min_keys = 13, .summary_max = 60,
        .prefix = "routing.", .selector = "routing.control_plane", .doc = bn_cp_doc,
        .doc_head = "What reroutes around failures: ",
        .doc_tail = "; auto = ib_sm with credit flow control, else ethernet. See "
                    "docs/failures.md.",
        .first = "auto", .after = "routing.control_plane", .next = "routing.restore_fraction",
        .get = "routing.local.detect_us", .get_want = "1000",
        .set = "routing.ib_sm.mads_in_flight=8", .yaml_line = "  control_plane: auto           # ",
        .extra = {{"docs/failures.md", "\n| plane | a switch installs at |", "\n\n", "| `%s` |"}},
    },
    {
        .what = "collective algorithm", .rows = &bn_coll_algo_key_modules,
        .name = bn_coll_algo_name, .summary = bn_coll_algo_summary, .complete = algo_complete,
        .block_of = algo_block, .block = BN_KEY_BLOCK_ALGO,
        .block_bytes = BN_SC_ALGO_BLOCK_BYTES, .nblocks = BN_SC_ALGO_MAX,
        .keys_max = BN_COLL_ALGO_KEYS_MAX, .min_modules = 8, .summary_max = 60,
        .prefix = "coll.", .selector = "coll.algo", .doc = bn_coll_algo_doc,
        .doc_head = "Algorithm, like NCCL_ALGO: auto lets the tuner pick per size from its "
                    "latency + bandwidth model; the others force one: ",
        .doc_tail = ". See docs/collectives.md.", .first = "auto", .after = "coll.aggregate",
        .next = "sharp.enabled", .yaml_line = "  algo: auto                    # ",
        .extra = {{"docs/collectives.md", "\n| `coll.algo` | runs | what it is |", "\n\n",
                   "\n| `%s` |"}},
    },
};
#define NREG (sizeof registries / sizeof registries[0])

static size_t nmodules(const struct registry *r)
{
    size_t n = 0;
    while (r->name(n))
        n++;
    return n;
}

/* "dcqcn" of "dcqcn.preset": the section a key is in. */
static void section_of(const struct bn_key_row *k, char *buf, size_t len)
{
    snprintf(buf, len, "%.*s", (int)strcspn(k->info.path, "."), k->info.path);
}

/* Module i's first row, NULL if it has none. */
static const struct bn_key_row *first_row(const struct registry *r, size_t i)
{
    size_t n;
    const struct bn_key_row *rows = r->rows->rows_of(i, &n);
    return n ? rows : NULL;
}

static void test_every_module_is_complete(void **state)
{
    (void)state;
    for (const struct registry *r = registries; r < registries + NREG; r++) {
        size_t n = nmodules(r), keys = 0;
        assert_int_equal(r->rows->n, n);
        assert_true(n >= r->min_modules && n <= r->nblocks);
        for (size_t i = 0; i < n; i++) {
            const char *s = r->summary(i);
            assert_non_null(s);
            assert_true(strlen(s) > 0 && strlen(s) < r->summary_max);
            if (!r->complete(i))
                fail_msg("%s module %s is not complete", r->what, r->name(i));
            for (size_t j = 0; j < i; j++)
                assert_string_not_equal(r->name(j), r->name(i));
            size_t nrows;
            const struct bn_key_row *rows = r->rows->rows_of(i, &nrows);
            for (size_t j = 0; j < nrows; j++)
                assert_int_equal(bn_key_modules_owner(r->rows, &rows[j]), i);
        }
        char first[32] = "", sec[32];
        size_t owner = SIZE_MAX;
        for (const struct bn_key_row *k; (k = bn_key_modules_row(r->rows, keys)); keys++) {
            assert_int_equal(k->block, r->block);
            assert_true(k->offset + k->size <= r->block_bytes);
            size_t i = bn_key_modules_owner(r->rows, k);
            assert_true(i < n);
            section_of(k, sec, sizeof sec);
            if (r->prefix)
                assert_memory_equal(k->info.path, r->prefix, strlen(r->prefix));
            else if (i == owner)
                assert_string_equal(sec, first); /* one section per module */
            else
                snprintf(first, sizeof first, "%s", sec);
            owner = i;
        }
        assert_int_equal(bn_key_modules_nrows(r->rows), keys);
        assert_true(keys >= r->min_keys && keys <= r->keys_max);
        assert_null(r->summary(n));
    }
}

/* Each module's rows are in the scenario registry once, after r->after; a
 * key set lands in its own module's block only. */
static void test_keys_reach_the_registry(void **state)
{
    (void)state;
    for (const struct registry *r = registries; r < registries + NREG; r++) {
        const struct bn_key_row *after = bn_scn_find(r->after);
        assert_non_null(after);
        size_t at = bn_scn_index(after) + 1, m = bn_key_modules_nrows(r->rows);
        for (size_t j = 0; j < m; j++) {
            const struct bn_key_row *k = bn_key_modules_row(r->rows, j);
            assert_ptr_equal(bn_scn_at(at + j), k);
            assert_ptr_equal(bn_scn_find(k->info.path), k);
            for (size_t o = 0; o < j; o++)
                assert_ptr_not_equal(bn_key_modules_row(r->rows, o), k);
        }
        assert_null(bn_key_modules_row(r->rows, m));
        if (r->next)
            assert_string_equal(bn_scn_at(at + m)->info.path, r->next);
        if (!r->set) { /* its modules have no keys yet */
            assert_int_equal(m, 0);
            continue;
        }
        struct bn_scenario sc, def;
        struct bn_error err;
        bn_scenario_defaults(&def);
        sc = def;
        assert_key(&sc, r->get, r->get_want);
        assert_int_equal(bn_scenario_set(&sc, r->set, &err), BN_OK);
        char path[64];
        snprintf(path, sizeof path, "%.*s", (int)strcspn(r->set, "="), r->set);
        assert_key(&sc, path, strchr(r->set, '=') + 1);
        size_t owner = bn_key_modules_owner(r->rows, bn_scn_find(path));
        for (size_t i = 0; i < nmodules(r); i++)
            if ((memcmp(r->block_of(&sc, i), r->block_of(&def, i), r->block_bytes) != 0) !=
                (i == owner))
                fail_msg("%s block %zu %s by %s", r->what, i,
                         i == owner ? "unchanged" : "changed", r->set);
    }
}

/* A selector's doc: its head and each module's "name (summary)", in
 * registry order, a run of modules with one summary as "a, b (summary)",
 * then its tail. A choice before the registry's ("auto") is the selector's
 * first, and its head or tail says what it does. */
static void check_doc(const char *selector, const char *doc, const char *(*name)(size_t),
                      const char *(*summary)(size_t), const char *head, const char *tail,
                      const char *first)
{
    const struct bn_scenario_key_info *info = &bn_scn_find(selector)->info;
    tail = tail ? tail : ".";
    size_t skip = first ? 1 : 0, n = 0;
    if (first) {
        assert_string_equal(info->choice(0), first);
        char says[32];
        snprintf(says, sizeof says, "%s ", first);
        if (!strstr(head, says) && !strstr(tail, says))
            fail_msg("%s's doc does not say what %s is", selector, first);
    }
    for (; name(n); n++)
        assert_string_equal(info->choice(n + skip), name(n));
    assert_null(info->choice(n + skip));
    char want[2048];
    size_t used = (size_t)snprintf(want, sizeof want, "%s", head);
    for (size_t i = 0; name(i); i++) {
        used += (size_t)snprintf(want + used, sizeof want - used, "%s%s", i ? ", " : "", name(i));
        if (!name(i + 1) || strcmp(summary(i + 1), summary(i)) != 0)
            used += (size_t)snprintf(want + used, sizeof want - used, " (%s)", summary(i));
    }
    assert_true(used + strlen(tail) < sizeof want);
    snprintf(want + used, sizeof want - used, "%s", tail);
    assert_ptr_equal(info->doc, doc);
    assert_string_equal(doc, want);
}

static void test_doc_is_the_summaries(void **state)
{
    (void)state;
    for (const struct registry *r = registries; r < registries + NREG; r++)
        check_doc(r->selector, r->doc, r->name, r->summary, r->doc_head, r->doc_tail, r->first);
    /* the fault kinds (list items, a block each in every item) and the
     * workload generators, whose keys tests/scenario/test_registries.c checks */
    check_doc("faults[].kind", bn_fault_kind_doc, bn_fault_kind_name, bn_fault_kind_summary,
              "What fails (a list item of faults:, at most 16): ", NULL, NULL);
    check_doc("workload.kind", bn_workload_doc, bn_workload_name, bn_workload_summary,
              "Traffic: ", ". See docs/traffic.md.", NULL);
}

/* The part of text from `from` to `to` (NULL: the end of that line), cut
 * in place. */
static char *part(char *text, const char *from, const char *to, const char *file)
{
    char *at = strstr(text, from);
    if (!at)
        fail_msg("%s has no \"%s\"", file, from);
    char *end = to ? strstr(at + 1, to) : at + 1 + strcspn(at + 1, "\n");
    if (!end)
        fail_msg("%s has no \"%s\" after \"%s\"", file, to, from);
    *end = '\0';
    return at;
}

static void assert_names(const struct registry *r, const char *text, const char *pattern,
                         const char *where)
{
    char want[80];
    for (size_t i = 0; r->name(i); i++) {
        snprintf(want, sizeof want, pattern, r->name(i));
        if (!strstr(text, want))
            fail_msg("%s lacks %s", where, want);
    }
}

/* The default scenario's comment lists every module in registry order
 * ("# a | b (note) | c") and has each module's section; docs/scenario.md's
 * selector row and the registry's extra lists name each. */
static void test_hand_lists_name_every_module(void **state)
{
    (void)state;
    const char *yaml = bn_scenario_default_yaml();
    for (const struct registry *r = registries; r < registries + NREG; r++) {
        char *copy = strdup(yaml), *line = part(copy, r->yaml_line, NULL, "the default scenario");
        const char *after = strchr(line, '#');
        char want[80];
        if (r->first) {
            snprintf(want, sizeof want, "# %s ", r->first);
            if (strncmp(after, want, strlen(want)) != 0)
                fail_msg("the default scenario's line %s does not start with %s", line, want);
        }
        for (size_t i = 0; r->name(i); i++) {
            snprintf(want, sizeof want, "%s%s", i || r->first ? "| " : "# ", r->name(i));
            const char *at = strstr(after, want);
            if (!at || (at[strlen(want)] != ' ' && at[strlen(want)] != '\0'))
                fail_msg("the default scenario's line %s lacks %s in order", line, want);
            after = at + strlen(want);
        }
        free(copy);
        char *scn = test_read_file("docs/scenario.md");
        snprintf(want, sizeof want, "\n| `%s` |", r->selector);
        const char *row = part(scn, want, NULL, "docs/scenario.md");
        assert_names(r, row, "`%s`", "docs/scenario.md's selector row");
        for (size_t i = 0; r->name(i); i++) {
            const struct bn_key_row *k = first_row(r, i);
            if (!k || r->prefix)
                continue;
            char sec[32];
            section_of(k, sec, sizeof sec);
            snprintf(want, sizeof want, "\n%s:", sec);
            const char *at = strstr(yaml, want);
            if (!at)
                fail_msg("the default scenario has no section %s", sec);
            if (r->section_note) {
                snprintf(want, sizeof want, r->section_note, r->name(i));
                const char *note = strstr(at, want), *eol = strchr(at + 1, '\n');
                if (!note || note > eol)
                    fail_msg("section %s of the default scenario does not say \"%s\"", sec,
                             want);
            }
            if (r->doc_section) {
                snprintf(want, sizeof want, r->doc_section, sec);
                if (!strstr(row, want))
                    fail_msg("docs/scenario.md's %s row lacks \"%s\"", r->selector, want);
            }
        }
        free(scn);
        for (const struct hand_list *l = r->extra; l < r->extra + 3 && l->file; l++) {
            char *text = test_read_file(l->file);
            assert_names(r, part(text, l->from, l->to, l->file), l->pattern, l->file);
            free(text);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_module_is_complete),
        cmocka_unit_test(test_keys_reach_the_registry),
        cmocka_unit_test(test_doc_is_the_summaries),
        cmocka_unit_test(test_hand_lists_name_every_module),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
