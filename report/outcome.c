#include "outcome.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../common/atomic_file.h"
#include "../common/csv_table.h"
#include "../common/number.h"

/* fmt formatted whole (a value may be a path of any length), malloc'd. */
static char *format(const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *text = n < 0 ? NULL : malloc((size_t)n + 1);
    if (text)
        vsnprintf(text, (size_t)n + 1, fmt, again);
    va_end(again);
    return text;
}

void outcome_set(outcome *o, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *value = format(fmt, ap);
    va_end(ap);
    if (outcome_get(o, key) && !o->twice[0])
        snprintf(o->twice, sizeof o->twice, "%s", key);
    sam_error err;
    if (!value || words_add(&o->fields, key, &err) || words_add(&o->fields, value, &err))
        o->failed = 1;
    free(value);
}

int outcome_done(const outcome *o, const char *what, sam_error *err)
{
    if (o->failed)
        return error_set(err, "out of memory");
    if (o->twice[0])
        return error_set(err, "run: %s: the summary would give %s twice (a tensor or phase "
                         "named like another key)", what, o->twice);
    return 0;
}

const char *outcome_get(const outcome *o, const char *key)
{
    for (size_t i = 0; i + 1 < o->fields.n; i += 2)
        if (!strcmp(o->fields.v[i], key))
            return o->fields.v[i + 1];
    return NULL;
}

double outcome_number(const outcome *o, const char *key)
{
    const char *v = outcome_get(o, key);
    double x;
    return v && !number_parse(v, &x) ? x : NAN;
}

void outcome_print(const outcome *o, FILE *f)
{
    for (size_t i = 0; i + 1 < o->fields.n; i += 2)
        fprintf(f, "%s: %s\n", o->fields.v[i], o->fields.v[i + 1]);
}

int outcome_write(const outcome *o, const char *path, sam_error *err)
{
    atomic_file af;
    if (atomic_file_open(&af, path, err))
        return -1;
    int rc = 0;
    for (size_t i = 0; !rc && i + 1 < o->fields.n; i += 2)
        if (csv_write_row(af.f, (const char *const *)&o->fields.v[i], 2))
            rc = error_at(err, af.path, 0, "write error: %s", strerror(errno));
    if (!rc)
        rc = atomic_file_close(&af, err) || atomic_file_publish(&af, err) ? -1 : 0;
    atomic_file_discard(&af);
    return rc;
}

int outcome_read(const char *path, outcome *o, sam_error *err)
{
    csv_table t;
    *o = (outcome){0};
    if (csv_table_read(path, &t, err))
        return -1;
    int rc = 0;
    for (size_t r = 0; !rc && r < t.nrows; r++) {
        const csv_row *row = &t.rows[r];
        if (row->ncells != 2)
            rc = error_at(err, path, row->line, "a record's row holds a key and a value, not "
                          "%zu cells", row->ncells);
        else
            outcome_set(o, row->cells[0], "%s", row->cells[1]);
    }
    csv_table_free(&t);
    if (!rc)
        rc = outcome_done(o, path, err);
    if (rc)
        outcome_free(o);
    return rc;
}

void outcome_free(outcome *o)
{
    words_free(&o->fields);
    *o = (outcome){0};
}
