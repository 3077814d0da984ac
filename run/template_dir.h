/* A directory written by `samsim template` (templates/template.h), read
 * back: template.conf's keys (the template's name, the expression its
 * phases compute together, the phases in order), and per phase its graph
 * NAME.gv and its hardware NAME.hw. */
#ifndef SAMSIM_TEMPLATE_DIR_H
#define SAMSIM_TEMPLATE_DIR_H

#include "../common/error.h"
#include "../graph/graph.h"
#include "../hwmodel/hw.h"
#include "../templates/template.h"

#define TEMPLATE_DIR_PATH 4096

typedef struct template_dir {
    char path[TEMPLATE_DIR_PATH];
    char conf[TEMPLATE_DIR_PATH];
    char name[64], expr[128];
    char phase[TEMPLATE_MAX_PHASES][32];
    int nphases;
    char gv[TEMPLATE_MAX_PHASES][TEMPLATE_DIR_PATH], hw_path[TEMPLATE_MAX_PHASES][TEMPLATE_DIR_PATH];
    sam_graph g[TEMPLATE_MAX_PHASES];
    int ngraphs;
    hw_desc hw[TEMPLATE_MAX_PHASES];
} template_dir;

/* Whether path is a template directory (it holds template.conf). */
int template_dir_is(const char *path);

/* Reads directory path into *d (zeroed first); on failure what was read
 * is freed. An error names the file and line. */
int template_dir_read(const char *path, template_dir *d, sam_error *err);

void template_dir_free(template_dir *d);

/* The template's operands are the tensors no phase makes: names[0..n-1],
 * the tensors a user binds, must be operands, every operand must be among
 * them, and a phase reads only what a phase before it made. */
int template_dir_check_operands(const template_dir *d, const char *const *names, int n,
                                sam_error *err);

#endif
