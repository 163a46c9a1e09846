/* `bnet plot FILE.json... [--out DIR]`: figures of results already saved. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "plot/plot.h"

int bn_cli_plot(int argc, char **argv, int first)
{
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files) {
        fprintf(stderr, "bnet: out of memory\n");
        return 1;
    }
    const char *dir = NULL;
    int n = 0, rc = 0;
    for (int i = first; i < argc && !rc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            bn_cli_print_plot_usage(stdout);
            free(files);
            return 0;
        } else if (strncmp(a, "--out=", 6) == 0) {
            dir = a + 6;
        } else if (strcmp(a, "--out") == 0 || strcmp(a, "-o") == 0) {
            if (i + 1 == argc) {
                fprintf(stderr, "bnet: option '%s' needs a folder\n", a);
                rc = 2;
            } else {
                dir = argv[++i];
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "bnet: unknown option '%s' (see bnet help plot)\n", a);
            rc = 2;
        } else {
            files[n++] = a;
        }
    }
    if (!rc && n == 0) {
        fprintf(stderr, "bnet: plot needs a result file (bnet run|coll|compare --json FILE)\n");
        rc = 2;
    }
    if (!rc && dir && dir[0] == '\0') {
        fprintf(stderr, "bnet: option '--out' needs a folder ('' is not one)\n");
        rc = 2;
    }
    char def[4096];
    if (!rc && !dir) { /* FILE.json -> FILE-plots; several files -> plots */
        size_t len = strlen(files[0]);
        if (len > 5 && strcmp(files[0] + len - 5, ".json") == 0)
            len -= 5;
        snprintf(def, sizeof def, "%.*s-plots", (int)(len < 4000 ? len : 4000), files[0]);
        dir = n == 1 ? def : "plots";
    }
    if (!rc)
        rc = bn_plot_files(files, n, dir, stdout);
    free(files);
    return rc;
}
