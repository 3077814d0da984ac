/* Feedback streams: what a block tells the producer of one of its inputs,
 * against the direction of the graph's edges (a skipping intersecter
 * naming to a scanner the next coordinate it needs). DOT graphs draw no
 * such edges, so the builder adds them through the blocks' feedback_out
 * and feedback_in hooks (engine/block.h), without knowing any block type. */
#ifndef SAMSIM_FEEDBACK_H
#define SAMSIM_FEEDBACK_H

#include "../common/error.h"
#include "../engine/engine.h"

/* Once the graph's edges are connected: for each input port of a block
 * that sends feedback about it, a new channel from the sender's feedback
 * output to the feedback input of the block producing that input, where
 * that producer takes feedback and only the sender reads its streams.
 * The graph becomes cyclic, so the event engine runs it on its queue. */
int sim_feedback_wire(sim_engine *e, sam_error *err);

#endif
