/* Reading numbers from text files fast and strictly: the whole file is held
 * in memory, the cursor tracks the line, and every complaint names the file,
 * the line and the offending text. Shared by every text format. */
#ifndef SAMSIM_TEXT_SCAN_H
#define SAMSIM_TEXT_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"

typedef struct text_scan {
    const char *path;
    char *buf;          /* the file, NUL-terminated */
    size_t len;
    size_t mapped;      /* bytes mapped when buf is a file mapping, else 0 */
    size_t released;    /* bytes of the mapping handed back (scan_next_line) */
    const char *p;      /* cursor */
    long line;          /* 1-based line of the cursor */
} text_scan;

int scan_open(text_scan *s, const char *path, sam_error *err);
void scan_close(text_scan *s);

/* Skips spaces, tabs and a carriage return before a newline. */
void scan_blanks(text_scan *s);

/* After blanks: 1 at a newline or the end of the file. */
int scan_at_eol(text_scan *s);
int scan_at_eof(const text_scan *s);

/* Moves past the rest of the line and its newline. The pages of a mapped
 * file well behind the cursor are handed back as it goes, so that a large
 * file read once is not held whole beside what is made of it (a page
 * looked at again is read again from the file). */
void scan_next_line(text_scan *s);

/* 1 when the line at the cursor holds only blanks. */
int scan_line_blank(text_scan *s);

/* Each reads one blank-separated field; `what` names it in errors. */
int scan_int64(text_scan *s, int64_t *v, const char *what, sam_error *err);
/* Digits only, 0..2^64-1 (bitvector words). */
int scan_uint64(text_scan *s, uint64_t *v, const char *what, sam_error *err);
int scan_double(text_scan *s, double *v, const char *what, sam_error *err);

/* Expects the end of the line and moves to the next one. */
int scan_end_line(text_scan *s, sam_error *err);

/* Formats an error at the cursor's line. */
int scan_error(const text_scan *s, sam_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Parses a whole NUL-terminated string as a double, exactly as the scanner
 * does (for values outside files). */
int text_parse_double(const char *str, double *v);

#endif
