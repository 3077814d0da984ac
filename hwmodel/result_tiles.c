#include "result_tiles.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_KEYS 16

static size_t mix(int64_t a, int64_t b)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15u ^ (uint64_t)b * 0xC2B2AE3D27D4EB4Fu;
    return (size_t)(h ^ (h >> 29));
}

static result_key *key_slot(result_key *keys, size_t n, result_key k)
{
    size_t i = mix(k.prefix, k.level) & (n - 1);
    while (keys[i].level != -1 && (keys[i].prefix != k.prefix || keys[i].level != k.level))
        i = (i + 1) & (n - 1);
    return &keys[i];
}

/* The positions of a tile, which the deepest level's prefixes lie
 * below; 0 beyond 2^63. */
static uint64_t tile_area(const result_tiles *r)
{
    uint64_t area = 1;
    for (int k = 0; k < r->format.nlevels; k++) {
        uint64_t e = (uint64_t)r->extent[r->format.mode[k]];
        if (e && area > ((uint64_t)1 << 63) / e)
            return 0;
        area *= e;
    }
    return area;
}

/* c's keys in a table of n slots, the deepest level's (level `deepest`)
 * moved into c->bits when it is set. */
static int rehash_keys(result_count *c, size_t n, int deepest, sam_error *err)
{
    result_key *keys = malloc(n * sizeof *keys);
    if (!keys)
        return error_set(err, "out of memory");
    for (size_t i = 0; i < n; i++)
        keys[i].level = -1;
    size_t used = 0;
    for (size_t i = 0; i < c->nkeys; i++) {
        result_key k = c->keys[i];
        if (k.level == -1)
            continue;
        if (c->bits && k.level == deepest) {
            c->bits[(uint64_t)k.prefix / 64] |= (uint64_t)1 << ((uint64_t)k.prefix % 64);
            continue;
        }
        *key_slot(keys, n, k) = k;
        used++;
    }
    free(c->keys);
    c->keys = keys;
    c->nkeys = n;
    c->usedkeys = used;
    return 0;
}

/* The tables at twice the size once they are half full (a tile's keys
 * from FIRST_KEYS); the deepest level's prefixes to a bitmap instead once
 * it would take no more room than the doubled table. */
static int grow_keys(const result_tiles *r, result_count *c, sam_error *err)
{
    if (2 * (c->usedkeys + 1) <= c->nkeys)
        return 0;
    size_t n = c->nkeys ? 2 * c->nkeys : FIRST_KEYS;
    uint64_t area = tile_area(r), words = area / 64 + 1;
    if (!c->bits && area && r->format.nlevels > 1 &&
        words * sizeof *c->bits <= n * sizeof *c->keys) {
        if (!(c->bits = calloc(words, sizeof *c->bits)))
            return error_set(err, "out of memory");
        n = c->nkeys ? c->nkeys : FIRST_KEYS;
    }
    return rehash_keys(c, n, r->format.nlevels - 1, err);
}

/* Whether the deepest level's prefix p was counted before; counts it. */
static int bit_seen(result_count *c, int64_t p)
{
    uint64_t *w = &c->bits[(uint64_t)p / 64], bit = (uint64_t)1 << ((uint64_t)p % 64);
    int seen = (*w & bit) != 0;
    *w |= bit;
    return seen;
}

void result_tiles_init(result_tiles *r, const level_format *f, const storage_layout *layout,
                       const int64_t *extent, double crd, double ref, double val)
{
    memset(r, 0, sizeof *r);
    r->format = *f;
    if (layout) {
        r->layout = *layout;
        r->has_layout = 1;
    }
    memcpy(r->extent, extent, (size_t)f->nlevels * sizeof *extent);
    r->crd = crd, r->ref = ref, r->val = val;
    hash_table_init(&r->counts, sizeof(result_count));
}

/* The bytes of a tile with c->distinct prefixes in storage (layout.h);
 * an empty tile is not written at all. */
static double tile_bytes(const result_tiles *r, const result_count *c)
{
    int64_t extent[TENSOR_MAX_ORDER];
    for (int k = 0; k < r->format.nlevels; k++)
        extent[k] = r->extent[r->format.mode[k]];
    return storage_layout_bytes(r->has_layout ? &r->layout : NULL, &r->format, c->distinct,
                                extent, r->crd, r->ref, r->val);
}

/* Counts entry e of part in tile c: its prefixes from the longest up,
 * until one was there already. */
static int add_entry(result_tiles *r, result_count *c, const tensor *part, const int64_t *offset,
                     size_t e, sam_error *err)
{
    const level_format *f = &r->format;
    int64_t prefix[TENSOR_MAX_ORDER + 1], v = 0;
    for (int k = 0; k < f->nlevels; k++) {
        v = v * r->extent[f->mode[k]] + offset[f->mode[k]] + part->crd[f->mode[k]][e];
        prefix[k] = v;
    }
    if (f->nlevels == 0) {
        c->distinct[0] = 1;
        return 0;
    }
    for (int k = f->nlevels - 1; k >= 0; k--) {
        if (grow_keys(r, c, err))
            return -1;
        if (c->bits && k == f->nlevels - 1) {
            if (bit_seen(c, prefix[k]))
                return 0;
            c->distinct[k]++;
            continue;
        }
        result_key key = {prefix[k], k}, *slot = key_slot(c->keys, c->nkeys, key);
        if (slot->level != -1)
            return 0;
        *slot = key;
        c->usedkeys++;
        c->distinct[k]++;
    }
    return 0;
}

int result_tiles_add(result_tiles *r, int64_t id, const tensor *part, const int64_t *offset,
                     double *before, double *after, sam_error *err)
{
    int added;
    result_count *c = hash_table_add(&r->counts, (uint64_t)id, &added, err);
    if (!c)
        return -1;
    *before = tile_bytes(r, c);
    for (size_t e = 0; e < part->nnz; e++)
        if (add_entry(r, c, part, offset, e, err))
            return -1;
    *after = tile_bytes(r, c);
    return 0;
}

void result_tiles_free(result_tiles *r)
{
    for (size_t i = 0; i < r->counts.cap; i++) {
        result_count *c = hash_table_slot(&r->counts, i);
        if (c) {
            free(c->keys);
            free(c->bits);
        }
    }
    hash_table_free(&r->counts);
    memset(r, 0, sizeof *r);
}
