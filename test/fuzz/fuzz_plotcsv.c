/* samsim plot's reading of a results CSV and what it makes of it: the
 * input's first line names the columns and flags (`X,Y[,BY][,logx]
 * [,logy]`), the rest is the CSV, and the plot runs with --data, which
 * reads, groups and aggregates exactly as a drawing does, without
 * starting gnuplot. */
#include <stdlib.h>
#include <string.h>

#include "../../cli/commands.h"
#include "fuzz_input.h"

#define MAX_ARGS 12

typedef struct plot_call {
    char *argv[MAX_ARGS];
    int argc;
} plot_call;

static void run_plot(void *ctx)
{
    plot_call *c = ctx;
    cmd_plot(c->argc, c->argv);
}

/* Splits the first line at commas into the plot's options. */
static void make_call(char *line, char *csv, plot_call *c)
{
    static const char *const roles[] = {"--x", "--y", "--by"};
    c->argc = 0;
    c->argv[c->argc++] = csv;
    c->argv[c->argc++] = "--data";
    int named = 0;
    for (char *save, *f = strtok_r(line, ",", &save); f && c->argc + 2 <= MAX_ARGS;
         f = strtok_r(NULL, ",", &save)) {
        if (!strcmp(f, "logx") || !strcmp(f, "logy")) {
            c->argv[c->argc++] = !strcmp(f, "logx") ? "--logx" : "--logy";
        } else if (named < 3) {
            c->argv[c->argc++] = (char *)roles[named++];
            c->argv[c->argc++] = f;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    if (!nl || nl - data > 256)
        return 0;
    char line[257];
    memcpy(line, data, (size_t)(nl - data));
    line[nl - data] = '\0';
    if (memchr(line, '\0', (size_t)(nl - data)))
        return 0;
    fuzz_dir d;
    char csv[512];
    if (fuzz_dir_open(&d))
        abort();
    if (fuzz_dir_write(&d, "in.csv", nl + 1, size - (size_t)(nl - data) - 1, csv, sizeof csv) == 0) {
        plot_call c;
        make_call(line, csv, &c);
        fuzz_silenced(run_plot, &c);
    }
    fuzz_dir_close(&d);
    return 0;
}
