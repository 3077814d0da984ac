/* fiberwrite, dense level (SAM-BLOCKS.md 5.6): a dense level keeps only its
 * size, so the writer stores nothing; it takes its coordinate stream one
 * token per cycle and is done when it takes D. The reference's dense
 * writer crashes on its first token (SAM-BLOCKS.md 8.3) and its apps leave
 * it out; samsim keeps it as a sink so that the run waits for the stream
 * as the graph draws it. */
#include <stdlib.h>
#include <string.h>

#include "blocks.h"

static int dense_writer_step(block *b, cycle_t now)
{
    token t;
    if (!in_peek(b, 0, now, &t))
        return 0;
    in_pop(b, 0, now);
    b->done = t.kind == TOKEN_DONE;
    return 1;
}

static int dense_writer_serves(const graph_node *n)
{
    const char *f = graph_node_attr(n, "format");
    return f && !strcmp(f, "dense");
}

static int dense_writer_create(block *b, const block_ctx *ctx, sam_error *err)
{
    int64_t mode;
    if (block_attr_int(ctx, "mode", &mode, err))
        return -1;
    int *m = malloc(sizeof *m);
    if (!m)
        return error_set(err, "out of memory");
    *m = (int)mode;
    b->state = m;
    b->nin = 1;
    b->in_names[0] = "crd";
    return 0;
}

static int dense_writer_port(block *b, const graph_edge *e, int input, sam_error *err)
{
    static const char *const kinds[] = {"crd"};
    if (!input)
        return block_error(b, err, "a writer has no outputs");
    return block_port_by_kind(b, e, 1, kinds, 1, err);
}

/* Nothing to store, but the result must keep this mode dense: a
 * compressed level would be left without its arrays. */
static int dense_writer_collect(const block *b, fibertree *result, sam_error *err)
{
    int mode = *(const int *)b->state;
    for (int k = 0; k < result->order; k++) {
        if (result->lv[k].mode != mode)
            continue;
        if (result->lv[k].kind != 'd')
            return block_error((block *)b, err, "the result stores mode %d compressed, not dense",
                               mode);
        return 0;
    }
    return block_error((block *)b, err, "the result has no mode %d", mode);
}

static void dense_writer_destroy(block *b)
{
    free(b->state);
}

const block_ops fiberwrite_dense_ops = {
    .type = "fiberwrite",
    .impl = "dense",
    .about = "takes a dense level's coordinate stream; a dense level stores only its size",
    .serves = dense_writer_serves,
    .create = dense_writer_create,
    .port = dense_writer_port,
    .step = dense_writer_step,
    .destroy = dense_writer_destroy,
    .collect = dense_writer_collect,
};
