/* "Did you mean": the command's names nearest a mistyped one, by the
 * library's edit distance (bn_nearest_word). */
#include <stdio.h>

#include "bnet/error.h"
#include "cli/cli.h"

const char *bn_cli_did_you_mean(const char *word, const char *const *words, char *buf,
                                size_t len)
{
    size_t n = 0;
    while (words[n])
        n++;
    const char *near = bn_nearest_word(word, words, n);
    if (near)
        snprintf(buf, len, " (did you mean '%s'?)", near);
    else if (len)
        buf[0] = '\0';
    return buf;
}
