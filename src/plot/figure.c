/*
 * gnuplot scripts and the gnuplot process. gnuplot draws: it is Debian's
 * long-kept plotting program (package gnuplot-nox, no display needed), its
 * SVG terminal is built in and deterministic, and a C command can drive it
 * through a script without a Python stack (docs/plots.md says why).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bnet/output.h"
#include "plot/figure.h"

void fig_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        if (*s != '\n' && *s != '\r')
            fputc(*s, f);
    }
    fputc('\'', f);
}

int fig_open(struct fig *g, const char *dir, const char *name, const char *title, int width,
             int height)
{
    memset(g, 0, sizeof *g);
    g->dir = dir;
    snprintf(g->name, sizeof g->name, "%s", name);
    if ((size_t)snprintf(g->gp, sizeof g->gp, "%s/%s.gp", dir, name) >= sizeof g->gp) {
        fprintf(stderr, "bnet: plot folder '%s': path too long\n", dir);
        return 2;
    }
    struct bn_error err = {0};
    g->out = bn_output_open(g->gp, "a plot script", &err); /* renamed into place at close */
    if (!g->out) {
        fprintf(stderr, "bnet: %s\n", err.msg);
        return 2;
    }
    g->f = bn_output_stream(g->out);
    fprintf(g->f, "# bnet figure; redraw with: gnuplot %s.gp (in this folder)\n", name);
    fprintf(g->f, "set terminal svg size %d,%d noenhanced font 'Arial,12' background "
            "'#ffffff'\nset output '%s.svg'\nset title ", width, height, name);
    fig_quote(g->f, title);
    fputs("\nset grid\nset key outside right top\n", g->f);
    return 0;
}

void fig_abandon(struct fig *g)
{
    bn_output_discard(g->out); /* an older script of that name stays */
    g->out = NULL;
    g->f = NULL;
}

int fig_end(struct fig *g, bool ok, FILE *log)
{
    if (ok)
        return fig_close(g, log);
    fig_abandon(g);
    return 2;
}

void fig_file_label(const char *path, char *buf, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, ".json") == 0)
        n -= 5;
    snprintf(buf, len, "%.*s", (int)n, base);
}

int fig_gnuplot(const char *dir, const char *arg, int quiet)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        if (quiet) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0) {
                dup2(null, STDOUT_FILENO);
                dup2(null, STDERR_FILENO);
            }
        }
        execlp("gnuplot", "gnuplot", arg, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int fig_close(struct fig *g, FILE *log)
{
    fputs("unset output\n", g->f);
    struct bn_error err = {0};
    g->f = NULL;
    int rc = bn_output_close(g->out, false, &err);
    g->out = NULL;
    if (rc != BN_OK) {
        fprintf(stderr, "bnet: %s\n", err.msg);
        return 2;
    }
    /* gnuplot draws NAME.svg in a fresh folder beside it, renamed into
     * place once whole: a reader never sees half a figure */
    char tmp[PATH_MAX], script[sizeof g->name + 8], svg[PATH_MAX + 80], drawn[PATH_MAX + 80];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s/.bnet-svg-XXXXXX", g->dir) >= sizeof tmp ||
        !mkdtemp(tmp)) {
        fprintf(stderr, "bnet: plot folder '%s': cannot write in it: %s\n", g->dir,
                strerror(errno));
        return 2;
    }
    snprintf(script, sizeof script, "../%s.gp", g->name);
    snprintf(drawn, sizeof drawn, "%s/%s.svg", tmp, g->name);
    snprintf(svg, sizeof svg, "%s/%s.svg", g->dir, g->name);
    int st = fig_gnuplot(tmp, script, 0);
    if (st == 0 && rename(drawn, svg) != 0) {
        fprintf(stderr, "bnet: %s: cannot write: %s\n", svg, strerror(errno));
        st = -2;
    }
    unlink(drawn);
    rmdir(tmp);
    if (st == -2)
        return 2;
    if (st == 127) {
        fprintf(stderr, "bnet: plots need gnuplot, which is not on PATH (Debian: apt-get "
                "install gnuplot-nox)\n");
        return 1;
    }
    if (st != 0) {
        fprintf(stderr, "bnet: gnuplot failed on %s (status %d)\n", g->gp, st);
        return 1;
    }
    fprintf(log, "plot: %s/%s.svg\n", g->dir, g->name);
    return 0;
}
