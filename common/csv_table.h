/* Whole CSV files as rows of text cells, read and written with libcsv:
 * the sweep's job lists and results, and the tables samsim plot draws. */
#ifndef SAMSIM_CSV_TABLE_H
#define SAMSIM_CSV_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

typedef struct csv_row {
    char **cells;
    size_t ncells;
    long line;          /* the file line the row starts on */
} csv_row;

typedef struct csv_table {
    csv_row *rows;
    size_t nrows;
} csv_table;

/* Reads every row of path (quotes as RFC 4180; a malformed file is an
 * error naming its line). An empty file is an empty table. */
int csv_table_read(const char *path, csv_table *t, sam_error *err);

/* The column of row 0 (the header) called name, or -1. */
int csv_table_column(const csv_table *t, const char *name);

void csv_table_free(csv_table *t);

/* Writes one row, a cell quoted only when it holds a comma, a quote, a
 * line break or blanks at its ends. -1 on a write
 * error. */
int csv_write_row(FILE *f, const char *const *cells, size_t n);

#endif
