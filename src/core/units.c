/* Sizes with suffixes (units.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"

/* Multiplier for a suffix: "", "B", or K/k, M, G, T (powers of 1000) with
 * an optional "i" (powers of 1024), then an optional "B": "kB", "MB",
 * "KiB", "Gi", "TiB". 0 if the suffix is not one of these. */
static uint64_t suffix_mult(const char *s)
{
    static const char prefixes[] = "KMGT";
    uint64_t base = 1000, power = 0, m = 1;
    const char *p = s;
    const char *at = *p ? strchr(prefixes, *p == 'k' ? 'K' : *p) : NULL;
    if (at) {
        power = (uint64_t)(at - prefixes) + 1;
        p++;
        if (*p == 'i') {
            base = 1024;
            p++;
        }
    }
    if (*p == 'B')
        p++;
    if (*p != '\0')
        return 0;
    while (power--)
        m *= base;
    return m;
}

int bn_parse_uint(const char *s, uint64_t *out)
{
    uint64_t v = 0, m;
    const char *p = s;
    if (*p == '-' && p[1] >= '0' && p[1] <= '9')
        return -2;
    if (*p < '0' || *p > '9')
        return -1;
    bool big = false;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            big = true;
        else
            v = v * 10 + d;
    }
    m = suffix_mult(p);
    if (m == 0)
        return -1;
    if (big || (v != 0 && m > UINT64_MAX / v))
        return -2;
    *out = v * m;
    return 0;
}

int bn_parse_size_list(const char *s, uint64_t *out, uint32_t max, uint32_t *n)
{
    *n = 0;
    if (!*s)
        return 0;
    for (uint32_t i = 0;; i++) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char item[32];
        uint64_t v;
        if (i >= max || len == 0 || len >= sizeof item)
            return -1 - (int)i;
        memcpy(item, s, len);
        item[len] = '\0';
        if (bn_parse_uint(item, &v) != 0 || v == 0 || (i > 0 && v <= out[i - 1]))
            return -1 - (int)i;
        out[(*n)++] = v;
        if (!comma)
            return 0;
        s = comma + 1;
    }
}
