#include "tiled.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/grow.h"
#include "../custard/tileseq.h"
#include "../custard/tiling.h"
#include "../formats/tile.h"
#include "../hwmodel/pipeline.h"
#include "../builder/result.h"
#include "../hwmodel/result_tiles.h"
#include "fibers.h"
#include "final_points.h"

#define TILED_MAX_TENSORS 64
/* Result entries below which appended partial sums are left as they are
 * (compact_result). */
#define COMPACT_MIN ((size_t)1 << 20)

/* An operand of the expression and the trees the simulation reads. */
typedef struct operand {
    const graph_tensor *gt;         /* in the graph, NULL for the result */
    const tensor *whole;
    tiled_tensor tt;
    int tiled;
    fibertree **trees;              /* per tile, built when first needed */
    double *bytes;                  /* per tile, its tree's bytes (with memories) */
    /* With memories, the tiles of each level above the innermost: each
     * innermost tile's number there, and each one's bytes. */
    tiled_tensor outer[MEM_MAX_LEVELS];
    size_t *outer_of[MEM_MAX_LEVELS];
    double *outer_bytes[MEM_MAX_LEVELS];
    fibertree whole_tree;           /* an operand not tiled, built once */
    double whole_bytes;
    int has_whole_tree;
    /* Cached (place.T = cache): its outermost fibers per tile (the whole
     * operand's in fibers[0] when it is not tiled), listed when a point
     * first needs them, and the fibers the point touches. */
    int cached;
    tile_fibers *fibers;
    fiber_touch touch;
} operand;

typedef struct tiled_state {
    const sam_graph *g;
    const tiled_request *r;
    expr e;
    tiling spec;
    tile_split split[EXPR_MAX_INDICES];
    int loop_index[TILE_MAX_KEYS], loop_level[TILE_MAX_KEYS], nloop;
    operand op[TILED_MAX_TENSORS];
    tensor *result;
    size_t compact_at;              /* result entries that call for a compaction */
    tiled_outcome *out;
    mem_model *mem;                 /* NULL without memories */
    pipeline *pipes;                /* per processing element */
    int64_t *holds;                 /* per processing element, its last point's
                                       result tile (-1: none yet) */
    unsigned char *final;           /* llb.eager: per point visited, whether it is
                                       final (run/final_points.h); else NULL */
    size_t visits;                  /* points visited so far */
    int npe;
    /* Per block of the PE's graph, the cycles it was busy over every point
     * (with memories: the PEs' actions in TeAAL's bound, hwmodel/bound.h). */
    double *block_busy;
    int nbusy;
    /* With pe.release: per block of the PE's graph, the operand whose
     * tiles it reads (its tensor=, as the memories number them; -1: none),
     * and per operand the cycles of the point's run it read its tile. */
    int *block_reads;
    double read_until[MEM_MAX_TENSORS];
    result_tiles partial[MEM_MAX_LEVELS];   /* the result's tiles at each level */
    mem_tile *mem_tiles;            /* a point's, operand by operand */
    /* The graph's build and result, looked up once for every point. */
    sim_plan plan;
    sim_result_plan result_plan;
    sim_engine engine;              /* each point's, in the arrays of the one before */
    sim_data data;                  /* each point's bindings, in the list of the one before */
    /* Per loop that tiles an index of the result, its tiles' width
     * (tile_split_width, which counts them each time), else -1. */
    int64_t result_width[TILE_MAX_KEYS];
    sam_error *err;
} tiled_state;

/* The computation's loop order: the graph's schedule, or else the
 * result's indices and then the summed ones (any order visits the same
 * tiles; this one keeps a result tile's partial sums together). */
static int loop_order(const tiled_state *s, int *loop, sam_error *err)
{
    const char *sched = graph_attr_get(s->g, "schedule");
    int n = 0;
    if (sched && !strncmp(sched, "reorder(", 8)) {
        for (const char *q = sched + 8; *q && *q != ')' && n < s->e.nindices;) {
            size_t len = strcspn(q, ",)");
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)len, q);
            int idx = expr_find_index(&s->e, name);
            if (idx < 0)
                return error_set(err, "the graph's schedule %s names %s, which the expression "
                                 "lacks", sched, name);
            loop[n++] = idx;
            q += len + (q[len] == ',');
        }
        return n == s->e.nindices ? n
                                  : error_set(err, "the graph's schedule %s misses indices of the "
                                              "expression", sched);
    }
    const expr_node *lhs = s->e.lhs;
    for (int m = 0; m < lhs->order; m++)
        loop[n++] = lhs->index[m];
    for (int i = 0; i < s->e.nindices; i++) {
        int placed = 0;
        for (int m = 0; m < lhs->order; m++)
            placed |= lhs->index[m] == i;
        if (!placed)
            loop[n++] = i;
    }
    return n;
}

/* Where index idx is in operand t (0: the result): its mode, -1 when it
 * is not. */
static int mode_of(const tiled_state *s, int t, int idx)
{
    return expr_access_mode(expr_access(&s->e, t), idx);
}

static int bind_operands(tiled_state *s, const tensor *operands, sam_error *err)
{
    if (s->e.ntensors > TILED_MAX_TENSORS)
        return error_set(err, "more than %d tensors to tile", TILED_MAX_TENSORS);
    for (int t = 1; t < s->e.ntensors; t++) {
        for (int k = 1; k < s->g->ntensors && !s->op[t].gt; k++)
            if (!strcmp(s->g->tensors[k].name, s->e.tensors[t].name)) {
                s->op[t].gt = &s->g->tensors[k];
                s->op[t].whole = &operands[k];
            }
        if (!s->op[t].gt)
            return error_at(err, s->g->path, 0, "the graph has no tensor %s of the expression",
                            s->e.tensors[t].name);
    }
    return 0;
}

/* Cuts every index as the schedule says, its size taken from an operand. */
static int split_indices(tiled_state *s, sam_error *err)
{
    const tensor *leader[TILED_MAX_TENSORS] = {0};
    int64_t dims[EXPR_MAX_INDICES];
    for (int i = 0; i < s->e.nindices; i++) {
        dims[i] = -1;
        for (int t = 1; t < s->e.ntensors && dims[i] < 0; t++)
            if (mode_of(s, t, i) >= 0)
                dims[i] = s->op[t].whole->dims[mode_of(s, t, i)];
        dims[i] = dims[i] > 0 ? dims[i] : 1;
    }
    for (int t = 1; t < s->e.ntensors; t++)
        leader[t] = s->op[t].whole;
    return tiling_cut(&s->spec, &s->e, leader, dims, s->split, err);
}

