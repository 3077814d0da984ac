/* Accelerator templates (`samsim template`): a known sparse accelerator
 * as SAM graphs compiled by Custard and the hardware they run on, written
 * as plain files a user can read and edit. A template is one file behind
 * this interface (extensor.c, outerspace.c, gamma.c, sigma.c): its
 * parameters declared as data (unit, default, range) and a plan that turns
 * their values into the compiler's arguments, the block settings the
 * graph carries as node attributes, and the `--hw` description of each
 * phase. Every template computes Z(i,j) = A(i,k) B(k,j), its operands
 * bound by the names A and B; a phase whose operand is named as an
 * earlier phase's result takes that result (OuterSPACE's partial
 * products T). */
#ifndef SAMSIM_TEMPLATE_H
#define SAMSIM_TEMPLATE_H

#include "../common/error.h"
#include "../common/param.h"
#include "../custard/compile.h"

#define TEMPLATE_MAX_PARAMS 24
#define TEMPLATE_MAX_PHASES 2
#define TEMPLATE_MAX_FORMATS 4
#define TEMPLATE_TEXT 4096

/* A split no matrix reaches: one tile of everything, the level a buffer
 * holds whole (a FiberCache holding B, a data SRAM holding Z). */
#define TEMPLATE_ONE_TILE (1 << 30)


/* One graph and the hardware it runs on. */
typedef struct template_phase {
    char name[32];          /* the files' stem: NAME.gv, NAME.hw */
    char expr[128];
    char formats[TEMPLATE_MAX_FORMATS][64];
    int nformats;
    char schedule[128];     /* reorder(...) */
    char tiling[512];       /* split(...) and tileorder(...) commands */
    char locate[32];
    char parallelize[32];
    char settings[256];     /* TYPE.NAME=VALUE, blank-separated: node attributes */
    char hw[TEMPLATE_TEXT]; /* the --hw file */
} template_phase;

/* What every template's phases compute together, for --check. */
#define TEMPLATE_EXPR "Z(i,j)=A(i,k)*B(k,j)"

typedef struct template_plan {
    template_phase phase[TEMPLATE_MAX_PHASES];
    int nphases;
} template_plan;

typedef struct template_def {
    const char *name;
    const char *about;
    const param *params;            /* common/param.h; a NULL name ends it */
    /* Fills plan from the parameters' values (in params' order). */
    void (*plan)(const struct template_def *t, const double *values, template_plan *plan);
} template_def;

/* Every template, NULL-terminated. */
extern const template_def *const templates[];

const template_def *template_find(const char *name);

/* Every parameter at its default. */
void template_defaults(const template_def *t, double *values);

/* Sets one parameter from "KEY=VALUE"; an unknown key, a value that is
 * not a number of its kind or out of its range is an error naming the
 * template, the key and its range. */
int template_set(const template_def *t, double *values, const char *assignment, sam_error *err);

/* Whether the parameters, each in its range, also make hardware that
 * `samsim run` accepts (what several make together, such as a PE count);
 * an error names the template, the phase's hw file and the key. */
int template_check(const template_def *t, const double *values, sam_error *err);

/* The value of key (which the template declares). */
double template_value(const template_def *t, const double *values, const char *key);

/* The plan of t at values, checked as template_check checks it, and each
 * phase's graph compiled with its settings applied into graphs[0..
 * plan->nphases - 1] (each freed with graph_free), in memory: what
 * template_write writes. On failure nothing is left to free. */
int template_build(const template_def *t, const double *values, template_plan *plan,
                   sam_graph *graphs, sam_error *err);

/* Compiles every phase of t at values and writes into dir (made when
 * missing): template.conf, and per phase NAME.gv and NAME.hw. Every file
 * is made before any is written, so a failure writes nothing. */
int template_write(const template_def *t, const double *values, const char *dir,
                   sam_error *err);

/* A new phase of plan computing expr, its files named name. */
template_phase *template_phase_add(template_plan *plan, const char *name, const char *expr);

/* Adds a -f value ("Z:ss") to the phase's formats. */
void template_format(template_phase *p, const char *format);

/* Appends `KEY = VALUE` to the phase's hw text for each of the blank-
 * separated keys, parameters of t named as the --hw keys they set. */
void template_hw_keys(template_phase *p, const template_def *t, const double *values,
                      const char *keys);

/* Appends dram.interleave = 1, with why, to the phase's hw text: each
 * accelerator's main memory serves its many requests in flight a burst
 * at a time, and TeAAL times a memory by its bytes over its bandwidth. */
void template_hw_dram_interleaved(template_phase *p);

/* Appends a printf-formatted line to a phase's hw text. */
void template_hw(template_phase *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The phase's compiler arguments. */
void template_compile_args(const template_phase *p, compile_args *a, const char **formats);

#endif
