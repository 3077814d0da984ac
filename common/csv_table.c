#include "csv_table.h"

#include <csv.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

typedef struct reader {
    csv_table *t;
    size_t cap;          /* rows */
    csv_row cur;
    size_t cur_cap;      /* cells of cur */
    long line, row_line; /* the line read, and the one cur started on */
    int failed;
} reader;

static void on_field(void *s, size_t len, void *data)
{
    reader *r = data;
    if (r->failed)
        return;
    if (!r->cur.ncells)
        r->cur.line = r->row_line;
    char **more = grow_array(r->cur.cells, r->cur.ncells, &r->cur_cap, sizeof *more, 8);
    char *cell = more ? strndup(s ? s : "", len) : NULL;
    if (!cell) {
        r->failed = 1;
        return;
    }
    r->cur.cells = more;
    r->cur.cells[r->cur.ncells++] = cell;
}

static void on_record(int c, void *data)
{
    (void)c;
    reader *r = data;
    if (r->failed)
        return;
    csv_row *more = grow_array(r->t->rows, r->t->nrows, &r->cap, sizeof *more, 64);
    if (!more) {
        r->failed = 1;
        return;
    }
    r->t->rows = more;
    r->t->rows[r->t->nrows++] = r->cur;
    memset(&r->cur, 0, sizeof r->cur);
    r->cur_cap = 0;
}

static void free_row(csv_row *row)
{
    for (size_t k = 0; k < row->ncells; k++)
        free(row->cells[k]);
    free(row->cells);
}

static int parse(reader *r, FILE *f, struct csv_parser *p, const char *path, sam_error *err)
{
    char *buf = NULL;
    size_t size = 0;
    ssize_t n;
    int rc = 0;
    while (!rc && (n = getline(&buf, &size, f)) > 0) {
        r->line++;
        if (p->pstate == 0) /* not inside a quoted cell: a row starts here */
            r->row_line = r->line;
        if (csv_parse(p, buf, (size_t)n, on_field, on_record, r) != (size_t)n)
            rc = error_at(err, path, r->line, "malformed CSV: a quote out of place or unclosed");
        else if (r->failed)
            rc = error_at(err, path, r->line, "out of memory");
    }
    free(buf);
    if (!rc && ferror(f))
        rc = error_at(err, path, 0, "cannot read: %s", strerror(errno));
    if (!rc && csv_fini(p, on_field, on_record, r) != 0)
        rc = error_at(err, path, r->line, "malformed CSV: a quote out of place or unclosed");
    if (!rc && r->failed)
        rc = error_at(err, path, r->line, "out of memory");
    return rc;
}

int csv_table_read(const char *path, csv_table *t, sam_error *err)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f)
        return error_at(err, path, 0, "cannot open: %s", strerror(errno));
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
        fclose(f);
        return error_at(err, path, 0, "out of memory");
    }
    reader r = {.t = t};
    int rc = parse(&r, f, &p, path, err);
    csv_free(&p);
    fclose(f);
    free_row(&r.cur);
    if (rc)
        csv_table_free(t);
    return rc;
}

int csv_table_column(const csv_table *t, const char *name)
{
    if (!t->nrows)
        return -1;
    for (size_t k = 0; k < t->rows[0].ncells; k++)
        if (!strcmp(t->rows[0].cells[k], name))
            return (int)k;
    return -1;
}

void csv_table_free(csv_table *t)
{
    for (size_t i = 0; i < t->nrows; i++)
        free_row(&t->rows[i]);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* Quotes only where a reader needs them, so that line tools (awk -F,
 * cut) still read plain rows. */
static int needs_quotes(const char *s)
{
    size_t n = strlen(s);
    return strpbrk(s, ",\"\r\n") || (n && (s[0] == ' ' || s[n - 1] == ' '));
}

int csv_write_row(FILE *f, const char *const *cells, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (k && fputc(',', f) == EOF)
            return -1;
        if (needs_quotes(cells[k]) ? csv_fwrite(f, cells[k], strlen(cells[k]))
                                   : fputs(cells[k], f) == EOF)
            return -1;
    }
    return fputc('\n', f) == EOF ? -1 : 0;
}
