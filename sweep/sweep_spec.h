/* A sweep specification as written (doc/sweeps.md).
 *
 * SPEC is `key = value` lines, as --config: `#` starts a comment and `\#`
 * writes a `#` in a value. A value may list alternatives separated by
 * `|`, each a value or a range of whole numbers (`A..B`, `A..B step S`,
 * `A..B times F`). `[GROUP=NAME]` starts a section: the sections of a
 * group are alternatives too, each setting its keys over the ones above
 * the first section. `var.NAME` keys only name values; `{NAME}` in any
 * value stands for a var's or a group's value (or another key's).
 *
 * This module reads the file and refuses what is wrong in it alone; the
 * jobs it expands to are sweep_plan.h's. */
#ifndef SAMSIM_SWEEP_SPEC_H
#define SAMSIM_SWEEP_SPEC_H

#include <stddef.h>

#include "../common/error.h"
#include "sweep_keys.h"

/* More jobs than this are refused before any is made. */
#define SWEEP_MAX_JOBS 1000000

/* One alternative as written: a value, or a range standing for count
 * values (first, then each by more, or by times more). */
typedef struct spec_alt {
    char *text;             /* NULL for a range */
    size_t len;             /* of text */
    long long first, by;
    int times;
    size_t count;           /* the values it stands for: 1 for a value */
    size_t start;           /* the line's value index of its first */
} spec_alt;

/* A key = value line and the section it belongs to (-1: above the first
 * section, every job's). */
typedef struct spec_line {
    char *key;
    const sweep_key *kind;
    spec_alt *alts;
    size_t nalts, acap;
    size_t nvalues;         /* its alternatives' values together */
    long line;
    int section;
} spec_line;

typedef struct spec_section {
    char *group, *name;
    size_t group_index;
    long line;
} spec_section;

typedef struct sweep_spec {
    char *path;             /* as given, for messages */
    char *dir;              /* absolute: relative paths start there */
    spec_line *lines;
    size_t nlines, cap;
    spec_section *sections;
    size_t nsections, scap;
    char **groups;          /* distinct group names, first seen first */
    size_t ngroups, gcap;
} sweep_spec;

/* Reads path: each line, its sections and alternatives (a key with more
 * than max_values values is refused), and two groups' sections setting
 * one key. Every problem is one line naming the file and line. */
int sweep_spec_read(const char *path, size_t max_values, sweep_spec *s, sam_error *err);

/* The alternative of line l that value index (< l->nvalues) comes from. */
size_t spec_alt_of(const spec_line *l, size_t index);

/* Value index of line l: its text, or a range's number written into buf;
 * *len its length. */
#define SPEC_NUMBER 24
const char *spec_value(const spec_line *l, size_t index, char buf[SPEC_NUMBER], size_t *len);

void sweep_spec_free(sweep_spec *s);

#endif