/* The bytes of operand t's tile content (its tree ft, or NULL) as the
 * hardware stores it: in its layout when the hardware gives one, else as
 * the tree. */
static int tile_bytes(const tiled_state *s, int t, const tensor *content, const fibertree *ft,
                      double *bytes, sam_error *err)
{
    const hw_desc *hw = s->r->hw;
    const operand *op = &s->op[t];
    const storage_layout *l = hw_layout_of(hw, op->gt->name);
    fibertree own;
    if (l)
        return storage_layout_tensor_bytes(l, &op->gt->format, content, hw->bytes_crd,
                                           hw->bytes_ref, hw->bytes_val, bytes, err);
    if (!ft && fibertree_build(content, &op->gt->format, &own, err))
        return error_wrap(err, "%s: a tile of %s", s->g->path, op->gt->name);
    *bytes = fibertree_bytes(ft ? ft : &own, hw->bytes_crd, hw->bytes_ref, hw->bytes_val);
    if (!ft)
        fibertree_free(&own);
    return 0;
}

/* Whether operand t is stored as its innermost tiles (layout.h). */
static int stored_tiled(const tiled_state *s, int t)
{
    const storage_layout *l = hw_layout_of(s->r->hw, s->op[t].gt->name);
    return l && l->tiled;
}

/* The bytes of operand t's tiles at level l: each stored whole, or the
 * sum of the innermost tiles it holds. */
static int outer_bytes(tiled_state *s, int t, int l, sam_error *err)
{
    operand *op = &s->op[t];
    const tiled_tensor *o = &op->outer[l];
    if (!stored_tiled(s, t)) {
        for (size_t k = 0; k < o->ntiles; k++)
            if (tile_bytes(s, t, &o->tiles[k].content, NULL, &op->outer_bytes[l][k], err))
                return -1;
        return 0;
    }
    for (size_t k = 0; k < o->ntiles; k++)
        op->outer_bytes[l][k] = 0;
    for (size_t i = 0; i < op->tt.ntiles; i++)
        op->outer_bytes[l][op->outer_of[l][i]] += op->bytes[i];
    return 0;
}

/* The tiles at level l of operand t (its splits cut short below l), their
 * bytes, and each innermost tile's number among them: the prefix of its
 * key that the level's tiles have. */
static int outer_tiles(tiled_state *s, int t, int l, sam_error *err)
{
    operand *op = &s->op[t];
    tile_split modes[TENSOR_MAX_ORDER];
    for (int m = 0; m < op->whole->order; m++) {
        modes[m] = s->split[expr_access(&s->e, t)->index[m]];
        modes[m].nlevels = modes[m].nlevels < l + 1 ? modes[m].nlevels : l + 1;
    }
    tiled_tensor *o = &op->outer[l];
    if (tensor_tile(op->whole, modes, o, err))
        return -1;
    op->outer_of[l] = malloc((op->tt.ntiles + 1) * sizeof *op->outer_of[l]);
    op->outer_bytes[l] = malloc((o->ntiles + 1) * sizeof *op->outer_bytes[l]);
    if (!op->outer_of[l] || !op->outer_bytes[l])
        return error_set(err, "out of memory");
    /* Both lists are in key order, so the prefixes only go forward. */
    size_t key_bytes = (size_t)o->nkeys * sizeof(int64_t);
    for (size_t i = 0, k = 0; i < op->tt.ntiles; i++) {
        while (memcmp(o->tiles[k].key, op->tt.tiles[i].key, key_bytes))
            k++;
        op->outer_of[l][i] = k;
    }
    return outer_bytes(s, t, l, err);
}

/* With memories, what the model needs of operand t's tiles; stored as
 * its innermost tiles, their bytes now (the larger tiles' are their sums)
 * and the operand's, their total. */
static int memory_tiles(tiled_state *s, int t, sam_error *err)
{
    operand *op = &s->op[t];
    op->bytes = malloc((op->tt.ntiles + 1) * sizeof *op->bytes);
    if (!op->bytes)
        return error_set(err, "out of memory");
    if (stored_tiled(s, t) && t <= MEM_MAX_TENSORS) {
        double *stored = &s->out->stored[t - 1];
        for (size_t i = 0; i < op->tt.ntiles; i++) {
            if (tile_bytes(s, t, &op->tt.tiles[i].content, NULL, &op->bytes[i], err))
                return -1;
            *stored += op->bytes[i];
        }
    }
    for (int l = 0; l + 1 < s->spec.depth; l++)
        if (outer_tiles(s, t, l, err))
            return -1;
    return 0;
}

/* Tiles every operand that has a split index. */
static int tile_operands(tiled_state *s, sam_error *err)
{
    if (split_indices(s, err))
        return -1;
    for (int t = 1; t < s->e.ntensors; t++) {
        operand *op = &s->op[t];
        tile_split modes[TENSOR_MAX_ORDER];
        int any = 0;
        for (int m = 0; m < op->whole->order; m++) {
            int idx = expr_access(&s->e, t)->index[m];
            modes[m] = s->split[idx];
            any |= modes[m].nlevels > 0;
        }
        if (!any)
            continue;
        if (tensor_tile(op->whole, modes, &op->tt, err))
            return error_wrap(err, "tiling %s", s->e.tensors[t].name);
        op->tiled = 1;
        op->trees = calloc(op->tt.ntiles + 1, sizeof *op->trees);
        if (!op->trees)
            return error_set(err, "out of memory");
        if (s->r->hw && memory_tiles(s, t, err))
            return -1;
    }
    return 0;
}

/* The first coordinate and the extent of index idx's tile at level
 * `level` (or its innermost, when it has fewer) at the tile point coord. */
static void level_tile_at(const tiled_state *s, int idx, const int64_t *coord, int level,
                          int64_t *first, int64_t *extent)
{
    int64_t c[TILE_MAX_LEVELS];
    int last = -1;
    /* Every level of a split index is a loop. */
    for (int k = 0; k < s->nloop; k++)
        if (s->loop_index[k] == idx && s->loop_level[k] <= level) {
            c[s->loop_level[k]] = coord[k];
            last = s->loop_level[k] > last ? s->loop_level[k] : last;
        }
    tile_split_at(&s->split[idx], last, c, first, extent);
}

