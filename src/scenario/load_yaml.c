/*
 * Scenario loading from YAML (libyaml document API): walks nested mappings
 * against the key registry and hands each scalar to the shared setter. Every
 * problem becomes one "FILE:LINE: key 'a.b': ..." line with status BN_EINPUT;
 * the caller's scenario is only replaced when the whole document is valid.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "scenario/keys.h"

#define FILE_MAX_BYTES (16u * 1024u * 1024u)
/* Deepest nesting of mappings and sequences read: a scenario needs 3. */
#define DEPTH_MAX 32
#define NAME_MAX_BYTES 128

struct loader {
    const char *source;
    const char *text; /* whole input, for reader-error line numbers */
    size_t len;
    yaml_document_t *doc;
    struct bn_scenario *sc;
    struct bn_error *err;
    const struct bn_scn_list *list; /* the list whose items are being read */
};

static unsigned long line_of(const yaml_node_t *n)
{
    return (unsigned long)n->start_mark.line + 1;
}

static const char *node_kind(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_MAPPING_NODE:
        return "a mapping";
    case YAML_SEQUENCE_NODE:
        return "a sequence";
    case YAML_SCALAR_NODE:
        return "a scalar";
    default:
        return "nothing";
    }
}

static int fail_key(struct loader *ld, const yaml_node_t *at, const char *path,
                    const char *why)
{
    return bn_fail(ld->err, BN_EINPUT, "%s:%lu: key '%s': %s", ld->source,
                   line_of(at), path, why);
}

