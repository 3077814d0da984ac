/* The accelerator templates (templates/template.h): `samsim template`
 * writes each one's graphs and hardware, `samsim run DIR` runs them.
 * Every template passes --check on small random matrices under every
 * engine with the same cycles and traffic; parameters change the files
 * as documented; bad names and values are refused. The traffic worked by
 * hand is test_template_run's, which runs them in memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

/* A = B, 8x8, six entries: (0,0)=1 (0,5)=2 (3,1)=3 (5,5)=4 (6,2)=5
 * (7,7)=6. Z = A A has four: (0,0)=1 (0,5)=2+8 (5,5)=16 (7,7)=36. */
static const char hand_mtx[] = "%%MatrixMarket matrix coordinate real general\n8 8 6\n"
                               "1 1 1\n1 6 2\n4 2 3\n6 6 4\n7 3 5\n8 8 6\n";

static char *write_template(const char *dir, const char *name, const char *params)
{
    char *out = test_path(dir, name), *buf;
    const char *argv[TEST_MAX_ARGS] = {"template", name};
    int n = test_split_args(params, &buf, argv, 2);
    argv[n++] = "-o";
    argv[n++] = out;
    argv[n] = NULL;
    char *err = NULL;
    int rc = test_run_samsim_argv(NULL, &err, argv);
    if (rc)
        fail_msg("template %s %s: exit %d: %s", name, params, rc, err);
    free(err);
    free(buf);
    return out;
}

/* `samsim run tdir -t A=a -t B=a --check`; the summary, malloc'd. */
static char *run_template(const char *tdir, const char *a, const char *engine)
{
    char ta[4096], tb[4096];
    snprintf(ta, sizeof ta, "A=%s", a);
    snprintf(tb, sizeof tb, "B=%s", a);
    char *out = NULL, *err = NULL;
    int rc = test_run_samsim(&out, &err, "run", tdir, "-t", ta, "-t", tb, "--check", "--engine",
                             engine, NULL);
    if (rc || !strstr(out, "check: pass"))
        fail_msg("run %s (%s): exit %d: %s%s", tdir, engine, rc, out, err);
    free(err);
    return out;
}

