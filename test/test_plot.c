/* samsim plot: what gnuplot drew (in its SVG: each group's legend text and
 * one point marker or bar per point), the means and error bars of
 * repeated rows (through --data), PNG output, user text that gnuplot must
 * take literally, and refusals that leave no file behind, including a
 * gnuplot that is missing or fails halfway; and through the library, the
 * points a table makes, the script gnuplot is given, and what reading a
 * table refuses. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../report/plot.h"
#include "test_util.h"

/* A sweep's table: dimension 1024 of nnz 5000 ran three times (1, 2 and 6
 * cycles), and a failed job left its cycles empty. */
static const char sweep[] = "nnz,dimension,order,cycles,check\n"
                            "5000,1024,ijk,1,pass\n"
                            "5000,1024,ijk,2,pass\n"
                            "5000,1024,ijk,6,pass\n"
                            "5000,2048,jik,40,pass\n"
                            "5000,512,ikj,8,pass\n"
                            "10000,1024,ijk,,failed\n"
                            "10000,2048,jik,25,pass\n"
                            "10000,512,ikj,7,pass\n";

/* gnuplot's SVG puts each plot (a --by group) in <g id="gnuplot_plot_N">,
 * with its legend text and its markers, the legend's sample among them:
 * `<use xlink:href='#gpPt` a point, `<polygon` a filled bar. */
static void assert_group(const char *svg, int n, const char *legend, const char *marker,
                         int points)
{
    char id[64], text[256];
    snprintf(id, sizeof id, "<g id=\"gnuplot_plot_%d\"", n);
    const char *from = strstr(svg, id);
    if (!from)
        fail_msg("the SVG has no plot %d", n);
    const char *to = strstr(from + 1, "<g id=\"gnuplot_plot_");
    to = to ? to : svg + strlen(svg);
    snprintf(text, sizeof text, "<text>%s</text>", legend);
    if (test_count(from, to, text) != 1)
        fail_msg("plot %d does not have the legend %s", n, text);
    int got = test_count(from, to, marker);
    if (got != points + 1)
        fail_msg("plot %d (%s) has %d markers, not %d points and the legend's", n, legend, got,
                 points);
}

static char *read_svg(const char *path)
{
    char *svg = test_read_file(path);
    assert_non_null(svg);
    assert_true(!strncmp(svg, "<?xml", 5) || !strncmp(svg, "<svg", 4));
    assert_contains(svg, "</svg>");
    return svg;
}

static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* Exit status 1, one line on stderr holding want, and dir still holds
 * only its ninputs files. */
static void assert_refused(const char *dir, int ninputs, const char *want,
                           const char *const *argv)
{
    char *out = NULL, *se = NULL;
    assert_int_equal(test_run_samsim_argv(&out, &se, argv), 1);
    if (!strstr(se, want))
        fail_msg("'%s' does not say '%s'", se, want);
    if (strchr(se, '\n') != se + strlen(se) - 1)
        fail_msg("not one line: '%s'", se);
    assert_string_equal(out, "");
    assert_int_equal(entries(dir), ninputs);
    free(out);
    free(se);
}

static void test_lines_per_group(void **state)
{
    (void)state;
    test_require_gnuplot();
    char *dir = test_tmpdir(), *csv = test_write_file(dir, "sweep.csv", sweep);
    char *svg_path = test_path(dir, "cycles.svg"), *se = NULL;
    assert_int_equal(test_run_samsim(NULL, &se, "plot", csv, "--x", "dimension", "--y",
                                     "cycles", "--by", "nnz", "-o", svg_path, NULL), 0);
    char want[4200];
    snprintf(want, sizeof want, "samsim: plot: %s: left out 1 row whose cycles is not a number\n",
             csv);
    assert_string_equal(se, want);
    char *svg = read_svg(svg_path);
    /* nnz 5000 at three dimensions (1024's three rows one point), 10000 at
     * two (1024 failed). */
    assert_group(svg, 1, "5000", "<use xlink:href='#gpPt", 3);
    assert_group(svg, 2, "10000", "<use xlink:href='#gpPt", 2);
    assert_null(strstr(svg, "gnuplot_plot_3"));
    assert_contains(svg, "<text>cycles by dimension for each nnz</text>");
    assert_contains(svg, "<text>dimension</text>");
    free(svg), free(se), free(csv), free(svg_path);
    test_tmpdir_remove(dir);
}

