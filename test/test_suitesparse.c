/* Every matrix of ../shared/data/suitesparse: read, checked against the
 * test's own simple parse and against MANIFEST.csv, then written in each
 * format and read back identical. */
#include <csv.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../formats/tensor_file.h"
#include "test_util.h"

typedef struct triple {
    long long i, j;
    double v;
} triple;

typedef struct plain_matrix {
    long long rows, cols, declared;
    int complex_field;
    triple *t;
    size_t n;
} plain_matrix;

static int cmp_triple(const void *a, const void *b)
{
    const triple *x = a, *y = b;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

/* A deliberately naive reader, sharing nothing with samsim's. */
static void plain_read(const char *path, plain_matrix *m)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024], obj[64], fmt[64], field[64], sym[64];
    assert_non_null(fgets(line, sizeof line, f));
    assert_int_equal(sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", obj, fmt, field, sym), 4);
    memset(m, 0, sizeof *m);
    m->complex_field = !strcasecmp(field, "complex");
    int pattern = !strcasecmp(field, "pattern");
    int symmetric = !strcasecmp(sym, "symmetric"), skew = !strcasecmp(sym, "skew-symmetric");
    while (fgets(line, sizeof line, f) && (line[0] == '%' || line[0] == '\n'))
        ;
    assert_int_equal(sscanf(line, "%lld %lld %lld", &m->rows, &m->cols, &m->declared), 3);
    m->t = malloc(2 * (size_t)m->declared * sizeof *m->t + 1);
    while (!m->complex_field && fgets(line, sizeof line, f)) {
        triple x = {0, 0, 1.0};
        if (line[0] == '%' || sscanf(line, "%lld %lld %lf", &x.i, &x.j, &x.v) < 2 + !pattern)
            continue;
        x.i--, x.j--;
        if (pattern)
            x.v = 1.0;
        m->t[m->n++] = x;
        if ((symmetric || skew) && x.i != x.j)
            m->t[m->n++] = (triple){x.j, x.i, skew ? -x.v : x.v};
    }
    fclose(f);
    qsort(m->t, m->n, sizeof *m->t, cmp_triple);
    size_t out = 0;
    for (size_t k = 0; k < m->n; k++) {
        if (out && !cmp_triple(&m->t[out - 1], &m->t[k]))
            m->t[out - 1].v += m->t[k].v;
        else
            m->t[out++] = m->t[k];
    }
    m->n = out;
}

/* MANIFEST.csv through libcsv: file, name, field, symmetry, rows, cols,
 * stored_entries, source. */
typedef struct manifest_row {
    char file[64];
    long long rows, cols, entries;
} manifest_row;

typedef struct manifest {
    manifest_row rows[256];
    int n, field;
} manifest;

static void on_field(void *s, size_t len, void *data)
{
    manifest *m = data;
    manifest_row *r = &m->rows[m->n];
    char buf[256];
    snprintf(buf, sizeof buf, "%.*s", (int)len, (const char *)s);
    if (m->field == 0)
        snprintf(r->file, sizeof r->file, "%.63s", buf);
    else if (m->field == 4)
        r->rows = atoll(buf);
    else if (m->field == 5)
        r->cols = atoll(buf);
    else if (m->field == 6)
        r->entries = atoll(buf);
    m->field++;
}

static void on_row(int c, void *data)
{
    (void)c;
    manifest *m = data;
    m->field = 0;
    if (m->n < 255)
        m->n++;
}

static void read_manifest(const char *path, manifest *m)
{
    char *text = test_read_file(path);
    assert_non_null(text);
    struct csv_parser p;
    memset(m, 0, sizeof *m);
    assert_int_equal(csv_init(&p, CSV_APPEND_NULL), 0);
    assert_int_equal(csv_parse(&p, text, strlen(text), on_field, on_row, m), strlen(text));
    csv_fini(&p, on_field, on_row, m);
    csv_free(&p);
    free(text);
}

