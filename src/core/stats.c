/* Percentiles for summaries; see stats.h for the rule used. */
#include <stdlib.h>

#include "core/stats.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bn_sort_doubles(double *v, size_t n) { qsort(v, n, sizeof *v, cmp_double); }

double bn_percentile_sorted(const double *v, size_t n, double p)
{
    if (n == 0)
        return 0.0;
    double rank = p / 100.0 * (double)(n - 1);
    size_t lo = (size_t)rank;
    if (lo + 1 >= n)
        return v[n - 1];
    double frac = rank - (double)lo;
    return v[lo] + frac * (v[lo + 1] - v[lo]);
}

double bn_percentile(double *v, size_t n, double p)
{
    bn_sort_doubles(v, n);
    return bn_percentile_sorted(v, n, p);
}