/* Every line of a summary that the engine must not change. */
static void assert_same_summary(const char *a, const char *b, const char *what)
{
    static const char *const keys[] = {"cycles", "tokens", "traffic.A", "traffic.B", "traffic.Z",
                                       "traffic.PO", "traffic_min", "dram_bytes"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (test_summary(a, keys[i]) != test_summary(b, keys[i]))
            fail_msg("%s: %s differs between engines", what, keys[i]);
}

static const char *const engines[] = {"event", "step", "cycle"};

/* Parameters that make several tiles of a 48x48 matrix. */
static const char *const small[][2] = {
    {"extensor", "--param pe.tile=8 --param llb.tile.i=2 --param llb.tile.k=2 "
                 "--param llb.tile.j=3 --param pe.count=4"},
    {"outerspace", "--param a.per.pe=20 --param merge.rows=7 --param pt.count=2 "
                   "--param pe.per.pt=2"},
    {"gamma", "--param tile.entries=9 --param pe.count=3 --param merger.radix=4"},
    {"sigma", "--param k.tile=16 --param a.per.tile=60 --param lanes=4"},
};

static void test_check_every_engine(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    for (int seed = 1; seed <= 2; seed++) {
        char *a = test_gen_urandom(dir, "a.mtx", "48x48", seed == 1 ? "0.05" : "0.15", seed);
        for (size_t t = 0; t < sizeof small / sizeof small[0]; t++) {
            char *tdir = write_template(dir, small[t][0], small[t][1]);
            char *first = run_template(tdir, a, engines[0]);
            assert_true(test_summary(first, "cycles") > 0);
            for (size_t e = 1; e < sizeof engines / sizeof engines[0]; e++) {
                char *out = run_template(tdir, a, engines[e]);
                assert_same_summary(first, out, small[t][0]);
                free(out);
            }
            free(first);
            free(tdir);
        }
        free(a);
    }
    test_tmpdir_remove(dir);
}

/* The text of dir/file, which must hold want. */
static void assert_file_has(const char *dir, const char *file, const char *want)
{
    char *path = test_path(dir, file), *text = test_read_file(path);
    if (!text || !strstr(text, want))
        fail_msg("%s lacks '%s':\n%s", path, want, text ? text : "(missing)");
    free(text);
    free(path);
}

static void test_params_change_files(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *t = write_template(dir, "extensor", "--param pe.count=7 --param pe.tile=64");
    assert_file_has(t, "graph.hw", "pe.count = 7\n");
    assert_file_has(t, "graph.gv", "split(i0,i01,i00,64)");
    assert_file_has(t, "template.conf", "pe.tile = 64");
    free(t);
    t = write_template(dir, "gamma", "--param merger.radix=8 --param merger.rate=2 "
                                     "--param fibercache.capacity=1000000");
    assert_file_has(t, "graph.gv", "lanes=\"8\"");
    assert_file_has(t, "graph.gv", "rate=\"2\"");
    assert_file_has(t, "graph.hw", "llb.capacity = 1000000\n");
    free(t);
    t = write_template(dir, "outerspace", "--param a.per.pe=5 --param pt.count=4");
    assert_file_has(t, "multiply.gv", "split(k,k1,k0,A.5)");
    assert_file_has(t, "multiply.hw", "pe.count = 64\n");
    assert_file_has(t, "merge.hw", "pe.count = 32\n");
    assert_file_has(t, "template.conf", "phase = multiply\nphase = merge\n");
    free(t);
    t = write_template(dir, "sigma", "--param k.tile=32 --param clock.ghz=0.25");
    assert_file_has(t, "graph.gv", "split(k,k1,k0,32)");
    assert_file_has(t, "graph.hw", "clock.ghz = 0.25\n");
    free(t);
    test_tmpdir_remove(dir);
}

/* --stats writes a file per phase of OuterSPACE (FILE.PHASE.csv), which
 * samsim stats reads with the memories' utilisation and samsim render
 * draws each phase's graph by. */
static void test_stats_per_phase(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *a = test_gen_urandom(dir, "a.mtx", "30x30", "0.1", 4);
    char *t = write_template(dir, "outerspace", "--param a.per.pe=8");
    char *csv = test_path(dir, "s.csv"), ta[4096], tb[4096];
    snprintf(ta, sizeof ta, "A=%s", a);
    snprintf(tb, sizeof tb, "B=%s", a);
    assert_int_equal(test_run_samsim(NULL, NULL, "run", t, "-t", ta, "-t", tb, "--stats", csv,
                                     NULL), 0);
    assert_false(test_exists(csv));
    static const char *const phases[] = {"multiply", "merge"};
    for (int i = 0; i < 2; i++) {
        char name[64], gv[64], *out = NULL;
        snprintf(name, sizeof name, "s.%s.csv", phases[i]);
        snprintf(gv, sizeof gv, "%s.gv", phases[i]);
        char *path = test_path(dir, name), *graph = test_path(t, gv);
        char *svg = test_path(dir, "p.svg");
        assert_int_equal(test_run_samsim(&out, NULL, "stats", path, NULL), 0);
        assert_non_null(strstr(out, "peak%"));
        assert_non_null(strstr(out, "\n  dram "));
        assert_non_null(strstr(out, "\n  pe "));
        assert_int_equal(test_run_samsim(NULL, NULL, "render", graph, "--stats", path, "-o", svg,
                                         NULL), 0);
        assert_true(test_exists(svg));
        free(out), free(path), free(graph), free(svg);
    }
    free(csv), free(t), free(a);
    test_tmpdir_remove(dir);
}

/* Exit 1 and one line naming what is wrong. */
static void refused(const char *const *argv, const char *message)
{
    char *out = NULL, *err = NULL;
    int rc = test_run_samsim_argv(&out, &err, argv);
    if (rc != 1 || !strstr(err, message) || strchr(err, '\n') != err + strlen(err) - 1)
        fail_msg("%s %s: exit %d, stderr '%s' (want '%s')", argv[0], argv[1], rc, err, message);
    free(out);
    free(err);
}

static void test_refusals(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *out = test_path(dir, "t");
    const char *a[][10] = {
        {"template", "eyeriss", "-o", out, NULL},
        {"template", "gamma", "--param", "pes=4", "-o", out, NULL},
        {"template", "gamma", "--param", "pe.count=0", "-o", out, NULL},
        {"template", "gamma", "--param", "pe.count=2.5", "-o", out, NULL},
        {"template", "gamma", "--param", "merger.radix=64", "-o", out, NULL},
        {"template", "sigma", "--param", "clock.ghz=fast", "-o", out, NULL},
        {"template", "gamma", "--param", "pe.count=0x10", "-o", out, NULL},
        {"template", "outerspace", "--param", "pt.count=65", "--param", "pe.per.pt=64", "-o",
         out, NULL},
    };
    static const char *const why[] = {"no template 'eyeriss'", "no parameter 'pes'",
                                      "pe.count = 0 is not a whole number 1..4096 (PEs)",
                                      "pe.count = 2.5 is not a whole number",
                                      "merger.radix = 64 is not a whole number 1..32",
                                      "clock.ghz = fast is not a number",
                                      "pe.count = 0x10 is not a whole number 1..4096 (PEs)",
                                      "multiply.hw:8: pe.count = 4160 is not a whole number "
                                      "1..4096"};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        refused(a[i], why[i]);
    assert_false(test_exists(out));
    char *t = write_template(dir, "gamma", "");
    char *m = test_write_file(dir, "a.mtx", hand_mtx);
    char ta[4096], tb[4096], tc[4096];
    snprintf(ta, sizeof ta, "A=%s", m);
    snprintf(tb, sizeof tb, "B=%s", m);
    snprintf(tc, sizeof tc, "C=%s", m);
    const char *run_c[] = {"run", t, "-t", ta, "-t", tc, NULL};
    refused(run_c, "no phase of");
    const char *run_missing[] = {"run", t, "-t", ta, NULL};
    refused(run_missing, "tensor B is not bound (give -t B=FILE)");
    char *graph = test_path(t, "graph.gv");
    const char *run_over[] = {"run", t, "-t", ta, "-t", tb, "-o", graph, NULL};
    refused(run_over, "is the same file as the input the template");
    free(graph);
    const char *run_depth[] = {"run", t, "-t", ta, "--depth", "4", NULL};
    refused(run_depth, "not '--depth'");
    char *tall = test_write_file(dir, "tall.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                                  "9 8 1\n1 1 1\n");
    char tt[4096];
    snprintf(tt, sizeof tt, "B=%s", tall);
    const char *run_sizes[] = {"run", t, "-t", ta, "-t", tt, NULL};
    refused(run_sizes, "index");
    free(tall);
    free(m);
    free(t);
    free(out);
    test_tmpdir_remove(dir);
}

/* Every line of a summary is "key: value", each key once. */
static void assert_keys_once(const char *summary)
{
    char seen[64][64];
    int n = 0;
    for (const char *line = summary; *line; line = strchr(line, '\n') + 1) {
        const char *colon = strstr(line, ": "), *end = strchr(line, '\n');
        if (!end || !colon || colon > end || colon - line >= 64)
            fail_msg("not a summary line: %s", line);
        for (int i = 0; i < n; i++)
            if (!strncmp(seen[i], line, (size_t)(colon - line)) &&
                seen[i][colon - line] == '\0')
                fail_msg("key %s twice in:\n%s", seen[i], summary);
        assert_true(n < 64);
        snprintf(seen[n++], sizeof seen[0], "%.*s", (int)(colon - line), line);
    }
}

/* The text of path with `from` replaced by `to` (once), written back. */
static void edit_file(const char *path, const char *from, const char *to)
{
    char *text = test_read_file(path), *at = text ? strstr(text, from) : NULL;
    if (!at)
        fail_msg("%s lacks '%s'", path, from);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    fclose(f);
    free(text);
}

/* The line of path that `text` starts on. */
static int line_of(const char *path, const char *text)
{
    char *all = test_read_file(path), *at = strstr(all, text);
    assert_non_null(at);
    int line = 1;
    for (const char *p = all; p < at; p++)
        line += *p == '\n';
    free(all);
    return line;
}

/* Only the template's operands, the tensors no phase makes, may be
 * bound: the merge phase reads the multiply phase's T, never a file. A
 * phase is listed once and reads only what an earlier phase made. */
static void test_operands_only(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *m = test_write_file(dir, "a.mtx", hand_mtx), *z = test_path(dir, "z.mtx");
    char *os = write_template(dir, "outerspace", ""), *g = write_template(dir, "gamma", "");
    char ta[4096], tb[4096], tt[4096], tz[4096], want[4096];
    snprintf(ta, sizeof ta, "A=%s", m);
    snprintf(tb, sizeof tb, "B=%s", m);
    snprintf(tt, sizeof tt, "T=%s", m);
    snprintf(tz, sizeof tz, "Z=%s", m);
    const char *bind_t[] = {"run", os, "-t", ta, "-t", tb, "-t", tt, "-o", z, NULL};
    snprintf(want, sizeof want, "run: -t T: T is the multiply phase's result, not an operand "
             "of %s", os);
    refused(bind_t, want);
    const char *bind_z[] = {"run", g, "-t", ta, "-t", tb, "-t", tz, "-o", z, NULL};
    snprintf(want, sizeof want, "run: -t Z: Z is the graph phase's result, not an operand of %s",
             g);
    refused(bind_z, want);
    assert_false(test_exists(z));

    char *conf = test_path(g, "template.conf");
    edit_file(conf, "phase = graph\n", "phase = graph\nphase = graph\n");
    const char *twice[] = {"run", g, "-t", ta, "-t", tb, NULL};
    snprintf(want, sizeof want, "%s:%d: phase 'graph' is listed twice", conf,
             line_of(conf, "phase = graph\n") + 1);
    refused(twice, want);
    free(conf);

    conf = test_path(os, "template.conf");
    edit_file(conf, "phase = multiply\nphase = merge\n", "phase = merge\nphase = multiply\n");
    char *merge = test_path(os, "merge.gv");
    const char *order[] = {"run", os, "-t", ta, "-t", tb, NULL};
    snprintf(want, sizeof want, "%s: reads T, the result of the multiply phase, which does not "
             "run before it", merge);
    refused(order, want);
    free(merge), free(conf), free(os), free(g), free(z), free(m);
    test_tmpdir_remove(dir);
}

/* Every summary key appears once, however the phases' tensors are named:
 * a multiply phase whose result is named PO would give traffic.PO twice
 * (its traffic and the partial outputs'), which is refused. */
static void test_summary_keys_once(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *a = test_write_file(dir, "a.mtx", hand_mtx), ta[4096], tb[4096];
    snprintf(ta, sizeof ta, "A=%s", a);
    snprintf(tb, sizeof tb, "B=%s", a);
    for (size_t t = 0; t < sizeof small / sizeof small[0]; t++) {
        char *tdir = write_template(dir, small[t][0], small[t][1]);
        char *out = run_template(tdir, a, "event");
        assert_keys_once(out);
        free(out), free(tdir);
    }
    char *os = write_template(dir, "outerspace", "");
    free(test_compile_to(os, "multiply", "PO(i,k,j)=A(i,k)*B(k,j) -f=PO:dls -f=A:ss:1,0 "
                         "-f=B:ss -s=reorder(k,i,j) -s=split(k,k1,k0,A.16)"));
    free(test_compile_to(os, "merge", "Z(i,j)=PO(i,k,j) -f=Z:ss -f=PO:dss -s=reorder(i,k,j) "
                         "-s=split(i,i1,i0,32)"));
    /* T's byte widths go with it: PO's now, dss's levels in the merge. */
    char *hw = test_path(os, "multiply.hw");
    edit_file(hw, "bytes.T.crd", "bytes.PO.crd");
    edit_file(hw, "bytes.T.ref", "bytes.PO.ref");
    free(hw);
    hw = test_path(os, "merge.hw");
    edit_file(hw, "bytes.T.crd", "bytes.PO.crd");
    edit_file(hw, "bytes.T.ref", "bytes.PO.ref");
    free(hw);
    char *z = test_path(dir, "z.mtx"), want[4096];
    const char *po[] = {"run", os, "-t", ta, "-t", tb, "-o", z, NULL};
    snprintf(want, sizeof want, "run: %s: the summary would give traffic.PO twice", os);
    refused(po, want);
    assert_false(test_exists(z));
    free(z), free(os), free(a);
    test_tmpdir_remove(dir);
}

/* SIGMA's inner products write a sum for every pair of a row of A and a
 * column of B they meet, zeros included (A(0,0) B(1,1): the pair (0,1)
 * with nothing in common): the writes count in traffic.Z, but Z holds no
 * zero, as every template's Z: "2 2 0", no nonzeros. Bytes (SIGMA's
 * network carries values, 4 bytes each; coordinates and pointers cost
 * nothing): the zero written: 4; A once (its value: 4), B once (dense:
 * 2 x 2 positions, 16) and Z, empty, once (nothing): 20. */
static void test_zeros_not_entries(void **state)
{
    (void)state;
    static const char *const names[] = {"extensor", "outerspace", "gamma", "sigma"};
    char *dir = test_tmpdir();
    char *a = test_write_file(dir, "a.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "2 2 1\n1 1 1\n");
    char *b = test_write_file(dir, "b.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                            "2 2 1\n2 2 1\n");
    char *z = test_path(dir, "z.mtx"), ta[4096], tb[4096];
    snprintf(ta, sizeof ta, "A=%s", a);
    snprintf(tb, sizeof tb, "B=%s", b);
    for (size_t t = 0; t < sizeof names / sizeof names[0]; t++) {
        char *tdir = write_template(dir, names[t], ""), *out = NULL, *err = NULL;
        assert_int_equal(test_run_samsim(&out, &err, "run", tdir, "-t", ta, "-t", tb, "--check",
                                         "-o", z, NULL), 0);
        char *written = test_read_file(z);
        assert_non_null(strstr(written, "\n2 2 0\n"));
        assert_int_equal(test_summary(out, "zeros_written"), t == 3);
        if (t == 3) {
            assert_int_equal(test_summary(out, "traffic.Z"), 4);
            assert_int_equal(test_summary(out, "traffic_min"), 20);
        }
        free(written), free(out), free(err), free(tdir);
        assert_int_equal(unlink(z), 0);
    }
    free(z), free(a), free(b);
    test_tmpdir_remove(dir);
}

/* --stats of several phases: a file each, all written or none. Standard
 * output takes one phase's table, not several; a run that fails in a
 * later phase leaves no statistics (its error names the phase); an -o
 * that is a phase's statistics file is refused before anything runs. */
static void test_stats_all_or_none(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *a = test_write_file(dir, "a.mtx", hand_mtx), ta[4096], tb[4096], want[4096];
    snprintf(ta, sizeof ta, "A=%s", a);
    snprintf(tb, sizeof tb, "B=%s", a);
    char *os = write_template(dir, "outerspace", ""), *g = write_template(dir, "gamma", "");
    const char *to_stdout[] = {"run", os, "-t", ta, "-t", tb, "--stats", "-", NULL};
    snprintf(want, sizeof want, "run: --stats -: %s has 2 phases, each with its own statistics "
             "table; give --stats FILE.csv (FILE.multiply.csv, ...)", os);
    refused(to_stdout, want);
    assert_false(test_exists("-.multiply"));
    assert_false(test_exists("-.merge"));

    char *out = NULL, *err = NULL;
    assert_int_equal(test_run_samsim(&out, &err, "run", g, "-t", ta, "-t", tb, "--stats", "-",
                                     NULL), 0);
    assert_true(!strncmp(out, "\"row\",", 6));
    assert_null(strstr(out, "cycles:"));
    assert_true(test_summary(err, "cycles") > 0);
    free(out), free(err);

    char *csv = test_path(dir, "x.csv"), *mul = test_path(dir, "x.multiply.csv");
    char *mer = test_path(dir, "x.merge.csv"), *hw = test_path(os, "merge.hw");
    char *gv = test_path(os, "merge.gv");
    edit_file(hw, "pe.capacity = 1e15", "pe.capacity = 8");
    const char *late[] = {"run", os, "-t", ta, "-t", tb, "--stats", csv, NULL};
    snprintf(want, sizeof want, "%s: the merge phase: tile (i1=0) of T", gv);
    refused(late, want);
    assert_false(test_exists(mul));
    assert_false(test_exists(mer));
    edit_file(hw, "pe.capacity = 8", "pe.capacity = 1e15");

    const char *clash[] = {"run", os, "-t", ta, "-t", tb, "--stats", csv, "-o", mer, NULL};
    snprintf(want, sizeof want, "run: --stats '%s' is the same file as the output -o '%s'", mer,
             mer);
    refused(clash, want);
    assert_false(test_exists(mul));
    assert_false(test_exists(mer));
    free(gv), free(hw), free(mer), free(mul), free(csv), free(g), free(os), free(a);
    test_tmpdir_remove(dir);
}

/* What names no file is refused with one line naming the option: a number
 * for a template's operand (a plain graph's -t binds a scalar with one),
 * an empty -o or --stats. */
static void test_names_no_file(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *m = test_write_file(dir, "a.mtx", hand_mtx), tb[4096];
    char *g = write_template(dir, "gamma", "");
    snprintf(tb, sizeof tb, "B=%s", m);
    const char *number[] = {"run", g, "-t", "A=2", "-t", tb, NULL};
    refused(number, "run: -t A=2: a template's operands are tensor files, not numbers");
    const char *empty_o[] = {"template", "gamma", "-o", "", NULL};
    refused(empty_o, "template: -o needs a directory name, not an empty one");
    const char *run_o[] = {"run", g, "-t", tb, "-o", "", NULL};
    refused(run_o, "run: -o needs a file name, not an empty one");
    const char *run_stats[] = {"run", g, "--stats", "", NULL};
    refused(run_stats, "run: --stats needs a file name, not an empty one");
    free(g), free(m);
    test_tmpdir_remove(dir);
}

static void test_list(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(test_run_samsim(&out, NULL, "template", NULL), 0);
    assert_non_null(strstr(out, "extensor:"));
    assert_non_null(strstr(out, "outerspace:"));
    assert_non_null(strstr(out, "gamma:"));
    assert_non_null(strstr(out, "sigma:"));
    assert_non_null(strstr(out, "merger.radix"));
    free(out);
    assert_int_equal(test_run_samsim(&out, NULL, "template", "sigma", NULL), 0);
    assert_non_null(strstr(out, "a.per.tile"));
    assert_null(strstr(out, "merger.radix"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_every_engine),
        cmocka_unit_test(test_params_change_files), cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_list),               cmocka_unit_test(test_stats_per_phase),
        cmocka_unit_test(test_operands_only),      cmocka_unit_test(test_summary_keys_once),
        cmocka_unit_test(test_zeros_not_entries),  cmocka_unit_test(test_stats_all_or_none),
        cmocka_unit_test(test_names_no_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