static const manifest_row *manifest_find(const manifest *m, const char *file)
{
    for (int i = 1; i < m->n; i++)
        if (!strcmp(m->rows[i].file, file))
            return &m->rows[i];
    fail_msg("%s is not in MANIFEST.csv", file);
    return NULL;
}

static void expect_matches_plain(const tensor *t, const plain_matrix *m)
{
    assert_int_equal(t->dims[0], m->rows);
    assert_int_equal(t->dims[1], m->cols);
    assert_int_equal(t->nnz, m->n);
    for (size_t e = 0; e < t->nnz; e++) {
        assert_int_equal(t->crd[0][e], m->t[e].i);
        assert_int_equal(t->crd[1][e], m->t[e].j);
        assert_true(t->vals[e] == m->t[e].v);
    }
}

/* Without the explicit zeros, which dense storage cannot keep. */
static void drop_zeros(const tensor *t, tensor *out)
{
    sam_error err;
    assert_int_equal(tensor_init(out, t->order, t->dims, &err), 0);
    for (size_t e = 0; e < t->nnz; e++)
        if (t->vals[e] != 0.0)
            assert_int_equal(
                tensor_append(out, (const int64_t[]){t->crd[0][e], t->crd[1][e]}, t->vals[e], &err),
                0);
}

static void round_trip(const tensor *t, const char *dir, const char *file, const char *format)
{
    char *path = test_path(dir, file);
    tensor_file f = {.path = path, .name = "B", .format = format};
    tensor back;
    sam_error err;
    if (tensor_file_write(&f, t, &err) || tensor_file_read(&f, &back, &err))
        fail_msg("%s", err.msg);
    if (format && format[1] == 'd') {
        tensor nz;
        drop_zeros(t, &nz);
        assert_true(tensor_equal(&nz, &back));
        tensor_free(&nz);
    } else {
        assert_true(tensor_equal(t, &back));
    }
    tensor_free(&back);
    free(path);
}

static void check_matrix(const char *dir, const char *file, const manifest *man, int *checked)
{
    char *path = test_path(dir, file);
    plain_matrix m;
    plain_read(path, &m);
    const manifest_row *row = manifest_find(man, file);
    assert_int_equal(row->rows, m.rows);
    assert_int_equal(row->cols, m.cols);
    assert_int_equal(row->entries, m.declared);
    tensor_file in = {.path = path};
    tensor t;
    sam_error err;
    int rc = tensor_file_read(&in, &t, &err);
    if (m.complex_field) {
        assert_int_equal(rc, -1);
        assert_non_null(strstr(err.msg, "complex"));
    } else {
        if (rc)
            fail_msg("%s", err.msg);
        expect_matches_plain(&t, &m);
        char *out = test_tmpdir();
        round_trip(&t, out, "m.mtx", NULL);
        round_trip(&t, out, "m.tns", NULL);
        round_trip(&t, out, "ss01", "ss01");
        round_trip(&t, out, "ss10", "ss10");
        round_trip(&t, out, "ds01", "ds01");
        if (m.rows * m.cols <= 1000000)
            round_trip(&t, out, "dd01", "dd10");
        test_tmpdir_remove(out);
        tensor_free(&t);
        (*checked)++;
    }
    free(m.t);
    free(path);
}

static void test_every_suitesparse_matrix(void **state)
{
    (void)state;
    char *dir = test_require_shared("data/suitesparse");
    char *manifest_path = test_path(dir, "MANIFEST.csv");
    manifest *man = malloc(sizeof *man);
    read_manifest(manifest_path, man);
    assert_true(man->n > 40);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int checked = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n > 4 && !strcmp(e->d_name + n - 4, ".mtx"))
            check_matrix(dir, e->d_name, man, &checked);
    }
    closedir(d);
    printf("note: %d matrices read and round-tripped\n", checked);
    assert_true(checked >= 40);
    free(man);
    free(manifest_path);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_suitesparse_matrix),
    };
    return cmocka_run_group_tests_name("suitesparse", tests, NULL, NULL);
}
