#include "tensor_compare.h"

#include <math.h>

/* Lexicographic comparison of entry a of x and entry b of y. */
static int coord_cmp(const tensor *x, size_t a, const tensor *y, size_t b)
{
    for (int m = 0; m < x->order; m++)
        if (x->crd[m][a] != y->crd[m][b])
            return x->crd[m][a] < y->crd[m][b] ? -1 : 1;
    return 0;
}

static void print_coord(FILE *f, const tensor *t, size_t e)
{
    fputc('(', f);
    for (int m = 0; m < t->order; m++)
        fprintf(f, "%s%lld", m ? "," : "", (long long)t->crd[m][e]);
    fputc(')', f);
}

/* One side of a coordinate: its value, or none. */
typedef struct side {
    int has;
    double v;
} side;

static void print_side(FILE *f, const char *name, side s)
{
    if (s.has)
        fprintf(f, "%s %.17g", name, s.v);
    else
        fprintf(f, "%s absent", name);
}

typedef struct compare {
    FILE *f;
    int show;
    size_t differ;
    double worst;
} compare;

/* Checks the coordinate of entry e of t (the side that has it), where got
 * and want meet within bound. */
static void meet(compare *c, const tensor *t, size_t e, side got, side want, double bound)
{
    double diff = fabs((got.has ? got.v : 0.0) - (want.has ? want.v : 0.0));
    if (diff <= bound) {
        if (bound > 0 && diff / bound > c->worst)
            c->worst = diff / bound;
        return;
    }
    if (c->f && c->differ < (size_t)c->show) {
        fprintf(c->f, "  at ");
        print_coord(c->f, t, e);
        print_side(c->f, ": simulated", got);
        print_side(c->f, ", reference", want);
        if (bound > 0)
            fprintf(c->f, ", difference %.3g beyond the bound %.3g", diff, bound);
        fputc('\n', c->f);
    }
    c->differ++;
}

static int same_shape(const tensor *got, const tensor *want, FILE *f)
{
    if (got->order != want->order) {
        if (f)
            fprintf(f, "  order %d, reference order %d\n", got->order, want->order);
        return 0;
    }
    for (int m = 0; m < got->order; m++)
        if (got->dims[m] != want->dims[m]) {
            if (f)
                fprintf(f, "  mode %d has size %lld, reference %lld\n", m,
                        (long long)got->dims[m], (long long)want->dims[m]);
            return 0;
        }
    return 1;
}

size_t tensor_compare(const tensor *got, const tensor *want, const double *bound, FILE *f,
                      int show, double *worst)
{
    compare c = {.f = f, .show = show};
    if (worst)
        *worst = 0;
    if (!same_shape(got, want, f))
        return 1;
    size_t a = 0, b = 0;
    while (a < got->nnz || b < want->nnz) {
        int k = a == got->nnz ? 1 : b == want->nnz ? -1 : coord_cmp(got, a, want, b);
        side g = {k <= 0, k <= 0 ? got->vals[a] : 0}, w = {k >= 0, k >= 0 ? want->vals[b] : 0};
        double within = k >= 0 && bound ? bound[b] : 0;
        meet(&c, k <= 0 ? got : want, k <= 0 ? a : b, g, w, within);
        a += k <= 0;
        b += k >= 0;
    }
    if (worst)
        *worst = c.worst;
    return c.differ;
}
