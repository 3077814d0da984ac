/* Tile specs: the input is split and tileorder commands, one a line,
 * parsed against X(i,j,k) = B(i,j,k) * C(i,k) and applied to small
 * generated B and C as a tiled run applies them. It aborts where the
 * parsed splits do not format and parse back to themselves, where a
 * level's tiles do not cover the mode one after another with the widths,
 * extents and counts the split reports, where the tiles do not reassemble
 * to their tensor (every entry once, at its place), or where the tile walk
 * visits other points than those where both B's and C's tiles hold
 * entries, or names other tiles than the point's coordinates. */
#include <stdlib.h>
#include <string.h>

#include "../../custard/tileseq.h"
#include "../../custard/tiling.h"
#include "../../formats/prng.h"
#include "fuzz_input.h"

#define FUZZ_MAX_TEXT 4096

static const char expression[] = "X(i,j,k)=B(i,j,k)*C(i,k)";
static const int64_t dims[3] = {9, 7, 5};     /* of i, j, k */

/* The expression and its operands, made once: the runs only read them. */
typedef struct fixture {
    expr e;
    tensor op[3];               /* per tensor of e, the result's unused */
} fixture;

/* Operand t's entries, distinct coordinates, entry n holding the value n. */
static void generate(const expr *e, int t, size_t want, tensor *out)
{
    const expr_node *a = expr_access(e, t);
    int64_t d[TENSOR_MAX_ORDER];
    sam_error err;
    for (int m = 0; m < a->order; m++)
        d[m] = dims[a->index[m]];
    if (tensor_init(out, a->order, d, &err))
        abort();
    prng r;
    prng_seed(&r, (uint64_t)t);
    char seen[9 * 7 * 5] = {0};
    for (size_t n = 0; n < 4 * want && out->nnz < want; n++) {
        int64_t c[TENSOR_MAX_ORDER], at = 0;
        for (int m = 0; m < a->order; m++) {
            /* Crowded towards 0, so that occupancy cuts differ from shape. */
            uint64_t x = prng_below(&r, (uint64_t)d[m]);
            c[m] = (int64_t)(x * prng_below(&r, (uint64_t)d[m]) / (uint64_t)d[m]);
            at = at * d[m] + c[m];
        }
        if (!seen[at]++ && tensor_append(out, c, (double)out->nnz, &err))
            abort();
    }
}

static const fixture *fixture_get(void)
{
    static fixture f;
    static int ready;
    sam_error err;
    if (ready)
        return &f;
    if (expr_parse(expression, &f.e, &err))
        abort();
    generate(&f.e, expr_find_tensor(&f.e, "B"), 40, &f.op[expr_find_tensor(&f.e, "B")]);
    generate(&f.e, expr_find_tensor(&f.e, "C"), 12, &f.op[expr_find_tensor(&f.e, "C")]);
    ready = 1;
    return &f;
}

/* The splits of every index as a run makes them; -1 when refused. */
static int make_splits(const fixture *f, const tiling *spec, tile_split *split)
{
    sam_error err;
    const tensor *leader[EXPR_MAX_INDICES] = {0};
    for (int t = 1; t < f->e.ntensors; t++)
        leader[t] = &f->op[t];
    return tiling_cut(spec, &f->e, leader, dims, split, &err);
}

/* Each level's tiles follow one another over the mode, with the count,
 * widths and longest extent the split gives, and each is the tile its
 * numbers within its parents name. */
static void check_split(const tile_split *s)
{
    for (int l = 0; l < s->nlevels; l++) {
        int64_t x = 0, first, extent, longest = 0, width = 0, in_parent = 0, parent = -1;
        size_t count = 0;
        do {
            tile_split_range_at(s, l, x, &first, &extent);
            int64_t coord[TILE_MAX_LEVELS], local, pf, pe, at, ext;
            tile_split_locate(s, x, coord, &local);
            tile_split_at(s, l, coord, &at, &ext);
            tile_split_range_at(s, l - 1, x, &pf, &pe);
            if (first != x || extent < 0 || at != first || ext != extent || first < pf ||
                first + extent > pf + pe)
                abort();
            in_parent = pf == parent ? in_parent + 1 : 1;
            parent = pf;
            width = in_parent > width ? in_parent : width;
            longest = extent > longest ? extent : longest;
            count++;
            x += extent;
        } while (extent > 0 && x < s->dim);
        if (count != tile_split_count(s, l) || width != tile_split_width(s, l) ||
            longest != tile_split_level_extent(s, l))
            abort();
    }
}

