/* How a tensor is stored level by level: a letter per level, d (dense: only
 * the size), s (compressed: seg and crd arrays), b (bitvector: a bit per
 * coordinate, SAM paper 4.3) or l (linked list: a list of nodes per fiber,
 * OuterSPACE's, SAM paper Fig. 16), and the tensor mode each level stores
 * (fibertree.h has the arrays). Written as in SAM graph comments ("ss01",
 * "ds10", "sb01", "none") or as in Custard's -f option ("ss:1,0"). */
#ifndef SAMSIM_LEVEL_FORMAT_H
#define SAMSIM_LEVEL_FORMAT_H

#include <stddef.h>

#include "../common/error.h"
#include "tensor.h"

typedef struct level_format {
    int nlevels;                    /* the tensor order; 0 for a scalar */
    char kind[TENSOR_MAX_ORDER];    /* 'd', 's', 'b' or 'l' per storage level */
    int mode[TENSOR_MAX_ORDER];     /* tensor mode stored at each level */
} level_format;

int level_format_parse(const char *s, level_format *f, sam_error *err);

/* Whether c is a level letter: d, s, b or l. */
int level_kind_valid(char c);

/* The kind as a word for people: "dense", "compressed", "bitvector",
 * "linked list". */
const char *level_kind_name(char c);

/* All levels compressed, natural mode order. */
void level_format_default(int order, level_format *f);

/* "ss01" style, or "none"; buf needs 2 * TENSOR_MAX_ORDER + 1 bytes. */
void level_format_str(const level_format *f, char *buf, size_t n);

#endif
