/*
 * "Did you mean": the nearest of a list of words by edit distance, the
 * Levenshtein distance (insertions, deletions and substitutions; V. I.
 * Levenshtein, "Binary codes capable of correcting deletions, insertions,
 * and reversals", 1966), computed row by row in O(len a x len b) time.
 * Only names a command knows are compared: words are short.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "bnet/error.h"

#define WORD_MAX 128 /* longer words are not typos of a name */

static size_t distance(const char *a, const char *b, size_t na, size_t nb)
{
    size_t row[WORD_MAX + 1];
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0]; /* row[j - 1] of the row before */
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j];
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            size_t best = diag + !same;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

const char *bn_nearest_word(const char *word, const char *const *words, size_t n)
{
    size_t na = word ? strlen(word) : 0;
    if (na == 0 || na > WORD_MAX)
        return NULL;
    size_t limit = 1 + na / 4 < 3 ? 1 + na / 4 : 3, best = limit + 1;
    const char *pick = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t nb = words[i] ? strlen(words[i]) : 0;
        if (nb == 0 || nb > WORD_MAX || (nb > na ? nb - na : na - nb) > limit)
            continue;
        size_t d = distance(word, words[i], na, nb);
        if (d < best && strcmp(word, words[i]) != 0) {
            best = d;
            pick = words[i];
        }
    }
    return pick;
}
