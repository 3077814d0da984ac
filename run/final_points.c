#include "final_points.h"

#include <stdlib.h>

/* A point's tile at one level, and the point's place in the walk. */
typedef struct visit {
    int64_t id;
    size_t at;
} visit;

static int by_tile_then_walk(const void *a, const void *b)
{
    const visit *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* The points' tiles ids[0..n), sorted by tile and then walk order. */
static visit *sorted_visits(const int64_t *ids, size_t n)
{
    visit *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t k = 0; k < n; k++)
        v[k] = (visit){ids[k], k};
    qsort(v, n, sizeof *v, by_tile_then_walk);
    return v;
}

/* In flag, the bit of each point that is the last on its inner tile. */
static void mark_last(const visit *v, size_t n, unsigned char *flag)
{
    for (size_t k = 0; k < n; k++)
        if (k + 1 == n || v[k + 1].id != v[k].id)
            flag[v[k].at / 8] |= (unsigned char)(1u << v[k].at % 8);
}

/* In flag, clears the bit of each point outside its outer tile's last
 * stay: the points of a tile that follow one another in the walk, up to
 * its last. */
static void clear_before_last_stay(const visit *v, size_t n, unsigned char *flag)
{
    size_t first = 0;
    for (size_t k = 0; k < n; k++) {
        if (k == 0 || v[k].id != v[k - 1].id || v[k].at != v[k - 1].at + 1)
            first = k;
        if (k + 1 < n && v[k + 1].id == v[k].id)
            continue;
        for (size_t j = first; j-- > 0 && v[j].id == v[k].id;)
            flag[v[j].at / 8] &= (unsigned char)~(1u << v[j].at % 8);
    }
}

int final_points_mark(const int64_t *inner, const int64_t *outer, size_t n,
                      unsigned char **final, sam_error *err)
{
    unsigned char *flag = calloc(n / 8 + 1, 1);
    visit *v = sorted_visits(inner, n);
    if (!flag || !v) {
        free(flag);
        free(v);
        return error_set(err, "out of memory");
    }
    mark_last(v, n, flag);
    free(v);
    if (!(v = sorted_visits(outer, n))) {
        free(flag);
        return error_set(err, "out of memory");
    }
    clear_before_last_stay(v, n, flag);
    free(v);
    *final = flag;
    return 0;
}