/* The first coordinate and the extent of index idx's innermost tile at
 * the tile point coord. */
static void tile_at(const tiled_state *s, int idx, const int64_t *coord, int64_t *first,
                    int64_t *extent)
{
    level_tile_at(s, idx, coord, TILE_MAX_LEVELS, first, extent);
}

/* Operand t's tree at the tile point: its tile's, built once; an empty
 * tree of the tile's extents where the point lacks its tile; the whole
 * operand when it is not tiled. */
static const fibertree *tree_at(tiled_state *s, int t, size_t tile, const int64_t *coord,
                                fibertree *empty, sam_error *err)
{
    operand *op = &s->op[t];
    const level_format *f = &op->gt->format;
    if (!op->tiled) {
        if (op->has_whole_tree)
            return &op->whole_tree;
        if (fibertree_build(op->whole, f, &op->whole_tree, err))
            return NULL;
        op->has_whole_tree = 1;
        if (s->r->hw && tile_bytes(s, t, op->whole, &op->whole_tree, &op->whole_bytes, err))
            return NULL;
        return &op->whole_tree;
    }
    if (tile != TILESEQ_ABSENT) {
        if (!op->trees[tile]) {
            fibertree *ft = malloc(sizeof *ft);
            if (!ft || fibertree_build(&op->tt.tiles[tile].content, f, ft, err)) {
                free(ft);
                return NULL;
            }
            op->trees[tile] = ft;
            if (op->bytes && tile_bytes(s, t, &op->tt.tiles[tile].content, ft,
                                        &op->bytes[tile], err))
                return NULL;
        }
        return op->trees[tile];
    }
    int64_t dims[TENSOR_MAX_ORDER], first;
    for (int m = 0; m < op->whole->order; m++)
        tile_at(s, expr_access(&s->e, t)->index[m], coord, &first, &dims[m]);
    tensor none;
    if (tensor_init(&none, op->whole->order, dims, err))
        return NULL;
    int rc = fibertree_build(&none, f, empty, err);
    tensor_free(&none);
    return rc ? NULL : empty;
}

/* Points of a reduction split across tiles each append an entry for the
 * same result coordinates (SIGMA's K slabs: eight entries for each of
 * Z's 60 million). Once the result has doubled since it was last summed,
 * its duplicates are summed in place, so that it holds about twice its
 * distinct entries, not one for every point that added to them. The sort
 * is stable and the sums run in the order the points came, as the final
 * canonicalization's would: the result is the same to the bit. */
static int compact_result(tiled_state *s, sam_error *err)
{
    if (s->result->nnz < s->compact_at)
        return 0;
    if (tensor_canonicalize(s->result, NULL, err))
        return -1;
    s->compact_at = 2 * s->result->nnz > COMPACT_MIN ? 2 * s->result->nnz : COMPACT_MIN;
    return 0;
}

/* Adds the tile's result, at the tile's place, to the whole result. */
static int add_result(tiled_state *s, const tensor *part, const int64_t *coord, sam_error *err)
{
    int64_t first[TENSOR_MAX_ORDER], extent, at[TENSOR_MAX_ORDER];
    for (int m = 0; m < part->order; m++)
        tile_at(s, s->e.lhs->index[m], coord, &first[m], &extent);
    int rc = 0;
    for (size_t i = 0; i < part->nnz && !rc; i++) {
        if (s->r->drop_zeros && part->order && part->vals[i] == 0) {
            s->out->zeros++;
            continue;
        }
        for (int m = 0; m < part->order; m++)
            at[m] = first[m] + part->crd[m][i];
        if (part->order == 0 && s->result->nnz)
            s->result->vals[0] += part->vals[i];
        else
            rc = tensor_append(s->result, at, part->vals[i], err);
    }
    return rc ? rc : compact_result(s, err);
}

/* "(i1=0,k1=3)": the point's tile coordinates by name. */
static void describe_point(const tiled_state *s, const int64_t *coord, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "(");
    for (int k = 0; k < s->nloop && used < size; k++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s=%lld", k ? "," : "",
                                 s->spec.level[s->loop_index[k]][s->loop_level[k]].outer,
                                 (long long)coord[k]);
    if (used < size)
        snprintf(buf + used, size - used, ")");
}

/* Simulates the graph built in e on the bound data for at most limit
 * cycles: 0 with its outcome and result tile; 1 when it stops short
 * (deadlocked or at the limit), report saying how; -1 on an error. */
static int simulate_tile(tiled_state *s, sim_engine *e, const sim_data *d, cycle_t limit,
                         sim_outcome *out, tensor *part, char *report, size_t size)
{
    uint64_t rate = s->r->hw ? (uint64_t)s->r->hw->pe_rate : 1;
    e->split = s->r->split;
    int rc = sim_engine_run(e, s->r->engine, limit > CYCLE_NONE / rate ? limit : limit * rate,
                            out, report, size, s->err);
    if (rate > 1)
        sim_engine_widen(e, rate, &out->cycles);
    if (rc)
        return rc;
    fibertree ft;
    s->out->tokens += out->tokens;
    s->out->tiles_run++;
    if (sim_result_planned(e, &s->result_plan, d, &ft, s->err))
        return -1;
    rc = fibertree_to_tensor(&ft, part, s->err);
    fibertree_free(&ft);
    return rc ? -1 : 0;
}

/* The point's result tile at level `level`: its coordinates down to that
 * level, as one number. */
static int64_t result_tile_id(const tiled_state *s, const int64_t *coord, int level)
{
    int64_t id = 0;
    for (int k = 0; k < s->nloop; k++)
        if (s->result_width[k] >= 0 && s->loop_level[k] <= level)
            id = id * s->result_width[k] + coord[k];
    return id;
}

