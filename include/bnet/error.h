/*
 * Errors: library functions return a bn_status code and fill a bn_error with
 * one human-readable line ("file:line: key 'x': ..."). Only the CLI prints and
 * chooses the exit status.
 */
#ifndef BNET_ERROR_H
#define BNET_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum bn_status {
    BN_OK = 0,
    BN_EINPUT = 2,    /* bad scenario, flag, topology or flow file: exit 2 */
    BN_ENOMEM = 3,
    BN_EINTERNAL = 4, /* an invariant failed (conservation, lossless drop...) */
    BN_EINTR = 5,     /* bn_interrupt stopped it (callers keep what came before) */
};

struct bn_error {
    int status;
    char msg[512];
};

/* printf-style; returns `status` so callers can `return bn_fail(...)`. */
int bn_fail(struct bn_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif
