/* Storage layouts (formats/layout.h, `layout.T` in a hardware file): a
 * tensor's bytes as the memories store it, apart from the format its
 * graph reads, worked by hand; and what a tiled run moves with them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/fibertree.h"
#include "../formats/layout.h"
#include "../run/fibers.h"
#include "../hwmodel/hw.h"
#include "test_util.h"

/* t's bytes in layout (NULL: none) over format, with widths of kind
 * ("crd", "ref", "val") of its own when kind is not NULL, at 4 bytes a
 * coordinate or reference and 8 a value. */
static double bytes_with(const char *layout, const char *kind, const char *widths,
                         const char *format, const tensor *t)
{
    storage_layout l;
    level_format f;
    sam_error err;
    double bytes = -1;
    assert_int_equal(level_format_parse(format, &f, &err), 0);
    if (layout)
        assert_int_equal(storage_layout_parse(layout, &l, &err), 0);
    if (layout && kind)
        assert_int_equal(storage_layout_widths(&l, kind, widths, &err), 0);
    if (layout)
        assert_int_equal(storage_layout_check(&l, &f, &err), 0);
    assert_int_equal(storage_layout_tensor_bytes(layout ? &l : NULL, &f, t, 4, 4, 8, &bytes,
                                                 &err), 0);
    return bytes;
}

static double bytes_in(const char *layout, const char *format, const tensor *t)
{
    return bytes_with(layout, NULL, NULL, format, t);
}

/* At 4 bytes a coordinate or reference and 8 a value. */
static void test_bytes_by_hand(void **state)
{
    (void)state;
    tensor t;
    test_hand_matrix(&t);
    /* ss: rows 5 coordinates + 2 seg, columns 6 coordinates + 6 seg, 6
     * values: 19 x 4 + 48 = 124; as fibertree_bytes counts the tree. */
    assert_true(bytes_in(NULL, "ss", &t) == 124);
    assert_true(bytes_in("ss", "ss", &t) == 124);
    assert_true(bytes_in("tiled", "ss", &t) == 124);
    /* CSR (ds): a seg entry per row, empty rows included, and one more: 9
     * x 4, then 6 coordinates and 6 values: 36 + 24 + 48. */
    assert_true(bytes_in("ds", "ss", &t) == 108);
    /* COO: per entry a row, a column and a value: 6 x 16. */
    assert_true(bytes_in("coo", "ss", &t) == 96);
    assert_true(bytes_in("tiled coo", "ss", &t) == 96);
    /* By columns (ss:1,0) there are 5 columns: the same 124; CSC 108. */
    assert_true(bytes_in(NULL, "ss:1,0", &t) == 124);
    assert_true(bytes_in("ds", "ss:1,0", &t) == 108);
    /* A bitvector of rows' columns: 5 rows of one 64-bit word. */
    assert_true(bytes_in("sb", "ss", &t) == 20 + 8 + 5 * 8 + 48);
    /* The same as the tree for every format with a level of each kind. */
    static const char *const formats[] = {"ss", "ds", "sb", "db", "ss:1,0", "dd"};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        level_format f;
        fibertree ft;
        sam_error err;
        assert_int_equal(level_format_parse(formats[i], &f, &err), 0);
        assert_int_equal(fibertree_build(&t, &f, &ft, &err), 0);
        assert_true(bytes_in(NULL, formats[i], &t) == fibertree_bytes(&ft, 4, 4, 8));
        fibertree_free(&ft);
    }
    /* Widths of its own per level: row coordinates only (ss 124 less the
     * six column coordinates, 100; COO 6 x (4 + 0 + 8) = 72), or 2-byte
     * values (124 - 6 x 6 = 88). */
    assert_true(bytes_with("ss", "crd", "4,0", "ss", &t) == 100);
    assert_true(bytes_with("coo", "crd", "4, 0", "ss", &t) == 72);
    assert_true(bytes_with("ss", "val", "2", "ss", &t) == 88);
    /* A reference width per level: ss with level 0's seg entries free
     * (124 - 2 x 4 = 116). */
    assert_true(bytes_with("ss", "ref", "0,4", "ss", &t) == 116);
    /* Nothing stored costs nothing. */
    tensor none;
    sam_error err;
    assert_int_equal(tensor_init(&none, 2, t.dims, &err), 0);
    assert_true(bytes_in("coo", "ss", &none) == 0 && bytes_in("ds", "ss", &none) == 0);
    tensor_free(&none);
    tensor_free(&t);
}

/* Each row's share of the storage: ds a row pointer and 12 bytes an
 * entry; ss its row coordinate too; COO 16 an entry. The tree's fibers
 * (run/fibers.h, what a cache of B's rows fetches) agree with ss's. */
