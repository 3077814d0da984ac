/* A hardware description (`samsim run --hw FILE`): the clock, the memories
 * a tiled run's tiles travel through (DRAM, then a last-level buffer, then
 * the processing element's buffer) and how many bytes each stored number
 * takes. The file has `--config`'s syntax, one `key = value` a line, and
 * every key is declared in hw_params with its unit, default and range;
 * the defaults are those of the SAM paper's ExTensor study (section 6.4)
 * where it gives them. */
#ifndef SAMSIM_HW_H
#define SAMSIM_HW_H

#include <stddef.h>
#include <stdint.h>

#include "../common/error.h"
#include "../common/param.h"
#include "../formats/layout.h"

/* The memories, outermost first: DRAM holds every tensor; each buffer
 * inward holds the tiles of one tiling level (the innermost tiles, which
 * the computation graph runs on, in the PE buffer). */
typedef enum { HW_DRAM, HW_LLB, HW_PE, HW_MEMORIES } hw_memory_id;

extern const char *const hw_memory_names[HW_MEMORIES];

typedef struct hw_memory {
    double capacity;        /* bytes; DRAM: unbounded */
    double bandwidth;       /* GB/s out of it, toward the next memory inward */
    double latency;         /* cycles before a transfer's first byte arrives */
    double buffering;       /* tiles of one tensor it holds at once (n-buffering) */
    double line;            /* bytes: every transfer is whole lines */
    double reuse;           /* 1: a tile in any of its slots serves a later point */
    double interleave;      /* 1: its links split transfers across free stretches */
} hw_memory;

#define HW_MAX_PLACES 16
#define HW_NAME 64

/* `place.T = pe`: tensor T's tiles live in the PE buffer only, passing
 * through the LLB between it and DRAM; `place.T = llb,pe` (every tensor's
 * placement unless given) keeps them in the LLB too, for the tiling level
 * it holds; `place.T = cache` (an operand) makes the LLB a cache of the
 * fibers of T's outermost level, which the PE streams (hwmodel/memory.h). */
typedef struct hw_place {
    char tensor[HW_NAME];
    int llb;                /* the LLB holds T's tiles */
    int cache;              /* the LLB caches T's fibers */
    char origin[1024];      /* "PATH:LINE", for a tensor the run lacks */
} hw_place;

/* `layout.T = coo` or `layout.T = ds`: how the memories store tensor T's
 * tiles, whatever format its graph reads, and `bytes.T.crd = 4,0,4`,
 * `bytes.T.ref`, `bytes.T.val`: its own byte widths, per level
 * (formats/layout.h); its bytes moved, held and in the minimum traffic
 * are that layout's. */
typedef struct hw_layout {
    char tensor[HW_NAME];
    storage_layout layout;
    unsigned given;         /* which keys: HW_LAYOUT_FORM, _CRD, _REF, _VAL */
    char origin[1024];      /* "PATH:LINE" of the first */
} hw_layout;

enum { HW_LAYOUT_FORM = 1, HW_LAYOUT_CRD = 2, HW_LAYOUT_REF = 4, HW_LAYOUT_VAL = 8 };

typedef struct hw_desc {
    double clock_ghz;
    hw_memory mem[HW_MEMORIES];
    double bytes_crd;       /* a coordinate (crd arrays) */
    double bytes_ref;       /* a reference (seg arrays) */
    double bytes_val;       /* a value */
    double pe_count;        /* processing elements, each with a PE buffer */
    double pe_dynamic;      /* 1: points go to the PE that is free first */
    double pe_merge;        /* 1: the PE level's result tile is merged beside the PEs */
    double llb_eager;       /* 1: a final result PE tile goes on to DRAM at once */
    double pe_stream;       /* 1: a PE streams its points (hwmodel/pipeline.h) */
    double llb_partials;    /* 1: a result tile back in the LLB moves by PE tiles */
    double llb_lazy;        /* 1: an LLB tile fills by the PE tiles points need */
    double pe_release;      /* 1: a PE tile's slot frees when its last reader is done */
    double pe_rate;         /* tokens a PE's blocks each take a cycle */
    double lane_share;      /* lanes sharing pe_rate: a lane's blocks take pe_rate / it */
    double result_timed;    /* 0: the result's transfers take no time */
    double llb_write_bandwidth; /* GB/s from the PEs to the LLB, 0: llb.bandwidth's link */
    hw_place place[HW_MAX_PLACES];
    int nplaces;
    hw_layout layout[HW_MAX_PLACES];
    int nlayouts;
    /* `fit.llb = ...`: what a refusal of a tile too large for that buffer
       adds (a template names the parameters that make tiles fit). */
    char fit[HW_MEMORIES][256];
} hw_desc;

/* Every key (common/param.h), each with where its value lives in hw_desc;
 * a NULL name ends the list. */
extern const param hw_params[];

/* Every key at its default. */
void hw_defaults(hw_desc *hw);

/* Reads path over the defaults. A key that is not declared, a value that
 * is not a number of its kind, or one out of its range is an error naming
 * the file, the line and the key's range; so is a placement other than
 * pe, llb,pe or cache, or one given twice for a tensor. */
int hw_read(const char *path, hw_desc *hw, sam_error *err);

/* The same over a description held in memory, named name in messages. */
int hw_read_text(const char *name, const char *text, hw_desc *hw, sam_error *err);

/* Sets one key as a line `key = value` of a file would; origin names
 * where it was given ("PATH:LINE"), for messages. */
int hw_set(hw_desc *hw, const char *key, const char *value, const char *origin, sam_error *err);

/* Whether the LLB holds tensor name's tiles (it does unless placed). */
int hw_llb_holds(const hw_desc *hw, const char *name);

/* Tensor name's placement, NULL when it has none. */
const hw_place *hw_place_of(const hw_desc *hw, const char *name);

/* A placement of a tensor that is not among names[0..n-1] is an error
 * naming the file and line it was given at. */
int hw_check_places(const hw_desc *hw, const char *const *names, int n, sam_error *err);

/* Tensor name's layout, NULL when the memories store it in its format. */
const storage_layout *hw_layout_of(const hw_desc *hw, const char *name);

/* A layout of a tensor not among names[0..n-1], or one whose levels do
 * not match that tensor's format formats[k], is an error naming the file
 * and line it was given at. */
int hw_check_layouts(const hw_desc *hw, const char *const *names,
                     const level_format *const *formats, int n, sam_error *err);

#endif
