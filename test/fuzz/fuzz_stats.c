/* The statistics CSV reader (`samsim stats`, `samsim render --stats`) and
 * the analyses made of what it read. */
#include <stdlib.h>

#include "../../report/stats_table.h"
#include "fuzz_input.h"

static void analyse(const stats_table *t)
{
    sam_error err;
    int *chain, n;
    free(stats_table_blocks_by_busy(t, &err));
    free(stats_table_streams_by_tokens(t, &err));
    if (stats_table_critical_chain(t, &chain, &n, &err) == 0)
        free(chain);
    for (int i = 0; i < t->nblocks; i++)
        (void)stats_block_utilisation(t, &t->blocks[i]);
    for (int i = 0; i < t->nstreams; i++)
        (void)stats_stream_idle_share(t, &t->streams[i]);
}

static void read_stats(const char *path)
{
    stats_table t;
    sam_error err;
    if (stats_table_read(path, &t, &err) == 0) {
        analyse(&t);
        stats_table_free(&t);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_with_file("in.csv", data, size, read_stats);
    return 0;
}