static void test_fibers_by_hand(void **state)
{
    (void)state;
    static const struct {
        const char *layout;
        double bytes[5];
    } want[] = {{"ds", {28, 16, 16, 16, 16}}, {"ss", {32, 20, 20, 20, 20}},
                {"coo", {32, 16, 16, 16, 16}}, {"tiled", {32, 20, 20, 20, 20}}};
    static const int64_t rows[5] = {0, 3, 5, 6, 7};
    tensor t;
    level_format f;
    sam_error err;
    hw_desc hw;
    test_hand_matrix(&t);
    hw_defaults(&hw);
    hw.bytes_val = 8;
    assert_int_equal(level_format_parse("ss", &f, &err), 0);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        storage_layout l;
        tile_fibers fib;
        assert_int_equal(storage_layout_parse(want[i].layout, &l, &err), 0);
        assert_int_equal(tile_fibers_build_stored(&t, &f, &l, &hw, &fib, &err), 0);
        assert_int_equal(fib.n, 5);
        for (int r = 0; r < 5; r++)
            assert_true(fib.crd[r] == rows[r] && fib.bytes[r] == want[i].bytes[r]);
        tile_fibers_free(&fib);
    }
    fibertree ft;
    tile_fibers fib;
    assert_int_equal(fibertree_build(&t, &f, &ft, &err), 0);
    assert_int_equal(tile_fibers_build(&ft, &hw, &fib, &err), 0);
    for (int r = 0; r < 5; r++)
        assert_true(fib.crd[r] == rows[r] && fib.bytes[r] == want[1].bytes[r]);
    tile_fibers_free(&fib);
    fibertree_free(&ft);
    tensor_free(&t);
}

static void test_parse(void **state)
{
    (void)state;
    static const char *const good[] = {"coo", "ds", "tiled", "tiled coo", "tiled sb"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        storage_layout l;
        sam_error err;
        char back[32];
        assert_int_equal(storage_layout_parse(good[i], &l, &err), 0);
        storage_layout_str(&l, back, sizeof back);
        assert_string_equal(back, good[i]);
    }
    static const char *const bad[] = {"", "cool", "dx", "tiled x", "tiledcoo", "sssssssss"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        storage_layout l;
        sam_error err;
        assert_int_equal(storage_layout_parse(bad[i], &l, &err), -1);
        assert_non_null(strstr(err.msg, "layout '"));
    }
    static const struct {
        const char *kind, *text;
    } bad_widths[] = {{"crd", ""}, {"crd", "4,"}, {"crd", "4;4"}, {"ref", "65"}, {"ref", "-1"},
                      {"ref", "1.5"}, {"val", "4,4"}, {"crd", "1,1,1,1,1,1,1,1,1"},
                      {"crd", "0x10"}, {"crd", ",4"}, {"crd", "4,,4"}, {"val", "inf"}};
    for (size_t i = 0; i < sizeof bad_widths / sizeof bad_widths[0]; i++) {
        storage_layout l = {0};
        sam_error err;
        assert_int_equal(storage_layout_widths(&l, bad_widths[i].kind, bad_widths[i].text, &err),
                         -1);
        assert_non_null(strstr(err.msg, "whole number"));
    }
}

