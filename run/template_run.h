/* A template's phases run in order in memory: what `samsim run DIR` does
 * once it has read the directory (run_template.h), and what a harness does
 * with graphs it compiles. The tensors are held by name, the operands
 * bound first and then each phase's result, which a later phase reads by
 * name; a name is held once. Each phase runs on its tiles through its
 * memories (run_tiled.h), and what it moved to and from DRAM is added up
 * by tensor. */
#ifndef SAMSIM_TEMPLATE_RUN_H
#define SAMSIM_TEMPLATE_RUN_H

#include <stddef.h>

#include "../report/outcome.h"
#include "../report/trace_hw.h"
#include "../templates/template.h"
#include "template_dir.h"
#include "tiled.h"

#define TRUN_MAX_TENSORS 8

typedef struct trun_tensor {
    char name[64];
    int operand;            /* bound, not a phase's result */
    tensor t;
    double traffic;         /* bytes moved to and from DRAM */
    double read_back;       /* of those, a result's partial outputs read back */
    double once;            /* bytes of it moved once in its format, its
                               explicit zeros left out (traffic_min's share) */
    size_t zeros;           /* a result's explicit zeros: written, so in
                               traffic, but not entries of the tensor */
} trun_tensor;

typedef struct trun_phase {
    char name[32];
    cycle_t cycles;
    tiled_outcome out;      /* its statistics, when asked for, and memories */
} trun_phase;

typedef struct trun {
    engine_mode engine;
    int stats;              /* keep every phase's statistics */
    size_t trace;           /* about how many slices each phase's timeline on
                               its hardware keeps (hwmodel/hw_trace.h); 0: none */
    trun_tensor tensor[TRUN_MAX_TENSORS];
    int ntensors;
    trun_phase phase[TEMPLATE_MAX_PHASES];
    int nphases;
    cycle_t cycles;
    double seconds;         /* each phase's cycles at its clock */
    double bound_cycles;    /* TeAAL's bound (hwmodel/bound.h), each phase's added */
    double bound_part[BOUND_COMPONENTS];    /* each component's, each phase's added */
    double bound_seconds;
    double pe_busy, pe_units, dram_busy;
    uint64_t tokens;
} trun;

void trun_init(trun *r, engine_mode engine, int stats);

/* Binds operand name to *t, which r takes over (freed by trun_free); a
 * name held already is an error. */
int trun_bind(trun *r, const char *name, tensor *t, sam_error *err);

/* Runs phase name: graph g (which records its expression) on its tiles
 * as tiling says (NULL: as g records; the graph is the same whatever the
 * splits' sizes) through hw's memories, its operands the tensors of its
 * names, its result a new tensor of r. The last phase's result is the
 * template's, whose explicit zeros are left out (counted in its zeros) as
 * its points add to it. g must outlive r's statistics. An error names
 * the graph and the phase. */
int trun_run_phase(trun *r, const char *name, const sam_graph *g, const char *tiling,
                   const hw_desc *hw, int last, sam_error *err);

/* Runs every phase of plan in order, graphs[p] (template_build's) on the
 * hardware its hw text describes. */
int trun_run_plan(trun *r, const template_plan *plan, const sam_graph *graphs, sam_error *err);

/* The last phase's result, its explicit zeros taken out (counted in its
 * zeros): the template's result. NULL before any phase ran. */
trun_tensor *trun_result(trun *r);

/* --check: the result against expr evaluated on the operands; as
 * check_result (check.h). */
int trun_check(trun *r, const char *path, const char *expr, char *verdict, size_t size,
               sam_error *err);

/* traffic_min: each operand moved once and the result written once, in
 * their formats; dram_bytes: every tensor's traffic. */
double trun_traffic_min(const trun *r);
double trun_dram_bytes(const trun *r);

/* Runs every phase of template directory d in order. */
int trun_run_dir(trun *r, const template_dir *d, sam_error *err);

/* The summary's fields of a run whose phases all ran: the template's
 * name, the cycles and bounds (each phase's too when there are several),
 * the check's verdict, the wall time and every tensor's traffic. */
void trun_record(trun *r, const char *template_name, const char *verdict, double wall,
                 outcome *o);

/* Writes the timelines of a run whose phases ran with r->trace to path:
 * a process per phase, laid end to end (report/trace_hw.h), named by the
 * template and the phase. */
int trun_write_trace(const trun *r, const char *template_name, const trace_options *o,
                     const char *path, sam_error *err);

void trun_free(trun *r);

#endif
