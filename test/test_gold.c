/* The gold check (custard/gold.h): a result may differ from the
 * evaluator's by the rounding its terms allow and not one ulp more; where
 * nothing cancels that is as strict as a relative tolerance of a few ulps;
 * a constructed cancellation (1e16 - 1e16 + 1, summed in two orders by
 * the simulator and the evaluator) passes end to end. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../custard/gold.h"
#include "../formats/tensor_compare.h"
#include "test_util.h"

static void vector(tensor *t, int64_t dim, size_t n, const int64_t *crd, const double *vals)
{
    sam_error err;
    assert_int_equal(tensor_init(t, 1, &dim, &err), 0);
    for (size_t e = 0; e < n; e++)
        assert_int_equal(tensor_append(t, &crd[e], vals[e], &err), 0);
}

/* Exactly at the bound passes, one ulp beyond fails; an entry the result
 * lacks counts as 0 and is reported absent. */
static void test_compare_at_the_bound(void **state)
{
    (void)state;
    double bound[] = {ldexp(1, -40), 0.5};
    tensor want, got;
    vector(&want, 4, 2, (const int64_t[]){1, 3}, (const double[]){1.0, 0.25});
    double at = 1.0 + ldexp(1, -40);
    vector(&got, 4, 2, (const int64_t[]){1, 3}, (const double[]){at, 0.75});
    double worst;
    assert_int_equal(tensor_compare(&got, &want, bound, NULL, 0, &worst), 0);
    assert_true(worst == 1.0);
    got.vals[0] = nextafter(at, 2.0);
    assert_int_equal(tensor_compare(&got, &want, bound, NULL, 0, &worst), 1);
    tensor_free(&got);

    vector(&got, 4, 1, (const int64_t[]){1}, (const double[]){1.0});
    assert_int_equal(tensor_compare(&got, &want, bound, NULL, 0, &worst), 0);
    assert_true(worst == 0.5);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    bound[1] = 0.125;
    assert_int_equal(tensor_compare(&got, &want, bound, f, 10, NULL), 1);
    fclose(f);
    assert_non_null(strstr(text, "at (3): simulated absent, reference 0.25, difference 0.25 "
                                 "beyond the bound 0.125"));
    free(text);
    tensor_free(&got);
    tensor_free(&want);
}

/* An entry only the result has must be 0: it has no terms to round. */
static void test_compare_extra_entries(void **state)
{
    (void)state;
    tensor want, got;
    vector(&want, 4, 1, (const int64_t[]){1}, (const double[]){2.0});
    vector(&got, 4, 2, (const int64_t[]){1, 2}, (const double[]){2.0, 0.0});
    const double bound[] = {1.0};
    assert_int_equal(tensor_compare(&got, &want, bound, NULL, 0, NULL), 0);
    got.vals[1] = DBL_MIN;
    assert_int_equal(tensor_compare(&got, &want, bound, NULL, 0, NULL), 1);
    tensor_free(&got);
    tensor_free(&want);
}

/* Checks result against text on operands named b and c; returns the
 * report. */
static gold_report check(const char *text, const tensor *b, const tensor *c, const tensor *result)
{
    expr e;
    sam_error err;
    assert_int_equal(expr_parse(text, &e, &err), 0);
    const char *names[] = {"b", "c"};
    const tensor *ops[] = {b, c};
    gold_report r;
    assert_int_equal(gold_check(&e, names, ops, 2, result, NULL, 0, &r, &err), 0);
    expr_free(&e);
    return r;
}

/* x(i) = b(i) * c(i) has one term of two factors: the bound is
 * 2 * (1 + 2) * DBL_EPSILON * |x|, six ulps of 1.0, where a relative
 * tolerance of 1e-9 would accept millions. */
