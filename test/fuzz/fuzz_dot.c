/* DOT graph reader, then the simulator on what it read: every tensor of
 * the graph comment but the result bound to a small random tensor in its
 * format, the engine built and run for a bounded number of cycles (so
 * that no input runs for long), and the run's statistics written and read
 * back, which must work for any node id. */
#include <stdlib.h>

#include "../../formats/gen.h"
#include "../../graph/graph.h"
#include "../../builder/build.h"
#include "../../report/stats.h"
#include "../../report/stats_table.h"
#include "fuzz_input.h"

#define FUZZ_DOT_CYCLES 2000
#define FUZZ_DOT_DIM 4

static int bind_all(const sam_graph *g, sim_data *d, sam_error *err)
{
    int64_t dims[TENSOR_MAX_ORDER];
    for (int m = 0; m < TENSOR_MAX_ORDER; m++)
        dims[m] = FUZZ_DOT_DIM;
    for (int k = 1; k < g->ntensors; k++) {
        const graph_tensor *gt = &g->tensors[k];
        tensor t;
        int order = gt->format.nlevels;
        if (gen_urandom(&t, order, dims, order ? 5 : 1, (uint64_t)k, err))
            return -1;
        int rc = sim_data_add(d, gt->name, &t, &gt->format, err);
        tensor_free(&t);
        if (rc)
            return -1;
    }
    return 0;
}

/* The statistics of any run must read back. */
static void stats_round_trip(const sim_engine *e, cycle_t cycles, const char *graph_path)
{
    char path[600];
    snprintf(path, sizeof path, "%s.csv", graph_path);
    sam_error err;
    stats_table t;
    if (sim_stats_write(e, cycles, path, &err))
        return;
    if (stats_table_read(path, &t, &err))
        abort();
    stats_table_free(&t);
}

static void run_graph(sam_graph *g)
{
    sim_data d = {0};
    sim_engine e;
    sim_options o = {.depth = 0, .latency = 1};
    sam_error err;
    if (bind_all(g, &d, &err) == 0 && sim_build(&e, g, &d, &o, &err) == 0) {
        sim_outcome out;
        char report[2048];
        if (sim_engine_run(&e, ENGINE_EVENT, FUZZ_DOT_CYCLES, &out, report, sizeof report,
                           &err) >= 0)
            stats_round_trip(&e, out.cycles, g->path);
        sim_engine_free(&e);
    }
    sim_data_free(&d);
}

static void read_dot(const char *path)
{
    sam_graph g;
    sam_error err;
    if (graph_read_dot(path, &g, &err) == 0) {
        run_graph(&g);
        graph_free(&g);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_limits();
    fuzz_with_file("in.gv", data, size, read_dot);
    return 0;
}