/* Operand t tiled by the splits of its indices; 0: not tiled, -1:
 * refused. */
static int tile_operand(const fixture *f, int t, const tile_split *split, tiled_tensor *tt)
{
    const expr_node *a = expr_access(&f->e, t);
    tile_split modes[TENSOR_MAX_ORDER];
    int any = 0;
    sam_error err;
    for (int m = 0; m < a->order; m++) {
        modes[m] = split[a->index[m]];
        any |= modes[m].nlevels > 0;
    }
    if (!any)
        return 0;
    return tensor_tile(&f->op[t], modes, tt, &err) ? -1 : 1;
}

/* Whether key a comes before key b, n numbers each. */
static int key_before(const int64_t *a, const int64_t *b, int n)
{
    for (int k = 0; k < n; k++)
        if (a[k] != b[k])
            return a[k] < b[k];
    return 0;
}

/* Every entry of t comes back once from its tile's key and local
 * coordinates, in a tile of the extents the split gives; keys increase. */
static void check_reassembly(const fixture *f, int t, const tile_split *split,
                             const tiled_tensor *tt)
{
    const tensor *whole = &f->op[t];
    const expr_node *a = expr_access(&f->e, t);
    char *seen = calloc(whole->nnz + 1, 1);
    if (!seen)
        abort();
    for (size_t i = 0; i < tt->ntiles; i++) {
        const tile *tl = &tt->tiles[i];
        if (i && !key_before(tt->tiles[i - 1].key, tl->key, tt->nkeys))
            abort();
        int64_t first[TENSOR_MAX_ORDER];
        for (int m = 0; m < tt->order; m++) {
            int64_t coord[TILE_MAX_LEVELS], extent;
            const tile_split *s = &split[a->index[m]];
            for (int k = 0; k < tt->nkeys; k++)
                if (tt->key_mode[k] == m)
                    coord[tt->key_level[k]] = tl->key[k];
            tile_split_at(s, s->nlevels - 1, coord, &first[m], &extent);
            if (tl->content.dims[m] != extent)
                abort();
        }
        for (size_t j = 0; j < tl->content.nnz; j++) {
            size_t e = (size_t)tl->content.vals[j];
            if (e >= whole->nnz || seen[e]++)
                abort();
            for (int m = 0; m < tt->order; m++)
                if (first[m] + tl->content.crd[m][j] != whole->crd[m][e])
                    abort();
        }
    }
    for (size_t e = 0; e < whole->nnz; e++)
        if (!seen[e])
            abort();
    free(seen);
}

/* The walk's view of the run: the loops, the tiled operands, and how
 * often each tile of B was visited. */
typedef struct walk_check {
    const fixture *f;
    const tiled_tensor *tt[3];
    int index[TILE_MAX_KEYS], level[TILE_MAX_KEYS], nloop;
    int *visits;
} walk_check;

/* Operand t's tile number tile has, at every key, the coordinate of the
 * loop of that index and level. */
static void check_keys(const walk_check *w, int t, size_t tile, const int64_t *coord)
{
    const tiled_tensor *tt = w->tt[t];
    const expr_node *a = expr_access(&w->f->e, t);
    for (int k = 0; k < tt->nkeys; k++)
        for (int q = 0; q < w->nloop; q++)
            if (w->index[q] == a->index[tt->key_mode[k]] && w->level[q] == tt->key_level[k] &&
                coord[q] != tt->tiles[tile].key[k])
                abort();
}

static int visit(void *ctx, const int64_t *coord, const size_t *tile)
{
    walk_check *w = ctx;
    for (int t = 1; t < 3; t++) {
        if (!w->tt[t])
            continue;
        if (tile[t] == TILESEQ_ABSENT || tile[t] >= w->tt[t]->ntiles)
            abort();
        check_keys(w, t, tile[t], coord);
    }
    w->visits[tile[1]]++;
    return 0;
}

