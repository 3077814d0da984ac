#include "feedback.h"

#include <stdlib.h>
#include <string.h>

/* The output port of block p that feeds channel c. */
static int port_of(const block *p, const channel *c)
{
    for (int k = 0; k < p->nout; k++)
        if (p->out[k].ch == c)
            return k;
    return -1;
}

/* Whether block `reader` alone reads every stream of block p: feedback
 * changes what p sends, which no other block may miss. */
static int read_only_by(const block *p, int reader)
{
    for (int k = 0; k < p->nout; k++) {
        const channel *c = p->out[k].ch;
        if (c && (channel_readers(c) != 1 || channel_reader_block(c, 0) != reader))
            return 0;
    }
    return 1;
}

/* The input port of the producer of b's input `in` that takes b's
 * feedback about it (the producer in *to), or -1. */
static int receiver(sim_engine *e, const block *b, int in, block **to)
{
    const channel *c = b->in[in].ch;
    if (!c || c->producer < 0)
        return -1;
    block *p = &e->blocks[c->producer];
    if (!p->ops->feedback_in || !read_only_by(p, b->index))
        return -1;
    int port = p->ops->feedback_in(p, port_of(p, c));
    if (port < 0 || port >= BLOCK_MAX_PORTS || p->in[port].ch)
        return -1;
    *to = p;
    return port;
}

/* The sender's feedback output for input `in`, or -1. */
static int sender(const block *b, int in)
{
    if (!b->ops->feedback_out || !b->in[in].ch)
        return -1;
    int out = b->ops->feedback_out(b, in);
    return out >= 0 && out < BLOCK_MAX_PORTS && !b->out[out].ch ? out : -1;
}

/* One feedback stream to add: from output out of block from, about its
 * input in, to input port of block to. */
typedef struct fb_link {
    block *from, *to;
    int in, out, port;
} fb_link;

static int taken(const fb_link *links, int n, const block *to, int port)
{
    for (int k = 0; k < n; k++)
        if (links[k].to == to && links[k].port == port)
            return 1;
    return 0;
}

/* Every feedback stream the blocks ask for and can have, found before
 * any is added, so that none of them is about another. */
static int plan(sim_engine *e, fb_link *links)
{
    int n = 0;
    for (int i = 0; i < e->nblocks; i++) {
        block *b = &e->blocks[i];
        for (int in = 0; in < b->nin; in++) {
            fb_link l = {.from = b, .in = in, .out = sender(b, in)};
            if (l.out >= 0 && (l.port = receiver(e, b, in, &l.to)) >= 0 &&
                !taken(links, n, l.to, l.port))
                links[n++] = l;
        }
    }
    return n;
}

/* Room for extra more channels: blocks point into the array, so it moves
 * whole, the pointers with it. */
static int grow_channels(sim_engine *e, int extra)
{
    channel *grown = calloc((size_t)(e->nchannels + extra), sizeof *grown);
    if (!grown)
        return -1;
    memcpy(grown, e->channels, (size_t)e->nchannels * sizeof *grown);
    for (int i = 0; i < e->nblocks; i++)
        for (int p = 0; p < BLOCK_MAX_PORTS; p++) {
            block *b = &e->blocks[i];
            if (b->in[p].ch)
                b->in[p].ch = grown + (b->in[p].ch - e->channels);
            if (b->out[p].ch)
                b->out[p].ch = grown + (b->out[p].ch - e->channels);
        }
    free(e->channels);
    e->channels = grown;
    e->channel_room = e->nchannels + extra;
    return 0;
}

/* A feedback channel is unbounded: bounded, a full one would stop its
 * sender, which the receiver may be waiting for, a deadlock the graph
 * does not have. It holds no more than the stream it answers, since a
 * sender sends at most one token per token it reads. It takes as long as
 * that stream, the same wire run back. */
static int wire(sim_engine *e, const fb_link *l)
{
    channel *c = &e->channels[e->nchannels];
    if (channel_init(c, 0, l->from->in[l->in].ch->latency))
        return -1;
    c->producer = l->from->index;
    c->id = e->nchannels++;
    c->kind = "feedback";
    l->to->in[l->port] = (in_port){.ch = c, .reader = channel_add_reader(c, l->to->index)};
    if (l->port >= l->to->nin)
        l->to->nin = l->port + 1;
    l->from->out[l->out].ch = c;
    return 0;
}

int sim_feedback_wire(sim_engine *e, sam_error *err)
{
    /* At most a stream per input (plan): far fewer than BLOCK_MAX_PORTS a block. */
    size_t inputs = 0;
    for (int i = 0; i < e->nblocks; i++)
        inputs += (size_t)e->blocks[i].nin;
    fb_link *links = malloc((inputs + 1) * sizeof *links);
    if (!links)
        return error_set(err, "out of memory");
    int n = plan(e, links), rc = e->nchannels + n > e->channel_room ? grow_channels(e, n) : 0;
    for (int k = 0; k < n && !rc; k++)
        rc = wire(e, &links[k]);
    free(links);
    return rc ? error_set(err, "out of memory") : 0;
}