static void test_hw_keys(void **state)
{
    (void)state;
    hw_desc hw;
    sam_error err;
    hw_defaults(&hw);
    assert_int_equal(hw_read_text("t.hw", "layout.Z = coo\nlayout.A = tiled ds\n", &hw, &err), 0);
    assert_true(hw_layout_of(&hw, "Z")->coo && hw_layout_of(&hw, "A")->tiled);
    assert_null(hw_layout_of(&hw, "B"));
    level_format ss, sss;
    assert_int_equal(level_format_parse("ss", &ss, &err), 0);
    assert_int_equal(level_format_parse("sss", &sss, &err), 0);
    const char *names[] = {"Z", "A"};
    const level_format *fits[] = {&ss, &ss}, *three[] = {&ss, &sss};
    assert_int_equal(hw_check_layouts(&hw, names, fits, 2, &err), 0);
    assert_int_equal(hw_check_layouts(&hw, names, three, 2, &err), -1);
    assert_string_equal(err.msg, "t.hw:2: layout.A: layout tiled ds has 2 levels, the tensor's "
                                 "format sss012 has 3");
    assert_int_equal(hw_check_layouts(&hw, names, fits, 1, &err), -1);
    assert_string_equal(err.msg, "t.hw:2: layout.A: the run has no tensor A");
    /* Widths per tensor and level, with or without a layout. */
    hw_defaults(&hw);
    assert_int_equal(hw_read_text("w.hw", "bytes.T.crd = 4, 0, 4\nbytes.T.val = 8\n"
                                  "layout.T = dls\nbytes.T.ref = 4,4,0\nbytes.crd = 2\n",
                                  &hw, &err), 0);
    const storage_layout *tl = hw_layout_of(&hw, "T");
    assert_true(tl && tl->ncrd == 3 && tl->crd[1] == 0 && tl->nref == 3 && tl->ref[2] == 0);
    assert_true(tl->has_val && tl->val == 8 && tl->nlevels == 3 && hw.bytes_crd == 2);
    const char *tname[] = {"T"};
    const level_format *tss[] = {&ss};
    assert_int_equal(hw_check_layouts(&hw, tname, tss, 1, &err), -1);
    assert_string_equal(err.msg, "w.hw:1: layout.T: layout dls has 3 levels, the tensor's "
                                 "format ss01 has 2");
    hw_defaults(&hw);
    assert_int_equal(hw_read_text("w.hw", "bytes.T.ref = 4,4,0\n", &hw, &err), 0);
    assert_int_equal(hw_check_layouts(&hw, tname, tss, 1, &err), -1);
    assert_string_equal(err.msg, "w.hw:1: layout.T: 3 reference widths, the tensor's format "
                                 "ss01 has 2 levels");
    static const struct {
        const char *text, *message;
    } bad[] = {
        {"layout.Z = cool\n", "b.hw:1: layout.Z: layout 'cool': coo, or level letters"},
        {"layout.Z = coo\nlayout.Z = ss\n", "b.hw:2: layout.Z is given twice"},
        {"layout. = coo\n", "b.hw:1: layout.: not a tensor name"},
        {"bytes.Z.crd = 4\nlayout.Z = coo\nbytes.Z.crd = 2\n",
         "b.hw:3: bytes.Z.crd is given twice"},
        {"bytes.Z.val = 4,4\n", "b.hw:1: bytes.Z.val: bytes val '4,4': one whole number"},
        {"bytes.Z.size = 4\n", "b.hw:1: unknown key bytes.Z.size"},
        {"bytes..crd = 4\n", "b.hw:1: bytes..crd: not a tensor name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hw_defaults(&hw);
        assert_int_equal(hw_read_text("b.hw", bad[i].text, &hw, &err), -1);
        if (strncmp(err.msg, bad[i].message, strlen(bad[i].message)))
            fail_msg("'%s' gave '%s'", bad[i].text, err.msg);
    }
}

/* DRAM moves the LLB's tiles: B whole as one tree, rows {0,1} (2 + 2),
 * columns (3 + 3), values 24: 64 bytes. Stored as its PE tiles (tiled),
 * the 4x4 tile costs its two PE tiles: (0,0)(1,1) 2 + 2, 2 + 3, 16: 52;
 * (0,1) 1 + 2, 1 + 2, 8: 32; 84. X (the three entries of B .* C, as B)
 * goes out whole: 64, or in COO 3 x 16 = 48. */
/* X = B .* C on B = C = (0,0) (1,1) (0,3) in a 4x4, the LLB holding the
 * whole 4x4 and PE tiles of 2x2, through hw (a file t.hw, named in
 * refusals), with --check: 0 with the run, or -1 with the refusal in msg. */
static int two_levels(const char *dir, const char *hw, sam_graph *g, graph_run *run, char *msg,
                      size_t size)
{
    static const char b4[] = "%%MatrixMarket matrix coordinate real general\n4 4 3\n"
                             "1 1 1\n2 2 2\n1 4 3\n";
    char *b = test_write_file(dir, "b4.mtx", b4), *h = test_write_file(dir, "t.hw", hw);
    char *graph = test_compile_to(dir, "em", "X(i,j)=B(i,j)*C(i,j) -f=X:ss -f=B:ss -f=C:ss "
        "-s=split(i,i1,i0,4) -s=split(j,j1,j0,4) -s=split(i0,i01,i00,2) -s=split(j0,j01,j00,2)");
    char tb[512], tc[512];
    snprintf(tb, sizeof tb, "B=%s", b);
    snprintf(tc, sizeof tc, "C=%s", b);
    test_run_spec s = {.graph = graph, .bind = {tb, tc}, .hw = h, .check = 1, .stats = 1};
    int rc = test_graph_run(&s, g, run, msg, size);
    free(b), free(h), free(graph);
    return rc;
}

static void test_run_by_hand(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), msg[512];
    sam_graph g;
    graph_run run;
    assert_int_equal(two_levels(dir, "bytes.val = 8\n", &g, &run, msg, sizeof msg), 0);
    assert_true(test_field(&run, "traffic.B") == 64 && test_field(&run, "traffic.X") == 64);
    test_graph_run_free(&g, &run);
    assert_int_equal(two_levels(dir, "bytes.val = 8\nlayout.B = tiled\nlayout.X = coo\n", &g,
                                &run, msg, sizeof msg),
                     0);
    assert_true(test_field(&run, "traffic.B") == 84 && test_field(&run, "traffic.C") == 64);
    assert_true(test_field(&run, "traffic.X") == 48);
    test_graph_run_free(&g, &run);
    assert_int_equal(two_levels(dir, "layout.X = tiled\n", &g, &run, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "t.hw:1: layout.X: tiled is for operands; X is the result"));
    test_graph_run_free(&g, &run);
    assert_int_equal(two_levels(dir, "layout.B = s\n", &g, &run, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "t.hw:1: layout.B: layout s has 1 levels, the tensor's format "
                                "ss01 has 2"));
    test_graph_run_free(&g, &run);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_by_hand), cmocka_unit_test(test_fibers_by_hand),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_hw_keys),       cmocka_unit_test(test_run_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