static void test_bars_per_category(void **state)
{
    (void)state;
    test_require_gnuplot();
    char *dir = test_tmpdir(), *csv = test_write_file(dir, "sweep.csv", sweep);
    char *svg_path = test_path(dir, "orders.svg");
    assert_int_equal(test_run_samsim(NULL, NULL, "plot", csv, "--x", "order", "--y", "cycles",
                                     "--by", "nnz", "-o", svg_path, "--title", "loop orders",
                                     "--xlabel", "order of the loops", "--logy", NULL), 0);
    char *svg = read_svg(svg_path);
    assert_group(svg, 1, "5000", "<polygon", 3);
    assert_group(svg, 2, "10000", "<polygon", 2);
    /* The categories in the order they first appear, as x tic labels. */
    const char *ijk = strstr(svg, "<text>ijk</text>"), *jik = strstr(svg, "<text>jik</text>");
    const char *ikj = strstr(svg, "<text>ikj</text>");
    assert_true(ijk && jik && ikj && ijk < jik && jik < ikj);
    assert_contains(svg, "<text>loop orders</text>");
    assert_contains(svg, "<text>order of the loops</text>");
    free(svg), free(csv), free(svg_path);
    test_tmpdir_remove(dir);
}

/* What plot_data writes of the table at csv, x and y its columns. */
static char *points_of(const char *csv, const char *x, const char *y)
{
    const plot_request req = {.csv = csv, .x = x, .y = y};
    plot_set s;
    sam_error err;
    if (plot_set_read(&req, &s, &err))
        fail_msg("%s", err.msg);
    char *text;
    size_t size;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    plot_data(f, &s, &req);
    assert_int_equal(fclose(f), 0);
    plot_set_free(&s);
    return text;
}

/* Repeated rows become their mean with the least and the most as the
 * error bar; points come by group in first-appearance order, then by x.
 * The first table goes through samsim plot --data, the others through
 * the library. */
static void test_means(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *csv = test_write_file(dir, "sweep.csv", sweep), *out = NULL;
    assert_int_equal(test_run_samsim(&out, NULL, "plot", csv, "--x", "dimension", "--y",
                                     "cycles", "--by", "nnz", "--data", NULL), 0);
    assert_string_equal(out, "\"nnz\",\"dimension\",\"cycles\",min,max,rows\n"
                             "\"5000\",512,8,8,8,1\n"
                             "\"5000\",1024,3,1,6,3\n"
                             "\"5000\",2048,40,40,40,1\n"
                             "\"10000\",512,7,7,7,1\n"
                             "\"10000\",2048,25,25,25,1\n");
    free(out);
    /* Categorical x; without --by a single group. "1024" and "1.024e3" are
     * one x. */
    char *other = test_write_file(dir, "other.csv", "k,v\nb,1\na,2\nb,4\n1.5,0.5\n");
    out = points_of(other, "k", "v");
    assert_string_equal(out, "\"k\",\"v\",min,max,rows\n"
                             "\"b\",2.5,1,4,2\n"
                             "\"a\",2,2,2,1\n"
                             "\"1.5\",0.5,0.5,0.5,1\n");
    free(out);
    char *same = test_write_file(dir, "same.csv", "x,y\n1024,1\n1.024e3,3\n");
    out = points_of(same, "x", "y");
    assert_string_equal(out, "\"x\",\"y\",min,max,rows\n1024,2,1,3,2\n");
    free(out), free(csv), free(other), free(same);
    test_tmpdir_remove(dir);
}

/* The sweep table's set: groups and categories in first-appearance order,
 * the failed row left out and counted, each point where it is plotted. */