static void test_strict_without_cancellation(void **state)
{
    (void)state;
    tensor b, c, x;
    vector(&b, 2, 1, (const int64_t[]){0}, (const double[]){4.0});
    vector(&c, 2, 1, (const int64_t[]){0}, (const double[]){0.25});
    vector(&x, 2, 1, (const int64_t[]){0}, (const double[]){1.0});
    gold_report r = check("x(i)=b(i)*c(i)", &b, &c, &x);
    assert_true(r.exact);
    assert_int_equal(r.differ, 0);
    x.vals[0] = 1.0 + 6 * DBL_EPSILON;
    r = check("x(i)=b(i)*c(i)", &b, &c, &x);
    assert_false(r.exact);
    assert_int_equal(r.differ, 0);
    assert_true(r.worst == 1.0);
    x.vals[0] = nextafter(x.vals[0], 2.0);
    r = check("x(i)=b(i)*c(i)", &b, &c, &x);
    assert_int_equal(r.differ, 1);
    tensor_free(&x);
    tensor_free(&b);
    tensor_free(&c);
}

/* 1e16 - 1e16 + 1 in three terms: the exact 1 and the 0 that summing
 * 1e16 + 1 first gives are both within the bound, 2 * (3 + 1) *
 * DBL_EPSILON * 2e16, about 36; 40 away is not. */
static void scalar(tensor *t, double v)
{
    sam_error err;
    assert_int_equal(tensor_init(t, 0, NULL, &err), 0);
    assert_int_equal(tensor_append(t, NULL, v, &err), 0);
}

static void test_cancellation(void **state)
{
    (void)state;
    tensor b, unused, x;
    vector(&b, 3, 3, (const int64_t[]){0, 1, 2}, (const double[]){1e16, 1, -1e16});
    vector(&unused, 3, 0, NULL, NULL);
    static const double answers[] = {0.0, 1.0, 2.0};
    for (int k = 0; k < 3; k++) {
        scalar(&x, answers[k]);
        gold_report r = check("x=b(i)", &b, &unused, &x);
        assert_int_equal(r.differ, 0);
        assert_true(r.worst < 0.1);
        tensor_free(&x);
    }
    scalar(&x, 40.0);
    assert_int_equal(check("x=b(i)", &b, &unused, &x).differ, 1);
    tensor_free(&x);
    tensor_free(&b);
    tensor_free(&unused);
}

/* End to end: x(i) = B(i,j) * C(j,k) * d(k) with terms 1e16, 1 and -1e16.
 * The simulator sums in loop order i, j, k and gets 0; the evaluator sums
 * j first and gets 1, the exact value. The previous fixed tolerance failed
 * this run; now it passes and says how close to the bound it came. */
static void test_run_with_cancellation(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "B.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "1 2 2\n1 1 1\n1 2 1\n");
    char *c = test_write_file(dir, "C.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "2 2 3\n1 1 1e16\n2 1 -1e16\n1 2 1\n");
    char *d = test_write_file(dir, "d.tns", "# shape: 2\n1 1\n2 1\n");
    char *graph = test_path(dir, "g.gv"), *x = test_path(dir, "x.tns");
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", "x(i)=B(i,j)*C(j,k)*d(k)", "-o", graph,
                                     NULL), 0);
    char bb[4200], bc[4200], bd[4200], *out = NULL, *err = NULL;
    snprintf(bb, sizeof bb, "B=%s", b);
    snprintf(bc, sizeof bc, "C=%s", c);
    snprintf(bd, sizeof bd, "d=%s", d);
    int rc = test_run_samsim(&out, &err, "run", graph, "-t", bb, "-t", bc, "-t", bd, "--check",
                             "-o", x, NULL);
    if (rc != 0 || !strstr(out, "check: pass (max error 0.019 of bound)\n"))
        fail_msg("exit %d\n%s%s", rc, out, err);
    char *result = test_read_file(x);
    assert_non_null(strstr(result, "\n1 0.0\n"));
    free(result), free(out), free(err);
    free(b), free(c), free(d), free(graph), free(x);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_at_the_bound),
        cmocka_unit_test(test_compare_extra_entries),
        cmocka_unit_test(test_strict_without_cancellation),
        cmocka_unit_test(test_cancellation),
        cmocka_unit_test(test_run_with_cancellation),
    };
    return cmocka_run_group_tests_name("gold check", tests, NULL, NULL);
}
