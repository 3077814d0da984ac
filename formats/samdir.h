/* The SAM level-file directory layout, as the SAM tools read and write it:
 * for tensor T, tensor_T_mode_K_seg and tensor_T_mode_K_crd for each
 * compressed level (K names the tensor mode, not the storage level),
 * tensor_T_mode_vals and tensor_T_mode_shape; one number per line. Beyond
 * those tools, a bitvector level keeps tensor_T_mode_K_bv (its 64-bit
 * words, fibertree.h, as unsigned decimals) and _seg (their popcount
 * prefix), and a linked-list level _head, _crd and _next. A mode's kind is
 * the one its files show: bv a bitvector, head or next a linked list, seg
 * and crd alone compressed, none dense. */
#ifndef SAMSIM_SAMDIR_H
#define SAMSIM_SAMDIR_H

#include <stddef.h>

#include "../common/error.h"
#include "fibertree.h"
#include "level_format.h"

/* Reads tensor name from dir. f gives the level format; NULL infers it
 * from which files exist and how their lengths fit together. Every array
 * is checked (lengths, bounds, sorted fibers, popcounts, lists) with errors
 * naming the file and line. */
int samdir_read(const char *dir, const char *name, const level_format *f, fibertree *out,
                sam_error *err);

/* Writes all files of the tensor atomically (and removes level files a
 * previous write left that a mode's kind now does not keep). Creates dir
 * if needed. */
int samdir_write(const char *dir, const char *name, const fibertree *ft, sam_error *err);

/* The name of the only tensor in dir; an error lists them when there are
 * several. */
int samdir_only_tensor(const char *dir, char *name, size_t n, sam_error *err);

#endif
