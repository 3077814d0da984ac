/* Writing numbers as text fast: integers by hand, doubles in the shortest
 * form that reads back to the same double, all through one large buffer. */
#ifndef SAMSIM_TEXT_OUT_H
#define SAMSIM_TEXT_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "../common/error.h"

typedef struct text_out {
    FILE *f;
    size_t len;
    char buf[1 << 16];
} text_out;

void out_init(text_out *o, FILE *f);
void out_char(text_out *o, char c);
void out_str(text_out *o, const char *s);
void out_int64(text_out *o, int64_t v);
void out_uint64(text_out *o, uint64_t v);
void out_double(text_out *o, double v);
/* Writes what is buffered; errors show up in ferror(o->f). */
void out_flush(text_out *o);

/* Writes a whole text file atomically: write() fills it through a buffer,
 * and the file appears only when everything reached the disk. */
typedef void (*out_writer)(text_out *o, const void *arg);
int out_write_file(const char *path, out_writer write, const void *arg, sam_error *err);

/* The shortest decimal that reads back as v, written as Python's repr
 * writes it; buf needs 32 bytes. */
int text_format_double(char *buf, double v);

#endif
