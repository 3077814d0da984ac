/* Parameters declared as data, as gem5's Param: a name, a unit, a
 * meaning, a default and a range. One declaration serves the reader that
 * takes a value (checked the same way everywhere), the help and the
 * listings that show it, and the reference generated from it: a block
 * implementation's node attributes (engine/block.h), the hardware keys
 * (hwmodel/hw.h) and a template's parameters (templates/template.h). */
#ifndef SAMSIM_PARAM_H
#define SAMSIM_PARAM_H

#include <stddef.h>
#include <stdio.h>

typedef struct param {
    const char *name;       /* NULL ends a list */
    const char *unit;       /* what a value counts: "bytes", "cycles", "0 or 1" */
    const char *about;
    double def, min, max;
    int whole;              /* a whole number */
    size_t offset;          /* where the value lives in the struct a list
                               describes, for lists read into one (hw_desc) */
} param;

/* The declaration of the name of len bytes in list, or NULL. */
const param *param_find(const param *list, const char *name, size_t len);

/* Reads text as a value of p into *v: 0, or -1 with why (of size) set to
 * "NAME = TEXT is not a whole number MIN..MAX (UNIT)". */
int param_parse(const param *p, const char *text, double *v, char *why, size_t size);

/* Whether v is a value of p. */
int param_accepts(const param *p, double v);

/* "default D, a whole number MIN to MAX" (of size). */
void param_range(const param *p, char *buf, size_t size);

/* Every parameter of list as a line "NAME  UNIT; default D, ... to MAX"
 * and its meaning wrapped under it, at indent (the names in a column as
 * wide as the longest, at least 15). */
void param_print_list(FILE *f, const param *list, int indent);

/* The same as a troff list (.TP per parameter) for a man page. */
void param_print_man(FILE *f, const param *list);

/* The same as the rows of a Markdown table: name, unit, default, range,
 * meaning. */
void param_print_markdown(FILE *f, const param *list);

#endif
