/* How a memory stores a tensor, apart from the level format a graph reads
 * it in: an accelerator's fetch unit hands its blocks fibers whatever the
 * arrays in memory look like, and what a tile costs to move is what those
 * arrays hold. A layout is either level letters, one per level of the
 * graph's format and in its mode order (`ds` stores a matrix the graph
 * reads as `ss` with a row pointer per row, empty rows included: CSR), or
 * `coo`: every entry with all its coordinates and its value, nothing per
 * fiber or tile (a non-unique compressed level over singletons, as TACO
 * and SAM name COO's levels). Either may follow `tiled`: the tensor is
 * stored as its innermost tiles, each in that layout (ExTensor's PE
 * tiles in DRAM), so a larger tile costs the sum of the innermost tiles
 * it holds and the tensor the sum of them all; `tiled` alone keeps the
 * format's letters. Bytes are counted as fibertree_bytes counts
 * a tree (fibertree.h): a compressed level its coordinates and one seg
 * entry more than the positions above, a bitvector its 64-bit words, a
 * dense level nothing but every position of its extent; a linked list a
 * coordinate and a next pointer per node and the heads of the lists it
 * appends to, one per distinct prefix above (the tiles of one tensor
 * share its lists: OuterSPACE's PEs append to one list per row). Byte
 * widths may be given per level, apart from the hardware's
 * (`bytes.T.crd = 4,0,4`: a coordinate of T's level 1 costs nothing;
 * `bytes.T.ref`, one per level too; `bytes.T.val`), as TeAAL's
 * specifications give each rank's coordinates and payloads their own. */
#ifndef SAMSIM_LAYOUT_H
#define SAMSIM_LAYOUT_H

#include <stdint.h>

#include "../common/error.h"
#include "level_format.h"
#include "tensor.h"

typedef struct storage_layout {
    int tiled;                      /* stored as its innermost tiles */
    int coo;                        /* every entry with its coordinates */
    int nlevels;                    /* else its level letters, 0: the format's */
    char kind[TENSOR_MAX_ORDER];
    /* Byte widths of its own, per level (0 levels: the hardware's). */
    int ncrd, nref, has_val;
    double crd[TENSOR_MAX_ORDER], ref[TENSOR_MAX_ORDER], val;
} storage_layout;

/* "coo", or level letters d, s, b, l ("ds"), either after "tiled " (and
 * "tiled" alone). */
int storage_layout_parse(const char *text, storage_layout *l, sam_error *err);

/* Sets l's byte widths of one kind ("crd", "ref": a comma-separated list,
 * a whole number of bytes 0..64 per level; "val": one) from text. */
int storage_layout_widths(storage_layout *l, const char *kind, const char *text, sam_error *err);

/* As parsed: "tiled coo", "ds"; buf needs 16 bytes. */
void storage_layout_str(const storage_layout *l, char *buf, size_t size);

/* Whether l fits a tensor stored as f (letters and widths: one per
 * level); an error names the layout and the format. */
int storage_layout_check(const storage_layout *l, const level_format *f, sam_error *err);

/* The bytes of storage in layout l over f's modes (l NULL: f's own
 * letters) holding distinct[k] coordinate prefixes down to level k, each
 * level's mode of extent[k]: a coordinate crd bytes, a reference ref, a
 * value val. Nothing stored holds nothing (0). */
double storage_layout_bytes(const storage_layout *l, const level_format *f,
                            const int64_t *distinct, const int64_t *extent, double crd,
                            double ref, double val);

/* distinct[k]: the distinct prefixes of t's coordinates down to level k
 * of f, in f's mode order; extent[k], the dimension of level k's mode. */
int storage_layout_counts(const tensor *t, const level_format *f, int64_t *distinct,
                          int64_t *extent, sam_error *err);

/* The fibers of t's outermost level (of f) stored in layout l (NULL: f's
 * letters): into crd[0..*n-1] their coordinates, increasing, and bytes[]
 * what each adds to the storage: its own coordinate at the outer level
 * (a compressed or linked-list level's), the references and coordinates
 * of its subtree and its values (COO: each of its entries). crd and bytes
 * need room for t->nnz fibers. */
int storage_layout_fibers(const storage_layout *l, const level_format *f, const tensor *t,
                          double crd, double ref, double val, int64_t *fiber_crd, double *bytes,
                          size_t *n, sam_error *err);

/* t's bytes stored in layout l over f's modes. */
int storage_layout_tensor_bytes(const storage_layout *l, const level_format *f, const tensor *t,
                                double crd, double ref, double val, double *bytes,
                                sam_error *err);

#endif
