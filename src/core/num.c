/* Decimal numbers for the text readers (num.h). */
#include <errno.h>
#include <stdlib.h>

#include "core/num.h"

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

bool bn_num_u64(const char *s, uint64_t max, uint64_t *v)
{
    uint64_t x = 0;
    if (!s || !digit(*s))
        return false;
    for (; digit(*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
    }
    if (*s || x > max)
        return false;
    *v = x;
    return true;
}

/* The end of a decimal real's syntax at s, or s if there is none. */
static const char *decimal_end(const char *s)
{
    const char *p = s + (*s == '+' || *s == '-');
    bool digits = false;
    for (; digit(*p); p++)
        digits = true;
    if (*p == '.')
        for (p++; digit(*p); p++)
            digits = true;
    if (!digits)
        return s;
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1 + (p[1] == '+' || p[1] == '-');
        if (digit(*q)) {
            while (digit(*q))
                q++;
            p = q;
        }
    }
    return p;
}

bool bn_num_real_prefix(const char *s, double *v, const char **end)
{
    if (!s)
        return false;
    const char *e = decimal_end(s);
    if (e == s)
        return false;
    char *stop;
    errno = 0;
    double x = strtod(s, &stop);
    /* strtod read further (0x1p3: hex) or less than the syntax: not ours;
     * an overflow is HUGE_VAL, which the callers' bounds refuse */
    if (stop != e)
        return false;
    *v = x;
    *end = e;
    return true;
}

bool bn_num_real(const char *s, double *v)
{
    const char *end;
    double x;
    if (!bn_num_real_prefix(s, &x, &end) || *end)
        return false;
    *v = x;
    return true;
}
