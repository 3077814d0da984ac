/* SAM level-file directories: reading what the reference tools wrote,
 * writing byte for byte what they write, and the second-operand
 * convention reproducing their C from B. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/prng.h"
#include "../formats/samdir.h"
#include "../formats/shift.h"
#include "../formats/tensor_file.h"
#include "test_util.h"

/* Compares every file of tensor name in two directories; vals files of
 * vectors are compared as numbers, since the reference writes those as
 * integers where its matrices get Python's float repr. */
static void expect_same_files(const char *dir_a, const char *dir_b, const char *name, int order)
{
    static const char *kinds[] = {"seg", "crd"};
    char file[256];
    for (int m = 0; m < order; m++)
        for (int k = 0; k < 2; k++) {
            snprintf(file, sizeof file, "tensor_%s_mode_%d_%s", name, m, kinds[k]);
            char *a = test_path(dir_a, file), *b = test_path(dir_b, file);
            char *ta = test_read_file(a), *tb = test_read_file(b);
            assert_true((ta == NULL) == (tb == NULL));
            if (ta)
                assert_string_equal(ta, tb);
            free(ta), free(tb), free(a), free(b);
        }
    snprintf(file, sizeof file, "tensor_%s_mode_shape", name);
    char *a = test_path(dir_a, file), *b = test_path(dir_b, file);
    char *ta = test_read_file(a), *tb = test_read_file(b);
    assert_string_equal(ta, tb);
    free(ta), free(tb), free(a), free(b);
    snprintf(file, sizeof file, "tensor_%s_mode_vals", name);
    a = test_path(dir_a, file), b = test_path(dir_b, file);
    ta = test_read_file(a), tb = test_read_file(b);
    if (order > 1) {
        assert_string_equal(ta, tb);
    } else {
        char *pa = ta, *pb = tb;
        for (;;) {
            char *ea, *eb;
            double va = strtod(pa, &ea), vb = strtod(pb, &eb);
            assert_true((ea == pa) == (eb == pb));
            if (ea == pa)
                break;
            assert_true(va == vb);
            pa = ea, pb = eb;
        }
    }
    free(ta), free(tb), free(a), free(b);
}

/* Reads, rewrites in the same layout and compares, for every tensor of
 * every kernel folder of both reference matrices. */
static void test_reference_folders_round_trip_byte_for_byte(void **state)
{
    (void)state;
    char *root = test_require_shared("data/sam-formatted");
    static const char *matrices[] = {"bcsstm02", "lp_scsd1"};
    int tensors = 0;
    for (int i = 0; i < 2; i++) {
        char *mdir = test_path(root, matrices[i]);
        DIR *d = opendir(mdir);
        assert_non_null(d);
        for (struct dirent *k; (k = readdir(d));) {
            if (k->d_name[0] == '.')
                continue;
            char *kdir = test_path(mdir, k->d_name);
            DIR *kd = opendir(kdir);
            for (struct dirent *f; kd && (f = readdir(kd));) {
                char name[64];
                if (sscanf(f->d_name, "tensor_%63[^_]_mode_shap%*s", name) != 1)
                    continue;
                sam_error err;
                fibertree ft;
                assert_int_equal(samdir_read(kdir, name, NULL, &ft, &err), 0);
                char *out = test_tmpdir();
                assert_int_equal(samdir_write(out, name, &ft, &err), 0);
                expect_same_files(kdir, out, name, ft.order);
                fibertree_free(&ft);
                test_tmpdir_remove(out);
                tensors++;
            }
            if (kd)
                closedir(kd);
            free(kdir);
        }
        closedir(d);
        free(mdir);
    }
    assert_true(tensors >= 40);
    free(root);
}

static void test_shift_of_b_is_the_reference_c(void **state)
{
    (void)state;
    char *dir = test_require_shared("data/sam-formatted/bcsstm02/mat_elemmul");
    tensor_file in = {.path = dir, .name = "B"};
    tensor b, c;
    sam_error err;
    assert_int_equal(tensor_file_read(&in, &b, &err), 0);
    assert_int_equal(tensor_shift(&b, &c, &err), 0);
    char *out = test_tmpdir();
    tensor_file of = {.path = out, .name = "C", .format = "ss01"};
    assert_int_equal(tensor_file_write(&of, &c, &err), 0);
    expect_same_files(dir, out, "C", 2);
    test_tmpdir_remove(out);
    tensor_free(&b);
    tensor_free(&c);
    free(dir);
}

