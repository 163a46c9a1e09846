/*
 * The walker over a registry's modules' own key rows (core/keyrow.h):
 * the scenario registry splices them in by index, and finds a row's
 * module to place its value in that module's block of the scenario.
 */
#include "core/keyrow.h"

static size_t module_at(const struct bn_key_modules *m, size_t o)
{
    return m->order ? m->order[o] : o;
}

const struct bn_key_row *bn_key_modules_rows(const struct bn_key_modules *m, size_t o,
                                             size_t *nrows)
{
    return m->rows_of(module_at(m, o), nrows);
}

const struct bn_key_row *bn_key_modules_row(const struct bn_key_modules *m, size_t j)
{
    for (size_t o = 0; o < m->n; o++) {
        size_t n;
        const struct bn_key_row *rows = m->rows_of(module_at(m, o), &n);
        if (j < n)
            return &rows[j];
        j -= n;
    }
    return NULL;
}

size_t bn_key_modules_nrows(const struct bn_key_modules *m)
{
    size_t total = 0;
    for (size_t i = 0; i < m->n; i++) {
        size_t n;
        m->rows_of(i, &n);
        total += n;
    }
    return total;
}

size_t bn_key_modules_owner(const struct bn_key_modules *m, const struct bn_key_row *k)
{
    for (size_t i = 0; i < m->n; i++) {
        size_t n;
        const struct bn_key_row *rows = m->rows_of(i, &n);
        if (n && k >= rows && k < rows + n)
            return i;
    }
    return SIZE_MAX;
}