/* Whether C has the tile B's tile b lies over (C not tiled: it does). */
static int c_has(const walk_check *w, size_t b)
{
    const tiled_tensor *tb = w->tt[1], *tc = w->tt[2];
    if (!tc)
        return 1;
    const expr_node *ab = expr_access(&w->f->e, 1), *ac = expr_access(&w->f->e, 2);
    for (size_t c = 0; c < tc->ntiles; c++) {
        int same = 1;
        for (int kc = 0; kc < tc->nkeys && same; kc++)
            for (int kb = 0; kb < tb->nkeys; kb++)
                if (ab->index[tb->key_mode[kb]] == ac->index[tc->key_mode[kc]] &&
                    tb->key_level[kb] == tc->key_level[kc])
                    same &= tb->tiles[b].key[kb] == tc->tiles[c].key[kc];
        if (same)
            return 1;
    }
    return 0;
}

/* The tile loops in the spec's order visit each tile of B that C's
 * tiles meet, once. */
static void check_walk(const fixture *f, const tiling *spec, const tiled_tensor *const *tt)
{
    walk_check w = {.f = f, .tt = {NULL, tt[1], tt[2]}};
    int loop[3] = {0, 1, 2};
    sam_error err;
    w.nloop = tiling_order(spec, loop, 3, w.index, w.level);
    if (w.nloop == 0 || !tt[1])
        return;
    w.visits = calloc(tt[1]->ntiles + 1, sizeof *w.visits);
    if (!w.visits || tileseq_walk(&f->e, w.index, w.level, w.nloop, w.tt, visit, &w, &err))
        abort();
    for (size_t b = 0; b < tt[1]->ntiles; b++)
        if (w.visits[b] != c_has(&w, b))
            abort();
    free(w.visits);
}

/* The spec written back as text parses to itself. */
static void check_format(const fixture *f, const tiling *spec)
{
    char text[FUZZ_MAX_TEXT];
    tiling again;
    sam_error err;
    tiling_format(spec, &f->e, text, sizeof text);
    if (tiling_parse(text, &f->e, &again, &err) || again.depth != spec->depth ||
        again.norder != spec->norder)
        abort();
    for (int i = 0; i < f->e.nindices; i++)
        for (int l = 0; l < spec->nlevels[i]; l++)
            if (again.nlevels[i] != spec->nlevels[i] ||
                again.level[i][l].size != spec->level[i][l].size ||
                again.level[i][l].leader != spec->level[i][l].leader ||
                again.level[i][l].group_index != spec->level[i][l].group_index ||
                again.level[i][l].group_level != spec->level[i][l].group_level)
                abort();
}

static void apply(const fixture *f, const char *text)
{
    tiling spec;
    sam_error err;
    if (tiling_parse(text, &f->e, &spec, &err))
        return;
    check_format(f, &spec);
    tile_split split[EXPR_MAX_INDICES];
    tiled_tensor tt[3];
    const tiled_tensor *tiled[3] = {NULL, NULL, NULL};
    int rc = make_splits(f, &spec, split);
    for (int i = 0; !rc && i < f->e.nindices; i++)
        check_split(&split[i]);
    for (int t = 1; t < 3 && rc >= 0; t++) {
        rc = tile_operand(f, t, split, &tt[t]);
        if (rc > 0) {
            check_reassembly(f, t, split, &tt[t]);
            tiled[t] = &tt[t];
        }
    }
    if (rc >= 0)
        check_walk(f, &spec, tiled);
    for (int t = 1; t < 3; t++)
        if (tiled[t])
            tiled_tensor_free(&tt[t]);
    for (int i = 0; i < f->e.nindices; i++)
        tile_split_free(&split[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[FUZZ_MAX_TEXT + 1];
    size_t n = size < FUZZ_MAX_TEXT ? size : FUZZ_MAX_TEXT;
    /* One command a line: lines read as the blanks between commands. */
    for (size_t k = 0; k < n; k++)
        text[k] = data[k] == '\n' || data[k] == '\0' ? ' ' : (char)data[k];
    text[n] = '\0';
    apply(fixture_get(), text);
    return 0;
}