/* The result's tiles the point adds part to, level by level. */
static int result_levels(tiled_state *s, const int64_t *coord, const tensor *part,
                         mem_result *out)
{
    int64_t inner[TENSOR_MAX_ORDER], outer, offset[TENSOR_MAX_ORDER], extent;
    const expr_node *lhs = s->e.lhs;
    for (int m = 0; m < lhs->order; m++)
        tile_at(s, lhs->index[m], coord, &inner[m], &extent);
    for (int l = 0; l < s->spec.depth; l++) {
        for (int m = 0; m < lhs->order; m++) {
            level_tile_at(s, lhs->index[m], coord, l, &outer, &extent);
            offset[m] = inner[m] - outer;
        }
        out[l].id = result_tile_id(s, coord, l);
        out[l].final = s->final && l == s->spec.depth - 1 && final_points_is(s->final, s->visits);
        if (result_tiles_add(&s->partial[l], out[l].id, part, offset, &out[l].before,
                             &out[l].after, s->err))
            return -1;
    }
    return 0;
}

/* A tile point, for mem_visit's where. */
typedef struct named_point {
    const tiled_state *s;
    const int64_t *coord;
} named_point;

static void name_point(const void *ctx, char *buf, size_t size)
{
    const named_point *p = ctx;
    describe_point(p->s, p->coord, buf, size);
}

/* Cached operand t's fibers in its tile at the point (built then, from
 * the tree the point ran on). */
static const tile_fibers *fibers_at(tiled_state *s, int t, const size_t *tile)
{
    operand *op = &s->op[t];
    size_t k = op->tiled ? tile[t] : 0;
    tile_fibers *f = &op->fibers[k];
    const storage_layout *l = hw_layout_of(s->r->hw, op->gt->name);
    const tensor *content = op->tiled ? &op->tt.tiles[k].content : op->whole;
    if (!f->crd) {
        const fibertree *ft = op->tiled ? op->trees[k] : &op->whole_tree;
        if (l ? tile_fibers_build_stored(content, &op->gt->format, l, s->r->hw, f, s->err) :
                tile_fibers_build(ft, s->r->hw, f, s->err))
            return error_wrap(s->err, "%s: place.%s = cache", s->g->path, op->gt->name), NULL;
    }
    return f;
}

/* The fibers each cached operand's tile has at the point whose
 * coordinates of its outermost index every other operand indexing it has
 * in its tile: those the point touches, told to the memories. */
static int touch_fibers(tiled_state *s, const size_t *tile)
{
    for (int t = 1; t < s->e.ntensors; t++) {
        operand *op = &s->op[t];
        if (!op->cached)
            continue;
        op->touch.n = 0;
        if (op->tiled && tile[t] == TILESEQ_ABSENT) {
            mem_touch_fibers(s->mem, t - 1, NULL, 0);
            continue;
        }
        const tile_fibers *f = fibers_at(s, t, tile);
        if (!f)
            return -1;
        int idx = expr_access(&s->e, t)->index[op->gt->format.mode[0]], nsets = 0, absent = 0;
        const int64_t *crd[TILED_MAX_TENSORS];
        size_t len[TILED_MAX_TENSORS];
        for (int u = 1; u < s->e.ntensors; u++) {
            const operand *other = &s->op[u];
            int mode = mode_of(s, u, idx);
            if (u == t || mode < 0)
                continue;
            absent |= other->tiled && tile[u] == TILESEQ_ABSENT;
            const tensor *c = absent ? NULL : other->tiled ? &other->tt.tiles[tile[u]].content
                                                           : other->whole;
            crd[nsets] = c ? c->crd[mode] : NULL;
            len[nsets++] = c ? c->nnz : 0;
        }
        if (!absent && fiber_touch_select(&op->touch, f, op->tiled ? (int64_t)tile[t] : 0, crd,
                                          len, nsets, s->err))
            return -1;
        mem_touch_fibers(s->mem, t - 1, op->touch.fiber, op->touch.n);
    }
    return 0;
}

/* The operand tensor whose storage node n reads: the one it names, but
 * for a repeat, which names the tensor whose references it repeats. */
static const char *node_reads(const graph_node *n)
{
    const char *type = n ? graph_node_attr(n, "type") : NULL;
    return type && strcmp(type, "repeat") ? graph_node_attr(n, "tensor") : NULL;
}

/* Per block of e, the operand whose tiles it reads, into s->block_reads. */
static int find_block_reads(tiled_state *s, const sim_engine *e)
{
    s->block_reads = malloc(((size_t)e->nblocks + 1) * sizeof *s->block_reads);
    if (!s->block_reads)
        return error_set(s->err, "out of memory");
    for (int b = 0; b < e->nblocks; b++) {
        const char *name = node_reads(e->blocks[b].node);
        s->block_reads[b] = -1;
        for (int t = 1; name && t < s->e.ntensors; t++)
            if (s->op[t].gt && !strcmp(s->op[t].gt->name, name))
                s->block_reads[b] = t - 1;
    }
    return 0;
}

/* With pe.release, per operand the cycles of the point's run (engine e)
 * until its last reader of the operand's tile is done: *until is
 * s->read_until, NULL without. */
static int reads_end(tiled_state *s, const sim_engine *e, const double **until)
{
    *until = NULL;
    if (!s->r->hw || !s->r->hw->pe_release)
        return 0;
    if (!s->block_reads && find_block_reads(s, e))
        return -1;
    for (int t = 0; t < MEM_MAX_TENSORS; t++)
        s->read_until[t] = 0;
    for (int b = 0; b < e->nblocks; b++) {
        const block_stats *st = &e->blocks[b].stats;
        int t = s->block_reads[b];
        if (t >= 0 && st->busy && (double)st->last_busy + 1 > s->read_until[t])
            s->read_until[t] = (double)st->last_busy + 1;
    }
    *until = s->read_until;
    return 0;
}

/* The memories' part of the point that engine e ran: each operand's tile
 * at each level (the whole of an operand not tiled), and the result
 * tile's growth; *at, when the point is computed from. */