static void test_layout_inferred_from_file_lengths(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    free(test_write_file(dir, "tensor_B_mode_shape", "4\n4"));
    /* ss10 of SAM-BLOCKS.md 4.2: the top level is mode 1. */
    free(test_write_file(dir, "tensor_B_mode_1_seg", "0\n4\n"));
    free(test_write_file(dir, "tensor_B_mode_1_crd", "0\n1\n2\n3\n"));
    free(test_write_file(dir, "tensor_B_mode_0_seg", "0\n2\n3\n4\n5\n"));
    free(test_write_file(dir, "tensor_B_mode_0_crd", "0\n3\n1\n0\n3\n"));
    free(test_write_file(dir, "tensor_B_mode_vals", "1\n4\n3\n2\n5\n"));
    tensor_file in = {.path = dir};
    tensor t;
    sam_error err;
    assert_int_equal(tensor_file_read(&in, &t, &err), 0);
    assert_true(in.has_stored);
    assert_int_equal(in.stored.mode[0], 1);
    assert_int_equal(t.nnz, 5);
    /* Canonical order is row-major: (0,0)=1 (0,2)=2 (1,1)=3 (3,0)=4 (3,3)=5. */
    for (size_t e = 0; e < 5; e++)
        assert_true(t.vals[e] == (double)(e + 1));
    assert_int_equal(t.crd[1][1], 2);
    tensor_free(&t);
    test_tmpdir_remove(dir);
}

static void test_vector_seg_written_off_by_one_is_read(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    free(test_write_file(dir, "tensor_c_mode_shape", "10"));
    free(test_write_file(dir, "tensor_c_mode_0_seg", "0\n3"));
    free(test_write_file(dir, "tensor_c_mode_0_crd", "1\n5"));
    free(test_write_file(dir, "tensor_c_mode_vals", "1\n1"));
    tensor_file in = {.path = dir, .name = "c"};
    tensor t;
    sam_error err;
    assert_int_equal(tensor_file_read(&in, &t, &err), 0);
    assert_int_equal(t.nnz, 2);
    assert_int_equal(t.crd[0][1], 5);
    tensor_free(&t);
    test_tmpdir_remove(dir);
}

/* Rewriting a tensor densely removes the seg/crd files of its old layout. */
static void test_rewrite_removes_stale_level_files(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    tensor t;
    sam_error err;
    assert_int_equal(tensor_init(&t, 2, (const int64_t[]){3, 3}, &err), 0);
    assert_int_equal(tensor_append(&t, (const int64_t[]){1, 2}, 3.5, &err), 0);
    tensor_file f = {.path = dir, .name = "X", .format = "ss01"};
    assert_int_equal(tensor_file_write(&f, &t, &err), 0);
    char *seg0 = test_path(dir, "tensor_X_mode_0_seg");
    assert_true(test_exists(seg0));
    f.format = "ds01";
    assert_int_equal(tensor_file_write(&f, &t, &err), 0);
    assert_false(test_exists(seg0));
    tensor back;
    tensor_file in = {.path = dir, .name = "X"};
    assert_int_equal(tensor_file_read(&in, &back, &err), 0);
    assert_true(tensor_equal(&t, &back));
    assert_int_equal(in.stored.kind[0], 'd');
    tensor_free(&back);
    tensor_free(&t);
    free(seg0);
    test_tmpdir_remove(dir);
}

static void test_scalar_directory(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    tensor t, back;
    sam_error err;
    assert_int_equal(tensor_init(&t, 0, NULL, &err), 0);
    assert_int_equal(tensor_append(&t, NULL, 2.5, &err), 0);
    tensor_file f = {.path = dir, .name = "b", .format = "none"};
    assert_int_equal(tensor_file_write(&f, &t, &err), 0);
    assert_int_equal(tensor_file_read(&f, &back, &err), 0);
    assert_true(tensor_equal(&t, &back));
    tensor_free(&back);
    tensor_free(&t);
    test_tmpdir_remove(dir);
}

/* A file's text, or fails. */
static void expect_file(const char *dir, const char *file, const char *text)
{
    char *path = test_path(dir, file);
    char *got = test_read_file(path);
    assert_non_null(got);
    assert_string_equal(got, text);
    free(got);
    free(path);
}

