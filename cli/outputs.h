/* Where the commands' outputs go. An output that would replace an input or
 * another output of the same command is refused: `--stats g.gv` must not
 * destroy the graph it describes. */
#ifndef SAMSIM_OUTPUTS_H
#define SAMSIM_OUTPUTS_H

#include "../common/error.h"
#include "../formats/tensor_file.h"
#include "../report/outcome.h"

/* A file a command reads or writes, named for messages by role ("-o",
 * "the graph"). A SAM directory holds one file set per tensor, so two
 * entries of one directory collide only when their tensors do (tensor
 * NULL: whichever tensor is there). */
typedef struct io_file {
    const char *role;
    const char *path;
    const char *tensor;
} io_file;

/* -1 with one line naming both roles and the path when an output is an
 * input or another output. Entries with a NULL path are skipped, and so
 * are devices (/dev/null may take every output). */
int outputs_check(const char *cmd, const io_file *in, int nin, const io_file *out, int nout,
                  sam_error *err);

/* Writes t as f says, where path "-" is standard output: Matrix Market
 * for a matrix, FROSTT for any other order (a level format is refused). */
int outputs_write_tensor(const tensor_file *f, const tensor *t, sam_error *err);

/* The summary's result field: where the result went (out NULL: not
 * written, with its count of entries). */
void outputs_record_result(outcome *rec, const char *name, const char *out, size_t nnz);

/* Removes an output written before a later one failed, so that a command
 * that fails leaves none: a regular file only (standard output and
 * devices keep what they got; a SAM directory stays). */
void outputs_remove(const char *path);

#endif
