#include "lanes.h"

#include <stdlib.h>

const char *const lanes_names[LANES_MAX] = {
    "lane0",  "lane1",  "lane2",  "lane3",  "lane4",  "lane5",  "lane6",  "lane7",
    "lane8",  "lane9",  "lane10", "lane11", "lane12", "lane13", "lane14", "lane15",
    "lane16", "lane17", "lane18", "lane19", "lane20", "lane21", "lane22", "lane23",
    "lane24", "lane25", "lane26", "lane27", "lane28", "lane29", "lane30", "lane31",
};

int lanes_count(block *b, const block_ctx *ctx, int *lanes, sam_error *err)
{
    int64_t n = 1;
    if (graph_node_attr(ctx->node, "lanes") && block_attr_int(ctx, "lanes", &n, err))
        return -1;
    if (n < 1 || n > LANES_MAX)
        return block_error(b, err, "lanes=%lld: a node has 1 to %d lanes", (long long)n,
                           LANES_MAX);
    *lanes = (int)n;
    return 0;
}

int lanes_of_edge(block *b, const graph_edge *e, int lanes, sam_error *err)
{
    const char *text = graph_edge_attr(e, "lane");
    char *end;
    long lane = text ? strtol(text, &end, 10) : -1;
    if (!text || !*text || *end || lane < 0 || lane >= lanes)
        return block_error(b, err, "edge '%s' needs lane=0..%d (it has %s)", e->label,
                           lanes - 1, text ? text : "none");
    return (int)lane;
}
