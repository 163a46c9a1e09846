/*
 * Output paths checked before anything runs: a run that takes an hour
 * must not end in "cannot write JSON". Each file a flag names must be
 * writable where it is, or creatable in an existing, writable folder; the
 * check creates nothing (the writers open the files, at the end).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

/* The folder of `path` ("." for a bare name) into buf. */
static const char *folder_of(const char *path, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, len, ".");
    else if (slash == path)
        snprintf(buf, len, "/");
    else
        snprintf(buf, len, "%.*s", (int)(slash - path), path);
    return buf;
}

/* 0 if `path` (a file, or with `prefix` the start of file names) can be
 * written, else 2 after one line naming the flag and why. */
static int writable(const char *flag, const char *path, bool prefix)
{
    char dir[PATH_MAX];
    struct stat st;
    const char *why = NULL;
    if (!prefix && stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            why = "it is a folder";
        else if (access(path, W_OK) != 0)
            why = strerror(errno);
        else
            return 0;
    } else if (!prefix && errno != ENOENT) {
        why = strerror(errno);
    } else {
        folder_of(path, dir, sizeof dir);
        if (stat(dir, &st) != 0)
            why = errno == ENOENT ? "its folder does not exist" : strerror(errno);
        else if (!S_ISDIR(st.st_mode))
            why = "its folder is not a folder";
        else if (access(dir, W_OK | X_OK) != 0)
            why = "its folder is not writable";
        else
            return 0;
    }
    fprintf(stderr, "bnet: option '%s': cannot write '%s%s': %s (checked before the run)\n",
            flag, path, prefix ? "-*.csv" : "", why);
    return 2;
}

int bn_cli_check_outputs(const struct cli_opts *o)
{
    const struct {
        const char *flag, *path;
        bool prefix;
    } outs[] = {
        {"--json", o->json, false}, {"--trace", o->trace, false}, {"--dot", o->dot, false},
        {"-F", o->output_file, false}, {"--csv", o->csv, true},
    };
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
        if (outs[i].path && strcmp(outs[i].path, "-") != 0 &&
            writable(outs[i].flag, outs[i].path, outs[i].prefix) != 0)
            return 2;
    return 0;
}
