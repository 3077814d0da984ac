/* The --config reader: the input is the file, applied to a compiled
 * matrix product as `samsim run --config` applies it. */
#include <stdlib.h>

#include "../../custard/compile.h"
#include "../../builder/config.h"
#include "fuzz_input.h"

static void read_config(const char *path)
{
    static const char *const formats[] = {"X:ss", "B:ss", "C:ds:1,0"};
    compile_args a = {.expression = "X(i,j)=B(i,k)*C(k,j)", .formats = formats, .nformats = 3};
    sim_config c = {0};
    sam_graph g;
    sam_error err;
    if (custard_compile(&a, &g, &err))
        abort();
    sim_options o = {.depth = 0, .latency = 1};
    if (sim_config_read(&c, path, &err) == 0)
        sim_config_apply(&c, &g, &o, &err);
    sim_config_free(&c);
    graph_free(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_with_file("in.conf", data, size, read_config);
    return 0;
}
