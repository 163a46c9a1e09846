/*
 * One "dotted.key=value" override, as given by the CLI's --set. The value goes
 * through the same registry setter as YAML, so both accept exactly the same
 * text; errors read "--set 'assignment': key 'x': ..." (or name the flag
 * the command line turned into the assignment: "-b '0': key 'x': ...").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/keys.h"

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* A copy of s[0..n) without surrounding blanks; NULL if out of memory. */
static char *trimmed(const char *s, size_t n)
{
    while (n > 0 && is_blank(s[0])) {
        s++;
        n--;
    }
    while (n > 0 && is_blank(s[n - 1]))
        n--;
    return strndup(s, n);
}

/* Longest leading part of `path` (cut at a dot) that is a section; "" = top. */
static void nearest_section(const char *path, char *buf, size_t len)
{
    snprintf(buf, len, "%s", path);
    for (;;) {
        char *dot = strrchr(buf, '.');
        if (!dot) {
            buf[0] = '\0';
            return;
        }
        *dot = '\0';
        if (bn_scn_is_section(buf))
            return;
    }
}

static void bad_key_why(const char *key, char *why, size_t len)
{
    char section[192];
    const struct bn_scn_list *l = NULL;
    for (size_t i = 0; (l = bn_scn_list_at(i)) != NULL; i++)
        if (strncmp(key, l->name, strlen(l->name)) == 0 && key[strlen(l->name)] == '.')
            break;
    const char *digits = l ? key + strlen(l->name) + 1 : NULL;
    size_t nd = digits ? strspn(digits, "0123456789") : 0;
    /* an index past the list's end (any number of digits): say the limit */
    if (nd && digits[nd] == '.' && (nd > 9 || strtoul(digits, NULL, 10) >= l->max)) {
        snprintf(why, len, "item %.*s%s is past the last: at most %u %ss (items 0 to %u; "
                 "docs/limits.md)", nd > 24 ? 24 : (int)nd, digits, nd > 24 ? "..." : "",
                 l->max, l->noun, l->max - 1);
        return;
    }
    if (l) { /* an item of a list */
        size_t used = (size_t)snprintf(why, len, "expected %s.N.KEY with N below %u and KEY "
                                       "one of: ", l->name, l->max);
        if (used < len)
            bn_scn_list_fields(l, why + used, len - used);
        return;
    }
    if (key[0] && bn_scn_is_section(key)) {
        bn_scn_unknown(key, NULL, "is a section, not a key", why, len);
        return;
    }
    nearest_section(key, section, sizeof section);
    bn_scn_unknown(section, key, "unknown key", why, len);
}

/* "faults[3].kind" (as messages name an item's key) -> "faults.3.kind"
 * in buf; else key itself. */
static const char *dotted(const char *key, char *buf, size_t len)
{
    const struct bn_scn_list *l;
    for (size_t i = 0; (l = bn_scn_list_at(i)) != NULL; i++) {
        size_t n = strlen(l->name);
        const char *close = strncmp(key, l->name, n) == 0 && key[n] == '[' ? strchr(key, ']')
                                                                           : NULL;
        if (close && close[1] == '.' &&
            (size_t)snprintf(buf, len, "%s.%.*s%s", l->name, (int)(close - key - n - 1),
                             key + n + 1, close + 1) < len)
            return buf;
    }
    return key;
}

static int apply(struct bn_scenario *sc, const char *origin, const char *typed_key,
                 const char *value, uint32_t mark, struct bn_error *err)
{
    char why[BN_SCN_WHY_MAX], key_shown[80], buf[160];
    uint32_t index = 0;
    const char *key = dotted(typed_key, buf, sizeof buf);
    const struct bn_key_row *k = bn_scn_find(key);
    bn_scn_excerpt(typed_key, strlen(typed_key), key_shown, sizeof key_shown);
    if (k && k->list)
        k = NULL; /* an item's field is set as faults.N.field */
    if (!k && (k = bn_scn_find_item(key, &index)) != NULL) {
        if (bn_scn_apply_item(sc, k, index, value, why, sizeof why) != 0)
            return bn_fail(err, BN_EINPUT, "%s: key '%s': %s", origin, key_shown, why);
        uint32_t *line = bn_scn_item_line(sc, k, index);
        if (line)
            *line = mark;
        return BN_OK;
    }
    if (!k) {
        bad_key_why(key, why, sizeof why);
        return bn_fail(err, BN_EINPUT, "%s: key '%s': %s", origin, key_shown, why);
    }
    if (bn_scn_apply(sc, k, value, why, sizeof why) != 0)
        return bn_fail(err, BN_EINPUT, "%s: key '%s': %s", origin, key_shown, why);
    sc->key_line[bn_scn_index(k)] = mark; /* not the file's line */
    return BN_OK;
}

int bn_scenario_set_flag(struct bn_scenario *sc, const char *assignment, const char *flag,
                         const char *typed, struct bn_error *err)
{
    char shown[80], prefix[128];
    if (!assignment)
        assignment = "";
    uint32_t mark = flag ? BN_SCENARIO_LINE_FLAG : BN_SCENARIO_LINE_CLI;
    if (!flag) {
        flag = "--set";
        typed = assignment;
    }
    bn_scn_excerpt(typed ? typed : "", typed ? strlen(typed) : 0, shown, sizeof shown);
    snprintf(prefix, sizeof prefix, "%.24s '%s'", flag, shown);
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return bn_fail(err, BN_EINPUT, "%s: expected key=value (e.g. link.rate_gbps=400)",
                       prefix);
    char *key = trimmed(assignment, (size_t)(eq - assignment));
    char *value = trimmed(eq + 1, strlen(eq + 1));
    int rc;
    if (!key || !value)
        rc = bn_fail(err, BN_ENOMEM, "%s: out of memory", prefix);
    else if (key[0] == '\0')
        rc = bn_fail(err, BN_EINPUT, "%s: expected key=value (e.g. link.rate_gbps=400)",
                     prefix);
    else
        rc = apply(sc, prefix, key, value, mark, err);
    /* --set fabric=NAME applies the preset's keys at this point */
    if (rc == BN_OK && strcmp(key, "fabric") == 0)
        rc = bn_scenario_apply_preset(sc, sc->fabric, err);
    free(key);
    free(value);
    return rc;
}

int bn_scenario_set(struct bn_scenario *sc, const char *assignment, struct bn_error *err)
{
    return bn_scenario_set_flag(sc, assignment, NULL, NULL, err);
}