static const char *scalar_text(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* A plain empty, "~" or "null" scalar: YAML's way of writing "no value". */
static bool is_null(const yaml_node_t *n)
{
    static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
        if (strcmp(scalar_text(n), nulls[i]) == 0)
            return true;
    return false;
}

static bool wants_plain(const struct bn_key_row *k)
{
    return k->kind == BN_KEY_INT || k->kind == BN_KEY_FLOAT || k->kind == BN_KEY_BOOL;
}

/* Check a scalar's form against k before parsing: shape, quoting, NULs. */
static int leaf_form(const struct bn_key_row *k, const yaml_node_t *v, char *why, size_t len)
{
    char expect[200], shown[80];
    bn_scn_expect(k, expect, sizeof expect);
    if (v->type != YAML_SCALAR_NODE)
        return bn_scn_why(why, len, "got %s (expected %s)", node_kind(v), expect);
    bn_scn_excerpt(scalar_text(v), v->data.scalar.length, shown, sizeof shown);
    if (strlen(scalar_text(v)) != v->data.scalar.length)
        return bn_scn_why(why, len, "value contains a NUL byte (expected %s)", expect);
    if (wants_plain(k) && v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return bn_scn_why(why, len, "got the quoted string \"%s\" (expected %s)", shown, expect);
    return 0;
}

static int set_leaf(struct loader *ld, const struct bn_key_row *k, const yaml_node_t *v)
{
    char why[BN_SCN_WHY_MAX];
    if (leaf_form(k, v, why, sizeof why) != 0)
        return fail_key(ld, v, k->info.path, why);
    const char *text = is_null(v) ? "" : scalar_text(v);
    if (bn_scn_apply(ld->sc, k, text, why, sizeof why) != 0)
        return fail_key(ld, v, k->info.path, why);
    ld->sc->key_line[bn_scn_index(k)] = (uint32_t)line_of(v); /* for checks across keys */
    return BN_OK;
}

static int walk_mapping(struct loader *ld, const yaml_node_t *map, const char *section);

static int enter_section(struct loader *ld, const char *path, const yaml_node_t *v)
{
    char why[BN_SCN_WHY_MAX], list[280];
    if (is_null(v))
        return BN_OK; /* "nic:" with nothing under it: keep the defaults */
    if (v->type == YAML_MAPPING_NODE)
        return walk_mapping(ld, v, path);
    char got[64] = "";
    if (v->type == YAML_SCALAR_NODE)
        bn_scn_excerpt(scalar_text(v), v->data.scalar.length, got, sizeof got);
    bn_scn_children(path, list, sizeof list);
    snprintf(why, sizeof why, "got %s%s%s%s (expected a mapping with keys: %s)", node_kind(v),
             got[0] ? " '" : "", got, got[0] ? "'" : "", list);
    return fail_key(ld, v, path, why);
}

/* "section.name", or "" if the name cannot be a key (dots, NULs, too long). */
static void key_path(const char *section, const yaml_node_t *key, char *buf, size_t len)
{
    const char *name = scalar_text(key);
    size_t n = key->data.scalar.length;
    buf[0] = '\0';
    if (n == 0 || n > NAME_MAX_BYTES || strlen(name) != n || strchr(name, '.'))
        return;
    snprintf(buf, len, "%s%s%s", section, section[0] ? "." : "", name);
}

/* The key as shown in messages: same as key_path but always filled. */
static void shown_path(const char *section, const yaml_node_t *key, char *buf, size_t len)
{
    char name[80];
    bn_scn_excerpt(scalar_text(key), key->data.scalar.length, name, sizeof name);
    snprintf(buf, len, "%s%s%s", section, section[0] ? "." : "", name);
}

static int check_key(struct loader *ld, const yaml_node_t *map, size_t i, const char *section);
typedef int (*pair_fn)(struct loader *ld, const char *section, const yaml_node_t *key,
                       const yaml_node_t *val, uint32_t item);
static int walk_pairs(struct loader *ld, const yaml_node_t *map, const char *section, pair_fn each,
                      uint32_t item);

/* One field of item `index` of list ld->list (section "faults[N]"). */
static int item_field(struct loader *ld, const char *section, const yaml_node_t *key,
                      const yaml_node_t *val, uint32_t index)
{
    char field[NAME_MAX_BYTES + 1] = "", shown[200], why[BN_SCN_WHY_MAX], list[300];
    key_path("", key, field, sizeof field);
    const struct bn_key_row *k = field[0] ? bn_scn_item_field(ld->list, field) : NULL;
    shown_path(section, key, shown, sizeof shown);
    if (!k) {
        bn_scn_list_fields(ld->list, list, sizeof list);
        snprintf(why, sizeof why, "unknown key (valid keys in a %s: %s)", ld->list->noun, list);
        return fail_key(ld, key, shown, why);
    }
    if (leaf_form(k, val, why, sizeof why) != 0 ||
        bn_scn_apply_item(ld->sc, k, index, is_null(val) ? "" : scalar_text(val), why,
                          sizeof why) != 0)
        return fail_key(ld, val, shown, why);
    uint32_t *line = bn_scn_item_line(ld->sc, k, index);
    if (line)
        *line = (uint32_t)line_of(key);
    return BN_OK;
}

static uint32_t *item_count(struct loader *ld)
{
    return (uint32_t *)(void *)((char *)ld->sc + ld->list->count_offset);
}

/* Item `index` of the list: a mapping of item keys. */
static int list_item(struct loader *ld, uint32_t index, const yaml_node_t *map)
{
    char path[64], why[BN_SCN_WHY_MAX], list[300];
    snprintf(path, sizeof path, "%s[%u]", ld->list->name, index);
    if (map->type != YAML_MAPPING_NODE) {
        bn_scn_list_fields(ld->list, list, sizeof list);
        snprintf(why, sizeof why, "got %s (expected a mapping with keys: %s)", node_kind(map),
                 list);
        return fail_key(ld, map, path, why);
    }
    int rc = walk_pairs(ld, map, path, item_field, index);
    if (rc == BN_OK && *item_count(ld) <= index) /* an item of defaults only */
        *item_count(ld) = index + 1;
    return rc;
}

/* A list (faults:, jobs:): a sequence of items. */
static int walk_list(struct loader *ld, const struct bn_scn_list *l, const yaml_node_t *seq)
{
    char why[BN_SCN_WHY_MAX];
    ld->list = l;
    *item_count(ld) = 0;
    if (is_null(seq))
        return BN_OK;
    if (seq->type != YAML_SEQUENCE_NODE) {
        snprintf(why, sizeof why, "got %s (expected a list of %ss, each a mapping)",
                 node_kind(seq), l->noun);
        return fail_key(ld, seq, l->name, why);
    }
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
    if (n > l->max) {
        snprintf(why, sizeof why, "%zu %ss (at most %u)", n, l->noun, l->max);
        return fail_key(ld, seq, l->name, why);
    }
    for (size_t i = 0; i < n; i++) {
        const yaml_node_t *item = yaml_document_get_node(ld->doc, seq->data.sequence.items.start[i]);
        if (!item)
            return bn_fail(ld->err, BN_EINTERNAL, "%s: malformed YAML document", ld->source);
        int rc = list_item(ld, (uint32_t)i, item);
        if (rc != BN_OK)
            return rc;
    }
    return BN_OK;
}

static int entry(struct loader *ld, const char *section, const yaml_node_t *key,
                 const yaml_node_t *val, uint32_t item)
{
    (void)item;
    char path[NAME_MAX_BYTES + BN_NAME_MAX], shown[200], why[BN_SCN_WHY_MAX];
    key_path(section, key, path, sizeof path);
    const struct bn_scn_list *l = bn_scn_list_find(path);
    if (l)
        return walk_list(ld, l, val);
    const struct bn_key_row *k = path[0] && !strchr(path, '[') ? bn_scn_find(path) : NULL;
    if (k)
        return set_leaf(ld, k, val);
    if (path[0] && bn_scn_is_section(path))
        return enter_section(ld, path, val);
    const char *what = "unknown key";
    if (key->data.scalar.length == 0)
        what = "empty key name";
    else if (strchr(scalar_text(key), '.'))
        what = "unknown key: nest mappings instead of writing dots";
    shown_path(section, key, shown, sizeof shown);
    bn_scn_unknown(section, path, what, why, sizeof why);
    return fail_key(ld, key, shown, why);
}

static bool same_scalar(const yaml_node_t *a, const yaml_node_t *b)
{
    return a->type == YAML_SCALAR_NODE && b->type == YAML_SCALAR_NODE
        && a->data.scalar.length == b->data.scalar.length
        && memcmp(a->data.scalar.value, b->data.scalar.value, a->data.scalar.length) == 0;
}

/* An earlier key in the same mapping equal to pairs[i]'s key, or NULL. */
static const yaml_node_t *earlier_twin(struct loader *ld, const yaml_node_t *map, size_t i)
{
    const yaml_node_pair_t *pairs = map->data.mapping.pairs.start;
    const yaml_node_t *key = yaml_document_get_node(ld->doc, pairs[i].key);
    for (size_t j = 0; j < i; j++) {
        const yaml_node_t *other = yaml_document_get_node(ld->doc, pairs[j].key);
        if (other && same_scalar(key, other))
            return other;
    }
    return NULL;
}

static int check_key(struct loader *ld, const yaml_node_t *map, size_t i, const char *section)
{
    const yaml_node_pair_t *pair = &map->data.mapping.pairs.start[i];
    const yaml_node_t *key = yaml_document_get_node(ld->doc, pair->key);
    const yaml_node_t *twin = earlier_twin(ld, map, i);
    char shown[200], why[64];
    if (key->type != YAML_SCALAR_NODE && section[0])
        return bn_fail(ld->err, BN_EINPUT, "%s:%lu: key '%s': a key must be a name, not %s",
                       ld->source, line_of(key), section, node_kind(key));
    if (key->type != YAML_SCALAR_NODE)
        return bn_fail(ld->err, BN_EINPUT, "%s:%lu: a key must be a name, not %s",
                       ld->source, line_of(key), node_kind(key));
    if (twin) {
        shown_path(section, key, shown, sizeof shown);
        snprintf(why, sizeof why, "duplicate key (first given on line %lu)", line_of(twin));
        return fail_key(ld, key, shown, why);
    }
    return BN_OK;
}

/* Each pair of `map`: its key checked (a name, not a duplicate), then
 * handed to `each` with `section` ("faults[2]" for a fault's fields). */
static int walk_pairs(struct loader *ld, const yaml_node_t *map, const char *section, pair_fn each,
                      uint32_t item)
{
    size_t n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
    for (size_t i = 0; i < n; i++) {
        const yaml_node_pair_t *pair = &map->data.mapping.pairs.start[i];
        const yaml_node_t *key = yaml_document_get_node(ld->doc, pair->key);
        const yaml_node_t *val = yaml_document_get_node(ld->doc, pair->value);
        if (!key || !val)
            return bn_fail(ld->err, BN_EINTERNAL, "%s: malformed YAML document", ld->source);
        int rc = check_key(ld, map, i, section);
        if (rc == BN_OK)
            rc = each(ld, section, key, val, item);
        if (rc != BN_OK)
            return rc;
    }
    return BN_OK;
}

static int walk_mapping(struct loader *ld, const yaml_node_t *map, const char *section)
{
    return walk_pairs(ld, map, section, entry, 0);
}

/* ASTRA-sim's analytical network configuration (the .yml files of its
 * examples/network/analytical: topology, npus_count, bandwidth, latency, one entry
 * per dimension), told by its npus_count key, which no scenario has:
 * refused naming what bnet would need instead. */
static int astra_network(struct loader *ld, const yaml_node_t *root)
{
    for (const yaml_node_pair_t *p = root->data.mapping.pairs.start;
         p < root->data.mapping.pairs.top; p++) {
        const yaml_node_t *key = yaml_document_get_node(ld->doc, p->key);
        if (key && key->type == YAML_SCALAR_NODE && strcmp(scalar_text(key), "npus_count") == 0)
            return bn_fail(ld->err, BN_EINPUT,
                           "%s:%lu: key 'npus_count': an ASTRA-sim analytical network "
                           "configuration (topology, npus_count, bandwidth, latency per "
                           "dimension), not a bnet scenario: bnet does not read it; give the "
                           "fabric as topology.* (docs/scenario.md), a Switch dimension of N "
                           "NPUs at B GB/s as scale_up.domain_gpus: N and scale_up.rate_gbps: "
                           "8 x B; a Ring dimension has no bnet topology kind",
                           ld->source, line_of(key));
    }
    return BN_OK;
}

static int walk_document(struct loader *ld)
{
    const yaml_node_t *root = yaml_document_get_root_node(ld->doc);
    if (!root || is_null(root))
        return BN_OK; /* empty document: all defaults */
    if (root->type != YAML_MAPPING_NODE)
        return bn_fail(ld->err, BN_EINPUT,
                       "%s:%lu: the document must be a mapping of keys (got %s)",
                       ld->source, line_of(root), node_kind(root));
    int rc = astra_network(ld, root);
    return rc != BN_OK ? rc : walk_mapping(ld, root, "");
}

static unsigned long line_at_offset(const struct loader *ld, size_t offset)
{
    unsigned long line = 1;
    for (size_t i = 0; i < offset && i < ld->len; i++)
        line += ld->text[i] == '\n';
    return line;
}

static int syntax_error(const struct loader *ld, const yaml_parser_t *p)
{
    unsigned long line = (unsigned long)p->problem_mark.line + 1;
    if (p->error == YAML_MEMORY_ERROR)
        return bn_fail(ld->err, BN_ENOMEM, "%s: out of memory reading YAML", ld->source);
    if (p->error == YAML_READER_ERROR)
        line = line_at_offset(ld, p->problem_offset);
    return bn_fail(ld->err, BN_EINPUT, "%s:%lu: YAML syntax error: %s", ld->source, line,
                   p->problem ? p->problem : "malformed input");
}

/* After the first document: anything but the end of the stream is an error. */
static int expect_end(struct loader *ld, yaml_parser_t *p)
{
    yaml_document_t next;
    if (!yaml_parser_load(p, &next))
        return syntax_error(ld, p);
    const yaml_node_t *root = yaml_document_get_root_node(&next);
    int rc = BN_OK;
    if (root)
        rc = bn_fail(ld->err, BN_EINPUT,
                     "%s:%lu: only one YAML document is allowed (found another)",
                     ld->source, line_of(root));
    yaml_document_delete(&next);
    return rc;
}

/* Stop at DEPTH_MAX levels while reading the parser's events, before the
 * document is built: libyaml's scanner walks every open flow collection on
 * every token, so a file of nested brackets is quadratic (400 KB of them
 * took 82 s to reach the error the walk gives). */
static int check_depth(struct loader *ld)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return bn_fail(ld->err, BN_ENOMEM, "%s: out of memory reading YAML", ld->source);
    yaml_parser_set_input_string(&parser, (const unsigned char *)ld->text, ld->len);
    int rc = BN_OK, depth = 0;
    for (bool end = false; rc == BN_OK && !end;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            rc = syntax_error(ld, &parser);
            break;
        }
        if (ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_SEQUENCE_START_EVENT) {
            if (++depth > DEPTH_MAX)
                rc = bn_fail(ld->err, BN_EINPUT, "%s:%lu: YAML nested more than %d levels deep "
                             "(a scenario needs 3)", ld->source,
                             (unsigned long)ev.start_mark.line + 1, DEPTH_MAX);
        } else if (ev.type == YAML_MAPPING_END_EVENT || ev.type == YAML_SEQUENCE_END_EVENT) {
            depth--;
        }
        end = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return rc;
}

static int parse_into(struct loader *ld)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser))
        return bn_fail(ld->err, BN_ENOMEM, "%s: out of memory reading YAML", ld->source);
    yaml_parser_set_input_string(&parser, (const unsigned char *)ld->text, ld->len);
    int rc;
    if (!yaml_parser_load(&parser, &doc)) {
        rc = syntax_error(ld, &parser);
    } else {
        ld->doc = &doc;
        rc = walk_document(ld);
        if (rc == BN_OK)
            rc = expect_end(ld, &parser);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    return rc;
}

