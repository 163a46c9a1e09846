/*
 * Output files by temporary file and rename (bnet/output.h), as editors and
 * package managers replace files: mkstemp beside the target, write, fflush,
 * fsync, close, rename(2), which POSIX makes atomic within a file system.
 * The temporary names are kept in a small table so a signal handler that
 * ends the process can unlink them (bn_output_remove_pending).
 */
#define _GNU_SOURCE /* realpath, fchmod */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bnet/output.h"

struct bn_output {
    FILE *f;
    bool in_place;          /* stdout, or not a regular file: no rename */
    int slot;               /* in pending[], -1: none */
    const char *what;
    char path[PATH_MAX], tmp[PATH_MAX];
};

/* The temporary files open now; a slot's pointer is set last and cleared
 * first, so a handler sees a whole name or none. */
#define PENDING_MAX 32
static char *volatile pending[PENDING_MAX];

void bn_output_remove_pending(void)
{
    for (int i = 0; i < PENDING_MAX; i++) {
        char *p = pending[i];
        if (p)
            unlink(p);
    }
}

static int fail(struct bn_output *o, int e, struct bn_error *err)
{
    return bn_fail(err, BN_EINPUT, "%s: cannot write %s: %s",
                   strcmp(o->path, "-") == 0 ? "standard output" : o->path, o->what,
                   strerror(e ? e : EIO));
}

/* The target: a symbolic link's file (the link stays a link). */
static void target_of(const char *path, char *out)
{
    char real[PATH_MAX];
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, real))
        path = real;
    snprintf(out, PATH_MAX, "%s", path);
}

/* mode for the new file: the old file's, else what fopen would give. */
static mode_t mode_for(const struct stat *st, bool exists)
{
    if (exists)
        return st->st_mode & 07777;
    mode_t mask = umask(022);
    umask(mask);
    return 0666 & ~mask;
}

struct bn_output *bn_output_open(const char *path, const char *what, struct bn_error *err)
{
    struct bn_output *o = calloc(1, sizeof *o);
    if (!o) {
        bn_fail(err, BN_ENOMEM, "out of memory");
        return NULL;
    }
    o->slot = -1;
    o->what = what;
    if (strlen(path) >= sizeof o->path - 16) {
        bn_fail(err, BN_EINPUT, "%s: cannot write %s: path too long", path, what);
        free(o);
        return NULL;
    }
    target_of(path, o->path);
    struct stat st;
    bool exists = stat(o->path, &st) == 0;
    if (strcmp(path, "-") == 0 || (exists && !S_ISREG(st.st_mode))) {
        o->in_place = true;
        errno = 0;
        o->f = strcmp(path, "-") == 0 ? stdout : fopen(o->path, "w");
        if (!o->f) {
            fail(o, errno, err);
            free(o);
            return NULL;
        }
        return o;
    }
    /* "DIR/.NAME.XXXXXX": hidden, in the target's directory */
    const char *slash = strrchr(o->path, '/');
    int dirlen = slash ? (int)(slash - o->path + 1) : 0;
    int fd = -1;
    errno = ENAMETOOLONG;
    if (strlen(o->path) + 9 < sizeof o->tmp) {
        memcpy(o->tmp, o->path, (size_t)dirlen);
        o->tmp[dirlen] = '.';
        strcpy(o->tmp + dirlen + 1, o->path + dirlen);
        strcat(o->tmp, ".XXXXXX");
        fd = mkstemp(o->tmp);
    }
    if (fd < 0 || fchmod(fd, mode_for(&st, exists)) != 0 || !(o->f = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(o->tmp);
        }
        fail(o, e, err);
        free(o);
        return NULL;
    }
    for (int i = 0; i < PENDING_MAX && o->slot < 0; i++)
        if (!pending[i]) {
            pending[i] = o->tmp;
            o->slot = i;
        }
    return o;
}

FILE *bn_output_stream(struct bn_output *o)
{
    return o->f;
}

static void unpend(struct bn_output *o)
{
    if (o->slot >= 0)
        pending[o->slot] = NULL;
    o->slot = -1;
}

int bn_output_close(struct bn_output *o, bool bad, struct bn_error *err)
{
    errno = 0;
    bad |= ferror(o->f) != 0;
    int e = bad ? errno : 0;
    if (fflush(o->f) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    if (!o->in_place && !bad && fsync(fileno(o->f)) != 0 && errno != EINVAL) {
        bad = true;
        e = errno;
    }
    if (o->f != stdout && fclose(o->f) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    if (!o->in_place && !bad && rename(o->tmp, o->path) != 0) {
        bad = true;
        e = errno;
    }
    if (!o->in_place && bad)
        unlink(o->tmp);
    unpend(o);
    int rc = bad ? fail(o, e, err) : BN_OK;
    free(o);
    return rc;
}

void bn_output_discard(struct bn_output *o)
{
    if (!o)
        return;
    if (o->f != stdout)
        fclose(o->f);
    if (!o->in_place)
        unlink(o->tmp);
    unpend(o);
    free(o);
}
