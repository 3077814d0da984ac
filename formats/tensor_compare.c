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

static int close_enough(double a, double b, double rtol)
{
    return a == b || fabs(a - b) <= rtol * fmax(fabs(a), fabs(b));
}

/* Records one difference, printing it while fewer than show were. */
static void differ(size_t *n, FILE *f, int show, const tensor *t, size_t e, double got,
                   double want)
{
    if (f && *n < (size_t)show) {
        fprintf(f, "  at ");
        print_coord(f, t, e);
        fprintf(f, ": simulated %.17g, reference %.17g\n", got, want);
    }
    (*n)++;
}

size_t tensor_compare(const tensor *got, const tensor *want, double rtol, FILE *f, int show)
{
    size_t n = 0;
    if (got->order != want->order) {
        if (f)
            fprintf(f, "  order %d, reference order %d\n", got->order, want->order);
        return 1;
    }
    for (int m = 0; m < got->order; m++)
        if (got->dims[m] != want->dims[m]) {
            if (f)
                fprintf(f, "  mode %d has size %lld, reference %lld\n", m,
                        (long long)got->dims[m], (long long)want->dims[m]);
            return 1;
        }
    size_t a = 0, b = 0;
    while (a < got->nnz || b < want->nnz) {
        int c = a == got->nnz ? 1 : b == want->nnz ? -1 : coord_cmp(got, a, want, b);
        if (c == 0) {
            if (!close_enough(got->vals[a], want->vals[b], rtol))
                differ(&n, f, show, got, a, got->vals[a], want->vals[b]);
            a++, b++;
        } else if (c < 0) {
            if (got->vals[a] != 0.0)
                differ(&n, f, show, got, a, got->vals[a], 0.0);
            a++;
        } else {
            if (want->vals[b] != 0.0)
                differ(&n, f, show, want, b, 0.0, want->vals[b]);
            b++;
        }
    }
    return n;
}