static int load_buffer(struct bn_scenario *sc, const char *text, size_t len,
                       const char *source, struct bn_error *err)
{
    struct bn_scenario tmp;
    bn_scenario_defaults(&tmp);
    snprintf(tmp.source, sizeof tmp.source, "%s", source ? source : "<string>");
    struct loader ld = { .source = tmp.source, .text = text, .len = len, .sc = &tmp, .err = err };
    int rc = check_depth(&ld);
    if (rc == BN_OK)
        rc = parse_into(&ld);
    if (rc == BN_OK && tmp.fabric != 0) {
        /* a preset goes under the file's own keys: preset first, file again over it */
        unsigned fabric = tmp.fabric;
        bn_scenario_defaults(&tmp);
        snprintf(tmp.source, sizeof tmp.source, "%s", source ? source : "<string>");
        rc = bn_scenario_apply_preset(&tmp, fabric, err);
        if (rc == BN_OK)
            rc = parse_into(&ld);
    }
    if (rc == BN_OK)
        *sc = tmp;
    return rc;
}

int bn_scenario_load_string(struct bn_scenario *sc, const char *yaml,
                            const char *source, struct bn_error *err)
{
    return load_buffer(sc, yaml ? yaml : "", yaml ? strlen(yaml) : 0, source, err);
}