static int memory_point(tiled_state *s, const sim_engine *e, const size_t *tile,
                        const int64_t *coord, cycle_t cycles, cycle_t earliest, int pe,
                        const tensor *part, double *at)
{
    int depth = s->spec.depth;
    for (int t = 1; t < s->e.ntensors; t++)
        for (int l = 0; l < depth; l++) {
            const operand *op = &s->op[t];
            mem_tile *x = &s->mem_tiles[(t - 1) * depth + l];
            if (!op->tiled)
                *x = (mem_tile){0, op->whole_bytes};
            else if (tile[t] == TILESEQ_ABSENT)
                *x = (mem_tile){-1, 0};
            else if (l == depth - 1)
                *x = (mem_tile){(int64_t)tile[t], op->bytes[tile[t]]};
            else
                *x = (mem_tile){(int64_t)op->outer_of[l][tile[t]],
                                op->outer_bytes[l][op->outer_of[l][tile[t]]]};
        }
    mem_result out[MEM_MAX_LEVELS];
    const double *until;
    if (result_levels(s, coord, part, out) || touch_fibers(s, tile) || reads_end(s, e, &until))
        return -1;
    named_point point = {s, coord};
    if (s->out->trace)
        hw_trace_at(s->out->trace, coord);
    mem_visit v = {s->mem_tiles, out, (double)cycles, (double)earliest, pe, name_point, &point,
                   until};
    return mem_point(s->mem, &v, s->out->names, at, s->err);
}

/* The point's statistics, from start on processing element pe (pe < 0:
 * none, the rows only); the first point's engine gives the rows. */
static int add_stats(tiled_state *s, const sim_engine *e, int pe, cycle_t start)
{
    sim_stats *st = s->out->stats;
    if (!st)
        return 0;
    if (!st->cells && sim_stats_init(st, e, s->npe, s->err))
        return -1;
    if (pe >= 0)
        sim_stats_add(st, e, pe, start);
    return 0;
}

/* The processing element for a point of result tile id: the tile's
 * number modulo the count; with pe.dynamic (a scheduler handing out work
 * as PEs free up), the PE whose last point added to the same tile (none
 * holds it with pe.merge: it is merged beside the PEs), else the one
 * whose pipeline takes it first. */
static int choose_pe(tiled_state *s, const sim_engine *e, int64_t id)
{
    if (!s->r->hw || !s->r->hw->pe_dynamic)
        return (int)(id % s->npe);
    int best = 0, held = !s->r->hw->pe_merge;
    cycle_t first = CYCLE_NONE;
    for (int pe = 0; pe < s->npe; pe++) {
        if (held && s->holds[pe] == id)
            return pe;
        cycle_t t = pipeline_earliest(&s->pipes[pe], e);
        if (t < first) {
            first = t;
            best = pe;
        }
    }
    s->holds[best] = id;
    return best;
}

/* Where the tile e ran goes: *pe, its processing element (choose_pe),
 * and *start, as soon as that PE's pipeline takes it and, with memories
 * and its result tile part (NULL for a point that did not complete),
 * its tiles are in place. */
static int tile_start(tiled_state *s, const sim_engine *e, const size_t *tile,
                      const int64_t *coord, cycle_t cycles, const tensor *part, int *pe,
                      cycle_t *start)
{
    *pe = choose_pe(s, e, result_tile_id(s, coord, s->spec.depth - 1));
    pipeline *p = &s->pipes[*pe];
    if (!p->free_from) {
        if (pipeline_init(p, e->nblocks, s->err))
            return -1;
        p->stream = s->r->hw && s->r->hw->pe_stream;
    }
    *start = pipeline_earliest(p, e);
    double at;
    if (s->mem && part) {
        if (memory_point(s, e, tile, coord, cycles, *start, *pe, part, &at))
            return -1;
        *start = (cycle_t)at;
    }
    return 0;
}

/* The latest end of the points placed so far. */
static cycle_t points_end(const tiled_state *s)
{
    cycle_t end = 0;
    for (int pe = 0; s->pipes && pe < s->npe; pe++)
        end = s->pipes[pe].end > end ? s->pipes[pe].end : end;
    return end;
}

/* How the run stopped in tile point `where`, which starts at `start`:
 * out's cycle and reason first, then what the point's blocks wait on
 * (after the first line of report, its run's). */
static void report_stop(tiled_outcome *out, cycle_t limit, const char *where, cycle_t start,
                        const char *report)
{
    const char *waits = strchr(report, '\n');
    waits = waits ? waits : "";
    if (start >= limit)
        snprintf(out->report, sizeof out->report, "stopped after %llu cycles: tile %s starts at "
                 "cycle %llu", (unsigned long long)limit, where, (unsigned long long)start);
    else if (out->cycles < limit)
        snprintf(out->report, sizeof out->report, "deadlock at cycle %llu in tile %s (from cycle "
                 "%llu)%.1500s", (unsigned long long)out->cycles, where, (unsigned long long)start,
                 waits);
    else
        snprintf(out->report, sizeof out->report, "stopped after %llu cycles in tile %s (from "
                 "cycle %llu)%.1500s", (unsigned long long)limit, where, (unsigned long long)start,
                 waits);
}

/* The run stops in the tile point coord, which engine e ran (run: its
 * outcome, report: the engine's) and which starts at `start` on
 * processing element pe: where it deadlocked, when that comes before
 * max_cycles, else at max_cycles, its run then repeated on data d as far
 * as that. Its statistics are added up to there; out says how. 1, which
 * ends the walk. */
static int stop_in_point(tiled_state *s, sim_engine *e, const sim_data *d, const int64_t *coord,
                         int pe, cycle_t start, const sim_outcome *run, const char *report)
{
    cycle_t limit = s->r->max_cycles, end = points_end(s);
    char where[256], cut_report[sizeof s->out->report];
    int deadlocked = run->deadlocked && run->cycles < limit && start < limit - run->cycles;
    if (!deadlocked && start < limit) {
        sim_outcome cut;
        if (sim_rearm_planned(e, &s->plan, d, s->err) ||
            sim_engine_run(e, s->r->engine, limit - start, &cut, cut_report, sizeof cut_report,
                           s->err) < 0)
            return -1;
        report = cut_report;
    }
    if (add_stats(s, e, start < limit ? pe : -1, start))
        return -1;
    if (s->out->trace && start < limit)
        hw_trace_point(s->out->trace, pe, (double)start, (double)start + (double)run->cycles,
                       coord);
    if (deadlocked && start + run->cycles > end)
        end = start + run->cycles;
    s->out->cycles = deadlocked && end < limit ? end : limit;
    s->out->incomplete = s->out->cycles < limit ? "deadlock" : "stopped";
    describe_point(s, coord, where, sizeof where);
    report_stop(s->out, limit, where, start, report);
    return 1;
}

