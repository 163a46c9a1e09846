/* `bnet report FILE.json... [-o PAGE.html]`: saved results as one HTML page. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "plot/plot.h"
#include "plot/report.h"

int bn_cli_report(int argc, char **argv, int first)
{
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files) {
        fprintf(stderr, "bnet: out of memory\n");
        return 1;
    }
    const char *out = "report.html";
    int n = 0, rc = 0;
    for (int i = first; i < argc && !rc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            bn_cli_print_report_usage(stdout);
            free(files);
            return 0;
        } else if (strncmp(a, "--out=", 6) == 0) {
            out = a + 6;
        } else if (strcmp(a, "--out") == 0 || strcmp(a, "-o") == 0) {
            if (i + 1 == argc) {
                fprintf(stderr, "bnet: option '%s' needs a file\n", a);
                rc = 2;
            } else {
                out = argv[++i];
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "bnet: unknown option '%s' (see bnet help report)\n", a);
            rc = 2;
        } else {
            files[n++] = a;
        }
    }
    if (!rc && n == 0) {
        fprintf(stderr, "bnet: report needs a result file (bnet run|coll|job|... --json FILE)\n");
        rc = 2;
    }
    struct cli_opts o = {.json = out};
    if (!rc && out[0] == '\0') {
        fprintf(stderr, "bnet: option '-o' needs a file ('' is not one)\n");
        rc = 2;
    }
    if (!rc)
        rc = bn_cli_check_outputs(&o); /* before any plot is drawn */
    FILE *quiet = rc ? NULL : fopen("/dev/null", "w");
    if (!rc)
        rc = bn_report_html(files, n, out, quiet ? quiet : stderr);
    if (quiet)
        fclose(quiet);
    free(files);
    return rc;
}