/* Read a whole file into a malloc'd buffer; errno set on failure. */
static char *slurp(FILE *f, size_t *len, int *too_big)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (ferror(f) || n > FILE_MAX_BYTES) {
            *too_big = n > FILE_MAX_BYTES;
            break;
        }
        if (n < cap) {
            *len = n;
            return buf;
        }
        char *bigger = realloc(buf, cap * 2);
        if (!bigger)
            break;
        buf = bigger;
        cap *= 2;
    }
    int saved = errno;
    free(buf);
    errno = saved;
    return NULL;
}

int bn_scenario_load_file(struct bn_scenario *sc, const char *path, struct bn_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return bn_fail(err, BN_EINPUT, "%s: cannot open scenario file: %s", path, strerror(errno));
    size_t len = 0;
    int too_big = 0;
    errno = 0;
    char *text = slurp(f, &len, &too_big);
    int saved = errno;
    fclose(f);
    if (!text && too_big)
        return bn_fail(err, BN_EINPUT, "%s: cannot open scenario file: larger than %u bytes",
                       path, FILE_MAX_BYTES);
    if (!text)
        return bn_fail(err, saved == ENOMEM ? BN_ENOMEM : BN_EINPUT,
                       "%s: cannot open scenario file: %s", path,
                       strerror(saved ? saved : EIO));
    int rc = load_buffer(sc, text, len, path, err);
    free(text);
    return rc;
}
