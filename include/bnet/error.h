/*
 * Errors: library functions return a bn_status code and fill a bn_error with
 * one human-readable line ("file:line: key 'x': ..."). Only the CLI prints and
 * chooses the exit status.
 */
#ifndef BNET_ERROR_H
#define BNET_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bn_status {
    BN_OK = 0,        /* success (the bn_error's contents then mean nothing) */
    BN_EINPUT = 2,    /* bad scenario, flag, topology or flow file, or an output that
                       * cannot be written: exit 2 */
    BN_ENOMEM = 3,    /* out of memory (exit 1) */
    BN_EINTERNAL = 4, /* an invariant failed (conservation, lossless drop...): exit 1 */
    BN_EINTR = 5,     /* bn_interrupt stopped it (callers keep what came before); the
                       * entry points return it when it came in set-up, before anything
                       * was measured (route computation), and otherwise BN_OK with
                       * `interrupted` set instead */
};

/* Filled by a failing call; the caller owns it (usually on the stack). */
struct bn_error {
    int status;       /* the enum bn_status the call returned */
    char msg[512];    /* one line, NUL-terminated, no trailing newline; cut to fit */
    /* The scenario key msg is about ("workload.load", "jobs[2].tp"), when it
     * was raised below the scenario layer, which knows no file or line:
     * bn_scenario_locate puts where the key got its value in front of msg
     * and clears it. "" otherwise (bn_fail clears it). */
    char key[64];
};

/* Fill err (may be NULL) with `status` and the printf-style message;
 * returns `status` so callers can `return bn_fail(...)`. */
int bn_fail(struct bn_error *err, int status, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* For "did you mean": the word of words[0..n) nearest `word` by edit
 * distance (Levenshtein, ASCII case ignored), when it is near enough to be
 * a typo (at most 1 + strlen(word) / 4 edits, and 3); the first of equals;
 * else NULL. */
const char *bn_nearest_word(const char *word, const char *const *words, size_t n);

/* Warnings: input bnet takes but that does not say all it seems to (a
 * peer's file read as its own tool reads it, lines past a declared count
 * ignored, say). One line each, no trailing newline, handed to `fn`
 * (process-wide; NULL, the default: dropped). The command prints them on
 * stderr as "bnet: warning: ...". */
typedef void (*bn_warning_fn)(void *ctx, const char *msg);
void bn_set_warning_handler(bn_warning_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