static void expect_no_file(const char *dir, const char *file)
{
    char *path = test_path(dir, file);
    assert_false(test_exists(path));
    free(path);
}

/* B = {(0,0)=1, (0,2)=2, (1,1)=3, (3,0)=4, (3,3)=5}, 4 x 4; the fibertree
 * tests work out its arrays. */
static void make_b(tensor *t)
{
    static const int64_t crd[5][2] = {{0, 0}, {0, 2}, {1, 1}, {3, 0}, {3, 3}};
    sam_error err;
    assert_int_equal(tensor_init(t, 2, (const int64_t[]){4, 4}, &err), 0);
    for (int e = 0; e < 5; e++)
        assert_int_equal(tensor_append(t, crd[e], e + 1.0, &err), 0);
}

/* The files of each kind, their numbers as the fibertree arrays; writing
 * another layout over them removes what that one does not keep. */
static void test_bitvector_and_list_files(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    tensor t;
    sam_error err;
    make_b(&t);
    tensor_file f = {.path = dir, .name = "X", .format = "sb01"};
    assert_int_equal(tensor_file_write(&f, &t, &err), 0);
    expect_file(dir, "tensor_X_mode_1_bv", "5\n2\n9");
    expect_file(dir, "tensor_X_mode_1_seg", "0\n2\n3\n5");
    expect_file(dir, "tensor_X_mode_0_crd", "0\n1\n3");
    expect_no_file(dir, "tensor_X_mode_1_crd");
    f.format = "sl01";
    assert_int_equal(tensor_file_write(&f, &t, &err), 0);
    expect_file(dir, "tensor_X_mode_1_head", "0\n2\n3");
    expect_file(dir, "tensor_X_mode_1_crd", "0\n2\n1\n0\n3");
    expect_file(dir, "tensor_X_mode_1_next", "1\n-1\n-1\n4\n-1");
    expect_no_file(dir, "tensor_X_mode_1_bv");
    expect_no_file(dir, "tensor_X_mode_1_seg");
    tensor_file in = {.path = dir, .name = "X"};
    tensor back;
    assert_int_equal(tensor_file_read(&in, &back, &err), 0);
    assert_true(tensor_equal(&t, &back));
    assert_int_equal(in.stored.kind[1], 'l');
    tensor_free(&back);
    f.format = "bs01";
    assert_int_equal(tensor_file_write(&f, &t, &err), 0);
    expect_file(dir, "tensor_X_mode_0_bv", "11");
    expect_no_file(dir, "tensor_X_mode_1_head");
    expect_no_file(dir, "tensor_X_mode_1_next");
    expect_no_file(dir, "tensor_X_mode_0_crd");
    tensor_free(&t);
    test_tmpdir_remove(dir);
}

/* Bit 63 makes a word beyond int64: written and read as unsigned. */
static void test_top_bit_word(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    tensor t, back;
    sam_error err;
    assert_int_equal(tensor_init(&t, 1, (const int64_t[]){128}, &err), 0);
    assert_int_equal(tensor_append(&t, (const int64_t[]){63}, 1.0, &err), 0);
    assert_int_equal(tensor_append(&t, (const int64_t[]){127}, 2.0, &err), 0);
    tensor_file f = {.path = dir, .name = "v", .format = "b0"};
    assert_int_equal(tensor_file_write(&f, &t, &err), 0);
    expect_file(dir, "tensor_v_mode_0_bv", "9223372036854775808\n9223372036854775808");
    tensor_file in = {.path = dir, .name = "v"};
    assert_int_equal(tensor_file_read(&in, &back, &err), 0);
    assert_true(tensor_equal(&t, &back));
    assert_int_equal(in.stored.kind[0], 'b');
    tensor_free(&back);
    tensor_free(&t);
    test_tmpdir_remove(dir);
}

/* A list read from files follows next, whatever the node numbers: here
 * the nodes of B's level 1 numbered backwards, values with them. */