static void test_set_of_sweep_table(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *csv = test_write_file(dir, "sweep.csv", sweep);
    const plot_request req = {.csv = csv, .x = "order", .y = "cycles", .by = "nnz"};
    plot_set s;
    sam_error err;
    assert_int_equal(plot_set_read(&req, &s, &err), 0);
    assert_int_equal(s.skipped, 1);
    assert_int_equal(s.ngroups, 2);
    assert_string_equal(s.groups[0], "5000");
    assert_string_equal(s.groups[1], "10000");
    assert_int_equal(s.ncats, 3);
    assert_string_equal(s.cats[0], "ijk");
    assert_string_equal(s.cats[1], "jik");
    assert_string_equal(s.cats[2], "ikj");
    assert_int_equal(s.repeats, 1);
    const plot_point want[] = {{0, 0, 3, 1, 6, 3}, {0, 1, 40, 40, 40, 1}, {0, 2, 8, 8, 8, 1},
                               {1, 1, 25, 25, 25, 1}, {1, 2, 7, 7, 7, 1}};
    assert_int_equal(s.npoints, 5);
    for (int i = 0; i < 5; i++) {
        const plot_point *p = &s.points[i];
        assert_int_equal(p->group, want[i].group);
        assert_true(p->x == want[i].x && p->mean == want[i].mean && p->min == want[i].min &&
                    p->max == want[i].max);
        assert_int_equal(p->rows, want[i].rows);
    }
    plot_set_free(&s);
    free(csv);
    test_tmpdir_remove(dir);
}

/* What plot_script writes for req. */
static char *script_of(const plot_request *req)
{
    plot_set s;
    sam_error err;
    if (plot_set_read(req, &s, &err))
        fail_msg("%s", err.msg);
    char *text;
    size_t size;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    plot_script(f, &s, req);
    assert_int_equal(fclose(f), 0);
    plot_set_free(&s);
    return text;
}

/* Lines through numeric x with error bars where rows repeat; bars in
 * clusters for categories, names as gnuplot string literals with quotes
 * doubled and line breaks blanked. */
static void test_script(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *csv = test_write_file(dir, "sweep.csv", sweep);
    const plot_request lines = {.csv = csv, .x = "dimension", .y = "cycles", .by = "nnz",
                                .out = "x.svg", .logx = 1};
    char *text = script_of(&lines);
    assert_string_equal(text, "set encoding utf8\n"
                              "set terminal svg size 900,600 noenhanced\n"
                              "$G0 << EOD\n"
                              "512 8 8 8\n"
                              "1024 3 1 6\n"
                              "2048 40 40 40\n"
                              "EOD\n"
                              "$G1 << EOD\n"
                              "512 7 7 7\n"
                              "2048 25 25 25\n"
                              "EOD\n"
                              "set title 'cycles by dimension for each nnz'\n"
                              "set xlabel 'dimension'\n"
                              "set ylabel 'cycles'\n"
                              "set grid\n"
                              "set key outside right top\n"
                              "set logscale x\n"
                              "plot $G0 using 1:2:3:4 with yerrorlines title '5000', \\\n"
                              "     $G1 using 1:2:3:4 with yerrorlines title '10000'\n");
    free(text);
    char *odd = test_write_file(dir, "odd.csv", "kernel,cycles\n\"o'k\",5\n\"two\nlines\",7\n");
    const plot_request bars = {.csv = odd, .x = "kernel", .y = "cycles", .out = "x.png",
                               .title = "it's"};
    text = script_of(&bars);
    assert_string_equal(text, "set encoding utf8\n"
                              "set terminal pngcairo size 900,600 noenhanced\n"
                              "$G0 << EOD\n"
                              "0 5 5 5\n"
                              "1 7 7 7\n"
                              "EOD\n"
                              "set title 'it''s'\n"
                              "set xlabel 'kernel'\n"
                              "set ylabel 'cycles'\n"
                              "set grid\n"
                              "unset key\n"
                              "set xtics ('o''k' 0, 'two lines' 1)\n"
                              "set xrange [-0.5:1.5]\n"
                              "set style fill solid 0.7 border -1\n"
                              "set yrange [0:*]\n"
                              "plot $G0 using ($1+0):2:(0.8) with boxes title ''\n");
    free(text), free(csv), free(odd);
    test_tmpdir_remove(dir);
}

