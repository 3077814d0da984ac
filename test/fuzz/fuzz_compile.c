/* The compiler, as `samsim compile` calls it: the first line of the input
 * is the expression, every further line a -f value, or the schedule when
 * it starts with "-s=", or the tensors to locate with "-l=". The graph
 * built is written as DOT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../custard/compile.h"
#include "../../graph/dot_write.h"
#include "fuzz_input.h"

#define FUZZ_MAX_FORMATS 16

static void compile_lines(char **lines, int n)
{
    const char *formats[FUZZ_MAX_FORMATS];
    compile_args a = {.expression = lines[0], .formats = formats};
    for (int k = 1; k < n; k++) {
        if (!strncmp(lines[k], "-s=", 3))
            a.schedule = lines[k] + 3;
        else if (!strncmp(lines[k], "-l=", 3))
            a.locate = lines[k] + 3;
        else if (a.nformats < FUZZ_MAX_FORMATS)
            formats[a.nformats++] = lines[k];
    }
    sam_graph g;
    sam_error err;
    if (custard_compile(&a, &g, &err))
        return;
    FILE *sink = fopen("/dev/null", "w");
    if (!sink || graph_write_dot(&g, sink))
        abort();
    fclose(sink);
    graph_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    char *lines[1 + FUZZ_MAX_FORMATS + 1];
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    int n = 0;
    for (char *p = text; n < (int)(sizeof lines / sizeof *lines); n++) {
        lines[n] = p;
        if (!(p = strchr(p, '\n')))
            break;
        *p++ = '\0';
    }
    compile_lines(lines, n < (int)(sizeof lines / sizeof *lines) ? n + 1 : n);
    free(text);
    return 0;
}