/* Adds the busy cycles of each of e's blocks at the point it ran. */
static int add_busy(tiled_state *s, const sim_engine *e)
{
    if (!s->block_busy) {
        s->block_busy = calloc((size_t)e->nblocks + 1, sizeof *s->block_busy);
        if (!s->block_busy)
            return error_set(s->err, "out of memory");
        s->nbusy = e->nblocks;
    }
    for (int b = 0; b < e->nblocks && b < s->nbusy; b++)
        s->block_busy[b] += (double)e->blocks[b].stats.busy;
    return 0;
}

/* The busiest block's busy cycles over every point. */
static double busiest_block(const tiled_state *s)
{
    double most = 0;
    for (int b = 0; b < s->nbusy; b++)
        most = s->block_busy[b] > most ? s->block_busy[b] : most;
    return most;
}

/* The point engine e ran, placed: 0 when it ends by max_cycles, else the
 * run stops in it (stop_in_point). */
static int place_tile(tiled_state *s, sim_engine *e, const sim_data *d, const size_t *tile,
                      const int64_t *coord, const sim_outcome *run, const tensor *part)
{
    int pe;
    cycle_t start, cycles = run->cycles, limit = s->r->max_cycles;
    if (tile_start(s, e, tile, coord, cycles, part, &pe, &start))
        return -1;
    if (start > limit || cycles > limit - start)
        return stop_in_point(s, e, d, coord, pe, start, run, "");
    pipeline_place(&s->pipes[pe], e, start, cycles);
    if (s->out->trace)
        hw_trace_point(s->out->trace, pe, (double)start, (double)(start + cycles), coord);
    s->out->compute_cycles += cycles;
    if (s->mem && add_busy(s, e))
        return -1;
    return add_stats(s, e, pe, start);
}

/* The point on the bound data d: simulated, its result added, placed.
 * 0, or 1 when the run stops in it, or -1. */
static int run_point(tiled_state *s, sim_data *d, const size_t *tile, const int64_t *coord)
{
    sim_engine *e = &s->engine;
    sim_outcome run;
    tensor part = {0};
    char report[sizeof s->out->report];
    /* One engine for every point: built at the first, re-armed after. */
    int pe, rc = e->nblocks ? sim_rearm_planned(e, &s->plan, d, s->err)
                            : sim_build_planned(e, &s->plan, d, s->err);
    cycle_t start;
    if (!rc)
        rc = simulate_tile(s, e, d, s->r->max_cycles, &run, &part, report, sizeof report);
    if (rc == 1)
        rc = tile_start(s, e, tile, coord, run.cycles, NULL, &pe, &start) ? -1 :
             stop_in_point(s, e, d, coord, pe, start, &run, report);
    else if (!rc && !(rc = add_result(s, &part, coord, s->err)))
        rc = place_tile(s, e, d, tile, coord, &run, &part);
    tensor_free(&part);
    return rc;
}

static int visit_point(void *ctx, const int64_t *coord, const size_t *tile)
{
    tiled_state *s = ctx;
    sim_data *d = &s->data;
    fibertree empty[TILED_MAX_TENSORS];
    int nempty = 0, rc = 0;
    sim_data_unbind(d);
    for (int t = 1; t < s->e.ntensors && !rc; t++) {
        const fibertree *ft = tree_at(s, t, tile[t], coord, &empty[nempty], s->err);
        if (!ft) {
            char where[256];
            describe_point(s, coord, where, sizeof where);
            rc = error_wrap(s->err, "%s: tile %s of %s", s->g->path, where, s->op[t].gt->name);
            break;
        }
        if (ft == &empty[nempty])
            nempty++;
        rc = sim_data_borrow(d, s->op[t].gt->name, ft, s->err) ? -1 : 0;
    }
    if (!rc)
        rc = run_point(s, d, tile, coord);
    for (int k = 0; k < nempty; k++)
        fibertree_free(&empty[k]);
    s->visits++;
    return rc;
}

/* The result's tiles of each point of the walk at the LLB level (outer)
 * and the PE level (inner), gathered by a walk ahead of the run. */
typedef struct walk_ahead {
    const tiled_state *s;
    int64_t *outer, *inner;
    size_t n, cap, cap_inner;
} walk_ahead;

static int note_point(void *ctx, const int64_t *coord, const size_t *tile)
{
    (void)tile;
    walk_ahead *w = ctx;
    int64_t *outer = grow_array(w->outer, w->n, &w->cap, sizeof *outer, 1024);
    if (outer)
        w->outer = outer;
    int64_t *inner = grow_array(w->inner, w->n, &w->cap_inner, sizeof *inner, 1024);
    if (inner)
        w->inner = inner;
    if (!outer || !inner)
        return error_set(w->s->err, "out of memory");
    w->outer[w->n] = result_tile_id(w->s, coord, 0);
    w->inner[w->n++] = result_tile_id(w->s, coord, 1);
    return 0;
}

/* With llb.eager, which points are final, walking the points once ahead. */
static int mark_final_points(tiled_state *s, const tiled_tensor *const *tt)
{
    if (!s->mem || !s->r->hw->llb_eager || s->spec.depth != 2)
        return 0;
    walk_ahead w = {.s = s};
    int rc = tileseq_walk(&s->e, s->loop_index, s->loop_level, s->nloop, tt, note_point, &w,
                          s->err);
    if (!rc)
        rc = final_points_mark(w.inner, w.outer, w.n, &s->final, s->err);
    free(w.outer);
    free(w.inner);
    return rc;
}

static int result_dims(const tiled_state *s, int64_t *dims)
{
    const expr_node *lhs = s->e.lhs;
    for (int m = 0; m < lhs->order; m++)
        dims[m] = s->split[lhs->index[m]].dim;
    return lhs->order;
}

static double grid_points(const tiled_state *s)
{
    double n = 1;
    for (int i = 0; i < s->e.nindices; i++)
        if (s->split[i].nlevels)
            n *= (double)tile_split_count(&s->split[i], s->split[i].nlevels - 1);
    return n;
}