/* Reading refuses with one line naming the file and the line. */
static void test_read_refusals(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *csv = test_write_file(dir, "sweep.csv", sweep);
    char *zero = test_write_file(dir, "zero.csv", "a,b\n1,2\n0,3\n2,-1\n");
    const struct {
        plot_request req;
        const char *file, *want;
    } cases[] = {
        {{.csv = csv, .x = "nnz", .y = "cycle"}, csv,
         ":1: --y: no column 'cycle' (the columns: nnz, dimension, order, cycles, check)"},
        {{.csv = csv, .x = "nnz", .y = "cycles", .by = "nz"}, csv,
         ":1: --by: no column 'nz' (the columns: nnz, dimension, order, cycles, check)"},
        {{.csv = csv, .x = "nnz", .y = "check"}, csv,
         ": no row has a number in column check (8 rows without)"},
        {{.csv = csv, .x = "order", .y = "cycles", .logx = 1}, csv,
         ":2: --logx: column order holds 'ijk', not a number"},
        {{.csv = zero, .x = "a", .y = "b", .logx = 1}, zero,
         ":3: --logx: column a is 0, not positive"},
        {{.csv = zero, .x = "a", .y = "b", .logy = 1}, zero,
         ":4: --logy: column b is -1, not positive"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        plot_set s;
        sam_error err;
        char want[4200];
        snprintf(want, sizeof want, "%s%s", cases[c].file, cases[c].want);
        assert_int_equal(plot_set_read(&cases[c].req, &s, &err), -1);
        assert_string_equal(err.msg, want);
    }
    free(csv), free(zero);
    test_tmpdir_remove(dir);
}

static void test_png(void **state)
{
    (void)state;
    test_require_gnuplot();
    char *dir = test_tmpdir(), *csv = test_write_file(dir, "sweep.csv", sweep);
    char *png = test_path(dir, "cycles.png");
    assert_int_equal(test_run_samsim(NULL, NULL, "plot", csv, "--x", "dimension", "--y", "cycles",
                                     "-o", png, "--logx", "--logy", NULL), 0);
    FILE *f = fopen(png, "rb");
    assert_non_null(f);
    unsigned char head[8];
    assert_int_equal(fread(head, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(head, "\x89PNG\r\n\x1a\n", 8);
    assert_int_equal(entries(dir), 2);
    free(csv), free(png);
    test_tmpdir_remove(dir);
}

/* Quotes, a line break and enhanced-text characters in names and titles
 * reach the picture as written. */
static void test_literal_text(void **state)
{
    (void)state;
    test_require_gnuplot();
    char *dir = test_tmpdir();
    char *csv = test_write_file(dir, "t.csv", "kernel,n,cycles\n"
                                              "\"mat_vec^2 {x}\",1,5\n"
                                              "\"o'k \"\"q\"\"\",1,6\n"
                                              "\"two\nlines\",1,7\n");
    char *svg_path = test_path(dir, "t.svg");
    assert_int_equal(test_run_samsim(NULL, NULL, "plot", csv, "--x", "n", "--y", "cycles",
                                     "--by", "kernel", "-o", svg_path, "--title", "it's @b_c",
                                     NULL), 0);
    char *svg = read_svg(svg_path);
    assert_group(svg, 1, "mat_vec^2 {x}", "<use xlink:href='#gpPt", 1);
    assert_group(svg, 2, "o'k \"q\"", "<use xlink:href='#gpPt", 1);
    assert_group(svg, 3, "two lines", "<use xlink:href='#gpPt", 1);
    assert_contains(svg, "<text>it's @b_c</text>");
    free(svg), free(csv), free(svg_path);
    test_tmpdir_remove(dir);
}

static void test_refusals(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *csv = test_write_file(dir, "sweep.csv", sweep);
    char *svg = test_path(dir, "out.svg"), *pdf = test_path(dir, "out.pdf"), want[4200];
    snprintf(want, sizeof want,
             "%s:1: --y: no column 'cycle' (the columns: nnz, dimension, order, cycles, check)",
             csv);
    assert_refused(dir, 1, want, (const char *const[]){"plot", csv, "--x", "nnz", "--y", "cycle",
                                                       "-o", svg, NULL});
    snprintf(want, sizeof want, "%s: unknown output format (use .svg or .png)", pdf);
    assert_refused(dir, 1, want, (const char *const[]){"plot", csv, "--x", "nnz", "--y",
                                                       "cycles", "-o", pdf, NULL});
    assert_refused(dir, 1, "usage: samsim plot CSV --x COL --y COL",
                   (const char *const[]){"plot", csv, "--x", "nnz", NULL});
    snprintf(want, sizeof want, "%s: no row has a number in column check (8 rows without)", csv);
    assert_refused(dir, 1, want, (const char *const[]){"plot", csv, "--x", "nnz", "--y", "check",
                                                       "-o", svg, NULL});
    snprintf(want, sizeof want, "%s:2: --logx: column order holds 'ijk', not a number", csv);
    assert_refused(dir, 1, want, (const char *const[]){"plot", csv, "--x", "order", "--y",
                                                       "cycles", "--logx", "-o", svg, NULL});

    char *ragged = test_write_file(dir, "ragged.csv", "a,b\n1,2\n3\n4,5\n");
    snprintf(want, sizeof want, "%s:3: 1 field where the header has 2", ragged);
    assert_refused(dir, 2, want, (const char *const[]){"plot", ragged, "--x", "a", "--y", "b",
                                                       "-o", svg, NULL});
    char *zero = test_write_file(dir, "zero.csv", "a,b\n1,2\n0,3\n2,-1\n");
    snprintf(want, sizeof want, "%s:3: --logx: column a is 0, not positive", zero);
    assert_refused(dir, 3, want, (const char *const[]){"plot", zero, "--x", "a", "--y", "b",
                                                       "--logx", "-o", svg, NULL});
    snprintf(want, sizeof want, "%s:4: --logy: column b is -1, not positive", zero);
    assert_refused(dir, 3, want, (const char *const[]){"plot", zero, "--x", "a", "--y", "b",
                                                       "--logy", "-o", svg, NULL});
    char *empty = test_write_file(dir, "empty.csv", "");
    snprintf(want, sizeof want, "%s: empty file: no header", empty);
    assert_refused(dir, 4, want, (const char *const[]){"plot", empty, "--x", "a", "--y", "b",
                                                       "-o", svg, NULL});
    char *quote = test_write_file(dir, "quote.csv", "a,b\n1,2\n\"3,4\n");
    snprintf(want, sizeof want, "%s:3: malformed CSV: a quote out of place or unclosed", quote);
    assert_refused(dir, 5, want, (const char *const[]){"plot", quote, "--x", "a", "--y", "b",
                                                       "-o", svg, NULL});
    char *table = test_write_file(dir, "table.svg", sweep);
    assert_refused(dir, 6, "is the same file as the input",
                   (const char *const[]){"plot", table, "--x", "nnz", "--y", "cycles", "-o",
                                         table, NULL});
    free(csv), free(svg), free(pdf), free(ragged), free(zero), free(empty), free(quote);
    free(table);
    test_tmpdir_remove(dir);
}

/* Runs samsim with PATH set to path (restored after). */
static void refused_with_path(const char *path, const char *dir, int ninputs, const char *want,
                              const char *const *argv)
{
    char *old = strdup(getenv("PATH") ? getenv("PATH") : "");
    assert_non_null(old);
    assert_int_equal(setenv("PATH", path, 1), 0);
    assert_refused(dir, ninputs, want, argv);
    assert_int_equal(setenv("PATH", old, 1), 0);
    free(old);
}

/* Without gnuplot, and with one that writes half a picture and fails, no
 * picture appears and one that was there stays. */
static void test_gnuplot_missing_or_failing(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), *csv = test_write_file(dir, "sweep.csv", sweep);
    char *svg = test_path(dir, "out.svg"), *bin = test_path(dir, "bin");
    const char *const argv[] = {"plot", csv, "--x", "dimension", "--y", "cycles", "-o", svg,
                                NULL};
    assert_int_equal(mkdir(bin, 0755), 0);
    refused_with_path(bin, dir, 2,
                      "samsim: plot: gnuplot not found (scripts/install-deps installs "
                      "gnuplot-nox)\n", argv);

    char *fake = test_write_file(bin, "gnuplot", "#!/bin/sh\ncat >/dev/null\necho '<svg'\n"
                                                 "echo '  plot $G0' >&2\n"
                                                 "echo '  line 9: broken' >&2\nexit 1\n");
    assert_int_equal(chmod(fake, 0755), 0);
    char *before = test_write_file(dir, "out.svg", "the old picture");
    char want[4200];
    snprintf(want, sizeof want, "%s: gnuplot failed (exit 1): line 9: broken", svg);
    refused_with_path(bin, dir, 3, want, argv);
    char *after = test_read_file(svg);
    assert_string_equal(after, "the old picture");
    free(csv), free(svg), free(bin), free(fake), free(before), free(after);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_per_group),
        cmocka_unit_test(test_bars_per_category),
        cmocka_unit_test(test_means),
        cmocka_unit_test(test_set_of_sweep_table),
        cmocka_unit_test(test_script),
        cmocka_unit_test(test_read_refusals),
        cmocka_unit_test(test_png),
        cmocka_unit_test(test_literal_text),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_gnuplot_missing_or_failing),
    };
    return cmocka_run_group_tests_name("plot", tests, NULL, NULL);
}