static void test_list_nodes_numbered_out_of_order(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    free(test_write_file(dir, "tensor_B_mode_shape", "4\n4"));
    free(test_write_file(dir, "tensor_B_mode_0_seg", "0\n3"));
    free(test_write_file(dir, "tensor_B_mode_0_crd", "0\n1\n3"));
    free(test_write_file(dir, "tensor_B_mode_1_head", "4\n2\n1"));
    free(test_write_file(dir, "tensor_B_mode_1_crd", "3\n0\n1\n2\n0"));
    free(test_write_file(dir, "tensor_B_mode_1_next", "-1\n0\n-1\n-1\n3"));
    free(test_write_file(dir, "tensor_B_mode_vals", "5\n4\n3\n2\n1"));
    tensor_file in = {.path = dir, .name = "B"};
    tensor t, want;
    sam_error err;
    assert_int_equal(tensor_file_read(&in, &t, &err), 0);
    make_b(&want);
    assert_true(tensor_equal(&t, &want));
    tensor_free(&t);
    tensor_free(&want);
    test_tmpdir_remove(dir);
}

/* Dimensions at and about word boundaries. */
static const int64_t dim_choices[] = {1, 3, 63, 64, 65, 128, 130};

static void random_tensor(prng *r, int order, tensor *t)
{
    sam_error err;
    int64_t dims[3] = {1, 1, 1}, c[3], volume;
    do {
        for (int m = 0; m < order; m++)
            dims[m] = dim_choices[prng_below(r, sizeof dim_choices / sizeof dim_choices[0])];
        volume = dims[0] * dims[1] * dims[2];
    } while (volume > 20000);
    assert_int_equal(tensor_init(t, order, dims, &err), 0);
    /* Some tensors empty, most with empty fibers. */
    double density = (double)prng_below(r, 4) / 10;
    for (int64_t i = 0; i < volume; i++) {
        if (prng_unit(r) >= density)
            continue;
        for (int m = 0, rest = (int)i; m < order; m++) {
            c[m] = rest % dims[m];
            rest /= (int)dims[m];
        }
        assert_int_equal(tensor_append(t, c, (double)i - 7.25, &err), 0);
    }
    assert_int_equal(tensor_canonicalize(t, NULL, &err), 0);
}

/* Writes t in format f and reads it back with f given, and without it
 * (every level kind inferred from the files). */
static void round_trip(const tensor *t, const level_format *f)
{
    char *dir = test_tmpdir();
    sam_error err;
    fibertree ft, back_ft;
    tensor back;
    assert_int_equal(fibertree_build(t, f, &ft, &err), 0);
    assert_int_equal(samdir_write(dir, "T", &ft, &err), 0);
    for (int given = 0; given < 2; given++) {
        if (samdir_read(dir, "T", given ? f : NULL, &back_ft, &err))
            fail_msg("%s", err.msg);
        level_format got;
        fibertree_format(&back_ft, &got);
        for (int k = 0; k < t->order; k++) {
            assert_int_equal(got.kind[k], f->kind[k]);
            assert_int_equal(got.mode[k], f->mode[k]);
        }
        assert_int_equal(fibertree_to_tensor(&back_ft, &back, &err), 0);
        assert_true(tensor_equal(&back, t));
        tensor_free(&back);
        fibertree_free(&back_ft);
    }
    fibertree_free(&ft);
    test_tmpdir_remove(dir);
}

/* Random tensors of order 1 to 3 in random mixes of all four kinds, in
 * natural mode order so that inference has one answer. */
static void test_random_round_trips_every_kind(void **state)
{
    (void)state;
    static const char letters[] = "dsbl";
    prng r;
    prng_seed(&r, 64);
    for (int order = 1; order <= 3; order++)
        for (int trial = 0; trial < 16; trial++) {
            tensor t;
            level_format f;
            random_tensor(&r, order, &t);
            level_format_default(order, &f);
            for (int k = 0; k < order; k++)
                f.kind[k] = letters[prng_below(&r, 4)];
            f.kind[order - 1] = letters[2 + trial % 2];
            round_trip(&t, &f);
            tensor_free(&t);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_folders_round_trip_byte_for_byte),
        cmocka_unit_test(test_shift_of_b_is_the_reference_c),
        cmocka_unit_test(test_layout_inferred_from_file_lengths),
        cmocka_unit_test(test_vector_seg_written_off_by_one_is_read),
        cmocka_unit_test(test_rewrite_removes_stale_level_files),
        cmocka_unit_test(test_scalar_directory),
        cmocka_unit_test(test_bitvector_and_list_files),
        cmocka_unit_test(test_top_bit_word),
        cmocka_unit_test(test_list_nodes_numbered_out_of_order),
        cmocka_unit_test(test_random_round_trips_every_kind),
    };
    return cmocka_run_group_tests_name("samdir", tests, NULL, NULL);
}