static void free_state(tiled_state *s)
{
    for (int t = 0; t < TILED_MAX_TENSORS; t++) {
        operand *op = &s->op[t];
        for (size_t k = 0; op->trees && k < op->tt.ntiles; k++)
            if (op->trees[k]) {
                fibertree_free(op->trees[k]);
                free(op->trees[k]);
            }
        free(op->trees);
        free(op->bytes);
        for (size_t k = 0; op->fibers && k < (op->tiled ? op->tt.ntiles : 1); k++)
            tile_fibers_free(&op->fibers[k]);
        free(op->fibers);
        fiber_touch_free(&op->touch);
        for (int l = 0; l < MEM_MAX_LEVELS; l++) {
            free(op->outer_of[l]);
            free(op->outer_bytes[l]);
            if (op->outer_of[l])
                tiled_tensor_free(&op->outer[l]);
        }
        if (op->tiled)
            tiled_tensor_free(&op->tt);
        if (op->has_whole_tree)
            fibertree_free(&op->whole_tree);
    }
    for (int i = 0; i < EXPR_MAX_INDICES; i++)
        tile_split_free(&s->split[i]);
    for (int l = 0; l < MEM_MAX_LEVELS; l++)
        result_tiles_free(&s->partial[l]);
    for (int pe = 0; s->pipes && pe < s->npe; pe++)
        pipeline_free(&s->pipes[pe]);
    free(s->pipes);
    free(s->block_busy);
    free(s->block_reads);
    free(s->holds);
    free(s->final);
    free(s->mem_tiles);
    sim_plan_free(&s->plan);
    sim_result_plan_free(&s->result_plan);
    sim_engine_free(&s->engine);
    sim_data_release(&s->data);
    expr_free(&s->e);
}

/* The operands placed in a cache of fibers (place.T = cache): an
 * operand's only, in a hardware that has an LLB. */
static int cache_operands(tiled_state *s, sam_error *err)
{
    int n = s->e.ntensors - 1;
    for (int t = 0; t <= n; t++) {
        const hw_place *p = hw_place_of(s->r->hw, s->out->names[t]);
        if (!p || !p->cache)
            continue;
        if (t == n)
            return error_set(err, "%s: place.%s = cache: a cache holds an operand's fibers, and "
                             "%s is the result", p->origin, p->tensor, p->tensor);
        operand *op = &s->op[t + 1];
        op->fibers = calloc(op->tiled ? op->tt.ntiles + 1 : 1, sizeof *op->fibers);
        if (!op->fibers)
            return error_set(err, "out of memory");
        if (mem_cache_fibers(s->mem, t, err))
            return error_prefix(err, p->origin);
        op->cached = 1;
    }
    return 0;
}

/* The memory model, and the result tiles it follows. */
static int prepare_memory(tiled_state *s, sam_error *err)
{
    int n = s->e.ntensors - 1, depth = s->spec.depth;
    const hw_desc *hw = s->r->hw;
    int64_t extent[TENSOR_MAX_ORDER];
    /* The graph's names: the expression's go before the caller reads them. */
    for (int t = 1; t <= n && t <= MEM_MAX_TENSORS; t++)
        s->out->names[t - 1] = s->op[t].gt->name;
    s->out->names[n < MEM_MAX_TENSORS ? n : MEM_MAX_TENSORS] = s->g->tensors[0].name;
    s->mem = s->out->memory = calloc(1, sizeof *s->mem);
    s->mem_tiles = malloc(((size_t)n * (size_t)depth + 1) * sizeof *s->mem_tiles);
    if (!s->mem || !s->mem_tiles)
        return error_set(err, "out of memory");
    for (int l = 0; l < depth; l++) {
        for (int m = 0; m < s->e.lhs->order; m++)
            extent[m] = tile_split_level_extent(&s->split[s->e.lhs->index[m]], l);
        result_tiles_init(&s->partial[l], &s->g->tensors[0].format,
                          hw_layout_of(hw, s->g->tensors[0].name), extent, hw->bytes_crd,
                          hw->bytes_ref, hw->bytes_val);
    }
    if (mem_init(s->mem, hw, n, depth, err) ||
        hw_check_places(hw, s->out->names, n + 1, err))
        return -1;
    for (int t = 0; t <= n; t++)
        if (!hw_llb_holds(hw, s->out->names[t]))
            mem_bypass_llb(s->mem, t);
    if (cache_operands(s, err))
        return -1;
    for (int t = 1; t <= n; t++)
        for (int l = 0; l < depth; l++) {
            const operand *op = &s->op[t];
            size_t tiles = !op->tiled ? 1 : l < depth - 1 ? op->outer[l].ntiles : op->tt.ntiles;
            if (mem_declare_tiles(s->mem, t - 1, l, tiles, err))
                return -1;
        }
    return 0;
}

/* The hardware's layouts name the graph's tensors and fit their formats,
 * before any tile's bytes are counted in them. */
static int check_layouts(const tiled_state *s, sam_error *err)
{
    const char *names[TILED_MAX_TENSORS];
    const level_format *formats[TILED_MAX_TENSORS];
    if (!s->r->hw)
        return 0;
    for (int t = 0; t < s->g->ntensors && t < TILED_MAX_TENSORS; t++) {
        names[t] = s->g->tensors[t].name;
        formats[t] = &s->g->tensors[t].format;
    }
    int n = s->g->ntensors < TILED_MAX_TENSORS ? s->g->ntensors : TILED_MAX_TENSORS;
    if (hw_check_layouts(s->r->hw, names, formats, n, err))
        return -1;
    const storage_layout *l = hw_layout_of(s->r->hw, names[0]);
    for (int k = 0; l && l->tiled && k < s->r->hw->nlayouts; k++)
        if (!strcmp(s->r->hw->layout[k].tensor, names[0]))
            return error_set(err, "%s: layout.%s: tiled is for operands; %s is the result, "
                             "written tile by tile already", s->r->hw->layout[k].origin,
                             names[0], names[0]);
    return 0;
}

/* The run's timeline on its hardware (--trace), its slices named by the
 * tile loops and the tensors, operands first, as the memories number them. */
static int start_trace(tiled_state *s, sam_error *err)
{
    hw_trace_shape shape = {.nloop = s->nloop, .depth = s->spec.depth,
                            .ntensors = s->e.ntensors - 1};
    if (s->nloop > HW_TRACE_MAX_LOOPS || s->e.ntensors > HW_TRACE_MAX_TENSORS)
        return error_set(err, "--trace: more than %d tile loops or %d operands",
                         HW_TRACE_MAX_LOOPS, HW_TRACE_MAX_TENSORS - 1);
    for (int k = 0; k < s->nloop; k++) {
        shape.loop_name[k] = s->spec.level[s->loop_index[k]][s->loop_level[k]].outer;
        shape.loop_level[k] = s->loop_level[k];
        shape.result_width[k] = s->result_width[k];
    }
    for (int t = 0; t < s->e.ntensors; t++) {
        int at = t ? t - 1 : s->e.ntensors - 1;
        shape.tensor_name[at] = t ? s->op[t].gt->name : s->g->tensors[0].name;
        for (int k = 0; k < s->nloop; k++)
            if (mode_of(s, t, s->loop_index[k]) >= 0)
                shape.tensor_loops[at] |= (uint64_t)1 << k;
    }
    if (!(s->out->trace = calloc(1, sizeof *s->out->trace)))
        return error_set(err, "out of memory");
    if (hw_trace_init(s->out->trace, &shape, s->npe, s->r->trace, err))
        return -1;
    if (s->mem)
        s->mem->trace = s->out->trace;
    return 0;
}

static int prepare(tiled_state *s, const tensor *operands, sam_error *err)
{
    int loop[EXPR_MAX_INDICES];
    if (expr_parse(s->r->expr, &s->e, err) || tiling_parse(s->r->tiling, &s->e, &s->spec, err))
        return -1;
    int nloop = loop_order(s, loop, err);
    if (nloop < 0 || bind_operands(s, operands, err) || check_layouts(s, err) ||
        tile_operands(s, err))
        return -1;
    s->nloop = tiling_order(&s->spec, loop, nloop, s->loop_index, s->loop_level);
    if (s->nloop == 0)
        return error_set(err, "the tiling splits no index");
    for (int k = 0; k < s->nloop; k++)
        s->result_width[k] = mode_of(s, 0, s->loop_index[k]) < 0 ? -1 :
            tile_split_width(&s->split[s->loop_index[k]], s->loop_level[k]);
    if (sim_plan_init(&s->plan, s->g, &s->r->sim, err) ||
        sim_result_plan_init(&s->result_plan, s->g, err))
        return error_prefix(err, s->g->path);
    if (s->r->hw)
        sim_plan_slow_lanes(&s->plan, (uint32_t)s->r->hw->lane_share);
    s->npe = s->r->hw ? (int)s->r->hw->pe_count : 1;
    s->pipes = calloc((size_t)s->npe, sizeof *s->pipes);
    s->holds = malloc((size_t)s->npe * sizeof *s->holds);
    if (s->r->stats)
        s->out->stats = calloc(1, sizeof *s->out->stats);
    if (!s->pipes || !s->holds || (s->r->stats && !s->out->stats))
        return error_set(err, "out of memory");
    for (int pe = 0; pe < s->npe; pe++)
        s->holds[pe] = -1;
    if (s->out->stats)
        s->out->stats->npe = s->npe;
    if (s->r->hw && prepare_memory(s, err))
        return -1;
    return s->r->trace ? start_trace(s, err) : 0;
}

/* The run's cycles: its points through the pipelines, and the memories
 * ending with the last result tiles written out. 1 when that goes past
 * max_cycles (the run stops there). */
static int finish_cycles(tiled_state *s)
{
    tiled_outcome *out = s->out;
    double written = s->mem ? ceil(mem_finish(s->mem)) : 0;
    if (s->mem)
        time_bound_of(s->mem, busiest_block(s), &out->bound);
    out->cycles = points_end(s);
    out->cycles = written > (double)out->cycles ? (cycle_t)written : out->cycles;
    if (out->cycles <= s->r->max_cycles)
        return 0;
    snprintf(out->report, sizeof out->report, "stopped after %llu cycles: the result's last "
             "tiles are written out until cycle %llu", (unsigned long long)s->r->max_cycles,
             (unsigned long long)out->cycles);
    out->cycles = s->r->max_cycles;
    out->incomplete = "stopped";
    return 1;
}

int run_tiled(const sam_graph *g, const tensor *operands, const tiled_request *r,
              tiled_outcome *out, tensor *result, sam_error *err)
{
    tiled_state *s = calloc(1, sizeof *s);
    if (!s)
        return error_set(err, "out of memory");
    *s = (tiled_state){.g = g, .r = r, .result = result, .compact_at = COMPACT_MIN, .out = out,
                       .err = err};
    memset(out, 0, sizeof *out);
    memset(result, 0, sizeof *result);
    int rc = prepare(s, operands, err);
    int64_t dims[TENSOR_MAX_ORDER];
    if (!rc)
        rc = tensor_init(result, result_dims(s, dims), dims, err);
    if (!rc) {
        const tiled_tensor *tt[TILED_MAX_TENSORS] = {NULL};
        for (int t = 1; t < s->e.ntensors; t++)
            tt[t] = s->op[t].tiled ? &s->op[t].tt : NULL;
        rc = mark_final_points(s, tt);
        if (!rc)
            rc = tileseq_walk(&s->e, s->loop_index, s->loop_level, s->nloop, tt, visit_point, s,
                              err);
    }
    if (!rc && result->order == 0 && result->nnz == 0)
        rc = tensor_append(result, NULL, 0, err);
    if (!rc)
        rc = tensor_canonicalize(result, NULL, err);
    out->tiles_skipped = grid_points(s) - (double)out->tiles_run;
    if (!rc)
        rc = finish_cycles(s);
    free_state(s);
    free(s);
    if (out->stats) {
        out->stats->memory = out->memory;
        out->stats->names = out->names;
    }
    if (rc)
        tensor_free(result);
    if (rc > 0) {
        error_at(err, g->path, 0, "%s", out->report);
        return 1;
    }
    if (rc)
        tiled_outcome_free(out);
    return rc ? -1 : 0;
}

void tiled_outcome_free(tiled_outcome *out)
{
    if (out->stats)
        sim_stats_free(out->stats);
    free(out->stats);
    out->stats = NULL;
    if (out->memory)
        mem_free(out->memory);
    free(out->memory);
    out->memory = NULL;
    if (out->trace)
        hw_trace_free(out->trace);
    free(out->trace);
    out->trace = NULL;
}
